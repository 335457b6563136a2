/**
 * Provider T's replies, as lenient valibot schemas (docs/providers/provider-t.md): only the fields the adapter
 * reads are required, amounts may come as numbers or decimal strings, and unknown fields are kept for `raw`.
 */
import { parseDecimal } from '@pay/core/adapter';
import * as v from '@pay/core/schema';

/** A decimal amount sent as a number or as text (`"100.00"`), read exactly. */
const decimal = v.union([
  v.pipe(v.number(), v.finite()),
  v.pipe(
    v.string(),
    v.transform((value) => parseDecimal(value)),
    v.number('must be a decimal amount'),
  ),
]);

/** An id sent as text or as a number (`"3009143868"` or `3009143868`), read as text. */
const idText = v.union([v.pipe(v.string(), v.minLength(1)), v.pipe(v.number(), v.toString())]);

/** `{ value, currencyCode }` (major units). */
const moneySchema = v.looseObject({
  value: decimal,
  currencyCode: v.pipe(v.string(), v.toUpperCase()),
});
export type WireMoney = v.InferOutput<typeof moneySchema>;

/** Money whose members are optional to read. */
const partialMoney = v.optional(
  v.looseObject({ value: v.optional(decimal), currencyCode: v.optional(v.string()) }),
);

/** `sendAmount` / `refundAmount`: the amount with its fees and total (fees and total are optional to read). */
const amountBreakdownSchema = v.looseObject({ amount: moneySchema, fees: partialMoney, total: partialMoney });

/** `receiveAmount`: what the receiver gets, and the locked FX rate. */
const receiveAmountSchema = v.looseObject({ amount: partialMoney, fxRate: v.optional(decimal) });

/** `GET /oauth/accesstoken` 200. */
export const tokenReplySchema = v.looseObject({
  access_token: v.pipe(v.string(), v.minLength(1)),
  expires_in: decimal,
});

const errorEntries = {
  category: v.optional(v.string()),
  code: v.optional(v.union([v.string(), v.number()])),
  message: v.optional(v.string()),
};
/** The error envelope of 4xx/5xx replies (and the token endpoint's `{ error }` variant). */
export const errorEnvelopeSchema = v.looseObject({
  errors: v.optional(
    v.array(
      v.looseObject({
        ...errorEntries,
        offendingFields: v.optional(v.array(v.looseObject({ field: v.optional(v.string()) }))),
      }),
    ),
  ),
  error: v.optional(v.looseObject(errorEntries)),
});

const quoteOptionSchema = v.looseObject({
  transactionId: idText,
  serviceOptionCode: v.optional(v.string()),
  serviceOptionRoutingCode: v.optional(v.string()),
});
/** `POST /transfer/v1/transactions/quote` 200: the service options offered. */
export const quoteReplySchema = v.looseObject({
  transactions: v.pipe(v.array(quoteOptionSchema), v.minLength(1, 'must hold at least one quote')),
});

/** `PUT /transfer/v1/transactions/{id}` 200. `readyForCommit` is read as is: only `true` allows the commit. */
export const updateReplySchema = v.looseObject({
  readyForCommit: v.optional(v.unknown()),
  transactionId: v.optional(v.string()),
  serviceOptionCode: v.optional(v.string()),
  serviceOptionName: v.optional(v.string()),
  sendAmount: amountBreakdownSchema,
  receiveAmount: v.optional(receiveAmountSchema),
});
export type UpdateReply = v.InferOutput<typeof updateReplySchema>;

/** `PUT /transfer/v1/transactions/{id}/commit` 200. */
export const commitReplySchema = v.looseObject({
  referenceNumber: v.union([v.string(), v.pipe(v.number(), v.toString())]),
  expectedPayoutDate: v.optional(v.string()),
  commitReceipt: v.optional(v.looseObject({ consumerHyperLink: v.optional(v.string()) })),
});
export type CommitReply = v.InferOutput<typeof commitReplySchema>;

/** Transaction states (docs/providers/provider-t.md#status); `IN_TRANSIT` is accepted for `IN TRANSIT`. */
export const TRANSACTION_STATUSES = [
  'UNFUNDED',
  'PROCESSING',
  'SENT',
  'AVAILABLE',
  'IN TRANSIT',
  'RECEIVED',
  'DELIVERED',
  'REJECTED',
  'REFUNDED',
  'CLOSED',
] as const;
/** A Provider T transaction state. */
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/**
 * A transaction state as sent, `IN_TRANSIT` folded into `IN TRANSIT`. A state this adapter does not know is not an
 * error (docs/architecture.md#lenient-reading): the mapping gives it a safe unified status.
 */
export const transactionStatusSchema = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1),
  v.transform((status) => (status === 'IN_TRANSIT' ? 'IN TRANSIT' : status)),
);

/** True when `status` is one of the documented states (an own member of the list, never a prototype name). */
export function isKnownStatus(status: string): status is TransactionStatus {
  return (TRANSACTION_STATUSES as readonly string[]).includes(status);
}

const nameSchema = v.looseObject({
  firstName: v.optional(v.string()),
  middleName: v.optional(v.string()),
  lastName: v.optional(v.string()),
  secondLastName: v.optional(v.string()),
});

/** `GET /status/v1/transactions/{id}` 200. */
export const statusReplySchema = v.looseObject({
  transactionId: idText,
  transactionStatus: transactionStatusSchema,
  referenceNumber: v.optional(v.union([v.string(), v.pipe(v.number(), v.toString())])),
  expectedPayoutDate: v.optional(v.string()),
  destinationCountryCode: v.optional(v.string()),
  serviceOptionCode: v.optional(v.string()),
  sendAmount: amountBreakdownSchema,
  receiveAmount: v.optional(receiveAmountSchema),
  receiver: v.optional(v.looseObject({ name: v.optional(nameSchema) })),
  additionalDetails: v.optional(v.record(v.string(), v.unknown())),
});
export type StatusReply = v.InferOutput<typeof statusReplySchema>;

/** `GET /amend/v1/transactions/{id}` 200. */
export const amendReadSchema = v.looseObject({
  amendId: v.pipe(v.string(), v.minLength(1)),
  amendable: v.optional(v.unknown()),
  receiver: v.looseObject({ name: nameSchema }),
});

/** `PATCH /amend/v1/transactions/{id}/receiver/name` 200. */
export const amendReplySchema = v.looseObject({ amendSuccess: v.optional(v.unknown()) });

/** `GET /refund/v2/transactions/{id}` 200. */
export const refundReadSchema = v.looseObject({
  refundId: idText,
  availableForRefund: v.optional(v.unknown()),
  refundAmount: v.optional(amountBreakdownSchema),
});

/** `PUT /refund/v2/transactions/{id}/commit` 200. */
export const refundCommitSchema = v.looseObject({
  // Required: a 200 without the refund's reference number is no proof the refund was committed.
  referenceNumber: v.union([v.string(), v.pipe(v.number(), v.toString())]),
  expectedPayoutDate: v.optional(v.string()),
});

/**
 * The webhook body (docs/providers/provider-t.md#webhooks): only what verification and the mapping read is
 * required, ids may come as numbers. `agentPartnerId` is required: it binds the delivery to this partner.
 */
export const webhookBodySchema = v.looseObject({
  eventId: idText,
  eventDate: v.optional(v.string()),
  subscriptionType: v.pipe(v.string(), v.minLength(1)),
  eventPayload: v.looseObject({
    transactionId: idText,
    agentPartnerId: idText,
    transactionStatus: transactionStatusSchema,
  }),
});
export type WebhookBody = v.InferOutput<typeof webhookBodySchema>;
/** A verified webhook body, the `data` of the raw event `providerT.TRANSACTION_STATUS_EVENT`. */
export interface ProviderTStatusEvent {
  eventId: string;
  eventDate?: string;
  subscriptionId?: string;
  subscriptionType: string;
  eventPayload: {
    transactionId: string;
    partnerTransactionId?: string;
    agentPartnerId?: string;
    referenceNumber?: string;
    transactionSendDate?: string;
    transactionStatusDate?: string;
    expectedPayoutDate?: string;
    transactionStatus: string;
    transactionSubStatus?: { subStatus?: string; message?: string }[];
    [field: string]: unknown;
  };
  [field: string]: unknown;
}
