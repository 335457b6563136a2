/**
 * Provider Xyz's webhook verification in two phases: `verify` checks the HMAC signature over the raw body against
 * every secret given (several during a rotation), in constant time and with no upstream call, and only then reads
 * the payload; `events()` normalises it (events.ts). Every use of core's signature helpers is in this file
 * (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#webhook-verification).
 */
import {
  type AuthenticatedDelivery,
  hmacSha512Hex,
  parseJson,
  timingSafeIndexOf,
  type WebhookDelivery,
  WebhookVerificationError,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import { EVENT_NAMES, eventsOf, RAW_EVENT_NAMES } from './events.js';
import { eventSchema } from './wire.js';

/** TODO: the header the provider signs deliveries in (hex HMAC-SHA512 of the raw body, keyed with the secret). */
export const SIGNATURE_HEADER = 'x-provider-xyz-signature';

/** The signature of `body` under `secret`, as the provider computes it (TODO: its algorithm and encoding). */
export function signatureOf(secret: string, body: string | Uint8Array): Promise<string> {
  return hmacSha512Hex(secret, body);
}

/** The adapter's webhook definition: a secret is required (`setup()` refuses a missing one). */
export const webhooks = {
  rawEventNames: RAW_EVENT_NAMES,
  eventNames: EVENT_NAMES,
  secret: 'required' as const,
  verify,
};

/**
 * Verifies a delivery: the signature first (against each of `webhookSecrets`, constant-time), then the payload.
 * Resolves to its key (stable on redelivery), its events and which secret signed it; throws
 * `WebhookVerificationError` before anything else runs.
 */
export async function verify(
  delivery: WebhookDelivery,
  webhookSecrets: readonly string[],
): Promise<AuthenticatedDelivery> {
  if (webhookSecrets.length === 0)
    throw new WebhookVerificationError(
      'Pass the Provider Xyz webhook secret as webhooks.setup({ webhookSecret }).',
      {
        reason: 'missing_secret',
      },
    );
  const signature = delivery.headers[SIGNATURE_HEADER];
  if (!signature)
    throw new WebhookVerificationError(
      `The ${SIGNATURE_HEADER} header is missing: Provider Xyz did not send this.`,
      {
        reason: 'missing_signature',
      },
    );
  const expected = await Promise.all(webhookSecrets.map((secret) => signatureOf(secret, delivery.rawBody)));
  const secretIndex = timingSafeIndexOf(signature.trim().toLowerCase(), expected);
  if (secretIndex < 0)
    throw new WebhookVerificationError(
      `The ${SIGNATURE_HEADER} does not match the body: check the webhook secret and that the raw body is passed unchanged.`,
      { reason: 'invalid_signature' },
    );
  const payload = v.safeParse(eventSchema, parseJson(delivery.body));
  if (!payload.success)
    throw new WebhookVerificationError('The webhook body is not a Provider Xyz event.', {
      reason: 'malformed_payload',
    });
  const events = eventsOf(payload.output);
  return { key: payload.output.id, secretIndex, events: async () => events };
}
