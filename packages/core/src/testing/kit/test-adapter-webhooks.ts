/**
 * The test adapter's webhooks: each status change becomes one signed delivery (an HMAC-SHA512 of the exact body
 * in `pay-test-signature`, the way Provider N signs), shaped as `handle()` takes it, and a two-phase `verify`
 * that a `createPay(...).webhooks` handler runs like any adapter's: signature first, then the payload, then
 * the events (no upstream read: the payload carries the record).
 */

import { hmacSha512Hex, timingSafeIndexOf } from '../../crypto.js';
import type { ProviderName } from '../../records.js';
import { WebhookVerificationError } from '../../webhooks/errors.js';
import {
  NORMALISED_EVENT_NAMES,
  type NormalisedEventName,
  type NormalisedEvents,
  type WebhookDefinition,
  webhookEvent,
} from '../../webhooks/types.js';

/** The header carrying the signature of a test delivery. */
export const TEST_SIGNATURE_HEADER = 'pay-test-signature';

/** The body of a test delivery. */
export interface TestWebhookPayload<E extends NormalisedEventName = NormalisedEventName> {
  /** Unique per change, identical on redelivery: the deduplication key. */
  id: string;
  type: E;
  /** Epoch ms of the change. */
  created: number;
  data: NormalisedEvents[E];
}

/** A signed delivery, ready for `handler.handle(delivery)`. */
export interface TestWebhookDelivery {
  /** The event id of the payload (`evt_test_000001`). */
  id: string;
  type: NormalisedEventName;
  body: string;
  headersAsObject: Record<string, string>;
  fullUrl: string;
}

/** Signs a test delivery body with `webhookSecret` (hex HMAC-SHA512 of the exact body). */
export function signTestWebhook(body: string | Uint8Array, webhookSecret: string): Promise<string> {
  return hmacSha512Hex(webhookSecret, body);
}

/** A signed delivery of `payload`. */
export async function testWebhookDelivery(
  payload: TestWebhookPayload,
  webhookSecret: string,
  fullUrl: string,
): Promise<TestWebhookDelivery> {
  const body = JSON.stringify(payload);
  return {
    id: payload.id,
    type: payload.type,
    body,
    headersAsObject: {
      'content-type': 'application/json',
      [TEST_SIGNATURE_HEADER]: await signTestWebhook(body, webhookSecret),
    },
    fullUrl,
  };
}

/** Whether `value` is a test payload (an id, a known event type, a numeric time and an object of data). */
function isTestPayload(value: unknown): value is TestWebhookPayload {
  if (value === null || typeof value !== 'object') return false;
  const payload = value as Record<string, unknown>;
  return (
    typeof payload.id === 'string' &&
    payload.id !== '' &&
    typeof payload.type === 'string' &&
    (NORMALISED_EVENT_NAMES as readonly string[]).includes(payload.type) &&
    typeof payload.created === 'number' &&
    payload.data !== null &&
    typeof payload.data === 'object'
  );
}

/** The test adapter's webhook definition for `provider`. */
export function testWebhookDefinition(provider: ProviderName): WebhookDefinition & { rawEventNames: [] } {
  return {
    rawEventNames: [],
    secret: 'required',
    async verify(delivery, webhookSecrets) {
      const signature = delivery.headers[TEST_SIGNATURE_HEADER];
      if (!signature) {
        throw new WebhookVerificationError(`The test webhook has no ${TEST_SIGNATURE_HEADER} header.`, {
          reason: 'missing_signature',
        });
      }
      const expected = await Promise.all(
        webhookSecrets.map((webhookSecret) => signTestWebhook(delivery.rawBody, webhookSecret)),
      );
      const secretIndex = timingSafeIndexOf(signature, expected);
      if (secretIndex < 0) {
        throw new WebhookVerificationError(
          'The test webhook signature does not match: pass the raw body and the test adapter webhookSecret.',
          { reason: 'invalid_signature' },
        );
      }
      let payload: unknown;
      try {
        payload = JSON.parse(delivery.body);
      } catch (cause) {
        throw new WebhookVerificationError('The test webhook body is not JSON.', {
          reason: 'malformed_payload',
          cause,
        });
      }
      if (!isTestPayload(payload)) {
        throw new WebhookVerificationError('The test webhook payload is malformed.', {
          reason: 'malformed_payload',
        });
      }
      const event = webhookEvent({
        key: [payload.id],
        type: payload.type,
        provider,
        data: payload.data,
        created: payload.created,
        is_raw: false,
      });
      return { key: payload.id, events: async () => [event], secretIndex };
    },
  };
}
