/**
 * Lenient schemas of Provider Xyz's replies and webhook payloads, covering only the fields the adapter reads
 * (TODO: the provider's field names): an added field never breaks a read, a missing one is an
 * `InvalidResponseError` naming it.
 */
import * as v from '@pay/core/schema';

/** A payment as the provider answers a status read (and carries it in webhooks). */
export const paymentReplySchema = v.looseObject({
  id: v.string(),
  /** In the provider's wire unit (see `AMOUNT_UNIT` in requests.ts). */
  amount: v.number(),
  currency: v.string(),
  /** The provider's own status word, mapped by `PAYMENT_STATUS` (mapping.ts). */
  status: v.string(),
});

/** The reply to opening a checkout. */
export const checkoutReplySchema = v.looseObject({
  id: v.string(),
  /** Where the payer pays. */
  url: v.string(),
});

/** The reply to a refund. */
export const refundReplySchema = v.looseObject({
  id: v.string(),
  amount: v.number(),
  status: v.string(),
});

/** A webhook payload: the event's own id, its type and the payment it is about. */
export const eventSchema = v.looseObject({
  id: v.string(),
  type: v.string(),
  data: paymentReplySchema,
});

export type PaymentReply = v.InferOutput<typeof paymentReplySchema>;
export type ProviderXyzEventPayload = v.InferOutput<typeof eventSchema>;
