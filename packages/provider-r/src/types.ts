/**
 * The public types of the Provider R adapter. `provider_metadata` types are inferred from the schemas that check
 * them, so the type and the run-time check cannot drift apart. Amounts are in the currency's standard unit.
 */
import type { Adapter, AdapterTypes, CallOptions } from '@pay/core/adapter';
import type * as v from '@pay/core/schema';
import type { ProviderRCredentials } from './config.js';
import type { STATUS_EVENTS, UNKNOWN_STATUS_EVENTS } from './mapping.js';
import type { checkoutMetadataSchema, paymentMetadataSchema, refundMetadataSchema } from './metadata.js';
import type { ProviderRStatus, ProviderRStatusReply } from './wire.js';

/** `provider_metadata` of `checkouts.create` (and `createCheckoutRedirect`): `label`, `email`, `refId`. */
export type ProviderRCheckoutMetadata = v.InferInput<typeof checkoutMetadataSchema>;
/** `provider_metadata` of `payments.create`: `email` (required), `paymentLabel`, `refId`. */
export type ProviderRPaymentMetadata = v.InferInput<typeof paymentMetadataSchema>;
/** `provider_metadata` of `refunds.create`: `refId`. */
export type ProviderRRefundMetadata = v.InferInput<typeof refundMetadataSchema>;
/** `provider_metadata` of `payments.capture`: Provider R takes nothing beyond the amount. */
export type ProviderRCaptureMetadata = Record<string, never>;

/** Raw webhook events: `providerR.<STATUS>`, each carrying the verified status reply (`price` in minor units). */
export type ProviderRRawEvents = { [S in ProviderRStatus as `providerR.${S}`]: ProviderRStatusReply };

/** A normalised event Provider R's pushes raise: those of its status table (docs/providers/provider-r.md#events). */
export type ProviderREventName =
  | (typeof STATUS_EVENTS)[keyof typeof STATUS_EVENTS][number]
  | (typeof UNKNOWN_STATUS_EVENTS)[number];

/** The declared types of the Provider R adapter. */
export interface ProviderRTypes extends AdapterTypes {
  provider: 'providerR';
  /** The operations Provider R performs; `pay.<resource>.<verb>` exists only for these (the rest are unsupported). */
  operations:
    | 'checkouts.create'
    | 'payments.create'
    | 'payments.retrieve'
    | 'payments.capture'
    | 'payments.cancel'
    | 'refunds.create';
  /** The events its pushes raise (docs/providers/provider-r.md#events): no refund or subscription events. */
  events: ProviderREventName;
  metadata: {
    'checkouts.create': ProviderRCheckoutMetadata;
    'payments.create': ProviderRPaymentMetadata;
    'payments.capture': ProviderRCaptureMetadata;
    'refunds.create': ProviderRRefundMetadata;
  };
  rawEvents: ProviderRRawEvents;
  /** Top-level params the provider needs (docs/architecture.md#request-fields). */
  required: {
    'checkouts.create': 'amount' | 'currency' | 'success_url' | 'cancel_url';
    'payments.create': 'amount';
  };
  /** `checkouts.create` resolves to `null`: the redirect is the provider's (docs/architecture.md#operations). */
  checkout: null;
}

/** `checkouts.create` params for Provider R: `amount`, `currency` and the two return URLs are required. */
export type ProviderRCheckoutParams = Parameters<Adapter<ProviderRTypes>['createCheckout']>[0];

/** `payments.create` params for Provider R: `amount` (standard unit) is required. */
export type ProviderRPaymentParams = Parameters<Adapter<ProviderRTypes>['createPayment']>[0];

/** What `createCheckoutRedirect` resolves to: the transaction and the hosted page to send the payer to. */
export interface ProviderRCheckoutRedirect {
  transId: string;
  redirectUrl: string;
}

/** The Provider R adapter: the unified operations (amounts typed where the spec puts them), plus `createCheckoutRedirect`. */
export type ProviderRAdapter = Adapter<ProviderRTypes> & {
  /** `checkouts.create` resolving to `{ transId, redirectUrl }` (`pay.adapter.createCheckoutRedirect`). */
  createCheckoutRedirect(
    params: ProviderRCheckoutParams,
    options?: CallOptions,
  ): Promise<ProviderRCheckoutRedirect>;
  /**
   * Replaces the merchant secret while the process runs (docs/providers/provider-r.md#authentication): the next
   * call authenticates with it; a call under way finishes with the secret it started with. Reachable as
   * `pay.adapter.updateCredentials`. Throws `ConfigurationError` for an empty or blank secret, changing nothing;
   * the secret is used trimmed, as checked.
   */
  updateCredentials(credentials: ProviderRCredentials): void;
};
