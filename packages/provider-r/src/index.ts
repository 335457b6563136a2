/**
 * `@pay/provider-r`: the `@pay` adapter for Provider R, a redirect payment gateway. Amounts are integer minor
 * units (`10000` = 100.00 CZK), passed through unchanged.
 */
import { buildProviderRAdapter, type ProviderRAdapter } from './adapter.js';
import { configFromEnvironment, type ProviderRConfig, resolveConfig } from './config.js';

export type {
  ProviderRAdapter,
  ProviderRCheckoutRedirect,
  ProviderRRawEvents,
  ProviderRTypes,
} from './adapter.js';
export { PROVIDER_R_BASE_URL, PROVIDER_R_ENV, type ProviderRConfig } from './config.js';
export { idempotencyRefId } from './idempotency.js';
export { PAYMENT_STATUS, STATUS_EVENTS } from './mapping.js';
export {
  DEFAULT_CURRENCY,
  DEFAULT_LABEL,
  type ProviderRCaptureMetadata,
  type ProviderRCheckoutMetadata,
  type ProviderRPaymentMetadata,
  type ProviderRRefundMetadata,
} from './requests.js';
export {
  PROVIDER_R_CODES,
  PROVIDER_R_CURRENCIES,
  PROVIDER_R_STATUSES,
  type ProviderRStatus,
  type ProviderRStatusReply,
} from './wire.js';

/**
 * The default factory: reads `PROVIDER_R_MERCHANT`, `PROVIDER_R_SECRET` and `PROVIDER_R_SANDBOX` when called
 * (explicit `overrides` win) and throws one `ConfigurationError` naming every missing variable. No I/O.
 */
export function providerR(overrides: Partial<ProviderRConfig> = {}): ProviderRAdapter {
  return buildProviderRAdapter(configFromEnvironment(overrides));
}

/** The explicit factory: `createProviderR({ merchant, secret, isSandbox })`. No I/O, no environment read. */
export function createProviderR(config: ProviderRConfig): ProviderRAdapter {
  return buildProviderRAdapter(resolveConfig(config));
}
