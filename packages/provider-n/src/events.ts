/**
 * Provider N webhook payloads → unified events (docs/providers/provider-n.md#events): one normaliser per event
 * type, run by webhooks.ts once the signature is verified.
 */
import { type PayEvent, type RefundStatus, WebhookVerificationError, webhookEvent } from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import { PROVIDER } from './config.js';
import {
  type ProviderNMandateStatus,
  type RecordFacts,
  toPayment,
  toRefund,
  toSubscription,
  transactionStatus,
} from './mapping.js';
import type { ProviderNEventName, ProviderNEventType } from './types.js';
import { DEFAULT_CURRENCY, refundBodySchema } from './wire.js';
import {
  mandateEventSchema,
  rejectedPaymentEventSchema,
  settlementEventSchema,
  transactionEventSchema,
} from './wire-events.js';

/** What one event type normalises to: the unified events, before the raw one. */
type Normaliser = (eventData: Record<string, unknown>, delivery: DeliveryFacts) => PayEvent[];

/**
 * What every record of one delivery shares: `livemode`, `requestId` (always `null`: Provider N has no status read
 * to confirm a delivery with) and `created`, the verification time (Provider N's event times carry no time zone).
 */
export interface DeliveryFacts extends RecordFacts {
  created: number;
}

/**
 * Event table, a `Map` so that an event type named like an `Object.prototype` member finds no row
 * (docs/architecture.md#events). Other event types raise only their raw event.
 */
export const NORMALISERS = new Map<string, Normaliser>([
  ['SUCCESSFUL_TRANSACTION', (data, facts) => [successfulTransactionEvent(data, facts)]],
  ['SUCCESSFUL_TRANSACTION_OFFLINE', (data, facts) => [successfulTransactionEvent(data, facts)]],
  ['REJECTED_PAYMENT', (data, facts) => [rejectedPaymentEvent(data, facts)]],
  ['SETTLEMENT', settlementEvents],
  ['SUCCESSFUL_REFUND', (data, facts) => [refundEvent(data, facts, 'succeeded')]],
  ['FAILED_REFUND', (data, facts) => [refundEvent(data, facts, 'failed')]],
  ['MANDATE_UPDATE', mandateEvents],
] satisfies [ProviderNEventType, Normaliser][]);

/** Which subscription event a mandate status raises (docs/providers/provider-n.md#events). */
export const MANDATE_EVENT = {
  PENDING: 'subscription.created',
  ACTIVE: 'subscription.created',
  ACTIVATED: 'subscription.created',
  CANCELLED: 'subscription.canceled',
  FAILED: 'subscription.updated',
  EXPIRED: 'subscription.updated',
} as const satisfies Record<ProviderNMandateStatus, ProviderNEventName>;

const MANDATE_EVENT_BY_STATUS = new Map<string, ProviderNEventName>(Object.entries(MANDATE_EVENT));

/** A payload that is not what Provider N sends: refused before any callback. */
export function malformed(message: string): WebhookVerificationError {
  return new WebhookVerificationError(message, { reason: 'malformed_payload' });
}

/** Parses `eventData` of a known kind; a payload that lacks what the mapping reads is refused. */
function read<S extends v.GenericSchema>(
  schema: S,
  data: Record<string, unknown>,
  what: string,
): v.InferOutput<S> {
  const result = v.safeParse(schema, data);
  if (result.success) return result.output;
  const paths = result.issues.map(
    (issue) =>
      // A check over several fields (the amount asked under any of its spellings) has no path: its message names them.
      (issue.path ?? []).map((item) => String((item as { key: unknown }).key)).join('.') || issue.message,
  );
  throw malformed(
    `The ${what} webhook payload lacks fields the mapping reads (${[...new Set(paths)].join(', ')}).`,
  );
}

/** One normalised event of a delivery. */
export function event(facts: DeliveryFacts, type: string, key: (string | number)[], data: unknown): PayEvent {
  return webhookEvent({ key, type, provider: PROVIDER, created: facts.created, data });
}

/**
 * SUCCESSFUL_TRANSACTION(_OFFLINE) → `payment.created`, the record as reported (docs/architecture.md#records): a
 * partial payment is `processing`, not `succeeded`.
 */
function successfulTransactionEvent(data: Record<string, unknown>, facts: DeliveryFacts): PayEvent {
  const transaction = read(transactionEventSchema, data, 'transaction');
  const status = transactionStatus(transaction);
  const payment = toPayment(transaction, { ...facts, status }, data);
  const key = [transaction.transactionReference, transaction.paymentStatus ?? status];
  return event(facts, 'payment.created', key, payment);
}

/**
 * REJECTED_PAYMENT → `payment.failed`: the provider refused and returned what the payer sent, so `amount_paid` is
 * 0; `metadata.rejectedAmount` and `metadata.rejectionReason` say what and why.
 */
function rejectedPaymentEvent(data: Record<string, unknown>, facts: DeliveryFacts): PayEvent {
  const rejected = read(rejectedPaymentEventSchema, data, 'REJECTED_PAYMENT');
  const metadata: Record<string, string> = {
    ...(rejected.rejectionReason ? { rejectionReason: rejected.rejectionReason } : {}),
    ...(rejected.rejectedAmounts.length > 0 ? { rejectedAmount: rejected.rejectedAmounts.join(',') } : {}),
  };
  const payment = toPayment(rejected, { ...facts, status: 'failed', amountPaid: 0, metadata }, data);
  const key = [rejected.transactionReference, rejected.paymentStatus ?? 'failed'];
  return event(facts, 'payment.failed', key, payment);
}

/** SETTLEMENT → one `payment.updated` per settled transaction, in payload order. */
function settlementEvents(data: Record<string, unknown>, facts: DeliveryFacts): PayEvent[] {
  const { settlementReference, currency, transactions } = read(settlementEventSchema, data, 'SETTLEMENT');
  return transactions.map((transaction, index) =>
    event(
      facts,
      'payment.updated',
      [settlementReference, index],
      toPayment(
        { ...transaction, currency: transaction.currency ?? currency ?? DEFAULT_CURRENCY },
        { ...facts, status: transactionStatus(transaction), metadata: { settlementReference } },
        data,
      ),
    ),
  );
}

/** SUCCESSFUL_REFUND / FAILED_REFUND → `refund.created`, told apart by `data.status` (docs/providers/provider-n.md#events). */
function refundEvent(data: Record<string, unknown>, facts: DeliveryFacts, status: RefundStatus): PayEvent {
  const refund = read(refundBodySchema, data, 'refund');
  const currency =
    Object.hasOwn(data, 'currency') && typeof data.currency === 'string'
      ? data.currency.toUpperCase()
      : DEFAULT_CURRENCY;
  const record = toRefund(refund, { ...facts, currency, status }, data);
  return event(facts, 'refund.created', [refund.refundReference, refund.refundStatus ?? status], record);
}

/** MANDATE_UPDATE → a subscription event chosen by the mandate status. */
function mandateEvents(data: Record<string, unknown>, facts: DeliveryFacts): PayEvent[] {
  const mandate = read(mandateEventSchema, data, 'MANDATE_UPDATE');
  const type = MANDATE_EVENT_BY_STATUS.get(mandate.mandateStatus) ?? 'subscription.updated';
  const subscription = toSubscription(mandate, facts.livemode, data);
  return [event(facts, type, [mandate.mandateCode, mandate.mandateStatus], subscription)];
}
