/**
 * Provider N webhooks (spec §5 and §6, wire contract "Webhooks"): verify the `providerN-signature` HMAC-SHA512
 * of the raw body first, then normalise `{ eventType, eventData }` into unified events followed by the raw
 * `providerN.<eventType>` event.
 */
import {
  hmacSha512Hex,
  type PayEvent,
  type PaymentStatus,
  parseJson,
  type RefundStatus,
  sha256Hex,
  timingSafeEqual,
  type WebhookDefinition,
  type WebhookDelivery,
  WebhookVerificationError,
  webhookEvent,
} from '@pay/core';
import * as v from '@pay/core/schema';
import {
  DEFAULT_CURRENCY,
  PAYMENT_STATUS,
  toPayment,
  toRefund,
  toSettledPayment,
  toSubscription,
} from './mapping.js';
import {
  mandateEventSchema,
  type ProviderNMandateEventData,
  type ProviderNMandateStatus,
  type ProviderNOtherEventData,
  type ProviderNPaymentStatus,
  type ProviderNRefundEventData,
  type ProviderNSettlementEventData,
  type ProviderNTransactionEventData,
  refundBodySchema,
  settlementEventSchema,
  transactionEventSchema,
  webhookBodySchema,
} from './wire.js';

/** The signature header, lower-cased as core hands headers over (the provider sends `providerN-signature`). */
export const SIGNATURE_HEADER = 'providern-signature';

/** Raw events and the `eventData` each carries. */
export type ProviderNRawEvents = {
  'providerN.SUCCESSFUL_TRANSACTION': ProviderNTransactionEventData;
  'providerN.SUCCESSFUL_TRANSACTION_OFFLINE': ProviderNTransactionEventData;
  'providerN.REJECTED_PAYMENT': ProviderNTransactionEventData;
  'providerN.SETTLEMENT': ProviderNSettlementEventData;
  'providerN.SUCCESSFUL_REFUND': ProviderNRefundEventData;
  'providerN.FAILED_REFUND': ProviderNRefundEventData;
  'providerN.MANDATE_UPDATE': ProviderNMandateEventData;
  'providerN.CUSTOMER_CREATED': ProviderNOtherEventData;
  'providerN.CUSTOMER_UPDATED': ProviderNOtherEventData;
  'providerN.CUSTOMER_DELETED': ProviderNOtherEventData;
  'providerN.SUCCESSFUL_DISBURSEMENT': ProviderNOtherEventData;
  'providerN.FAILED_DISBURSEMENT': ProviderNOtherEventData;
  'providerN.REVERSED_DISBURSEMENT': ProviderNOtherEventData;
};

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

/** A Provider N event type (`SUCCESSFUL_TRANSACTION`, …). */
export type ProviderNEventType = keyof ProviderNRawEvents extends `providerN.${infer T}` ? T : never;

const PROVIDER = 'providerN';

/** What one event type normalises to: the unified events, before the raw one. */
type Normaliser = (eventData: Record<string, unknown>, created: number) => PayEvent[];

/**
 * Event table (spec §6 with the open rows decided in the wire contract). Customer and disbursement events have
 * no row: they raise only their raw event, as does any event type the provider adds later.
 */
const NORMALISERS: Partial<Record<ProviderNEventType, Normaliser>> = {
  SUCCESSFUL_TRANSACTION: (data, created) => [
    transactionEvent('payment.created', data, created, reportedStatus),
  ],
  SUCCESSFUL_TRANSACTION_OFFLINE: (data, created) => [
    transactionEvent('payment.created', data, created, reportedStatus),
  ],
  REJECTED_PAYMENT: (data, created) => [transactionEvent('payment.failed', data, created, rejectedStatus)],
  SETTLEMENT: settlementEvents,
  SUCCESSFUL_REFUND: (data, created) => [refundEvent(data, created, 'succeeded')],
  FAILED_REFUND: (data, created) => [refundEvent(data, created, 'failed')],
  MANDATE_UPDATE: mandateEvents,
};

/** Which subscription event a mandate status raises (wire contract). */
const MANDATE_EVENT = {
  PENDING: 'subscription.created',
  ACTIVE: 'subscription.created',
  ACTIVATED: 'subscription.created',
  CANCELLED: 'subscription.canceled',
  FAILED: 'subscription.updated',
  EXPIRED: 'subscription.updated',
} as const satisfies Record<
  ProviderNMandateStatus,
  'subscription.created' | 'subscription.canceled' | 'subscription.updated'
>;

/** The webhook definition `defineAdapter` takes: the secret is required, `setup()` refuses a missing one. */
export const providerNWebhooks: WebhookDefinition & { rawEventNames: readonly (keyof ProviderNRawEvents)[] } =
  {
    rawEventNames: RAW_EVENT_NAMES,
    secret: 'required',
    verify: verifyProviderNWebhook,
  };

/** Verifies the signature over the raw bytes, then reads and normalises the payload. */
export async function verifyProviderNWebhook(
  delivery: WebhookDelivery,
  webhookSecret: string | null,
): Promise<PayEvent[]> {
  await verifySignature(delivery, webhookSecret);
  const body = v.safeParse(webhookBodySchema, parseJson(delivery.body));
  if (!body.success)
    throw malformed('The webhook body is not a Provider N event ({ eventType, eventData }).');
  const { eventType, eventData } = body.output;
  // Provider N's event times carry no time zone, so `created` is when the delivery was verified.
  const created = Date.now();
  const normalise = NORMALISERS[eventType as ProviderNEventType];
  const events = normalise ? normalise(eventData, created) : [];
  const status = statusOf(eventData);
  const key = [await referenceOf(eventData, delivery.rawBody), ...(status ? [status] : [])];
  events.push(
    webhookEvent({ key, type: `${PROVIDER}.${eventType}`, provider: PROVIDER, data: eventData, created }),
  );
  return events;
}

async function verifySignature(delivery: WebhookDelivery, webhookSecret: string | null): Promise<void> {
  if (!webhookSecret) {
    throw new WebhookVerificationError(
      'Provider N webhooks are signed: pass the webhook signing secret as webhooks.setup({ webhookSecret }).',
      {
        reason: 'missing_secret',
      },
    );
  }
  const signature = delivery.headers[SIGNATURE_HEADER];
  if (!signature) {
    throw new WebhookVerificationError(
      'The providerN-signature header is missing: this request was not sent by Provider N.',
      {
        reason: 'missing_signature',
      },
    );
  }
  const expected = await hmacSha512Hex(webhookSecret, delivery.rawBody);
  if (!timingSafeEqual(expected, signature.trim().toLowerCase())) {
    throw new WebhookVerificationError(
      'The providerN-signature does not match the body: check that webhookSecret is the webhook signing secret from the dashboard and that the raw body is passed unchanged.',
      { reason: 'invalid_signature' },
    );
  }
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
      (issue.path ?? []).map((item) => String((item as { key: unknown }).key)).join('.') || '(eventData)',
  );
  return [...new Set(paths)].join(', ');
}

/**
 * The payload's own reference, which event ids derive from (a refund names its transaction too, so the refund's
 * reference is looked up first). A payload without any known reference (customer and disbursement events are
 * not specified) is keyed by a digest of its body: identical on redelivery, distinct for distinct payloads.
 */
async function referenceOf(data: Record<string, unknown>, rawBody: Uint8Array): Promise<string> {
  for (const field of REFERENCE_FIELDS) {
    const value = data[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return `sha256-${await sha256Hex(rawBody)}`;
}

const REFERENCE_FIELDS = [
  'refundReference',
  'settlementReference',
  'mandateCode',
  'transactionReference',
  'reference',
  'customerCode',
] as const;

function statusOf(data: Record<string, unknown>): string | undefined {
  for (const field of ['paymentStatus', 'refundStatus', 'mandateStatus', 'status']) {
    if (typeof data[field] === 'string') return data[field];
  }
  return undefined;
}

/** A successful transaction's status: the table's reading of `paymentStatus`, `succeeded` when it is unknown. */
function reportedStatus(paymentStatus: string | null | undefined): PaymentStatus {
  return paymentStatus && paymentStatus in PAYMENT_STATUS
    ? PAYMENT_STATUS[paymentStatus as ProviderNPaymentStatus]
    : 'succeeded';
}

/** A rejected payment failed, whatever `paymentStatus` it carries. */
function rejectedStatus(): PaymentStatus {
  return 'failed';
}

/** A transaction event → Payment event, its status read by `statusFor` (the event type decides how). */
function transactionEvent(
  type: 'payment.created' | 'payment.failed',
  data: Record<string, unknown>,
  created: number,
  statusFor: (paymentStatus: string | null | undefined) => PaymentStatus,
): PayEvent {
  const transaction = read(transactionEventSchema, data, 'transaction');
  const status = statusFor(transaction.paymentStatus);
  return webhookEvent({
    key: [transaction.transactionReference, transaction.paymentStatus ?? status],
    type,
    provider: PROVIDER,
    created,
    data: toPayment(transaction, status, data),
  });
}

/** SETTLEMENT → one `payment.updated` per settled transaction, in payload order. */
function settlementEvents(data: Record<string, unknown>, created: number): PayEvent[] {
  const settlement = read(settlementEventSchema, data, 'SETTLEMENT');
  return settlement.transactions.map((transaction, index) =>
    webhookEvent({
      key: [settlement.settlementReference, index],
      type: 'payment.updated',
      provider: PROVIDER,
      created,
      data: toSettledPayment(transaction, settlement, data),
    }),
  );
}

/** SUCCESSFUL_REFUND / FAILED_REFUND → `refund.created`, told apart by `data.status` (wire contract). */
function refundEvent(data: Record<string, unknown>, created: number, status: RefundStatus): PayEvent {
  const refund = read(refundBodySchema, data, 'refund');
  const currency = typeof data.currency === 'string' ? data.currency.toUpperCase() : DEFAULT_CURRENCY;
  return webhookEvent({
    key: [refund.refundReference, refund.refundStatus ?? status],
    type: 'refund.created',
    provider: PROVIDER,
    created,
    data: toRefund(refund, { currency, status }, data),
  });
}

/** MANDATE_UPDATE → a subscription event chosen by the mandate status. */
function mandateEvents(data: Record<string, unknown>, created: number): PayEvent[] {
  const mandate = read(mandateEventSchema, data, 'MANDATE_UPDATE');
  return [
    webhookEvent({
      key: [mandate.mandateCode, mandate.mandateStatus],
      type: MANDATE_EVENT[mandate.mandateStatus],
      provider: PROVIDER,
      created,
      data: toSubscription(mandate, data),
    }),
  ];
}
