/**
 * The public types of the Provider Xyz adapter. Types only: every module may import this one, and it imports no
 * module of the adapter that imports it back.
 */
import type { Adapter, AdapterTypes, Checkout } from '@pay/core/adapter';
import type * as v from '@pay/core/schema';
import type { ProviderXyzCredentials } from './config.js';
import type { checkoutMetadataSchema } from './metadata.js';
import type { EVENT_NAMES, EVENT_TYPES } from './webhooks.js';
import type { ProviderXyzEventPayload } from './wire.js';

/** `provider_metadata` of `checkouts.create`. */
export type ProviderXyzCheckoutMetadata = v.InferInput<typeof checkoutMetadataSchema>;

/** An event type the provider sends. */
export type ProviderXyzEventType = (typeof EVENT_TYPES)[number];

/** A normalised event the adapter raises. */
export type ProviderXyzEvent = (typeof EVENT_NAMES)[number];

/** The raw events `.on()` accepts, each with its payload. */
export type ProviderXyzRawEvents = {
  [Type in ProviderXyzEventType as `providerXyz.${Type}`]: ProviderXyzEventPayload;
};

/** What the adapter declares to `createPay`: its provider name, metadata, events and operations. */
export interface ProviderXyzTypes extends AdapterTypes {
  provider: 'providerXyz';
  metadata: { 'checkouts.create': ProviderXyzCheckoutMetadata };
  rawEvents: ProviderXyzRawEvents;
  checkout: Checkout;
  // TODO: declare the operations once adapter.ts implements them, so an unsupported call is a compile error:
  // operations: 'checkouts.create' | 'payments.retrieve' | 'refunds.create';
  events: ProviderXyzEvent;
  /**
   * The top-level params the provider needs although core's request leaves them optional (TODO: yours): a
   * checkout without an amount is a compile error for the caller (requests.ts checks it at run time too).
   */
  required: { 'checkouts.create': 'amount' };
}

/** A configured Provider Xyz adapter. */
export type ProviderXyzAdapter = Adapter<ProviderXyzTypes> & {
  /**
   * Uses `credentials` from the next call on (the provider's key rotation); calls under way finish with the key
   * they started with. Checked first: a `ConfigurationError` changes nothing.
   */
  updateCredentials(credentials: ProviderXyzCredentials): void;
};
