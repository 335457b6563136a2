/**
 * Provider N's public types. `provider_metadata` types are inferred from the schemas `requests.ts` validates with,
 * so the type and the check cannot drift.
 */
import type { Adapter, AdapterTypes, Checkout } from '@pay/core/adapter';
import type * as v from '@pay/core/schema';
import type { ProviderNCredentials } from './config.js';
import type { checkoutMetadataSchema, refundMetadataSchema } from './metadata.js';
import type { EVENT_NAMES } from './webhooks.js';
import type { refundBodySchema } from './wire.js';
import type {
  mandateEventSchema,
  rejectedPaymentEventSchema,
  settlementEventSchema,
  transactionEventSchema,
} from './wire-events.js';

/**
 * `provider_metadata` of `checkouts.create`: `amount` (major units, `5000.5` = NGN 5,000.50) and `currency` are
 * required here, not at the top level (docs/architecture.md#request-fields).
 */
export type ProviderNCheckoutMetadata = v.InferInput<typeof checkoutMetadataSchema>;

/**
 * `provider_metadata` of `refunds.create`: any member is forwarded (docs/architecture.md#request-fields) but the
 * three the adapter sets (typed `never`) and `currency`, which only labels the record and bounds the amount.
 */
export type ProviderNRefundMetadata = v.InferInput<typeof refundMetadataSchema>;

/** What `checkouts.create` resolves to: a Checkout plus `checkoutUrl` (docs/architecture.md#operations). */
export type ProviderNCheckout = Checkout & {
  /** The hosted checkout page to send the payer to (the same URL as `payment_url`). */
  checkoutUrl: string;
};

// Raw event payloads (what `providerN.*` callbacks receive as `event.data`): the input types of the wire schemas,
// so the type says exactly what the adapter accepts, plus any other member the provider sends.

/** `eventData` of `SUCCESSFUL_TRANSACTION` and `SUCCESSFUL_TRANSACTION_OFFLINE`. */
export type ProviderNTransactionEventData = v.InferInput<typeof transactionEventSchema>;

/** The customer block of a transaction payload (`{ email, name }`). */
export type ProviderNCustomer = NonNullable<ProviderNTransactionEventData['customer']>;

/** `eventData` of `REJECTED_PAYMENT`: thinner than the other transaction events, `metaData` may be a JSON string. */
export type ProviderNRejectedPaymentEventData = v.InferInput<typeof rejectedPaymentEventSchema>;

/** `eventData` of `SETTLEMENT` (the total `amount` a string such as `"1199.00"` in published payloads). */
export type ProviderNSettlementEventData = v.InferInput<typeof settlementEventSchema>;

/** One settled transaction of a `SETTLEMENT` payload (amounts as strings, no `amount`). */
export type ProviderNSettledTransaction = ProviderNSettlementEventData['transactions'][number];

/** `eventData` of `SUCCESSFUL_REFUND` and `FAILED_REFUND` (the refund body; the reason as `merchantReason`). */
export type ProviderNRefundEventData = v.InferInput<typeof refundBodySchema>;

/** `eventData` of `MANDATE_UPDATE`. */
export type ProviderNMandateEventData = v.InferInput<typeof mandateEventSchema>;

/** `eventData` of customer and disbursement events: passed through as sent, not normalised. */
export type ProviderNOtherEventData = Record<string, unknown>;

/** Raw events and the `eventData` each carries. */
export type ProviderNRawEvents = {
  'providerN.SUCCESSFUL_TRANSACTION': ProviderNTransactionEventData;
  'providerN.SUCCESSFUL_TRANSACTION_OFFLINE': ProviderNTransactionEventData;
  'providerN.REJECTED_PAYMENT': ProviderNRejectedPaymentEventData;
  'providerN.SETTLEMENT': ProviderNSettlementEventData;
  'providerN.SUCCESSFUL_REFUND': ProviderNRefundEventData;
  'providerN.FAILED_REFUND': ProviderNRefundEventData;
  'providerN.MANDATE_UPDATE': ProviderNMandateEventData;
  'providerN.CUSTOMER_CREATED': ProviderNOtherEventData;
  'providerN.CUSTOMER_UPDATED': ProviderNOtherEventData;
  'providerN.CUSTOMER_DELETED': ProviderNOtherEventData;
  'providerN.SUCCESSFUL_DISBURSEMENT': ProviderNOtherEventData;
  'providerN.FAILED_DISBURSEMENT': ProviderNOtherEventData;
  'providerN.REVERSED_DISBURSEMENT': ProviderNOtherEventData;
};

/** A normalised event Provider N's webhooks raise. */
export type ProviderNEventName = (typeof EVENT_NAMES)[number];

/** A Provider N event type (`SUCCESSFUL_TRANSACTION`, …). */
export type ProviderNEventType = keyof ProviderNRawEvents extends `providerN.${infer T}` ? T : never;

/** Provider N's declared types. */
export interface ProviderNTypes extends AdapterTypes {
  provider: 'providerN';
  /** The operations Provider N performs; `pay.<resource>.<verb>` exists only for these (the rest are unsupported). */
  operations: 'checkouts.create' | 'checkouts.retrieve' | 'payments.retrieve' | 'refunds.create';
  /**
   * The normalised events its webhooks raise (docs/architecture.md#event-names): a received payment is
   * `payment.created` (its `data.status` says whether it is paid in full), so `.on()` refuses `payment.succeeded`
   * and `invoice.generated`.
   */
  events: ProviderNEventName;
  metadata: {
    'checkouts.create': ProviderNCheckoutMetadata;
    'refunds.create': ProviderNRefundMetadata;
  };
  rawEvents: ProviderNRawEvents;
  checkout: ProviderNCheckout;
}

/** A configured Provider N adapter. */
export type ProviderNAdapter = Adapter<ProviderNTypes> & {
  /**
   * Replaces the API key and secret key while the process runs (docs/providers/provider-n.md#authentication): the
   * next call, or a sent call refused with 401, logs in with the new pair, never one old and one new key.
   * Reachable as `pay.adapter.updateCredentials`. Throws `ConfigurationError` for an empty or blank member,
   * changing nothing; the keys are used trimmed, as checked.
   */
  updateCredentials(credentials: ProviderNCredentials): void;
};
