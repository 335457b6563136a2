/**
 * Provider N's wire (docs/providers/provider-n.md#calls): lenient valibot schemas of the replies the adapter
 * reads. Only the fields mapped are required; amounts are numbers or decimal strings.
 */
import { isRecord, parseDecimal } from '@pay/core/adapter';
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
const text = v.pipe(v.union([v.string(), v.number()]), v.transform(String));

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
  expiresIn: v.pipe(v.union([v.number(), v.string()]), v.transform(Number), v.number(), v.finite()),
});

/** `POST /v1/merchant/transactions/init-transaction` → `responseBody`. */
export const initTransactionBodySchema = v.looseObject({
  transactionReference: v.pipe(v.string(), v.minLength(1)),
  paymentReference: v.optional(v.string()),
  checkoutUrl: v.pipe(v.string(), v.url()),
});

/** Optional text: `null` and absent read the same. */
export const optionalText = v.optional(v.nullable(v.string()));

/** An optional amount; a value that is not a decimal amount is refused (never guessed). */
export const optionalDecimal = v.optional(v.nullable(decimal));

/** A currency code in any letter case, upper-cased. */
export const currencyCode = v.pipe(v.string(), v.regex(/^[A-Za-z]{3}$/), v.toUpperCase());

/**
 * Caller metadata as stored: an object, or in `REJECTED_PAYMENT` (docs/providers/provider-n.md#webhooks) the same
 * object as JSON text; other text is kept whole under `metaData`.
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
    if (isRecord(parsed)) return parsed;
  } catch {
    // Not JSON: kept as text below.
  }
  return text === '' ? {} : { metaData: text };
}

/**
 * The fields every transaction reading shares, under every spelling seen in published data
 * (docs/providers/provider-n.md#transaction-query). Only the reference is required here; each reading checks the
 * amount.
 */
export const transactionEntries = {
  transactionReference: v.pipe(v.string(), v.minLength(1)),
  paymentReference: optionalText,
  totalPayable: optionalDecimal,
  amount: optionalDecimal,
  amountPaid: optionalDecimal,
  settlementAmount: optionalDecimal,
  paymentStatus: optionalText,
  currency: v.optional(v.nullable(currencyCode)),
  currencyCode: v.optional(v.nullable(currencyCode)),
  customer: v.optional(v.nullable(v.looseObject({ email: optionalText, name: optionalText }))),
  customerEmail: optionalText,
  metaData: metaDataSchema,
};

type TransactionEntries = v.InferOutput<v.LooseObjectSchema<typeof transactionEntries, undefined>>;

/** A transaction reading in one spelling, with the amount asked the reading chose. */
export function transactionFields(read: TransactionEntries, amountAsked: number) {
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

/** A transaction reading in one spelling: what the mapping reads, whatever the reply called it. */
export type TransactionFields = ReturnType<typeof transactionFields>;

/** Whether a reading carries the amount asked under either spelling. */
export const hasAmountAsked = (read: { totalPayable?: number | null; amount?: number | null }) =>
  read.totalPayable != null || read.amount != null;

/**
 * `GET /v1/merchant/transactions/query` → `responseBody`: a Payment cannot be built without amount and currency.
 */
export const transactionBodySchema = v.pipe(
  v.looseObject(transactionEntries),
  v.check((read) => hasAmountAsked(read), 'must carry the amount asked (totalPayable or amount)'),
  v.check((read) => (read.currency ?? read.currencyCode) != null, 'must carry currency or currencyCode'),
  v.transform((read) => transactionFields(read, (read.totalPayable ?? read.amount) as number)),
);

/**
 * `POST /v1/refunds/initiate-refund` → `responseBody`, also the `eventData` of refund webhooks, which carry the
 * reason as `merchantReason` (the reply: `refundReason`). An unknown `refundStatus` is kept as text.
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
