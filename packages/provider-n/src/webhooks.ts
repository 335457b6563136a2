/**
 * Provider N webhooks (docs/architecture.md#authentication, docs/providers/provider-n.md#webhooks): verify the
 * `providerN-signature` HMAC-SHA512 of the raw body first, then normalise `{ eventType, eventData }` into unified
 * events (events.ts) followed by the raw `providerN.<eventType>` event.
 */
import {
  type AdapterDefinition,
  parseJson,
  type SignatureScheme,
  sha256Hex,
  verifyHmacHeader,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import { PROVIDER } from './config.js';
import { type DeliveryFacts, event, malformed, NORMALISERS } from './events.js';
import { EVENT_NAMES, type ProviderNRawEvents, type ProviderNTypes } from './types.js';
import { webhookBodySchema } from './wire-events.js';

/** The signature header, lower-cased as core hands headers over (the provider sends `providerN-signature`). */
export const SIGNATURE_HEADER = 'providern-signature';

/**
 * How Provider N signs (docs/providers/provider-n.md#webhooks): `providerN-signature` is the hex HMAC-SHA512 of
 * the raw body keyed with the merchant's secret key, one signature, no timestamp.
 */
export const SIGNATURE_SCHEME = {
  algorithm: 'SHA-512',
  header: SIGNATURE_HEADER,
  encoding: 'hex',
  messages: {
    missingSecret:
      'Provider N webhooks are signed with your secret key: pass it as webhooks.setup({ webhookSecret }) (the same value as secretKey / PROVIDER_N_SECRET_KEY).',
    missingSignature: 'The providerN-signature header is missing: this request was not sent by Provider N.',
    mismatch:
      'The providerN-signature does not match the body: check that webhookSecret is your Provider N secret key (secretKey, PROVIDER_N_SECRET_KEY; during a rotation both the new and the old one) and that the raw body is passed unchanged.',
  },
} as const satisfies SignatureScheme;

/** Every raw event name, for `.on()` registration checks. */
export const RAW_EVENT_NAMES = [
  'providerN.SUCCESSFUL_TRANSACTION',
  'providerN.SUCCESSFUL_TRANSACTION_OFFLINE',
  'providerN.REJECTED_PAYMENT',
  'providerN.SETTLEMENT',
  'providerN.SUCCESSFUL_REFUND',
  'providerN.FAILED_REFUND',
  'providerN.MANDATE_UPDATE',
  'providerN.CUSTOMER_CREATED',
  'providerN.CUSTOMER_UPDATED',
  'providerN.CUSTOMER_DELETED',
  'providerN.SUCCESSFUL_DISBURSEMENT',
  'providerN.FAILED_DISBURSEMENT',
  'providerN.REVERSED_DISBURSEMENT',
] as const satisfies readonly (keyof ProviderNRawEvents)[];

/**
 * The fields of the payload's own reference, which event ids derive from, in order (a refund names its transaction
 * too). A payload without any is keyed by a digest of its body.
 */
const REFERENCE_FIELDS = [
  'refundReference',
  'settlementReference',
  'mandateCode',
  'transactionReference',
  'reference',
  'customerCode',
];

/** The status the payload reports, under whichever of its names the event type uses. */
const STATUS_FIELDS = ['paymentStatus', 'refundStatus', 'mandateStatus', 'status'];

/** The first of `fields` that the payload itself carries as non-empty text. */
function firstText(data: Record<string, unknown>, fields: readonly string[]): string | undefined {
  for (const field of fields) {
    const value = Object.hasOwn(data, field) ? data[field] : undefined;
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** The webhook definition of one adapter: the secret is required, and records carry the adapter's `livemode`. */
export function createWebhooks(options: {
  livemode: boolean;
}): AdapterDefinition<ProviderNTypes>['webhooks'] {
  return {
    rawEventNames: RAW_EVENT_NAMES,
    eventNames: EVENT_NAMES,
    secret: 'required',
    /**
     * Verifies the signature over the raw bytes, then reads and normalises the payload, before any callback and
     * with no upstream call. Throws `WebhookVerificationError` on any failure.
     */
    async verify(delivery, webhookSecrets) {
      // Every secret's HMAC is compared, in constant time (two while the secret key is rotated).
      const { secretIndex } = await verifyHmacHeader(delivery, webhookSecrets, SIGNATURE_SCHEME);
      const body = v.safeParse(webhookBodySchema, parseJson(delivery.body));
      if (!body.success)
        throw malformed('The webhook body is not a Provider N event ({ eventType, eventData }).');
      const { eventType, eventData } = body.output;
      const facts: DeliveryFacts = { created: Date.now(), livemode: options.livemode, requestId: null };
      const events = NORMALISERS.get(eventType)?.(eventData, facts) ?? [];
      const status = firstText(eventData, STATUS_FIELDS);
      const reference =
        firstText(eventData, REFERENCE_FIELDS) ?? `sha256-${await sha256Hex(delivery.rawBody)}`;
      const rawKey = [reference, ...(status ? [status] : [])];
      events.push(event(facts, `${PROVIDER}.${eventType}`, rawKey, eventData));
      // The event type is part of the key: a SUCCESSFUL_REFUND and a FAILED_REFUND of one refund are two pushes.
      return { key: [eventType, ...rawKey].join(':'), events: async () => events, secretIndex };
    },
  };
}
