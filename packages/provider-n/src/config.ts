/** Provider N configuration (docs/providers/provider-n.md#hosts-and-configuration), through core's helper. */
import {
  credentialSchema,
  type EnvVariable,
  parseConfig,
  readProviderConfig,
  type TransportOptions,
  transportConfigEntries,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';

/** The provider name every record and error of this adapter carries. */
export const PROVIDER = 'providerN';

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

/** The credentials the adapter logs in with, as `updateCredentials` replaces them. */
export type ProviderNCredentials = Pick<ProviderNConfig, 'apiKey' | 'secretKey'>;

/** Overrides accepted by the default factory `providerN(overrides)`: each one wins over its variable. */
export type ProviderNOverrides = Partial<ProviderNConfig>;

/** Default base URLs; every path of the wire contract (docs/providers/provider-n.md#hosts-and-configuration) is relative to them. */
export const PROVIDER_N_BASE_URLS = {
  sandbox: 'https://sandbox.provider-n.example/api',
  production: 'https://api.provider-n.example/api',
} as const;

type EnvMember = 'apiKey' | 'secretKey' | 'isSandbox' | 'contractCode' | 'baseUrl';

/**
 * The variables the default factory reads, with the config member replacing each. `PROVIDER_N_BASE_URL`
 * (optional) replaces the host, e.g. with a simulator's URL (`pay dev provider-n`), without a code change.
 */
export const PROVIDER_N_ENV: readonly EnvVariable<EnvMember>[] = [
  { env: 'PROVIDER_N_API_KEY', member: 'apiKey', required: true },
  { env: 'PROVIDER_N_SECRET_KEY', member: 'secretKey', required: true },
  { env: 'PROVIDER_N_SANDBOX', member: 'isSandbox', required: true, kind: 'boolean' },
  { env: 'PROVIDER_N_CONTRACT_CODE', member: 'contractCode', required: false },
  { env: 'PROVIDER_N_BASE_URL', member: 'baseUrl', required: false },
];

const configSchema = v.strictObject({
  apiKey: credentialSchema,
  secretKey: credentialSchema,
  isSandbox: v.boolean('must be true or false'),
  contractCode: v.optional(credentialSchema),
  ...transportConfigEntries,
});

/** Checks the credentials `updateCredentials` was given; a `ConfigurationError` names each bad member. */
export function checkCredentials(credentials: ProviderNCredentials): ProviderNCredentials {
  return parseConfig(
    PROVIDER,
    v.strictObject({ apiKey: credentialSchema, secretKey: credentialSchema }),
    credentials,
  );
}

/**
 * Validates an explicit config (`createProviderN`): nothing is read from the environment. The credentials are the
 * checked (trimmed) values, the only ones ever sent (docs/architecture.md#configuration).
 */
export function checkConfig(config: ProviderNConfig): ProviderNConfig {
  return withCheckedMembers(config, parseConfig(PROVIDER, configSchema, config));
}

/**
 * `given` with every member the schema reads for Provider N (credentials, mode, contract code, host) taken from
 * `checked`; the transport members stay as given, so a token store or hooks object keeps its identity.
 */
function withCheckedMembers(
  given: ProviderNConfig,
  checked: v.InferOutput<typeof configSchema>,
): ProviderNConfig {
  const { apiKey, secretKey, isSandbox, contractCode, baseUrl } = checked;
  return { ...given, apiKey, secretKey, isSandbox, contractCode, baseUrl };
}

/**
 * The default factory's configuration: the environment (read now, never on import) under the explicit `options`,
 * validated as a whole. A `ConfigurationError` names every missing variable, or each bad member, never a value.
 */
export function resolveConfig(options: ProviderNOverrides = {}): ProviderNConfig {
  const config = readProviderConfig({
    provider: PROVIDER,
    envPrefix: 'PROVIDER_N',
    variables: PROVIDER_N_ENV,
    schema: configSchema,
    overrides: options,
  });
  // The explicit transport options as given, over the variables read; every checked member as checked.
  const given = Object.entries(options).filter(([, value]) => value !== undefined);
  return withCheckedMembers({ ...config, ...Object.fromEntries(given) } as ProviderNConfig, config);
}
