/**
 * Provider N's webhook payloads (docs/providers/provider-n.md#webhooks): lenient valibot schemas of
 * `{ eventType, eventData }` and of each event type's `eventData`. Only the fields mapped are required.
 */
import * as v from '@pay/core/schema';
import {
  currencyCode,
  hasAmountAsked,
  optionalDecimal,
  optionalText,
  transactionEntries,
  transactionFields,
} from './wire.js';

/** The webhook body. `eventData` must be an object: every documented event carries one, and callbacks get it. */
export const webhookBodySchema = v.object({
  eventType: v.pipe(v.string(), v.minLength(1)),
  eventData: v.record(v.string(), v.unknown()),
});

/**
 * `eventData` of `SUCCESSFUL_TRANSACTION(_OFFLINE)`; a missing currency reads as the home currency (mapping.ts).
 */
export const transactionEventSchema = v.pipe(
  v.looseObject(transactionEntries),
  v.check((read) => hasAmountAsked(read), 'must carry the amount asked (totalPayable or amount)'),
  v.transform((read) => transactionFields(read, (read.totalPayable ?? read.amount) as number)),
);

/** `paymentSourceInformation`: one source object, or (in some published payloads) a list of them. */
const paymentSourceSchema = v.looseObject({ amountPaid: optionalDecimal });

/**
 * `eventData` of `REJECTED_PAYMENT` (docs/providers/provider-n.md#webhooks): the amount asked is `amount` (or
 * `paymentRejectionInformation.expectedAmount`), what the payer sent `paymentSourceInformation.amountPaid`.
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

/** `eventData` of `SETTLEMENT`; the top-level `amount` (`"1199.00"`) is the total, not needed for the records. */
export const settlementEventSchema = v.looseObject({
  settlementReference: v.pipe(v.string(), v.minLength(1)),
  amount: optionalDecimal,
  currency: v.optional(v.nullable(currencyCode)),
  transactions: v.array(transactionEventSchema),
});

/** `eventData` of `MANDATE_UPDATE`; the payer's e-mail is `customerEmailAddress` in published payloads. */
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
