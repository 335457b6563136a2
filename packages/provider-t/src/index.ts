/**
 * `@pay/provider-t`: the `@pay` adapter for Provider T, a money-transfer network. A payment or checkout is a
 * transfer executed as quote → update → commit in one call; see the README for its failure modes.
 *
 * ```ts
 * import { createPay } from '@pay/core';
 * import { providerT } from '@pay/provider-t';
 * const pay = createPay(providerT());
 * ```
 */
import { createProviderTAdapter } from './adapter.js';
import { checkConfig, type ProviderTConfig, resolveConfig } from './config.js';
import type { ProviderTAdapter } from './types.js';

/**
 * Creates the adapter from explicit configuration. Validates the config (a `ConfigurationError` names each
 * bad member); does no I/O.
 */
export function createProviderT(config: ProviderTConfig): ProviderTAdapter {
  return createProviderTAdapter(checkConfig(config));
}

/**
 * Creates the adapter from the environment, read when called: `PROVIDER_T_CLIENT_ID`,
 * `PROVIDER_T_CLIENT_SECRET`, `PROVIDER_T_AGENT_PARTNER_ID`, `PROVIDER_T_OPERATOR_ID`, `PROVIDER_T_SANDBOX`
 * (`true` selects the sandbox) and optionally `PROVIDER_T_POS_ID`, `PROVIDER_T_WEBHOOK_HOST`,
 * `PROVIDER_T_BASE_URL` (another host, e.g. the simulator of `pay dev`) and `PROVIDER_T_WEBHOOK_PUBLIC_KEY` (the
 * key webhooks are verified with instead of the environment's, e.g. the simulator's). Explicit `overrides` win;
 * every missing variable is named in one `ConfigurationError`.
 */
export function providerT(overrides: Partial<ProviderTConfig> = {}): ProviderTAdapter {
  return createProviderTAdapter(resolveConfig(overrides));
}

export { UNSUPPORTED_REASONS } from './adapter.js';
export {
  PROVIDER_T_BASE_URLS,
  PROVIDER_T_ENV,
  PROVIDER_T_WEBHOOK_PUBLIC_KEYS,
  type ProviderTConfig,
  type ProviderTCredentials,
} from './config.js';
export { PAYMENT_STATUS, RECEIPT_LINK_LIFETIME_MS, STATUS_EVENTS } from './mapping.js';
export { DEFAULT_REFUND_REASON_CODE } from './metadata.js';
export type {
  ProviderTAdapter,
  ProviderTAddress,
  ProviderTCheckoutMetadata,
  ProviderTEventName,
  ProviderTIdentityOverrides,
  ProviderTName,
  ProviderTRawEvents,
  ProviderTReceiver,
  ProviderTRefundMetadata,
  ProviderTSender,
  ProviderTStatusEvent,
  ProviderTTransactionInformation,
  ProviderTTransferMetadata,
  ProviderTTypes,
  ProviderTUpdateMetadata,
  TransactionStatus,
  TransferStep,
} from './types.js';
export { MAX_SIGNATURE_AGE_SECONDS, MAX_SIGNATURE_FUTURE_SECONDS, parseSignatureHeader } from './webhooks.js';
