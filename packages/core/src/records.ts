/**
 * The unified records (docs/architecture.md#records) and the request contracts
 * (docs/architecture.md#request-fields), as valibot schemas with inferred types.
 */
import * as v from 'valibot';

/**
 * An adapter's name as its records, events and errors carry it (`providerN`), also the prefix of its raw event
 * names. Open: each adapter declares its own as a literal in `AdapterTypes['provider']`.
 */
export type ProviderName = string;

/** A customer reference as the providers know it: by id, by e-mail, or unknown. */
export type CustomerRef = { id: string } | { email: string } | null;

/** Unified payment status. */
export type PaymentStatus =
  | 'pending'
  | 'processing'
  | 'requires_action'
  | 'requires_capture'
  | 'succeeded'
  | 'canceled'
  | 'failed';

/** Fields every record carries. */
interface RecordBase {
  id: string;
  provider: ProviderName;
  /** The provider reply this record was built from, credential fields removed. */
  raw: unknown;
  metadata: Record<string, string>;
  /** `true` for a live payment that moves real money, `false` for a sandbox or test one. */
  livemode: boolean;
  /**
   * The request id of the call that produced this record, for a support ticket: the provider's, else the one `@pay`
   * sent. `null` when no call produced the record (built from a webhook payload).
   */
  request_id: string | null;
}

/** A payment. Amounts are in the currency's standard unit, for every provider (docs/architecture.md#money). */
export interface Payment extends RecordBase {
  /** The amount asked of the payer. */
  amount: number;
  /**
   * What the payer has paid so far, in the unit of `amount` (`null` when the provider does not say); `status` says
   * `succeeded` only when the provider confirms the payment complete.
   */
  amount_paid: number | null;
  currency: string;
  status: PaymentStatus;
  customer: CustomerRef;
  item_id: string | null;
  requires_action: boolean;
  /** Where the payer completes the payment, when the provider gives one. */
  payment_url: string | null;
}

/** A checkout session. Provider T: a committed transfer whose `payment_url` is a 5-minute receipt link. */
export interface Checkout extends RecordBase {
  payment_url: string | null;
  amount: number;
  currency: string;
  customer: CustomerRef;
  session_type: 'one_time';
  products: { id: string; quantity: number }[];
  /** ISO time after which `payment_url` stops working. */
  expires_at: string | null;
}

/** Unified refund status. */
export type RefundStatus = 'pending' | 'succeeded' | 'failed';

/** A refund of (part of) a payment. */
export interface Refund extends RecordBase {
  payment_id: string;
  amount: number;
  currency: string;
  status: RefundStatus;
  reason: string | null;
}

/** An invoice, raised by webhooks (Provider R: `invoice.generated` on PAID). */
export interface Invoice extends RecordBase {
  payment_id: string;
  amount_paid: number;
  currency: string;
  status: 'paid' | 'open';
  paid_at: string | null;
  customer: CustomerRef;
}

/** A customer stored at the provider. */
export interface Customer extends RecordBase {
  email: string | null;
  name: string | null;
}

/** Unified subscription status. */
export type SubscriptionStatus = 'pending' | 'active' | 'canceled' | 'failed' | 'expired';

/** A subscription (Provider N: a mandate). */
export interface Subscription extends RecordBase {
  status: SubscriptionStatus;
  customer: CustomerRef;
  amount: number | null;
  currency: string | null;
}

/** The `request_id` of a record for a reply: the provider's own from reply `header` when sent, else `@pay`'s. */
export function requestIdOf(reply: { headers: Headers; requestId: string }, header?: string): string {
  const answered = header ? reply.headers.get(header)?.trim() : undefined;
  return answered ? answered : reply.requestId;
}

// Request contracts: fields whose presence depends on the provider are optional here and required by the adapter
// that needs them (docs/architecture.md#request-fields). Unknown top-level fields are refused.

const nonEmpty = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'));
/** ISO 4217 code in any letter case, normalised to upper case. */
export const currencySchema = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z]{3}$/, 'must be a 3-letter ISO 4217 code'),
  v.toUpperCase(),
);
/** A finite, non-negative number; the unit and digit checks are the adapter's (they depend on the provider). */
export const amountSchema = v.pipe(
  v.number('must be a number'),
  v.finite('must be a finite number'),
  v.minValue(0, 'must not be negative'),
);
const urlSchema = v.pipe(v.string(), v.url('must be an absolute URL'));
const emailSchema = v.pipe(v.string(), v.email('must be an e-mail address'));
/** A customer given by e-mail or by the provider's id. */
export const customerInputSchema = v.union(
  [v.strictObject({ email: emailSchema }), v.strictObject({ id: nonEmpty })],
  'must be { email } or { id }',
);
/** A resource identifier argument. */
export const idSchema = v.pipe(v.string('must be a string identifier'), v.minLength(1, 'must not be empty'));

/** `metadata` and `provider_metadata`, which every request that writes takes (last, in this order). */
const metadataEntries = {
  metadata: v.optional(v.record(v.string(), v.string('metadata values must be strings'))),
  provider_metadata: v.optional(v.record(v.string(), v.unknown())),
};

/** `checkouts.create` input. */
export const checkoutCreateSchema = v.strictObject({
  customer: v.optional(customerInputSchema),
  item_id: v.optional(nonEmpty),
  session_type: v.optional(v.literal('one_time', "must be 'one_time'")),
  quantity: v.optional(
    v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1, 'must be at least 1')),
  ),
  amount: v.optional(amountSchema),
  currency: v.optional(currencySchema),
  success_url: v.optional(urlSchema),
  cancel_url: v.optional(urlSchema),
  ...metadataEntries,
});

/** `payments.create` input. `amount` is required; its unit is the provider's. */
export const paymentCreateSchema = v.strictObject({
  customer: v.optional(customerInputSchema),
  item_id: v.optional(nonEmpty),
  amount: amountSchema,
  currency: v.optional(currencySchema),
  ...metadataEntries,
});

/** `payments.update` / `checkouts.update` (and the other updates) input. */
export const updateSchema = v.strictObject(metadataEntries);

/** `payments.capture` input: the amount to capture, when less than authorised. */
export const captureSchema = v.strictObject({
  amount: v.optional(amountSchema),
  provider_metadata: metadataEntries.provider_metadata,
});

/** `refunds.create` input. */
export const refundCreateSchema = v.strictObject({
  payment_id: nonEmpty,
  amount: v.optional(amountSchema),
  currency: v.optional(currencySchema),
  reason: v.optional(v.string()),
  ...metadataEntries,
});

/** `customers.create` input. */
export const customerCreateSchema = v.strictObject({
  email: v.optional(emailSchema),
  name: v.optional(nonEmpty),
  ...metadataEntries,
});

/** `subscriptions.create` input. */
export const subscriptionCreateSchema = v.strictObject({
  customer: v.optional(customerInputSchema),
  item_id: v.optional(nonEmpty),
  amount: v.optional(amountSchema),
  currency: v.optional(currencySchema),
  ...metadataEntries,
});

/** Makes `provider_metadata` required when the provider's metadata type has a required member. */
export type WithProviderMetadata<Base, M> = Omit<Base, 'provider_metadata'> &
  ({} extends M ? { provider_metadata?: M } : { provider_metadata: M });

/** The params of a request contract, with the provider's `provider_metadata`. */
type ParamsFor<S extends v.GenericSchema, M> = WithProviderMetadata<v.InferInput<S>, M>;
type AnyMetadata = Record<string, unknown>;

/** `checkouts.create` params. */
export type CheckoutCreateParams<M = AnyMetadata> = ParamsFor<typeof checkoutCreateSchema, M>;
/** `payments.create` params. */
export type PaymentCreateParams<M = AnyMetadata> = ParamsFor<typeof paymentCreateSchema, M>;
/** Update params (`{ metadata?, provider_metadata? }`). */
export type UpdateParams<M = AnyMetadata> = ParamsFor<typeof updateSchema, M>;
/** `payments.capture` params. */
export type CaptureParams<M = AnyMetadata> = ParamsFor<typeof captureSchema, M>;
/** `refunds.create` params. */
export type RefundCreateParams<M = AnyMetadata> = ParamsFor<typeof refundCreateSchema, M>;
/** `customers.create` / `customers.update` params. */
export type CustomerCreateParams<M = AnyMetadata> = ParamsFor<typeof customerCreateSchema, M>;
/** `subscriptions.create` params. */
export type SubscriptionCreateParams<M = AnyMetadata> = ParamsFor<typeof subscriptionCreateSchema, M>;
