/**
 * Provider N replies → unified records (docs/architecture.md#records). Status tables are read through `Map`s, so a
 * status named like an `Object.prototype` member is simply unknown (docs/architecture.md#events), never a crash.
 */
import {
  type Checkout,
  type CheckoutCreateParams,
  type CustomerRef,
  type Payment,
  type PaymentStatus,
  type Refund,
  type RefundStatus,
  type Subscription,
  type SubscriptionStatus,
  toMinorUnits,
} from '@pay/core/adapter';
import type { InitTransactionRequest } from './requests.js';
import type { ProviderNCheckout } from './types.js';
import { DEFAULT_CURRENCY, type RefundBody, type TransactionFields } from './wire.js';
import type { MandateFields } from './wire-events.js';

/** `paymentStatus` → unified payment status (docs/providers/provider-n.md#payment-statuses). */
export const PAYMENT_STATUS = {
  PAID: 'succeeded',
  OVERPAID: 'succeeded',
  PARTIALLY_PAID: 'processing',
  PENDING: 'pending',
  ABANDONED: 'canceled',
  CANCELLED: 'canceled',
  REVERSED: 'canceled',
  FAILED: 'failed',
  EXPIRED: 'failed',
} as const satisfies Record<string, PaymentStatus>;

/** `refundStatus` → unified refund status (`PENDING` appears in the provider's refund documentation too). */
export const REFUND_STATUS = {
  IN_PROGRESS: 'pending',
  PENDING: 'pending',
  COMPLETED: 'succeeded',
  FAILED: 'failed',
} as const satisfies Record<string, RefundStatus>;

/** `mandateStatus` → unified subscription status (docs/providers/provider-n.md#events). */
export const MANDATE_STATUS = {
  PENDING: 'pending',
  ACTIVE: 'active',
  ACTIVATED: 'active',
  FAILED: 'failed',
  CANCELLED: 'canceled',
  EXPIRED: 'expired',
} as const satisfies Record<string, SubscriptionStatus>;

/** A Provider N transaction status (docs/providers/provider-n.md#payment-statuses); others are read as unknown. */
export type ProviderNPaymentStatus = keyof typeof PAYMENT_STATUS;

/** A Provider N refund status. */
export type ProviderNRefundStatus = keyof typeof REFUND_STATUS;

/** A Provider N mandate status (docs/providers/provider-n.md#events); others are read as unknown. */
export type ProviderNMandateStatus = keyof typeof MANDATE_STATUS;

/** A table's reading of a status, `undefined` when the status is absent or not in the table. */
function lookup<T>(table: Record<string, T>): (status: string | null | undefined) => T | undefined {
  const byName = new Map(Object.entries(table));
  return (status) => (status == null ? undefined : byName.get(status));
}
const knownPaymentStatus = lookup<PaymentStatus>(PAYMENT_STATUS);
const knownRefundStatus = lookup<RefundStatus>(REFUND_STATUS);
const knownMandateStatus = lookup<SubscriptionStatus>(MANDATE_STATUS);

/**
 * A transaction's unified status: a status the table knows decides. An absent or unknown one (a chargeback, a
 * reversal the provider added) is never paid and never final, whatever the amounts say: something was paid →
 * `processing`, else `pending` (docs/providers/provider-n.md#payment-statuses).
 */
export function transactionStatus(transaction: TransactionFields): PaymentStatus {
  const known = knownPaymentStatus(transaction.paymentStatus);
  if (known) return known;
  const paid = transaction.amountPaid;
  return paid === null || paid <= 0 ? 'pending' : 'processing';
}

/** A refund's unified status; an absent or unknown one is `pending` (not final). */
export const refundStatus = (status: string | null | undefined): RefundStatus =>
  knownRefundStatus(status) ?? 'pending';

/** Metadata values come back as the provider stored them; records carry strings. */
export function stringMetadata(values: Record<string, unknown> | null | undefined): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    if (value !== null && value !== undefined)
      metadata[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return metadata;
}

const customerOf = (email: string | null | undefined): CustomerRef => (email ? { email } : null);

/** The unified metadata of a transaction: the caller's `metaData`, then what the record has no field for. */
function transactionMetadata(
  transaction: TransactionFields,
  extra: Record<string, string> = {},
): Record<string, string> {
  const metadata = stringMetadata(transaction.metaData);
  if (transaction.paymentStatus) metadata.paymentStatus = transaction.paymentStatus;
  if (transaction.paymentReference) metadata.paymentReference = transaction.paymentReference;
  if (transaction.settlementAmount != null) metadata.settlementAmount = String(transaction.settlementAmount);
  return Object.assign(metadata, extra);
}

/** What every record carries besides the payload, decided by the adapter and the call, not by the reply. */
export interface RecordFacts {
  /** `false` for sandbox records: Provider N payloads carry no test flag. */
  livemode: boolean;
  /** The request id of the call that produced the record; `null` for a webhook payload. */
  requestId: string | null;
}

/** Fields of a Payment that the delivery or call decides rather than the payload. */
export interface PaymentContext extends RecordFacts {
  status: PaymentStatus;
  /** What the payer has paid, when the caller knows better than `amountPaid` (a rejected payment: 0). */
  amountPaid?: number | null;
  /** Extra metadata (rejection reason, settlement reference). */
  metadata?: Record<string, string>;
}

/**
 * A transaction → Payment (docs/architecture.md#records: amounts truthful): `amount` is the amount asked,
 * `amount_paid` what the payer has paid so far, so partial and over-payments are visible next to the status.
 */
export function toPayment(transaction: TransactionFields, context: PaymentContext, raw: unknown): Payment {
  return {
    provider: 'providerN',
    id: transaction.transactionReference,
    amount: transaction.amountAsked,
    amount_paid: context.amountPaid === undefined ? transaction.amountPaid : context.amountPaid,
    currency: transaction.currency ?? DEFAULT_CURRENCY,
    status: context.status,
    customer: customerOf(transaction.customerEmail),
    item_id: null,
    metadata: transactionMetadata(transaction, context.metadata),
    requires_action: false,
    payment_url: null,
    livemode: context.livemode,
    request_id: context.requestId,
    raw,
  };
}

/**
 * A status read → Checkout (docs/architecture.md#reading-retrieve-checkout). The status read carries neither the
 * checkout URL nor the items; `metadata.paymentStatus` and `metadata.amountPaid` tell how far the payer got.
 */
export function toCheckoutOfStatus(
  transaction: TransactionFields,
  facts: RecordFacts,
  raw: unknown,
): Checkout {
  return {
    provider: 'providerN',
    id: transaction.transactionReference,
    payment_url: null,
    amount: transaction.amountAsked,
    currency: transaction.currency ?? DEFAULT_CURRENCY,
    customer: customerOf(transaction.customerEmail),
    session_type: 'one_time',
    products: [],
    metadata: transactionMetadata(
      transaction,
      transaction.amountPaid == null ? {} : { amountPaid: String(transaction.amountPaid) },
    ),
    expires_at: null,
    livemode: facts.livemode,
    request_id: facts.requestId,
    raw,
  };
}

/** A refund reply or refund webhook → Refund. */
export function toRefund(
  refund: RefundBody,
  fields: RecordFacts & { currency: string; status: RefundStatus },
  raw: unknown,
): Refund {
  return {
    provider: 'providerN',
    id: refund.refundReference,
    payment_id: refund.transactionReference,
    amount: refund.refundAmount,
    currency: fields.currency,
    status: fields.status,
    reason: refund.reason,
    metadata: {},
    livemode: fields.livemode,
    request_id: fields.requestId,
    raw,
  };
}

/** A mandate → Subscription; an unknown status is `pending` (never read as active). */
export function toSubscription(mandate: MandateFields, livemode: boolean, raw: unknown): Subscription {
  return {
    provider: 'providerN',
    id: mandate.mandateCode,
    status: knownMandateStatus(mandate.mandateStatus) ?? 'pending',
    customer: customerOf(mandate.customerEmail),
    amount: mandate.mandateAmount,
    currency: mandate.currency,
    metadata: {},
    livemode,
    // Built from a webhook payload, with no status read: no call produced it.
    request_id: null,
    raw,
  };
}

/** Removes credential fields from a reply before it becomes a record's `raw` (init-transaction echoes `apiKey`). */
export function withoutCredentials(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const { apiKey: _apiKey, secretKey: _secretKey, ...rest } = body as Record<string, unknown>;
  return rest;
}

/**
 * What the ledger keeps once init-transaction answered: the checkout URL is the one thing no later read gives
 * back.
 */
export interface CheckoutRecoveryPoint {
  transactionReference: string;
  checkoutUrl: string;
  expiresAt: string;
}

/** An opened transaction → the Checkout (plus `checkoutUrl`) that `checkouts.create` returns. */
export function toCheckout(
  asked: Pick<CheckoutCreateParams, 'item_id' | 'quantity'>,
  body: InitTransactionRequest,
  opened: CheckoutRecoveryPoint,
  facts: RecordFacts,
  raw: unknown,
): ProviderNCheckout {
  return {
    provider: 'providerN',
    id: opened.transactionReference,
    payment_url: opened.checkoutUrl,
    amount: body.amount,
    currency: body.currencyCode,
    customer: { email: body.customerEmail },
    session_type: 'one_time',
    products: asked.item_id ? [{ id: asked.item_id, quantity: asked.quantity ?? 1 }] : [],
    metadata: body.metaData,
    expires_at: opened.expiresAt,
    livemode: facts.livemode,
    request_id: facts.requestId,
    raw,
    checkoutUrl: opened.checkoutUrl,
  };
}

/** Equal amounts in one currency, compared in minor units (the provider reads `"5000.50"` as 5000.5). */
export function sameMoney(
  a: { amount: number; currency: string },
  b: { amount: number; currency: string },
): boolean {
  if (a.currency.toUpperCase() !== b.currency.toUpperCase()) return false;
  try {
    return toMinorUnits(a.amount, a.currency) === toMinorUnits(b.amount, b.currency);
  } catch {
    return a.amount === b.amount;
  }
}
