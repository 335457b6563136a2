/**
 * Provider N webhooks (docs/architecture.md#authentication and docs/architecture.md#event-names, docs/providers/provider-n.md#webhooks): verify the `providerN-signature` HMAC-SHA512
 * of the raw body first, then normalise `{ eventType, eventData }` into unified events followed by the raw
 * `providerN.<eventType>` event.
 */
import {
  type AuthenticatedDelivery,
  hmacSha512Hex,
  type PayEvent,
  parseJson,
  type RefundStatus,
  sha256Hex,
  timingSafeIndexOf,
  type WebhookDefinition,
  type WebhookDelivery,
  WebhookVerificationError,
  webhookEvent,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import { type RecordFacts, toPayment, toRefund, toSubscription, transactionStatus } from './mapping.js';
import type { ProviderNEventName, ProviderNEventType, ProviderNRawEvents } from './types.js';
import {
  DEFAULT_CURRENCY,
  mandateEventSchema,
  type ProviderNMandateStatus,
  refundBodySchema,
  rejectedPaymentEventSchema,
  settlementEventSchema,
  transactionEventSchema,
  webhookBodySchema,
} from './wire.js';

/** The signature header, lower-cased as core hands headers over (the provider sends `providerN-signature`). */
export const SIGNATURE_HEADER = 'providern-signature';

/**
 * Every normalised event the table below raises (docs/providers/provider-n.md#events), for `.on()` registration
 * checks: no `payment.succeeded` (a received payment is `payment.created`) and no `invoice.generated`.
 */
export const EVENT_NAMES = [
  'payment.created',
  'payment.updated',
  'payment.failed',
  'refund.created',
  'subscription.created',
  'subscription.canceled',
  'subscription.updated',
] as const satisfies readonly ProviderNEventName[];

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

const PROVIDER = 'providerN';

/** What one event type normalises to: the unified events, before the raw one. */
type Normaliser = (eventData: Record<string, unknown>, delivery: DeliveryFacts) => PayEvent[];

/**
 * What every record of one delivery shares: `livemode` (`false` for a sandbox adapter, Provider N payloads carry
 * no test flag) and `requestId` (always `null`: Provider N has no status read to confirm a delivery with).
 */
interface DeliveryFacts extends RecordFacts {
  /** Verification time: Provider N's event times carry no time zone. */
  created: number;
}

/**
 * Event table (docs/architecture.md#event-names with the open rows decided in the wire contract (docs/providers/provider-n.md#events)), a `Map` so that an event type named like
 * an `Object.prototype` member (`constructor`, `__proto__`, `toString`) finds no row
 * (docs/architecture.md#events). Customer and disbursement events have no row: they raise only their raw event, as
 * does any event type the provider adds.
 */
const NORMALISERS = new Map<string, Normaliser>([
  ['SUCCESSFUL_TRANSACTION', (data, facts) => [successfulTransactionEvent(data, facts)]],
  ['SUCCESSFUL_TRANSACTION_OFFLINE', (data, facts) => [successfulTransactionEvent(data, facts)]],
  ['REJECTED_PAYMENT', (data, facts) => [rejectedPaymentEvent(data, facts)]],
  ['SETTLEMENT', settlementEvents],
  ['SUCCESSFUL_REFUND', (data, facts) => [refundEvent(data, facts, 'succeeded')]],
  ['FAILED_REFUND', (data, facts) => [refundEvent(data, facts, 'failed')]],
  ['MANDATE_UPDATE', mandateEvents],
] satisfies [ProviderNEventType, Normaliser][]);

type SubscriptionEventName = 'subscription.created' | 'subscription.canceled' | 'subscription.updated';

/** Which subscription event a mandate status raises (docs/providers/provider-n.md#events); any status not listed → `subscription.updated`. */
export const MANDATE_EVENT = {
  PENDING: 'subscription.created',
  ACTIVE: 'subscription.created',
  ACTIVATED: 'subscription.created',
  CANCELLED: 'subscription.canceled',
  FAILED: 'subscription.updated',
  EXPIRED: 'subscription.updated',
} as const satisfies Record<ProviderNMandateStatus, SubscriptionEventName>;

const MANDATE_EVENT_BY_STATUS = new Map<string, SubscriptionEventName>(Object.entries(MANDATE_EVENT));

/** Provider N's webhook definition, as `defineAdapter` takes it. */
export type ProviderNWebhookDefinition = WebhookDefinition & {
  rawEventNames: readonly (keyof ProviderNRawEvents)[];
  eventNames: readonly ProviderNEventName[];
};

/**
 * The webhook definition of one adapter: the secret is required (`setup()` refuses a missing one), and records
 * carry the adapter's `livemode`.
 */
export function providerNWebhooks(options: { livemode: boolean }): ProviderNWebhookDefinition {
  return {
    rawEventNames: RAW_EVENT_NAMES,
    eventNames: EVENT_NAMES,
    secret: 'required',
    verify: (delivery, webhookSecrets) => verifyProviderNWebhook(delivery, webhookSecrets, options),
  };
}

/**
 * Verifies the signature over the raw bytes, then reads and normalises the payload, all before any callback and
 * with no upstream call (Provider N has no status confirmation). Resolves to the delivery's key (for
 * deduplication), its events and which of `webhookSecrets` signed it; throws `WebhookVerificationError` on any
 * failure.
 */
export async function verifyProviderNWebhook(
  delivery: WebhookDelivery,
  webhookSecrets: readonly string[],
  options: { livemode: boolean },
): Promise<AuthenticatedDelivery> {
  const secretIndex = await verifySignature(delivery, webhookSecrets);
  const body = v.safeParse(webhookBodySchema, parseJson(delivery.body));
  if (!body.success)
    throw malformed('The webhook body is not a Provider N event ({ eventType, eventData }).');
  const { eventType, eventData } = body.output;
  const facts: DeliveryFacts = { created: Date.now(), livemode: options.livemode, requestId: null };
  const events = NORMALISERS.get(eventType)?.(eventData, facts) ?? [];
  const status = firstText(eventData, STATUS_FIELDS);
  const reference = firstText(eventData, REFERENCE_FIELDS) ?? `sha256-${await sha256Hex(delivery.rawBody)}`;
  const rawKey = [reference, ...(status ? [status] : [])];
  events.push(
    webhookEvent({
      key: rawKey,
      type: `${PROVIDER}.${eventType}`,
      provider: PROVIDER,
      data: eventData,
      created: facts.created,
    }),
  );
  // The event type is part of the key: a SUCCESSFUL_REFUND and a FAILED_REFUND of one refund are two pushes.
  return { key: [eventType, ...rawKey].join(':'), events: async () => events, secretIndex };
}

/**
 * The index of the secret whose HMAC is the `providerN-signature`: every secret's HMAC is computed and compared
 * in constant time (two while the secret key is rotated: docs/providers/provider-n.md#webhooks).
 */
async function verifySignature(
  delivery: WebhookDelivery,
  webhookSecrets: readonly string[],
): Promise<number> {
  if (webhookSecrets.length === 0) {
    throw new WebhookVerificationError(
      'Provider N webhooks are signed with your secret key: pass it as webhooks.setup({ webhookSecret }) (the same value as secretKey / PROVIDER_N_SECRET_KEY).',
      { reason: 'missing_secret' },
    );
  }
  const signature = delivery.headers[SIGNATURE_HEADER];
  if (!signature) {
    throw new WebhookVerificationError(
      'The providerN-signature header is missing: this request was not sent by Provider N.',
      { reason: 'missing_signature' },
    );
  }
  const expected = await Promise.all(
    webhookSecrets.map((webhookSecret) => hmacSha512Hex(webhookSecret, delivery.rawBody)),
  );
  const secretIndex = timingSafeIndexOf(signature.trim().toLowerCase(), expected);
  if (secretIndex < 0) {
    throw new WebhookVerificationError(
      'The providerN-signature does not match the body: check that webhookSecret is your Provider N secret key (secretKey, PROVIDER_N_SECRET_KEY; during a rotation both the new and the old one) and that the raw body is passed unchanged.',
      { reason: 'invalid_signature' },
    );
  }
  return secretIndex;
}

function malformed(message: string): WebhookVerificationError {
  return new WebhookVerificationError(message, { reason: 'malformed_payload' });
}

/** Parses `eventData` of a known kind; a payload that lacks what the mapping reads is refused. */
function read<S extends v.GenericSchema>(
  schema: S,
  data: Record<string, unknown>,
  what: string,
): v.InferOutput<S> {
  const result = v.safeParse(schema, data);
  if (!result.success)
    throw malformed(
      `The ${what} webhook payload lacks fields the mapping reads (${fieldsOf(result.issues)}).`,
    );
  return result.output;
}

function fieldsOf(issues: readonly v.BaseIssue<unknown>[]): string {
  const paths = issues.map(
    (issue) =>
      // A check over several fields (the amount asked under any of its spellings) has no path: its message names them.
      (issue.path ?? []).map((item) => String((item as { key: unknown }).key)).join('.') || issue.message,
  );
  return [...new Set(paths)].join(', ');
}

/**
 * The fields of the payload's own reference, which event ids derive from, in order (a refund names its
 * transaction too, so the refund's reference comes first). A payload without any (customer and disbursement
 * events are not specified) is keyed by a digest of its body: identical on redelivery, distinct for distinct
 * payloads.
 */
const REFERENCE_FIELDS = [
  'refundReference',
  'settlementReference',
  'mandateCode',
  'transactionReference',
  'reference',
  'customerCode',
] as const;

/** The status the payload reports, under whichever of its names the event type uses. */
const STATUS_FIELDS = ['paymentStatus', 'refundStatus', 'mandateStatus', 'status'] as const;

/** The first of `fields` that the payload itself carries as non-empty text. */
function firstText(data: Record<string, unknown>, fields: readonly string[]): string | undefined {
  for (const field of fields) {
    const value = Object.hasOwn(data, field) ? data[field] : undefined;
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * SUCCESSFUL_TRANSACTION(_OFFLINE) → `payment.created` (the spec's name). The record says what the provider
 * reports: `status` from `paymentStatus` (a partial payment is `processing`, not `succeeded`), `amount` the amount
 * asked, `amount_paid` what was paid (docs/architecture.md#records).
 */
function successfulTransactionEvent(data: Record<string, unknown>, facts: DeliveryFacts): PayEvent {
  const transaction = read(transactionEventSchema, data, 'transaction');
  const status = transactionStatus(transaction);
  return webhookEvent({
    key: [transaction.transactionReference, transaction.paymentStatus ?? status],
    type: 'payment.created',
    provider: PROVIDER,
    created: facts.created,
    data: toPayment(transaction, { ...facts, status }, data),
  });
}

/**
 * REJECTED_PAYMENT → `payment.failed`: the provider refused what the payer sent (for example an under-payment)
 * and returns it, so `status` is `failed` and `amount_paid` 0; what was sent and why it was rejected are in
 * `metadata.rejectedAmount` and `metadata.rejectionReason`.
 */
function rejectedPaymentEvent(data: Record<string, unknown>, facts: DeliveryFacts): PayEvent {
  const rejected = read(rejectedPaymentEventSchema, data, 'REJECTED_PAYMENT');
  const metadata: Record<string, string> = {
    ...(rejected.rejectionReason ? { rejectionReason: rejected.rejectionReason } : {}),
    ...(rejected.rejectedAmounts.length > 0 ? { rejectedAmount: rejected.rejectedAmounts.join(',') } : {}),
  };
  return webhookEvent({
    key: [rejected.transactionReference, rejected.paymentStatus ?? 'failed'],
    type: 'payment.failed',
    provider: PROVIDER,
    created: facts.created,
    data: toPayment(rejected, { ...facts, status: 'failed', amountPaid: 0, metadata }, data),
  });
}

/** SETTLEMENT → one `payment.updated` per settled transaction, in payload order. */
function settlementEvents(data: Record<string, unknown>, facts: DeliveryFacts): PayEvent[] {
  const settlement = read(settlementEventSchema, data, 'SETTLEMENT');
  return settlement.transactions.map((transaction, index) =>
    webhookEvent({
      key: [settlement.settlementReference, index],
      type: 'payment.updated',
      provider: PROVIDER,
      created: facts.created,
      data: toPayment(
        { ...transaction, currency: transaction.currency ?? settlement.currency ?? DEFAULT_CURRENCY },
        {
          ...facts,
          status: transactionStatus(transaction),
          metadata: { settlementReference: settlement.settlementReference },
        },
        data,
      ),
    }),
  );
}

/** SUCCESSFUL_REFUND / FAILED_REFUND → `refund.created`, told apart by `data.status` (docs/providers/provider-n.md#events). */
function refundEvent(data: Record<string, unknown>, facts: DeliveryFacts, status: RefundStatus): PayEvent {
  const refund = read(refundBodySchema, data, 'refund');
  const currency =
    Object.hasOwn(data, 'currency') && typeof data.currency === 'string'
      ? data.currency.toUpperCase()
      : DEFAULT_CURRENCY;
  return webhookEvent({
    key: [refund.refundReference, refund.refundStatus ?? status],
    type: 'refund.created',
    provider: PROVIDER,
    created: facts.created,
    data: toRefund(refund, { ...facts, currency, status }, data),
  });
}

/** MANDATE_UPDATE → a subscription event chosen by the mandate status (any status not listed: `updated`). */
function mandateEvents(data: Record<string, unknown>, facts: DeliveryFacts): PayEvent[] {
  const mandate = read(mandateEventSchema, data, 'MANDATE_UPDATE');
  return [
    webhookEvent({
      key: [mandate.mandateCode, mandate.mandateStatus],
      type: MANDATE_EVENT_BY_STATUS.get(mandate.mandateStatus) ?? 'subscription.updated',
      provider: PROVIDER,
      created: facts.created,
      data: toSubscription(mandate, facts.livemode, data),
    }),
  ];
}
