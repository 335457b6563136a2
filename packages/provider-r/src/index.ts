/**
 * `@pay/provider-r`: the `@pay` adapter for Provider R, a redirect payment gateway. Amounts are in the currency's
 * standard unit (`250.5` = 250.50 CZK), converted exactly to the provider's integer minor units on the wire.
 */
import { createProviderRAdapter } from './adapter.js';
import { checkConfig, type ProviderRConfig, resolveConfig } from './config.js';
import type { ProviderRAdapter } from './types.js';

export { PROVIDER_R_ERRORS } from './client.js';
export {
  PROVIDER_R_BASE_URL,
  PROVIDER_R_ENV,
  type ProviderRConfig,
  type ProviderRCredentials,
} from './config.js';
export { idempotencyRefId } from './flows/create-once.js';
export { PAYMENT_STATUS, STATUS_EVENTS } from './mapping.js';
export { DEFAULT_CURRENCY, DEFAULT_LABEL } from './requests.js';
export type {
  ProviderRAdapter,
  ProviderRCaptureMetadata,
  ProviderRCheckoutMetadata,
  ProviderRCheckoutParams,
  ProviderRCheckoutRedirect,
  ProviderREventName,
  ProviderRPaymentMetadata,
  ProviderRPaymentParams,
  ProviderRRawEvents,
  ProviderRRefundMetadata,
  ProviderRTypes,
} from './types.js';
export {
  PROVIDER_R_CODES,
  PROVIDER_R_CURRENCIES,
  PROVIDER_R_STATUSES,
  type ProviderRStatus,
  type ProviderRStatusReply,
} from './wire.js';

/**
 * The default factory: reads `PROVIDER_R_MERCHANT`, `PROVIDER_R_SECRET`, `PROVIDER_R_SANDBOX` and (optional)
 * `PROVIDER_R_BASE_URL` when called (explicit `overrides` win) and throws one `ConfigurationError` naming every
 * missing variable. No I/O.
 */
export function providerR(overrides: Partial<ProviderRConfig> = {}): ProviderRAdapter {
  return createProviderRAdapter(resolveConfig(overrides));
}

/** The explicit factory: `createProviderR({ merchant, secret, isSandbox })`. No I/O, no environment read. */
export function createProviderR(config: ProviderRConfig): ProviderRAdapter {
  return createProviderRAdapter(checkConfig(config));
}
