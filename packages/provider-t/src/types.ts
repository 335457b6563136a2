/**
 * Provider T's public types. What callers put in `provider_metadata` is inferred from the schemas that check it
 * (`metadata.ts`), so the type and the run-time check cannot drift apart.
 */
import type { Adapter, AdapterTypes, Checkout } from '@pay/core/adapter';
import type * as v from '@pay/core/schema';
import type { ProviderTCredentials } from './config.js';
import type { STATUS_EVENTS } from './mapping.js';
import type {
  addressSchema,
  checkoutMetadataSchema,
  identityEntries,
  nameSchema,
  receiverSchema,
  refundMetadataSchema,
  senderSchema,
  transactionInformationSchema,
  transferMetadataSchema,
  updateMetadataSchema,
} from './metadata.js';
import type { ProviderTStatusEvent } from './wire.js';

/** A person's name (docs/providers/provider-t.md#update). */
export type ProviderTName = v.InferInput<typeof nameSchema>;
/** A postal address (docs/providers/provider-t.md#update). Country codes are ISO 3166 alpha-3 (`USA`, `MEX`). */
export type ProviderTAddress = v.InferInput<typeof addressSchema>;
/** The sender: full KYC data on every transfer, since Provider T stores no customers (docs/architecture.md#request-fields). */
export type ProviderTSender = v.InferInput<typeof senderSchema>;
/** The receiver. Its address country is the destination when `destinationCountryCode` is not given. */
export type ProviderTReceiver = v.InferInput<typeof receiverSchema>;
/** Compliance data the update step enforces (docs/architecture.md#reading-provider-t-compliance): forwarded when given. */
export type ProviderTTransactionInformation = v.InferInput<typeof transactionInformationSchema>;
/** Identity fields a single call may override (docs/providers/provider-t.md#identity-fields). */
export type ProviderTIdentityOverrides = v.InferInput<v.ObjectSchema<typeof identityEntries, undefined>>;
/** `provider_metadata` of `payments.create`: sender and receiver are required. */
export type ProviderTTransferMetadata = v.InferInput<typeof transferMetadataSchema>;
/**
 * `provider_metadata` of `checkouts.create`: a transfer, plus its `amount` (major units, `100.5` = 100.50, at most
 * the currency's minor digits) and `currency` (docs/architecture.md#request-fields); leaving either out is a type error.
 */
export type ProviderTCheckoutMetadata = v.InferInput<typeof checkoutMetadataSchema>;
/** `provider_metadata` of `payments.update` / `checkouts.update`: the receiver-name amendment (docs/architecture.md#operations). */
export type ProviderTUpdateMetadata = v.InferInput<typeof updateMetadataSchema>;
/** `provider_metadata` of `refunds.create`. */
export type ProviderTRefundMetadata = v.InferInput<typeof refundMetadataSchema>;

/** Raw events Provider T raises: `providerT.<subscriptionType>`, with the verified body as `data`. */
export type ProviderTRawEvents = {
  'providerT.TRANSACTION_STATUS_EVENT': ProviderTStatusEvent;
};

/** A normalised event Provider T's webhooks raise: those of its status table, and `payment.updated`. */
export type ProviderTEventName = (typeof STATUS_EVENTS)[keyof typeof STATUS_EVENTS] | 'payment.updated';

/** Provider T's declared types: `provider_metadata` per operation, raw events, and what checkouts resolve to. */
export interface ProviderTTypes extends AdapterTypes {
  provider: 'providerT';
  /** The operations Provider T performs; calling any other one through `createPay` is a compile error. */
  operations:
    | 'payments.create'
    | 'payments.retrieve'
    | 'payments.update'
    | 'checkouts.create'
    | 'checkouts.retrieve'
    | 'checkouts.update'
    | 'refunds.create';
  metadata: {
    'payments.create': ProviderTTransferMetadata;
    'checkouts.create': ProviderTCheckoutMetadata;
    'payments.update': ProviderTUpdateMetadata;
    'checkouts.update': ProviderTUpdateMetadata;
    'refunds.create': ProviderTRefundMetadata;
  };
  rawEvents: ProviderTRawEvents;
  /** The normalised events its webhooks raise (docs/providers/provider-t.md#webhooks): no invoice, no subscription. */
  events: ProviderTEventName;
  checkout: Checkout;
}

/** A configured Provider T adapter. */
export type ProviderTAdapter = Adapter<ProviderTTypes> & {
  /**
   * Replaces the OAuth client id and secret while the process runs (docs/providers/provider-t.md#authentication):
   * the next call, and a call already sent that the provider then refuses (401), logs in with the new pair, never
   * with one old and one new member. Reachable as `pay.adapter.updateCredentials`. Throws `ConfigurationError` for
   * an empty or blank member, changing nothing; the members are used trimmed, as checked.
   */
  updateCredentials(credentials: ProviderTCredentials): void;
};

/** Where a transfer stood when it failed (docs/architecture.md#errors): `context.step` of every error it raises. */
export type TransferStep = 'quote' | 'update' | 'commit';

export type { ProviderTStatusEvent, TransactionStatus } from './wire.js';
