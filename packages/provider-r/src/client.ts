/**
 * The client of Provider R over core's provider client (docs/architecture.md#provider-client): HTTP Basic on every
 * call, the provider's envelope (envelope.ts) and its codes as a table of data.
 */
import {
  type CallOptions,
  createProviderClient,
  type ProviderCall,
  type ProviderErrorTable,
  parseReply,
  requestIdOf,
} from '@pay/core/adapter';
import type * as v from '@pay/core/schema';
import {
  checkCredentials,
  PROVIDER_R_BASE_URL,
  type ProviderRConfig,
  type ProviderRCredentials,
} from './config.js';
import { moneyMovingRefusal, readEnvelope, secretSpellings } from './envelope.js';
import type { ProviderRCall } from './requests.js';

/**
 * What each provider code means for a caller (docs/providers/provider-r.md#response-codes), as data. 1400 is "bad request
 * or unauthorised access", and the status call also answers an unknown `transId` with it (published:
 * `error=1400&message=Payment not found (status), …`, test/fixtures/SOURCE.md): only the message tells the
 * cases apart, so an unauthorised caller still gets an error, never "no such payment".
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

/** A call's answer: the parsed body and the request id a record built from it carries (`request_id`). */
export type ProviderRAnswer<T> = { body: T; requestId: string };

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

  /**
   * The request with its credentials, read once for the whole call: the Basic header and (status call) the form's
   * `secret` come from one secret, and every attempt of the call sends them unchanged, so a call under way when
   * the secret is replaced is never retried with the new one in the header and the old one in the form.
   */
  function authenticated(call: ProviderRCall): ProviderCall {
    const { schema: _schema, movesMoney: _movesMoney, secretInForm, ...request } = call;
    const current = secret;
    return {
      ...request,
      auth: { basic: [config.merchant, current] },
      ...(secretInForm ? { form: { ...request.form, secret: current } } : {}),
    };
  }

  return {
    /**
     * Uses `credentials.secret` from the next call on (docs/providers/provider-r.md#authentication); calls under
     * way finish with the secret they started with. Checked first: a `ConfigurationError` changes nothing.
     */
    updateCredentials(credentials: ProviderRCredentials): void {
      const checked = checkCredentials(credentials);
      provider.rememberSecrets(secretSpellings(checked.secret));
      secret = checked.secret;
    },
    /**
     * Sends one call with its operation's context (the caller's signal and per-call settings); its refusal is
     * thrown (see {@link moneyMovingRefusal} for the calls that move money).
     */
    async send<S extends v.GenericSchema>(
      call: ProviderRCall<S>,
      context?: CallOptions,
    ): Promise<ProviderRAnswer<v.InferOutput<S>>> {
      const { schema, movesMoney } = call;
      const outcome = await provider.send(authenticated(call), context);
      if (!outcome.ok) {
        if (!movesMoney) throw outcome.error;
        throw moneyMovingRefusal(outcome.error, outcome.reply, outcome.rule?.retryable === true);
      }
      const errorContext = call.context ? { context: call.context } : {};
      return {
        body: parseReply(schema, outcome.body, { provider: 'providerR', call: call.call, ...errorContext }),
        // The wire contract (docs/providers/provider-r.md#calls) names no request-id header of the provider's: the id `@pay` sent identifies the call.
        requestId: requestIdOf(outcome.reply),
      };
    },
    /**
     * A read through core's `findReplied`: `null` only for what `PROVIDER_R_ERRORS` calls not found (1104, or
     * 1400 "Payment not found") below HTTP 500; any other refusal throws. Reads never move money.
     */
    async find<S extends v.GenericSchema>(
      call: ProviderRCall<S>,
      context?: CallOptions,
    ): Promise<ProviderRAnswer<v.InferOutput<S>> | null> {
      const found = await provider.findReplied(call.schema, authenticated(call), context);
      return found && { body: found.body, requestId: found.requestId };
    },
  };
}
