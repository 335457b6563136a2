/**
 * The webhooks the simulator sends (docs/providers/provider-n.md#webhooks): the one a payer action on the checkout page
 * causes, and the ones `trigger(eventType)` builds from the books (or from a sample) for `pay trigger`.
 */
import { toMajorUnits } from '@pay/core/adapter';
import type { PayerAction } from '@pay/core/testing';
import type { ProviderNWebhookPayload } from '../signing.js';
import {
  refundEventData,
  rejectedPaymentEventData,
  settlementEventData,
  transactionEventData,
} from './payloads.js';
import type { ProviderNLedger, StoredRefund, StoredTransaction } from './state.js';
import type { ProviderNTriggerOptions } from './types.js';

/**
 * The webhook Provider N sends when the payer acts on the checkout page, or `undefined` when it sends none: a
 * payment is `SUCCESSFUL_TRANSACTION` (PAID, the full amount paid); a failed one is `REJECTED_PAYMENT` with nothing
 * kept (reason `PAYMENT_FAILED`). A checkout the payer cancels sends nothing: the wire contract (docs/providers/provider-n.md#events) has no event for it
 * (`REJECTED_PAYMENT` is a payment the provider refused, and its record says `failed`), so the application learns it
 * from the status read when the payer comes back to the redirect URL, which then says `canceled`.
 */
export function payerWebhook(
  ledger: ProviderNLedger,
  transaction: StoredTransaction,
  action: PayerAction,
): ProviderNWebhookPayload | undefined {
  if (action === 'pay')
    return { eventType: 'SUCCESSFUL_TRANSACTION', eventData: transactionEventData(transaction) };
  if (action === 'cancel') return undefined;
  return {
    eventType: 'REJECTED_PAYMENT',
    eventData: rejectedPaymentEventData(ledger, transaction, { amountSent: 0, reason: 'PAYMENT_FAILED' }),
  };
}

/** A paid NGN 5,000.00 transaction for `trigger` without a reference: a payload only, not in the books. */
function sampleTransaction(ledger: ProviderNLedger): StoredTransaction {
  const transactionReference = 'PN|SAMPLE|000000';
  return {
    transactionReference,
    paymentReference: 'sample-payment-reference',
    amountMinor: 500_000,
    currency: 'NGN',
    contractCode: undefined,
    customerEmail: 'payer@example.com',
    customerName: 'Sample Payer',
    paymentDescription: 'Sample payment',
    redirectUrl: undefined,
    paymentMethods: ['CARD'],
    metaData: {},
    paymentStatus: 'PAID',
    amountPaidMinor: 500_000,
    refundableMinor: 500_000,
    paidOn: ledger.now(),
    checkoutUrl: `/checkout/${encodeURIComponent(transactionReference)}`,
  };
}

/** The event types `trigger` sends (docs/providers/provider-n.md#events), as `pay --help` lists them. */
export const TRIGGER_EVENT_TYPES = [
  'SUCCESSFUL_TRANSACTION',
  'SUCCESSFUL_TRANSACTION_OFFLINE',
  'REJECTED_PAYMENT',
  'SETTLEMENT',
  'SUCCESSFUL_REFUND',
  'FAILED_REFUND',
] as const;

/**
 * Normalised event → the event types the adapter reads it from (events.ts): `trigger` takes a name that one type
 * stands for, and answers a name several stand for with those types. Provider N sends no `payment.succeeded`.
 */
const EVENT_TYPES_OF: Readonly<Record<string, readonly string[]>> = {
  'payment.created': ['SUCCESSFUL_TRANSACTION', 'SUCCESSFUL_TRANSACTION_OFFLINE'],
  'payment.failed': ['REJECTED_PAYMENT'],
  'payment.updated': ['SETTLEMENT'],
  'refund.created': ['SUCCESSFUL_REFUND', 'FAILED_REFUND'],
};

/** The event type `event` names (`SETTLEMENT`, `providerN.SETTLEMENT`, `payment.updated`), or why none. */
export function triggeredEventType(event: string): string {
  const raw = event.startsWith('providerN.') ? event.slice('providerN.'.length) : event;
  if ((TRIGGER_EVENT_TYPES as readonly string[]).includes(raw)) return raw;
  const types = EVENT_TYPES_OF[event] ?? [];
  if (types.length === 1) return types[0] as string;
  const normalised = Object.entries(EVENT_TYPES_OF).map(([name, sent]) => `${name} (${sent.join(' or ')})`);
  throw new Error(
    `The Provider N simulator triggers ${TRIGGER_EVENT_TYPES.join(', ')} (also as providerN.<type>), or ` +
      `${normalised.join(', ')}${types.length > 1 ? `: name one of ${types.join(', ')}` : ''}, not ${event}.`,
  );
}

/** The payload `trigger` sends: built from the books entry named, else from a sample. */
export function triggerPayload(
  ledger: ProviderNLedger,
  event: string,
  given: ProviderNTriggerOptions,
): ProviderNWebhookPayload {
  const eventType = triggeredEventType(event);
  const transaction = given.transactionReference
    ? ledger.transaction(given.transactionReference)
    : sampleTransaction(ledger);
  const refund = given.refundReference ? ledger.refunds.get(given.refundReference) : sampleRefund(ledger);
  if (!refund) throw new Error(`The simulator has no refund ${given.refundReference}.`);
  const eventData =
    eventType === 'SUCCESSFUL_TRANSACTION' || eventType === 'SUCCESSFUL_TRANSACTION_OFFLINE'
      ? transactionEventData(transaction)
      : eventType === 'REJECTED_PAYMENT'
        ? rejectedPaymentEventData(ledger, transaction, {
            amountSent:
              given.amountSent ?? toMajorUnits(Math.floor(transaction.amountMinor / 2), transaction.currency),
            reason: given.reason ?? 'UNDER_PAYMENT',
          })
        : eventType === 'SETTLEMENT'
          ? settlementEventData(ledger, [transaction])
          : eventType === 'SUCCESSFUL_REFUND' || eventType === 'FAILED_REFUND'
            ? refundEventData({
                ...refund,
                refundStatus: eventType === 'FAILED_REFUND' ? 'FAILED' : 'COMPLETED',
              })
            : undefined;
  return { eventType, eventData } as ProviderNWebhookPayload;
}

/** A completed NGN 1,000.00 refund for `trigger` without a reference: a payload only, not in the books. */
function sampleRefund(ledger: ProviderNLedger): StoredRefund {
  return {
    refundReference: 'SIM-REFUND-SAMPLE',
    transactionReference: 'PN|SAMPLE|000000',
    amountMinor: 100_000,
    currency: 'NGN',
    refundReason: 'Sample refund',
    customerNote: undefined,
    refundStatus: 'COMPLETED',
    refundType: 'PARTIAL_REFUND',
    createdOn: ledger.now(),
    completedOn: ledger.now(),
    received: {},
  };
}

/** The text members of {@link ProviderNTriggerOptions}. */
const TRIGGER_TEXT_OPTIONS = ['to', 'transactionReference', 'refundReference', 'reason'] as const;

/**
 * Trigger options as they come through the kit's control route (`pay trigger --option name=value` sends every
 * value as JSON text): the text members as given, `amountSent` as a number (`"2500.5"` → 2500.5). A value of the
 * wrong kind throws, and the route answers 400 with the message.
 */
export function triggerOptionsOf(given: Record<string, unknown>): ProviderNTriggerOptions {
  const options: ProviderNTriggerOptions = {};
  for (const name of TRIGGER_TEXT_OPTIONS) {
    const value = given[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new Error(`The trigger option ${name} must be text.`);
    options[name] = value;
  }
  const amountSent = given.amountSent;
  if (amountSent !== undefined) {
    const amount =
      typeof amountSent === 'string' && amountSent.trim() !== '' ? Number(amountSent) : amountSent;
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0)
      throw new Error(
        `The trigger option amountSent must be a non-negative number (major units), not ${JSON.stringify(amountSent)}.`,
      );
    options.amountSent = amount;
  }
  return options;
}
