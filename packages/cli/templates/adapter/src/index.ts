/**
 * `@scope/pay-provider-xyz`: the `@pay` adapter for Provider Xyz.
 *
 * ```ts
 * import { createPay } from '@pay/core';
 * import { providerXyz } from '@scope/pay-provider-xyz';
 * const pay = createPay(providerXyz());
 * ```
 */
import { createProviderXyzAdapter } from './adapter.js';
import { checkConfig, type ProviderXyzConfig, type ProviderXyzOverrides, resolveConfig } from './config.js';
import type { ProviderXyzAdapter } from './types.js';

/**
 * Default factory: reads `PROVIDER_XYZ_SECRET_KEY` and the optional `PROVIDER_XYZ_BASE_URL` when called (never on
 * import); explicit `overrides` win. Throws `ConfigurationError` naming every missing variable. Does no I/O.
 */
export function providerXyz(overrides: ProviderXyzOverrides = {}): ProviderXyzAdapter {
  return createProviderXyzAdapter(resolveConfig(overrides));
}

/** Explicit factory: nothing is read from the environment. Throws `ConfigurationError` for a bad config. */
export function createProviderXyz(config: ProviderXyzConfig): ProviderXyzAdapter {
  return createProviderXyzAdapter(checkConfig(config));
}

export {
  PROVIDER_XYZ_ENV,
  type ProviderXyzConfig,
  type ProviderXyzCredentials,
  type ProviderXyzOverrides,
} from './config.js';
export type {
  ProviderXyzAdapter,
  ProviderXyzCheckoutMetadata,
  ProviderXyzRawEvents,
  ProviderXyzTypes,
} from './types.js';
export { SIGNATURE_HEADER } from './webhooks.js';
