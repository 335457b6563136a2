/** The client of Provider R over core's provider client (docs/architecture.md#provider-client). */
import { type CallOptions, createProviderClient, type ProviderErrorTable } from '@pay/core/adapter';
import type * as v from '@pay/core/schema';
import {
  checkCredentials,
  PROVIDER_R_BASE_URL,
  type ProviderRConfig,
  type ProviderRCredentials,
} from './config.js';
import { type ProviderRAnswer, readAnswer, readEnvelope, secretSpellings } from './envelope.js';
import { type ProviderRCall, withCredentials } from './requests.js';

/**
 * What each provider code means (docs/providers/provider-r.md#response-codes). 1400 is "bad request or
 * unauthorised access" and the status call's answer to an unknown `transId` (`Payment not found`): only the
 * message tells them apart, so an unauthorised caller never gets "no such payment".
 */
export const PROVIDER_R_ERRORS: ProviderErrorTable = {
  '1104': { kind: 'not_found', notFound: true },
  '1400': [
    { message: /^\s*payment not found\b/i, kind: 'not_found', notFound: true },
    { message: /unauthori[sz]ed/i, kind: 'authentication' },
  ],
  '1301': { kind: 'authentication' },
  // The provider's own storage or an unexpected failure: the same call may succeed later.
  '1200': { kind: 'provider_unavailable', retryable: true },
  '1500': { kind: 'provider_unavailable', retryable: true },
  '1401': { kind: 'conflict' },
  '1402': { kind: 'invalid_request' },
};

/** The client the adapter's calls go through (see {@link createClient}). */
export type ProviderRClient = ReturnType<typeof createClient>;

/** Creates the client of one configured adapter. No I/O until the first call. */
export function createClient(config: ProviderRConfig) {
  // Replaced whole by `updateCredentials`; each call reads it once (see `authenticated`).
  let secret = config.secret;
  const provider = createProviderClient({
    provider: 'providerR',
    baseUrl: config.baseUrl ?? PROVIDER_R_BASE_URL,
    transport: config,
    requestIdHeader: 'x-request-id',
    secrets: secretSpellings(config.secret),
    readEnvelope,
    errors: PROVIDER_R_ERRORS,
    credentialsHint: 'Check PROVIDER_R_MERCHANT and PROVIDER_R_SECRET (merchant / secret).',
  });

  /** The call with the credentials of this moment, for all its attempts (see {@link withCredentials}). */
  const authenticated = (call: ProviderRCall) => withCredentials(call, config.merchant, secret);

  return {
    /** Uses `credentials.secret` from the next call on; a `ConfigurationError` changes nothing. */
    updateCredentials(credentials: ProviderRCredentials): void {
      const checked = checkCredentials(credentials);
      provider.rememberSecrets(secretSpellings(checked.secret));
      secret = checked.secret;
    },
    /** Sends one call with its operation's context; its refusal is thrown (see {@link readAnswer}). */
    async send<S extends v.GenericSchema>(
      call: ProviderRCall<S>,
      context?: CallOptions,
    ): Promise<ProviderRAnswer<v.InferOutput<S>>> {
      return readAnswer(call, await provider.send(authenticated(call), context));
    },
    /** A read through core's `findReplied`: `null` only for what `PROVIDER_R_ERRORS` calls not found. */
    async find<S extends v.GenericSchema>(
      call: ProviderRCall<S>,
      context?: CallOptions,
    ): Promise<ProviderRAnswer<v.InferOutput<S>> | null> {
      const found = await provider.findReplied(call.schema, authenticated(call), context);
      return found && { body: found.body, requestId: found.requestId };
    },
  };
}
