/**
 * Provider N's wire (docs/providers/provider-n.md#envelope, docs/providers/provider-n.md#calls, docs/providers/provider-n.md#webhooks): lenient valibot schemas of the replies
 * and webhook payloads the adapter reads. Only the fields mapped are required; amounts are accepted as numbers
 * or decimal strings (the status read sends `"5000.00"`, webhooks send numbers).
 */
import { parseDecimal } from '@pay/core/adapter';
import * as v from '@pay/core/schema';

/** Provider N's refund replies, refund webhooks and rejected payments carry no currency: its home currency. */
export const DEFAULT_CURRENCY = 'NGN';

/** Checkout links from init-transaction stay valid for 40 minutes (docs/providers/provider-n.md#create-checkout). */
export const CHECKOUT_LIFETIME_MS = 40 * 60 * 1000;

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

/** The values of `paymentStatus` (docs/providers/provider-n.md#payment-statuses). Others may appear: they are read as unknown. */
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

/** Optional text: `null` and absent read the same. */
const optionalText = v.optional(v.nullable(v.string()));

/** An optional amount; a value that is not a decimal amount is refused (never guessed). */
const optionalDecimal = v.optional(v.nullable(decimal));

/** A currency code in any letter case, upper-cased. */
const currencyCode = v.pipe(v.string(), v.regex(/^[A-Za-z]{3}$/), v.toUpperCase());

const customerSchema = v.optional(
  v.nullable(
    v.looseObject({
      email: optionalText,
      name: optionalText,
    }),
  ),
);

/**
 * Caller metadata as the provider stores it: an object whose values may come back as numbers, or (in
 * `REJECTED_PAYMENT`, docs/providers/provider-n.md#webhooks) the same object serialised as a JSON string. A string that is
 * not a JSON object is kept whole under `metaData`, never dropped.
 */
const metaDataSchema = v.optional(
  v.pipe(
    v.nullable(v.union([v.record(v.string(), v.unknown()), v.string()])),
    v.transform((value): Record<string, unknown> | null =>
      typeof value === 'string' ? metaDataFromText(value) : value,
    ),
  ),
);

function metaDataFromText(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Not JSON: kept as text below.
  }
  return text === '' ? {} : { metaData: text };
}

/**
 * The fields every transaction reading shares, under every spelling seen in published data (docs/providers/provider-n.md#transaction-query and docs/providers/provider-n.md#webhooks): `totalPayable` or `amount` for the amount asked, `currency` or
 * `currencyCode`, `customer.email` or a flat `customerEmail`. Only the reference is required here; which amount
 * must be present is checked by each reading.
 */
const transactionEntries = {
  transactionReference: v.pipe(v.string(), v.minLength(1)),
  paymentReference: optionalText,
  totalPayable: optionalDecimal,
  amount: optionalDecimal,
  amountPaid: optionalDecimal,
  settlementAmount: optionalDecimal,
  paymentStatus: optionalText,
  currency: v.optional(v.nullable(currencyCode)),
  currencyCode: v.optional(v.nullable(currencyCode)),
  customer: customerSchema,
  customerEmail: optionalText,
  metaData: metaDataSchema,
};

/** A transaction reading in one spelling: what the mapping reads, whatever the reply called it. */
export interface TransactionFields {
  transactionReference: string;
  paymentReference: string | null;
  /** The amount asked for (`totalPayable`, or `amount`). */
  amountAsked: number;
  /** What the payer has paid so far, when the reply says (`amountPaid`). */
  amountPaid: number | null;
  settlementAmount: number | null;
  /** The provider's status text as sent, `null` when absent. */
  paymentStatus: string | null;
  /** `null` when the reply carries no currency (the caller decides the default). */
  currency: string | null;
  customerEmail: string | null;
  metaData: Record<string, unknown>;
}

type TransactionEntries = v.InferOutput<v.LooseObjectSchema<typeof transactionEntries, undefined>>;

function transactionFields(read: TransactionEntries, amountAsked: number): TransactionFields {
  return {
    transactionReference: read.transactionReference,
    paymentReference: read.paymentReference ?? null,
    amountAsked,
    amountPaid: read.amountPaid ?? null,
    settlementAmount: read.settlementAmount ?? null,
    paymentStatus: read.paymentStatus ?? null,
    currency: read.currency ?? read.currencyCode ?? null,
    customerEmail: read.customer?.email || read.customerEmail || null,
    metaData: read.metaData ?? {},
  };
}

const hasAmountAsked = (read: { totalPayable?: number | null; amount?: number | null }) =>
  read.totalPayable != null || read.amount != null;

/**
 * `GET /v1/merchant/transactions/query` → `responseBody` (amounts as strings). Published replies spell the amount
 * and currency `totalPayable`/`currency` or `amount`/`currencyCode` (unpaid transactions, and the v1 reply
 * itself), and the payer `customer.email` or `customerEmail`: each is read. The amount asked and a currency are
 * required: a Payment cannot be built without them.
 */
export const transactionBodySchema = v.pipe(
  v.looseObject(transactionEntries),
  v.check((read) => hasAmountAsked(read), 'must carry the amount asked (totalPayable or amount)'),
  v.check((read) => (read.currency ?? read.currencyCode) != null, 'must carry currency or currencyCode'),
  v.transform((read) => transactionFields(read, (read.totalPayable ?? read.amount) as number)),
);

/** A transaction as read from the status endpoint. */
export type TransactionBody = v.InferOutput<typeof transactionBodySchema>;

/** The values of `refundStatus` (`PENDING` appears in the provider's refund documentation too). */
export const REFUND_STATUSES = ['IN_PROGRESS', 'PENDING', 'COMPLETED', 'FAILED'] as const;

/** A Provider N refund status. */
export type ProviderNRefundStatus = (typeof REFUND_STATUSES)[number];

/**
 * `POST /v1/refunds/initiate-refund` → `responseBody`, also the `eventData` of refund webhooks. Refund webhooks
 * carry the reason as `merchantReason` (published examples), the reply as `refundReason`: either is read. An
 * unknown `refundStatus` is kept as text; the mapping decides what it means.
 */
export const refundBodySchema = v.pipe(
  v.looseObject({
    refundReference: v.pipe(v.string(), v.minLength(1)),
    transactionReference: v.pipe(v.string(), v.minLength(1)),
    refundReason: optionalText,
    merchantReason: optionalText,
    refundAmount: decimal,
    refundStatus: optionalText,
  }),
  v.transform((read) => ({
    refundReference: read.refundReference,
    transactionReference: read.transactionReference,
    refundAmount: read.refundAmount,
    refundStatus: read.refundStatus ?? null,
    reason: read.refundReason || read.merchantReason || null,
  })),
);

/** A refund as the provider reports it, in one spelling. */
export type RefundBody = v.InferOutput<typeof refundBodySchema>;

// --------------------------------------------------------------------------------------------------------
// Webhooks

/**
 * The webhook body: `{ eventType, eventData }`. `eventData` must be an object: every event the provider documents
 * carries one, and the raw event hands it to callbacks.
 */
export const webhookBodySchema = v.object({
  eventType: v.pipe(v.string(), v.minLength(1)),
  eventData: v.record(v.string(), v.unknown()),
});

/**
 * `eventData` of `SUCCESSFUL_TRANSACTION` and `SUCCESSFUL_TRANSACTION_OFFLINE`: the transaction fields, numbers
 * usually numeric here (strings accepted). The amount asked is required; a missing currency reads as the
 * provider's home currency (the mapping decides).
 */
export const transactionEventSchema = v.pipe(
  v.looseObject(transactionEntries),
  v.check((read) => hasAmountAsked(read), 'must carry the amount asked (totalPayable or amount)'),
  v.transform((read) => transactionFields(read, (read.totalPayable ?? read.amount) as number)),
);

/** `paymentSourceInformation`: one source object, or (in some published payloads) a list of them. */
const paymentSourceSchema = v.looseObject({ amountPaid: optionalDecimal });

/**
 * `eventData` of `REJECTED_PAYMENT` (docs/providers/provider-n.md#webhooks: thinner than the other transaction events): the
 * amount asked is `amount` (or `paymentRejectionInformation.expectedAmount`), what the payer sent is in
 * `paymentSourceInformation.amountPaid`, and there is no `currency`, `paymentStatus` or `totalPayable`.
 */
export const rejectedPaymentEventSchema = v.pipe(
  v.looseObject({
    ...transactionEntries,
    paymentSourceInformation: v.optional(
      v.nullable(v.union([paymentSourceSchema, v.array(paymentSourceSchema)])),
    ),
    paymentRejectionInformation: v.optional(
      v.nullable(
        v.looseObject({
          rejectionReason: optionalText,
          expectedAmount: optionalDecimal,
        }),
      ),
    ),
  }),
  v.check(
    (read) => hasAmountAsked(read) || read.paymentRejectionInformation?.expectedAmount != null,
    'must carry the amount asked (amount, totalPayable or paymentRejectionInformation.expectedAmount)',
  ),
  v.transform((read) => {
    const sources = read.paymentSourceInformation;
    const sentAmounts = (Array.isArray(sources) ? sources : sources ? [sources] : [])
      .map((source) => source.amountPaid)
      .filter((amount): amount is number => amount != null);
    return {
      ...transactionFields(
        read,
        (read.totalPayable ?? read.amount ?? read.paymentRejectionInformation?.expectedAmount) as number,
      ),
      /** What the payer sent before the provider rejected it (returned to the payer, not held). */
      rejectedAmounts: sentAmounts,
      rejectionReason: read.paymentRejectionInformation?.rejectionReason ?? null,
    };
  }),
);

/** A settled transaction: the transaction fields (amounts as strings in published data, no `amount`). */
const settledTransactionSchema = v.pipe(
  v.looseObject(transactionEntries),
  v.check((read) => hasAmountAsked(read), 'must carry the amount asked (totalPayable or amount)'),
  v.transform((read) => transactionFields(read, (read.totalPayable ?? read.amount) as number)),
);

/**
 * `eventData` of `SETTLEMENT`: `settlementReference` and the settled transactions. The top-level `amount` (a
 * string such as `"1199.00"`) is the settlement total; it is not needed for the records and not required.
 */
export const settlementEventSchema = v.looseObject({
  settlementReference: v.pipe(v.string(), v.minLength(1)),
  amount: optionalDecimal,
  currency: v.optional(v.nullable(currencyCode)),
  transactions: v.array(settledTransactionSchema),
});

/** The values of `mandateStatus` the wire contract (docs/providers/provider-n.md#events) names; others are read as unknown. */
export const MANDATE_STATUSES = ['PENDING', 'ACTIVE', 'ACTIVATED', 'FAILED', 'CANCELLED', 'EXPIRED'] as const;

/** A Provider N mandate status. */
export type ProviderNMandateStatus = (typeof MANDATE_STATUSES)[number];

/**
 * `eventData` of `MANDATE_UPDATE`. The payer's e-mail is `customerEmailAddress` in published payloads
 * (`customerEmail` read too).
 */
export const mandateEventSchema = v.pipe(
  v.looseObject({
    mandateCode: v.pipe(v.string(), v.minLength(1)),
    mandateStatus: v.pipe(v.string(), v.minLength(1)),
    customerEmailAddress: optionalText,
    customerEmail: optionalText,
    mandateAmount: optionalDecimal,
    currency: v.optional(v.nullable(currencyCode)),
  }),
  v.transform((read) => ({
    mandateCode: read.mandateCode,
    mandateStatus: read.mandateStatus,
    customerEmail: read.customerEmailAddress || read.customerEmail || null,
    mandateAmount: read.mandateAmount ?? null,
    currency: read.currency ?? null,
  })),
);

/** A mandate, in one spelling. */
export type MandateFields = v.InferOutput<typeof mandateEventSchema>;
