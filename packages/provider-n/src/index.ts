/**
 * `@pay/provider-n`: the `@pay` adapter for Provider N, a token-authenticated payment gateway. Hosted
 * checkouts, payment reads by transaction reference, refunds, and HMAC-SHA512-verified webhooks.
 *
 * ```ts
 * import { createPay } from '@pay/core/adapter';
 * import { providerN } from '@pay/provider-n';
 * const pay = createPay(providerN());
 * ```
 */
import { createProviderNAdapter } from './adapter.js';
import { checkConfig, type ProviderNConfig, type ProviderNOverrides, resolveConfig } from './config.js';
import type { ProviderNAdapter } from './types.js';

/**
 * Default factory: reads `PROVIDER_N_API_KEY`, `PROVIDER_N_SECRET_KEY`, `PROVIDER_N_SANDBOX` and the optional
 * `PROVIDER_N_CONTRACT_CODE` and `PROVIDER_N_BASE_URL` (a simulator's URL, e.g. `pay dev provider-n`) when called
 * (never on import); explicit `overrides` win over the environment.
 * Throws `ConfigurationError` naming every missing variable. Does no I/O.
 */
export function providerN(overrides: ProviderNOverrides = {}): ProviderNAdapter {
  return createProviderNAdapter(resolveConfig(overrides));
}

/**
 * Explicit factory: `createProviderN({ apiKey, secretKey, isSandbox, contractCode? })`, plus the transport
 * options (`baseUrl`, `fetch`, `timeoutMs`, `retry`, `hooks`). Throws `ConfigurationError` for a bad config.
 * Does no I/O.
 */
export function createProviderN(config: ProviderNConfig): ProviderNAdapter {
  return createProviderNAdapter(checkConfig(config));
}

export {
  PROVIDER_N_BASE_URLS,
  PROVIDER_N_ENV,
  type ProviderNConfig,
  type ProviderNCredentials,
  type ProviderNOverrides,
} from './config.js';
export { MANDATE_EVENT } from './events.js';
export type { ProviderNMandateStatus, ProviderNPaymentStatus, ProviderNRefundStatus } from './mapping.js';
export { MANDATE_STATUS, PAYMENT_STATUS, REFUND_STATUS } from './mapping.js';
export { idempotencyReference } from './requests.js';
export type {
  ProviderNAdapter,
  ProviderNCheckout,
  ProviderNCheckoutMetadata,
  ProviderNCustomer,
  ProviderNEventName,
  ProviderNEventType,
  ProviderNMandateEventData,
  ProviderNOtherEventData,
  ProviderNRawEvents,
  ProviderNRefundEventData,
  ProviderNRefundMetadata,
  ProviderNRejectedPaymentEventData,
  ProviderNSettledTransaction,
  ProviderNSettlementEventData,
  ProviderNTransactionEventData,
  ProviderNTypes,
} from './types.js';
export { RAW_EVENT_NAMES, SIGNATURE_HEADER } from './webhooks.js';
