/**
 * Provider T configuration (docs/providers/provider-t.md#hosts-and-configuration): the explicit config, the
 * environment the default factory reads, and the resolved settings the adapter runs with.
 */
import type { TransportOptions } from '@pay/core/adapter';
import {
  credentialSchema,
  parseConfig,
  readProviderConfig,
  spkiBytes,
  transportConfigEntries,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import { text } from './metadata.js';

/** Explicit configuration of `createProviderT`. */
export interface ProviderTConfig extends TransportOptions {
  /** OAuth client id (`PROVIDER_T_CLIENT_ID`). */
  clientId: string;
  /** OAuth client secret (`PROVIDER_T_CLIENT_SECRET`). */
  clientSecret: string;
  /** Your agent partner id, sent on every call (`PROVIDER_T_AGENT_PARTNER_ID`). */
  agentPartnerId: string;
  /** Operator id sent on transfer calls (`PROVIDER_T_OPERATOR_ID`). */
  operatorId: string;
  /** `true` selects the sandbox host and the sandbox webhook key (`PROVIDER_T_SANDBOX`). */
  isSandbox: boolean;
  /** Point-of-sale id sent on transfer calls (`PROVIDER_T_POS_ID`, default `"01"`). */
  posId?: string;
  /** Language of provider texts (default `"en-US"`). */
  userLanguage?: string;
  /** Audience of provider texts (default `"AGENT_FACING"`). */
  targetAudience?: string;
  /**
   * Public key (base64 SPKI DER or PEM) webhooks are verified with instead of the environment's built-in one (the
   * simulator's, `PROVIDER_T_WEBHOOK_PUBLIC_KEY`). A list while Provider T rotates its key:
   * `[newKey, PROVIDER_T_WEBHOOK_PUBLIC_KEYS.production]` accepts either, and the `pay:webhook` diagnostics message
   * says which one verified each (`secretIndex`): docs/providers/provider-t.md#webhooks.
   */
  webhookPublicKey?: string | readonly string[];
  /**
   * The host of your webhook endpoint as registered with Provider T (`pay.shop.example[:port]`,
   * `PROVIDER_T_WEBHOOK_HOST`). Provider T signs every partner's deliveries with one key, so the signed host binds a
   * delivery to you: webhooks are verified against it, never against the request's host. Required in production
   * (deliveries are refused with 503 until it is set); the sandbox falls back to the host of `fullUrl`.
   */
  webhookHost?: string;
}

/** The OAuth client credentials the adapter logs in with, as `updateCredentials` replaces them. */
export type ProviderTCredentials = Pick<ProviderTConfig, 'clientId' | 'clientSecret'>;

/** Default base URLs per environment (docs/providers/provider-t.md#hosts-and-configuration). */
export const PROVIDER_T_BASE_URLS = {
  sandbox: 'https://sandbox-api.provider-t.example',
  production: 'https://api.provider-t.example',
} as const;

/**
 * Provider T's fixed webhook public keys, one per environment (SPKI DER, base64). There is no per-partner key
 * and no shared secret (docs/architecture.md#authentication).
 */
export const PROVIDER_T_WEBHOOK_PUBLIC_KEYS = {
  sandbox:
    'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA0Dm7LFleQyaXakYdNOvCv2Irm2ufOcncek0Q4J+MtzmEYvdlfhx5Sm206s2Z5l0/+6YyA3tFljRNCFar3lm96o/S6IFNo0xOsCy+Il7EzQNl4S7kojqnOGfgMgUBC/qxf0S7zkh7y0St8G3OpcjYg7Ff7PAFXmcgjk22F1lUeOqy+zyP2dRJ+NEKZrcHJhbFheB0dPH++e+1foHSfhz+I+Pt9DDaESJasJptZGo0Ww3U+KkPmrDriOLbvpdE4r7MKzeQfGa7SMx4VzhtWFa98/6V6MO29ZjkegejHBZsCekA/1NU0gAQhQnxuYsgdCn/9LogrWqUS8Tl44K2yPYCsQIDAQAB',
  production:
    'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtPGnqyaDXdZgsYqLuj+hP44TM4hTgnQi+Giq25FIXITANi5kHqS7/PtxGl0QsJex84NabOVc20PI56Nwk2X2+tid1dAXnIDH4S0dQeNRjTt3QRd3eNn0ikCKFZ+yJWyZ2IR1bkWR+FHn1WBjeC5DwrF4Jpmpv6D+YJGvJRFsDbjS3VFypN4RxF146kHDm3T/5cTFDhXnubgjWhi/T7dYpN881bY4Lh8y3maNpruH99bzTZEtkpyBpm4dnBUnmWdSDNgchhT/8t6nLzVczp1bDSl8cV5WUsgftaDW1aVZrde2fVuEnNwEvD5eFv/C9/8KwBRqr898aw7ZzMD9Y9vBkQIDAQAB',
} as const;

/** The provider name on records, errors and events. */
export const PROVIDER = 'providerT';

/** The provider as configuration errors name it. */
const LABEL = 'Provider T';

/**
 * Key texts already decoded: a client made per request checks the same key each time, and decoding it is not free
 * (docs/architecture.md#what-a-cold-client-costs).
 */
const decodedKeys = new Set<string>();

/** Whether `key` is an SPKI public key as base64 DER or PEM, decoded once per key text. */
function isPublicKey(key: string): boolean {
  if (decodedKeys.has(key)) return true;
  if (spkiBytes(key) === undefined) return false;
  if (decodedKeys.size >= 16) decodedKeys.clear();
  decodedKeys.add(key);
  return true;
}

const PUBLIC_KEY = 'must be an SPKI public key as base64 DER or PEM (or a non-empty list of them)';
const publicKey = v.pipe(
  text,
  // A PEM written on one line with `\n` escapes (a shell `export X="-----BEGIN…\n…"`, a one-line `.env` value)
  // gets its line breaks back; a PEM or base64 key holds no backslash, so nothing else changes.
  v.transform((key) => key.replaceAll('\\r\\n', '\n').replaceAll('\\n', '\n')),
  v.check(isPublicKey, PUBLIC_KEY),
);

const configSchema = v.object({
  // Core's one rule for credentials: trimmed, blank refused, only the checked value used
  // (docs/architecture.md#configuration).
  clientId: credentialSchema,
  clientSecret: credentialSchema,
  agentPartnerId: text,
  operatorId: text,
  isSandbox: v.boolean('must be true or false'),
  posId: v.optional(text),
  userLanguage: v.optional(text),
  targetAudience: v.optional(text),
  webhookPublicKey: v.optional(v.union([publicKey, v.pipe(v.array(publicKey), v.minLength(1))], PUBLIC_KEY)),
  webhookHost: v.optional(
    v.pipe(
      text,
      v.toLowerCase(),
      v.regex(
        /^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/,
        'must be a host name with an optional :port (no scheme, no path), as in new URL(url).host',
      ),
    ),
  ),
  ...transportConfigEntries,
});

const credentialsSchema = v.strictObject({ clientId: credentialSchema, clientSecret: credentialSchema });

/**
 * Checks the credentials `updateCredentials` was given: both members, trimmed and not blank, as the config's are; a
 * `ConfigurationError` names each bad member, never a value.
 */
export function checkCredentials(credentials: ProviderTCredentials): ProviderTCredentials {
  return parseConfig(LABEL, credentialsSchema, credentials);
}

/** The environment variables `providerT()` reads, and the config member each one stands for. */
export const PROVIDER_T_ENV = [
  { env: 'PROVIDER_T_CLIENT_ID', member: 'clientId', required: true },
  { env: 'PROVIDER_T_CLIENT_SECRET', member: 'clientSecret', required: true },
  { env: 'PROVIDER_T_AGENT_PARTNER_ID', member: 'agentPartnerId', required: true },
  { env: 'PROVIDER_T_OPERATOR_ID', member: 'operatorId', required: true },
  { env: 'PROVIDER_T_SANDBOX', member: 'isSandbox', required: true, kind: 'boolean' },
  { env: 'PROVIDER_T_POS_ID', member: 'posId', required: false },
  { env: 'PROVIDER_T_WEBHOOK_HOST', member: 'webhookHost', required: false },
  // The simulator's signing key (`pay dev provider-t` prints it), so webhook verification switches to it without a
  // code change; several separated by commas while Provider T rotates its key (docs/providers/provider-t.md#webhooks).
  { env: 'PROVIDER_T_WEBHOOK_PUBLIC_KEY', member: 'webhookPublicKey', required: false, kind: 'list' },
  // Another host, e.g. the local simulator of `pay dev` (docs/architecture.md#local-loop).
  { env: 'PROVIDER_T_BASE_URL', member: 'baseUrl', required: false },
] as const;

/** Identity fields every call carries (docs/providers/provider-t.md#identity-fields). */
export type ProviderTIdentity = { targetAudience: string; agentPartnerId: string; userLanguage: string };

/** The settings the adapter runs with: validated, defaults applied. */
export type ResolvedConfig = ReturnType<typeof checkConfig>;

/**
 * Validates an explicit config and applies the defaults of docs/providers/provider-t.md#hosts-and-configuration;
 * `baseUrl` (or `PROVIDER_T_BASE_URL` through the default factory) replaces the environment's host.
 */
export function checkConfig(config: ProviderTConfig) {
  const parsed = parseConfig(LABEL, configSchema, config);
  const environment = parsed.isSandbox ? 'sandbox' : 'production';
  return {
    clientId: parsed.clientId,
    clientSecret: parsed.clientSecret,
    baseUrl: parsed.baseUrl ?? PROVIDER_T_BASE_URLS[environment],
    identity: {
      targetAudience: parsed.targetAudience ?? 'AGENT_FACING',
      agentPartnerId: parsed.agentPartnerId,
      userLanguage: parsed.userLanguage ?? 'en-US',
    },
    operatorId: parsed.operatorId,
    posId: parsed.posId ?? '01',
    // The keys webhooks are verified with, in the order configured (one, or several during a rotation).
    webhookPublicKeys: Object.freeze(
      [parsed.webhookPublicKey ?? PROVIDER_T_WEBHOOK_PUBLIC_KEYS[environment]].flat(),
    ),
    webhookHost: parsed.webhookHost,
    // False in the sandbox: records carry it as `livemode`.
    livemode: !parsed.isSandbox,
    fetch: config.fetch,
    timeoutMs: parsed.timeoutMs,
    retry: parsed.retry,
    hooks: config.hooks,
    logger: config.logger,
    tokenStore: config.tokenStore,
  };
}

/**
 * The default factory's settings (docs/architecture.md#configuration): the environment (read now, never on import)
 * under the explicit `overrides`, then checked as {@link checkConfig} does. One `ConfigurationError` names every
 * missing variable.
 */
export function resolveConfig(overrides: Partial<ProviderTConfig> = {}): ResolvedConfig {
  const read = readProviderConfig({
    provider: LABEL,
    envPrefix: 'PROVIDER_T',
    variables: PROVIDER_T_ENV,
    schema: configSchema,
    overrides,
  });
  // The explicit options as given (hooks, fetch and a token store keep their identity), over the variables read.
  const given = Object.entries(overrides).filter(([, value]) => value !== undefined);
  return checkConfig({ ...read, ...Object.fromEntries(given) } as ProviderTConfig);
}
