/**
 * Provider Xyz's webhooks in two phases: `verify` checks the HMAC signature header over the raw body against every
 * secret given (several during a rotation) through core's `verifyHmacHeader`, in constant time and with no
 * upstream call, and only then reads the payload; its events come from the event table below. Every use of core's
 * signature helpers is in this file
 * (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#webhook-signatures).
 */
import {
  type AuthenticatedDelivery,
  type NormalisedEventName,
  type PayEvent,
  type PaymentStatus,
  parseJson,
  type SignatureScheme,
  verifyHmacHeader,
  type WebhookDelivery,
  WebhookVerificationError,
  webhookEvent,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import { PROVIDER } from './config.js';
import { toPayment } from './mapping.js';
import { eventSchema, type ProviderXyzEventPayload } from './wire.js';

/** TODO: the header the provider signs deliveries in. */
export const SIGNATURE_HEADER = 'x-provider-xyz-signature';

/**
 * How the provider signs (TODO: its algorithm, encoding, timestamp and signed content): the hex HMAC-SHA512 of the
 * raw body, keyed with the webhook secret, one signature, no timestamp.
 */
export const SIGNATURE_SCHEME = {
  header: SIGNATURE_HEADER,
  encoding: 'hex',
  algorithm: 'SHA-512',
  messages: {
    missingSecret: 'Pass the Provider Xyz webhook secret as webhooks.setup({ webhookSecret }).',
    missingSignature: `The ${SIGNATURE_HEADER} header is missing: Provider Xyz did not send this.`,
    mismatch: `The ${SIGNATURE_HEADER} does not match the body: check the webhook secret and that the raw body is passed unchanged.`,
  },
} as const satisfies SignatureScheme;

/** The event types the provider sends (TODO: every type of its webhook reference). */
export const EVENT_TYPES = [] as const satisfies readonly string[];

/** The raw event names `.on()` accepts: `providerXyz.<type>`. */
export const RAW_EVENT_NAMES = EVENT_TYPES.map((type) => `${PROVIDER}.${type}` as const);

/** The normalised event each unified payment status raises (a table, read with the status as key). */
const EVENT_OF_STATUS = {
  succeeded: 'payment.succeeded',
  failed: 'payment.failed',
  canceled: 'payment.failed',
  pending: 'payment.updated',
  processing: 'payment.updated',
  requires_action: 'payment.updated',
  requires_capture: 'payment.updated',
} as const satisfies Record<PaymentStatus, NormalisedEventName>;

/** The normalised events the adapter raises. */
export const EVENT_NAMES = ['payment.succeeded', 'payment.failed', 'payment.updated'] as const;

/**
 * The events of a verified payload: the normalised event of the payment's unified status, then the raw
 * `providerXyz.<type>`. Ids derive from the payload's event id, so a redelivery raises the same ids (and the
 * handler's deduplication skips it).
 */
export function eventsOfPayload(payload: ProviderXyzEventPayload, livemode: boolean): PayEvent[] {
  const payment = toPayment(payload.data, payload, { livemode, requestId: null });
  const created = Date.now();
  const event = { key: [payload.id], provider: PROVIDER, created };
  return [
    webhookEvent({ ...event, type: EVENT_OF_STATUS[payment.status], data: payment }),
    webhookEvent({ ...event, type: `${PROVIDER}.${payload.type}`, data: payload }),
  ];
}

/**
 * The adapter's webhook definition: a secret is required (`setup()` refuses a missing one). `verify` checks the
 * signature first, then the payload, and resolves to the delivery's key (stable on redelivery), its events and
 * which secret signed it; it throws `WebhookVerificationError` before anything else runs.
 */
export function createWebhooks({ livemode }: { livemode: boolean }) {
  return {
    rawEventNames: RAW_EVENT_NAMES,
    eventNames: EVENT_NAMES,
    secret: 'required' as const,
    async verify(
      delivery: WebhookDelivery,
      webhookSecrets: readonly string[],
    ): Promise<AuthenticatedDelivery> {
      const { secretIndex } = await verifyHmacHeader(delivery, webhookSecrets, SIGNATURE_SCHEME);
      const payload = v.safeParse(eventSchema, parseJson(delivery.body));
      if (!payload.success)
        throw new WebhookVerificationError('The webhook body is not a Provider Xyz event.', {
          reason: 'malformed_payload',
        });
      const events = eventsOfPayload(payload.output, livemode);
      return { key: payload.output.id, secretIndex, events: async () => events };
    },
  };
}
