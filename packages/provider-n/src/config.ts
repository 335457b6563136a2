/**
 * Provider N configuration (spec §5, wire contract "Hosts and configuration"): the explicit config schema and
 * the environment the default factory reads when it is called.
 */
import {
  booleanSetting,
  type EnvVariable,
  parseConfig,
  readEnvironment,
  type TransportOptions,
  transportConfigEntries,
} from '@pay/core';
import * as v from '@pay/core/schema';

/** Explicit configuration of `createProviderN(config)`. */
export interface ProviderNConfig extends TransportOptions {
  /** API key from the provider's dashboard (`PROVIDER_N_API_KEY`). */
  apiKey: string;
  /** Secret key paired with the API key (`PROVIDER_N_SECRET_KEY`). */
  secretKey: string;
  /** `true` talks to the sandbox, `false` to production (`PROVIDER_N_SANDBOX`). */
  isSandbox: boolean;
  /** The merchant's contract code, sent on every init-transaction when set (`PROVIDER_N_CONTRACT_CODE`). */
  contractCode?: string | undefined;
}

/** Overrides accepted by the default factory `providerN(overrides)`: each one wins over its variable. */
export type ProviderNOverrides = Partial<ProviderNConfig>;

/** Default base URLs; every path of the wire contract is relative to them. */
export const PROVIDER_N_BASE_URLS = {
  sandbox: 'https://sandbox.provider-n.example/api',
  production: 'https://api.provider-n.example/api',
} as const;

/** The variables the default factory reads, with the config member replacing each. */
export const PROVIDER_N_ENV: readonly EnvVariable<'apiKey' | 'secretKey' | 'isSandbox' | 'contractCode'>[] = [
  { env: 'PROVIDER_N_API_KEY', member: 'apiKey', required: true },
  { env: 'PROVIDER_N_SECRET_KEY', member: 'secretKey', required: true },
  { env: 'PROVIDER_N_SANDBOX', member: 'isSandbox', required: true },
  { env: 'PROVIDER_N_CONTRACT_CODE', member: 'contractCode', required: false },
];

const credential = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'));

const configSchema = v.strictObject({
  apiKey: credential,
  secretKey: credential,
  isSandbox: v.boolean('must be true or false'),
  contractCode: v.optional(credential),
  ...transportConfigEntries,
});

/** Validates an explicit config; a `ConfigurationError` names each bad member, never its value. */
export function resolveConfig(config: ProviderNConfig): ProviderNConfig {
  parseConfig('providerN', configSchema, config);
  return config;
}

/**
 * Reads the environment (now, not on import) and lets each explicit override win. Missing variables are all
 * named in one `ConfigurationError`.
 */
export function loadConfig(overrides: ProviderNOverrides = {}): ProviderNConfig {
  const { apiKey, secretKey, isSandbox, contractCode, ...transport } = overrides;
  const values = readEnvironment('providerN', PROVIDER_N_ENV, { apiKey, secretKey, isSandbox, contractCode });
  return resolveConfig({
    ...transport,
    apiKey: values.apiKey as string,
    secretKey: values.secretKey as string,
    isSandbox: booleanSetting('PROVIDER_N_SANDBOX', values.isSandbox),
    ...(values.contractCode === undefined ? {} : { contractCode: values.contractCode as string }),
  });
}

/** The base URL calls go to: the override, else the sandbox or production host. */
export function baseUrlOf(config: ProviderNConfig): string {
  return (
    config.baseUrl ?? (config.isSandbox ? PROVIDER_N_BASE_URLS.sandbox : PROVIDER_N_BASE_URLS.production)
  );
}
