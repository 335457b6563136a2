/** The public types of the Provider Xyz adapter. */
import type { Adapter, AdapterTypes, Checkout } from '@pay/core/adapter';
import type * as v from '@pay/core/schema';
import type { ProviderXyzEvent, ProviderXyzEventType } from './events.js';
import type { checkoutMetadataSchema } from './metadata.js';
import type { ProviderXyzEventPayload } from './wire.js';

/** `provider_metadata` of `checkouts.create`. */
export type ProviderXyzCheckoutMetadata = v.InferInput<typeof checkoutMetadataSchema>;

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
}

/** A configured Provider Xyz adapter. */
export type ProviderXyzAdapter = Adapter<ProviderXyzTypes>;
