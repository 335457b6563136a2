/**
 * What callers put in `provider_metadata` for Provider R (docs/architecture.md#request-fields): the valibot
 * schemas `requests.ts` checks it with and `types.ts` infers the public types from.
 */
import * as v from '@pay/core/schema';

const labelSchema = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must be 1–16 characters'),
  v.maxLength(16, 'must be 1–16 characters'),
);
const emailSchema = v.pipe(v.string('is required: the payer e-mail'), v.email('must be an e-mail address'));
const referenceSchema = v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'));

/** `provider_metadata` of `checkouts.create` (and `createCheckoutRedirect`). */
export const checkoutMetadataSchema = v.strictObject({
  /** Label shown to the payer, 1–16 characters. Default `Order from Eshop`. */
  label: v.optional(labelSchema),
  /** The payer's e-mail when `customer` is given by `id` (a `customer.email` wins). */
  email: v.optional(emailSchema),
  /** The merchant's reference sent as `refId`. Default: the idempotency key's refId, else `item_id`. */
  refId: v.optional(referenceSchema),
});
/** `provider_metadata` of `payments.create`. */
export const paymentMetadataSchema = v.strictObject({
  /** The payer's e-mail (required, docs/architecture.md#request-fields). */
  email: emailSchema,
  /** Label shown to the payer, 1–16 characters. Default `Order from Eshop`. */
  paymentLabel: v.optional(labelSchema),
  /** The merchant's reference sent as `refId`. Default: the idempotency key's refId, else `item_id`. */
  refId: v.optional(referenceSchema),
});
/** `provider_metadata` of `refunds.create`. */
export const refundMetadataSchema = v.strictObject({
  /** The refund's reference (`refId`), which becomes the Refund's `id`. Default: a new UUID. */
  refId: v.optional(referenceSchema),
});
/** `provider_metadata` of `payments.capture`: Provider R takes nothing beyond the amount. */
export const captureMetadataSchema = v.strictObject({});
