/**
 * Provider Xyz configuration: the explicit config schema, and the environment the default factory reads when it is
 * called (never on import), both through core's one helper, `readProviderConfig`.
 */
import {
  type EnvVariable,
  parseConfig,
  readProviderConfig,
  type TransportOptions,
  transportConfigEntries,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';

/** The provider name records and raw events carry. */
export const PROVIDER = 'providerXyz';

/** The credentials the provider authorises calls with (TODO: yours), replaced whole by `updateCredentials`. */
export interface ProviderXyzCredentials {
  /** The secret API key from the provider's dashboard (`PROVIDER_XYZ_SECRET_KEY`). */
  secretKey: string;
}

/** Explicit configuration of `createProviderXyz(config)`: the credentials and `@pay`'s transport options. */
export interface ProviderXyzConfig extends ProviderXyzCredentials, TransportOptions {
  /**
   * `true` for the provider's sandbox (`PROVIDER_XYZ_SANDBOX`): records say `livemode: false`. A live key with
   * `false` moves real money, and its records say `livemode: true`.
   */
  isSandbox: boolean;
}

/** Overrides of the default factory `providerXyz(overrides)`: each one wins over its variable. */
export type ProviderXyzOverrides = Partial<ProviderXyzConfig>;

/** TODO: the provider's API host, from its API reference. `PROVIDER_XYZ_BASE_URL` replaces it (`pay dev`). */
export const PROVIDER_XYZ_BASE_URL = 'https://api.provider-xyz.example';

/**
 * The variables the default factory reads, with the config member each one replaces (TODO: one row per
 * credential your provider needs). Core adds `PROVIDER_XYZ_BASE_URL` → `baseUrl`.
 */
export const PROVIDER_XYZ_ENV: readonly EnvVariable<'secretKey' | 'isSandbox'>[] = [
  { env: 'PROVIDER_XYZ_SECRET_KEY', member: 'secretKey', required: true },
  { env: 'PROVIDER_XYZ_SANDBOX', member: 'isSandbox', required: true, kind: 'boolean' },
];

const credential = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'));

const credentialsSchema = v.strictObject({ secretKey: credential });

const configSchema = v.strictObject({
  ...credentialsSchema.entries,
  isSandbox: v.boolean('must be true or false'),
  ...transportConfigEntries,
});

/** Validates replacement credentials (`updateCredentials`) before anything changes. */
export function checkCredentials(credentials: ProviderXyzCredentials): ProviderXyzCredentials {
  return parseConfig(PROVIDER, credentialsSchema, credentials);
}

/** Validates an explicit config (`createProviderXyz`): nothing is read from the environment. */
export function checkConfig(config: ProviderXyzConfig): ProviderXyzConfig {
  parseConfig(PROVIDER, configSchema, config);
  return config;
}

/**
 * The default factory's configuration: the environment (read now) under the explicit `options`, each option
 * winning over its variable. One `ConfigurationError` names every missing variable, never a value.
 */
export function resolveConfig(options: ProviderXyzOverrides = {}): ProviderXyzConfig {
  const config = readProviderConfig({
    provider: PROVIDER,
    envPrefix: 'PROVIDER_XYZ',
    variables: PROVIDER_XYZ_ENV,
    schema: configSchema,
    overrides: options,
  });
  // The explicit options as given (a fetch or hooks object keeps its identity), over the variables read.
  const given = Object.entries(options).filter(([, value]) => value !== undefined);
  return { ...config, ...Object.fromEntries(given) } as ProviderXyzConfig;
}
