/**
 * Provider N's wire (wire contract "Envelope", "Calls", "Webhooks"): lenient valibot schemas of the replies
 * and webhook payloads the adapter reads. Only the fields mapped are required; amounts are accepted as numbers
 * or decimal strings (the status read sends `"5000.00"`, webhooks send numbers).
 */
import { parseDecimal } from '@pay/core';
import * as v from '@pay/core/schema';

/** A decimal amount sent as a number or as text, read exactly into a number. */
const decimal = v.pipe(
  v.union([v.pipe(v.number(), v.finite()), v.string()], 'must be a decimal amount'),
  v.transform((value) => (typeof value === 'number' ? value : parseDecimal(value))),
  v.number('must be a decimal amount'),
);

/** Text the provider may send as a number too (`responseCode: 0`). */
const text = v.pipe(
  v.union([v.string(), v.number()]),
  v.transform((value) => String(value)),
);

/** Every reply: `{ requestSuccessful, responseMessage, responseCode, responseBody }`. */
export const envelopeSchema = v.looseObject({
  requestSuccessful: v.boolean(),
  responseMessage: v.optional(v.nullable(v.string())),
  responseCode: v.optional(v.nullable(text)),
  responseBody: v.optional(v.unknown()),
});

/** `POST /v1/auth/login` → `responseBody`. */
export const loginBodySchema = v.looseObject({
  accessToken: v.pipe(v.string(), v.minLength(1)),
  expiresIn: v.pipe(
    v.union([v.number(), v.string()]),
    v.transform((value) => Number(value)),
    v.number(),
    v.finite(),
  ),
});

/** `POST /v1/merchant/transactions/init-transaction` → `responseBody`. */
export const initTransactionBodySchema = v.looseObject({
  transactionReference: v.pipe(v.string(), v.minLength(1)),
  paymentReference: v.optional(v.string()),
  checkoutUrl: v.pipe(v.string(), v.url()),
});

/** The values of `paymentStatus` (wire contract, status table). */
export const PAYMENT_STATUSES = [
  'PAID',
  'OVERPAID',
  'PARTIALLY_PAID',
  'PENDING',
  'ABANDONED',
  'CANCELLED',
  'REVERSED',
  'FAILED',
  'EXPIRED',
] as const;

/** A Provider N transaction status. */
export type ProviderNPaymentStatus = (typeof PAYMENT_STATUSES)[number];

const customerSchema = v.optional(
  v.nullable(
    v.looseObject({
      email: v.optional(v.nullable(v.string())),
      name: v.optional(v.nullable(v.string())),
    }),
  ),
);

/** Caller metadata as the provider stores it: values may come back as numbers; records carry strings. */
const metaDataSchema = v.optional(v.nullable(v.record(v.string(), v.unknown())));

/** `GET /v1/merchant/transactions/query` → `responseBody` (amounts as strings). */
export const transactionBodySchema = v.looseObject({
  transactionReference: v.pipe(v.string(), v.minLength(1)),
  paymentReference: v.optional(v.nullable(v.string())),
  amountPaid: v.optional(v.nullable(decimal)),
  totalPayable: decimal,
  paymentStatus: v.picklist(PAYMENT_STATUSES),
  currency: v.pipe(v.string(), v.regex(/^[A-Za-z]{3}$/), v.toUpperCase()),
  customer: customerSchema,
  metaData: metaDataSchema,
});

/** A transaction as read from the status endpoint. */
export type TransactionBody = v.InferOutput<typeof transactionBodySchema>;

/** The values of `refundStatus`. */
export const REFUND_STATUSES = ['IN_PROGRESS', 'COMPLETED', 'FAILED'] as const;

/** A Provider N refund status. */
export type ProviderNRefundStatus = (typeof REFUND_STATUSES)[number];

/** `POST /v1/refunds/initiate-refund` → `responseBody`, also the `eventData` of refund webhooks. */
export const refundBodySchema = v.looseObject({
  refundReference: v.pipe(v.string(), v.minLength(1)),
  transactionReference: v.pipe(v.string(), v.minLength(1)),
  refundReason: v.optional(v.nullable(v.string())),
  refundAmount: decimal,
  refundStatus: v.optional(v.picklist(REFUND_STATUSES)),
});

/** A refund as the provider reports it. */
export type RefundBody = v.InferOutput<typeof refundBodySchema>;

// --------------------------------------------------------------------------------------------------------
// Webhooks

/** The webhook body: `{ eventType, eventData }`. */
export const webhookBodySchema = v.object({
  eventType: v.pipe(v.string(), v.minLength(1)),
  eventData: v.record(v.string(), v.unknown()),
});

/** `eventData` of the transaction events (numbers are numeric here, strings accepted too). */
export const transactionEventSchema = v.looseObject({
  transactionReference: v.pipe(v.string(), v.minLength(1)),
  paymentReference: v.optional(v.nullable(v.string())),
  amountPaid: v.optional(v.nullable(decimal)),
  totalPayable: decimal,
  paymentStatus: v.optional(v.nullable(v.string())),
  currency: v.pipe(v.string(), v.regex(/^[A-Za-z]{3}$/), v.toUpperCase()),
  customer: customerSchema,
  metaData: metaDataSchema,
});

/** `eventData` of `SETTLEMENT`. */
export const settlementEventSchema = v.looseObject({
  settlementReference: v.pipe(v.string(), v.minLength(1)),
  currency: v.optional(v.nullable(v.string())),
  transactions: v.array(
    v.looseObject({
      transactionReference: v.pipe(v.string(), v.minLength(1)),
      paymentReference: v.optional(v.nullable(v.string())),
      amount: decimal,
      currency: v.optional(v.nullable(v.string())),
    }),
  ),
});

/** The values of `mandateStatus`. */
export const MANDATE_STATUSES = ['PENDING', 'ACTIVE', 'ACTIVATED', 'FAILED', 'CANCELLED', 'EXPIRED'] as const;

/** A Provider N mandate status. */
export type ProviderNMandateStatus = (typeof MANDATE_STATUSES)[number];

/** `eventData` of `MANDATE_UPDATE`. */
export const mandateEventSchema = v.looseObject({
  mandateCode: v.pipe(v.string(), v.minLength(1)),
  mandateStatus: v.picklist(MANDATE_STATUSES),
  customerEmail: v.optional(v.nullable(v.string())),
  mandateAmount: v.optional(v.nullable(decimal)),
  currency: v.optional(v.nullable(v.string())),
});

// --------------------------------------------------------------------------------------------------------
// Raw event payloads, as the provider sends them (what `providerN.*` callbacks receive as `event.data`).

/** The customer block of a transaction payload. */
export interface ProviderNCustomer {
  email?: string;
  name?: string;
  [field: string]: unknown;
}

/** `eventData` of `SUCCESSFUL_TRANSACTION`, `SUCCESSFUL_TRANSACTION_OFFLINE` and `REJECTED_PAYMENT`. */
export interface ProviderNTransactionEventData {
  transactionReference: string;
  paymentReference?: string;
  amountPaid?: number | string;
  totalPayable: number | string;
  settlementAmount?: number | string;
  paidOn?: string;
  paymentStatus?: string;
  paymentDescription?: string;
  currency: string;
  paymentMethod?: string;
  customer?: ProviderNCustomer;
  metaData?: Record<string, unknown>;
  [field: string]: unknown;
}

/** One settled transaction of a `SETTLEMENT` payload. */
export interface ProviderNSettledTransaction {
  transactionReference: string;
  paymentReference?: string;
  amount: number | string;
  [field: string]: unknown;
}

/** `eventData` of `SETTLEMENT`. */
export interface ProviderNSettlementEventData {
  settlementReference: string;
  amount?: number | string;
  settlementTime?: string;
  transactionsCount?: number;
  transactions: ProviderNSettledTransaction[];
  [field: string]: unknown;
}

/** `eventData` of `SUCCESSFUL_REFUND` and `FAILED_REFUND` (the refund body). */
export interface ProviderNRefundEventData {
  refundReference: string;
  transactionReference: string;
  refundReason?: string;
  customerNote?: string;
  refundAmount: number | string;
  refundStatus?: ProviderNRefundStatus;
  refundType?: 'PARTIAL_REFUND' | 'FULL_REFUND';
  createdOn?: string;
  completedOn?: string;
  [field: string]: unknown;
}

/** `eventData` of `MANDATE_UPDATE`. */
export interface ProviderNMandateEventData {
  mandateCode: string;
  mandateStatus: ProviderNMandateStatus;
  customerEmail?: string;
  mandateAmount?: number | string;
  startDate?: string;
  endDate?: string;
  [field: string]: unknown;
}

/** `eventData` of customer and disbursement events: passed through as sent, not normalised. */
export type ProviderNOtherEventData = Record<string, unknown>;
