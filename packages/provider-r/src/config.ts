/** Provider R configuration (docs/architecture.md#authentication), explicit or from `PROVIDER_R_*` variables. */
import {
  credentialSchema,
  type EnvVariable,
  parseConfig,
  readProviderConfig,
  type TransportOptions,
  transportConfigEntries,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';

/**
 * The production host (docs/providers/provider-r.md#host-and-configuration); sandbox mode uses it too, with
 * `test: true`. `PROVIDER_R_BASE_URL` (or `baseUrl`) replaces it, e.g. with `pay dev`'s simulator.
 */
export const PROVIDER_R_BASE_URL = 'https://payments.provider-r.example';

/** Explicit configuration of `createProviderR`. */
export interface ProviderRConfig extends TransportOptions {
  /** The merchant identifier (`PROVIDER_R_MERCHANT`). */
  merchant: string;
  /** The merchant secret (`PROVIDER_R_SECRET`): HTTP Basic password, status-call field and webhook secret. */
  secret: string;
  /** `true` marks every created payment and refund as a test one (`PROVIDER_R_SANDBOX`). */
  isSandbox: boolean;
}

/** The credential `updateCredentials` replaces: the merchant secret (the merchant identifier stays). */
export type ProviderRCredentials = Pick<ProviderRConfig, 'secret'>;

/** The variables the default factory reads, all required but the host (no silent production switch). */
export const PROVIDER_R_ENV: readonly EnvVariable<'merchant' | 'secret' | 'isSandbox' | 'baseUrl'>[] = [
  { env: 'PROVIDER_R_MERCHANT', member: 'merchant', required: true },
  { env: 'PROVIDER_R_SECRET', member: 'secret', required: true },
  { env: 'PROVIDER_R_SANDBOX', member: 'isSandbox', required: true, kind: 'boolean' },
  // Listed so `pay dev` prints it: an app switches to the simulator with this line and no code change.
  { env: 'PROVIDER_R_BASE_URL', member: 'baseUrl', required: false },
];

// Core's one rule for credentials: trimmed, blank refused, and only the checked value is used
// (docs/architecture.md#configuration).
const configSchema = v.object({
  merchant: credentialSchema,
  secret: credentialSchema,
  isSandbox: v.boolean('must be true or false'),
  ...transportConfigEntries,
});

/** Checks the secret `updateCredentials` was given; a `ConfigurationError` names it, never its value. */
export function checkCredentials(credentials: ProviderRCredentials): ProviderRCredentials {
  return parseConfig('providerR', v.strictObject({ secret: credentialSchema }), credentials);
}

/** Validates an explicit configuration; a `ConfigurationError` names each bad member (never its value). */
export function checkConfig(config: ProviderRConfig): ProviderRConfig {
  const checked = parseConfig('providerR', configSchema, config);
  // The transport members are checked above but kept as given, so hooks and fetch keep their types.
  return { ...config, merchant: checked.merchant, secret: checked.secret, isSandbox: checked.isSandbox };
}

/**
 * Reads `PROVIDER_R_*` now (explicit overrides win) and names every missing variable in one `ConfigurationError`.
 * `PROVIDER_R_SANDBOX` must be `true` or `false`; `PROVIDER_R_BASE_URL`, when set, an absolute URL.
 */
export function resolveConfig(overrides: Partial<ProviderRConfig> = {}): ProviderRConfig {
  const checked = readProviderConfig({
    provider: 'providerR',
    envPrefix: 'PROVIDER_R',
    variables: PROVIDER_R_ENV,
    schema: configSchema,
    overrides,
  });
  // The transport members are checked but kept as given, so hooks and fetch keep their types.
  return { ...overrides, ...checked } as ProviderRConfig;
}
