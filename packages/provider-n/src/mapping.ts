/**
 * Provider N replies → unified records (design §3). Status tables are data, so the whole mapping reads at once
 * and the tests walk every row.
 */
import type {
  Checkout,
  CustomerRef,
  Payment,
  PaymentStatus,
  Refund,
  RefundStatus,
  Subscription,
  SubscriptionStatus,
} from '@pay/core';
import type {
  ProviderNMandateStatus,
  ProviderNPaymentStatus,
  ProviderNRefundStatus,
  RefundBody,
} from './wire.js';

/** `paymentStatus` → unified payment status (wire contract, status table). */
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
} as const satisfies Record<ProviderNPaymentStatus, PaymentStatus>;

/** `refundStatus` → unified refund status. */
export const REFUND_STATUS = {
  IN_PROGRESS: 'pending',
  COMPLETED: 'succeeded',
  FAILED: 'failed',
} as const satisfies Record<ProviderNRefundStatus, RefundStatus>;

/** `mandateStatus` → unified subscription status. */
export const MANDATE_STATUS = {
  PENDING: 'pending',
  ACTIVE: 'active',
  ACTIVATED: 'active',
  FAILED: 'failed',
  CANCELLED: 'canceled',
  EXPIRED: 'expired',
} as const satisfies Record<ProviderNMandateStatus, SubscriptionStatus>;

/** Provider N's refund replies and refund webhooks carry no currency; this is the provider's home currency. */
export const DEFAULT_CURRENCY = 'NGN';

/** Checkout links from init-transaction stay valid for 40 minutes (wire contract). */
export const CHECKOUT_LIFETIME_MS = 40 * 60 * 1000;

/** What `checkouts.create` resolves to: a Checkout plus `checkoutUrl` (spec §2). */
export type ProviderNCheckout = Checkout & {
  /** The hosted checkout page to send the payer to (the same URL as `payment_url`). */
  checkoutUrl: string;
};

/** Metadata values come back as the provider stored them; records carry strings. */
export function stringMetadata(values: Record<string, unknown> | null | undefined): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    if (value !== null && value !== undefined)
      metadata[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return metadata;
}

/** A customer block → `{ email }` or `null`. */
export function customerOf(customer: { email?: string | null | undefined } | null | undefined): CustomerRef {
  return customer?.email ? { email: customer.email } : null;
}

/** The fields of a transaction a record is built from: a status read, or a transaction webhook's payload. */
export interface TransactionFields {
  transactionReference: string;
  totalPayable: number;
  currency: string;
  paymentStatus?: string | null | undefined;
  amountPaid?: number | null | undefined;
  customer?: { email?: string | null | undefined } | null | undefined;
  metaData?: Record<string, unknown> | null | undefined;
}

/** The unified metadata of a transaction: the caller's `metaData`, then what the record has no field for. */
function transactionMetadata(transaction: TransactionFields): Record<string, string> {
  return {
    ...stringMetadata(transaction.metaData),
    ...(transaction.paymentStatus ? { paymentStatus: transaction.paymentStatus } : {}),
    ...(transaction.amountPaid == null ? {} : { amountPaid: String(transaction.amountPaid) }),
  };
}

/**
 * A transaction → Payment with `status` (read from the status table, or decided by the webhook's event type).
 * `amount` is `totalPayable`, the amount asked for; what was actually paid is in `metadata.amountPaid`
 * (wire contract, ours).
 */
export function toPayment(transaction: TransactionFields, status: PaymentStatus, raw: unknown): Payment {
  return {
    provider: 'providerN',
    id: transaction.transactionReference,
    amount: transaction.totalPayable,
    currency: transaction.currency,
    status,
    customer: customerOf(transaction.customer),
    item_id: null,
    metadata: transactionMetadata(transaction),
    requires_action: false,
    payment_url: null,
    raw,
  };
}

/**
 * One transaction of a SETTLEMENT → Payment: `amount` is the settled amount, `status` `succeeded` (only paid
 * transactions are settled). The payload names no customer, and a currency only sometimes (default NGN).
 */
export function toSettledPayment(
  transaction: {
    transactionReference: string;
    paymentReference?: string | null | undefined;
    amount: number;
    currency?: string | null | undefined;
  },
  settlement: { settlementReference: string; currency?: string | null | undefined },
  raw: unknown,
): Payment {
  return {
    provider: 'providerN',
    id: transaction.transactionReference,
    amount: transaction.amount,
    currency: (transaction.currency ?? settlement.currency ?? DEFAULT_CURRENCY).toUpperCase(),
    status: 'succeeded',
    customer: null,
    item_id: null,
    metadata: {
      settlementReference: settlement.settlementReference,
      ...(transaction.paymentReference ? { paymentReference: transaction.paymentReference } : {}),
    },
    requires_action: false,
    payment_url: null,
    raw,
  };
}

/**
 * A status read → Checkout (design §8: Provider N's retrieveCheckout reads the same transaction). The status
 * read carries neither the checkout URL nor the items, so `payment_url` and `expires_at` are null and
 * `products` is empty; `metadata.paymentStatus` tells how far the payer got.
 */
export function toRetrievedCheckout(transaction: TransactionFields, raw: unknown): Checkout {
  return {
    provider: 'providerN',
    id: transaction.transactionReference,
    payment_url: null,
    amount: transaction.totalPayable,
    currency: transaction.currency,
    customer: customerOf(transaction.customer),
    session_type: 'one_time',
    products: [],
    metadata: transactionMetadata(transaction),
    expires_at: null,
    raw,
  };
}

/** A refund reply or refund webhook → Refund. */
export function toRefund(
  refund: RefundBody,
  fields: { currency: string; status: RefundStatus },
  raw: unknown,
): Refund {
  return {
    provider: 'providerN',
    id: refund.refundReference,
    payment_id: refund.transactionReference,
    amount: refund.refundAmount,
    currency: fields.currency,
    status: fields.status,
    reason: refund.refundReason ?? null,
    metadata: {},
    raw,
  };
}

/** A mandate → Subscription. */
export function toSubscription(
  mandate: {
    mandateCode: string;
    mandateStatus: ProviderNMandateStatus;
    customerEmail?: string | null | undefined;
    mandateAmount?: number | null | undefined;
    currency?: string | null | undefined;
  },
  raw: unknown,
): Subscription {
  return {
    provider: 'providerN',
    id: mandate.mandateCode,
    status: MANDATE_STATUS[mandate.mandateStatus],
    customer: mandate.customerEmail ? { email: mandate.customerEmail } : null,
    amount: mandate.mandateAmount ?? null,
    currency: mandate.currency ? mandate.currency.toUpperCase() : null,
    metadata: {},
    raw,
  };
}

/** Removes credential fields from a reply before it becomes a record's `raw` (init-transaction echoes `apiKey`). */
export function withoutCredentials(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const { apiKey: _apiKey, secretKey: _secretKey, ...rest } = body as Record<string, unknown>;
  return rest;
}
