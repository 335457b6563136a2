/**
 * The provider client (docs/architecture.md#provider-client), between core's HTTP client and an adapter's
 * operations: it sends, reads the adapter's envelope, and turns a refusal into a `ProviderApiError` by the adapter's
 * error table — with `outcome: 'unknown'` when a money-moving call is refused after an earlier attempt may have
 * reached the provider (docs/architecture.md#outcomes).
 */
import type * as v from 'valibot';
import type { CallOptions } from '../adapter.js';
import type { CallTrace } from '../diagnostics/channels.js';
import { describeCall, settleCall, traceCall } from '../diagnostics/http-tracing.js';
import type { ProviderApiError } from '../errors.js';
import { type ProviderName, requestIdOf } from '../records.js';
import { createHttpClient } from './client.js';
import { authorised, loginOf, type ProviderAuth, type ProviderLogin, transportOf } from './provider-auth.js';
import {
  type ProviderErrorRule,
  type ProviderErrorTable,
  refusalOf,
  thrownRefusal,
} from './provider-errors.js';
import { parseReply } from './replies.js';
import type { HttpClientOptions, HttpReply, HttpRequest, TransportOptions } from './types.js';

/** What the adapter's reader makes of one reply. It never throws for a refusal. */
export type EnvelopeReading =
  | { ok: true; body: unknown }
  | {
      ok: false;
      /** The provider's own error code, when the reply carries one. */
      code?: string | undefined;
      /** The provider's message (redacted by the client before it enters an error). */
      message?: string | undefined;
      /** More of what the provider said (Provider T's `offendingFields`), copied into the error's context. */
      details?: Record<string, unknown> | undefined;
    };

/** Options of {@link createProviderClient}: the HTTP client's, plus what the adapter knows of its replies. */
export interface ProviderClientOptions<C extends object = never> extends HttpClientOptions {
  /**
   * Reads one reply, whatever its status: `{ ok: true, body }`, or `{ ok: false, … }` for a refusal (an error page
   * included). It may throw `InvalidResponseError` for a reply that is neither (a 2xx without the envelope).
   */
  readEnvelope(reply: HttpReply, call: ProviderCall): EnvelopeReading;
  errors: ProviderErrorTable;
  /**
   * Appended after core's `CREDENTIALS_HINT` when the provider refuses the credentials for good: names the
   * adapter's credential variables, never a value (`Check PROVIDER_N_API_KEY and PROVIDER_N_SECRET_KEY.`).
   */
  credentialsHint?: string;
  /** The reply header naming the provider's own id for a call, which `findReplied` then gives as `requestId`. */
  providerRequestIdHeader?: string;
  /**
   * How every call is authorised (docs/architecture.md#provider-client-auth); a function is read once per call, so
   * replaced credentials apply from the next call, never halfway through one.
   */
  auth?: ProviderAuth | (() => ProviderAuth);
  /**
   * A token login whose credentials rotate (docs/architecture.md#provider-client-auth): the client then has
   * `updateCredentials`, and the login's `secrets` are redacted.
   */
  login?: ProviderLogin<C>;
  /** The adapter's config, whose transport members the client takes whole; members given beside it win. */
  transport?: TransportOptions;
}

/** One call through the provider client. */
export interface ProviderCall extends Omit<HttpRequest, 'retrySafe'> {
  /** Names the call in errors without any value: `'init-transaction'`, `'PUT /v2.0/preauth'`. */
  call: string;
  /** True only when repeating the call cannot move money twice (reads, logins, idempotent PUTs). */
  retrySafe: boolean;
  /**
   * The call can move money (default: `!retrySafe`): a refusal after an attempt that may have reached the
   * provider is then thrown with `outcome: 'unknown'`.
   */
  movesMoney?: boolean;
  /** This call's own authorisation (a login's Basic credentials), instead of the client's `auth` or authoriser. */
  auth?: ProviderAuth;
}

/** What `send` resolved to: the envelope's body, or the provider's refusal. */
export type ProviderOutcome =
  | { ok: true; body: unknown; reply: HttpReply }
  | {
      ok: false;
      error: ProviderApiError;
      /** The provider's code, as the reader found it. */
      code: string | undefined;
      /** The rule of the error table that applied, when one did. */
      rule: ProviderErrorRule | undefined;
      reply: HttpReply;
    };

/** What a read found: the parsed body, the body before parsing (a record's `raw`), the reply and its request id. */
export interface Replied<T> {
  body: T;
  raw: unknown;
  reply: HttpReply;
  /** The provider's own id when `providerRequestIdHeader` names a header the reply carries, else the id sent. */
  requestId: string;
}

/**
 * The client an adapter's operations send through, each call with the operation's context
 * (docs/architecture.md#operation-context).
 */
export interface ProviderClient {
  /** Sends and reads the envelope. Refusals come back as `{ ok: false }` (never thrown); transport failures throw. */
  send(call: ProviderCall, context?: CallOptions): Promise<ProviderOutcome>;
  /** `send`, then throw the refusal, else parse the body with `schema` (`InvalidResponseError` on a mismatch). */
  request<S extends v.GenericSchema>(
    schema: S,
    call: ProviderCall,
    context?: CallOptions,
  ): Promise<v.InferOutput<S>>;
  /**
   * A read: `null` only when the error table's rule says `notFound` and the status is below 500; any other
   * refusal throws, so a proxy's HTML 404 is never taken for "does not exist".
   */
  find<S extends v.GenericSchema>(
    schema: S,
    call: ProviderCall,
    context?: CallOptions,
  ): Promise<v.InferOutput<S> | null>;
  /** `find`, resolving to what a record is built from (see {@link Replied}). */
  findReplied<S extends v.GenericSchema>(
    schema: S,
    call: ProviderCall,
    context?: CallOptions,
  ): Promise<Replied<v.InferOutput<S>> | null>;
  /** Redacts `secrets` from then on too, as the configured ones (see {@link HttpClient.rememberSecrets}). */
  rememberSecrets(secrets: readonly string[]): void;
}

/** Creates an adapter's provider client; no I/O until the first call (docs/architecture.md#credential-rotation). */
export function createProviderClient<C extends object = never>(
  options: ProviderClientOptions<C>,
): ProviderClient & { updateCredentials(credentials: C): void } {
  const {
    readEnvelope,
    errors,
    credentialsHint,
    providerRequestIdHeader,
    auth,
    transport,
    login,
    ...httpOptions
  } = options;
  const { provider } = options;
  const rotating = login && loginOf(login, () => client);
  // Grows when a rotated credential replaces a configured one (rememberSecrets).
  const secrets = [...(options.secrets ?? []), ...(login ? login.secrets(login.credentials) : [])];
  const refusals = { provider, errors, credentialsHint, secrets };
  const http = createHttpClient({
    ...transportOf(transport),
    ...httpOptions,
    secrets: [...secrets],
    ...(rotating ? { authorization: rotating.authorization } : {}),
  });

  async function send(call: ProviderCall, context?: CallOptions): Promise<ProviderOutcome> {
    const request = authorised(call, auth, rememberSecrets);
    const exchange = async (): Promise<ProviderOutcome> => {
      const reply = await http.send(request, context);
      const reading = readEnvelope(reply, call);
      return reading.ok ? { ok: true, body: reading.body, reply } : refusalOf(reply, call, reading, refusals);
    };
    // One `pay:call` per logical call (docs/architecture.md#tracing-channels), ended with what the envelope said,
    // not only the status.
    return traceCall(
      () => describeCall(provider, options.baseUrl, request),
      request,
      exchange,
      (trace, outcome) => settleProviderCall(trace, outcome, call),
    );
  }

  const client: ProviderClient & { updateCredentials(credentials: C): void } = {
    send,
    async request(schema, call, context) {
      const outcome = await send(call, context);
      if (!outcome.ok) throw thrownRefusal(provider, outcome, call);
      return parsed(schema, outcome.body, provider, call);
    },
    async findReplied(schema, call, context) {
      const outcome = await send(call, context);
      if (!outcome.ok) {
        // Not-found comes from the table only, and never from a gateway failure.
        if (outcome.rule?.notFound === true && outcome.reply.status < 500) return null;
        throw thrownRefusal(provider, outcome, call);
      }
      const { body, reply } = outcome;
      const requestId = requestIdOf(reply, providerRequestIdHeader);
      return { body: parsed(schema, body, provider, call), raw: body, reply, requestId };
    },
    async find(schema, call, context) {
      const found = await client.findReplied(schema, call, context);
      return found === null ? null : found.body;
    },
    rememberSecrets,
    updateCredentials(credentials) {
      if (!rotating) throw new TypeError(`${provider}'s client declares no login whose credentials rotate.`);
      rotating.update(credentials);
    },
  };
  return client;

  function rememberSecrets(values: readonly string[]): void {
    http.rememberSecrets(values);
    for (const value of values) if (!secrets.includes(value)) secrets.push(value);
  }
}

/** Whether a call can move money: its own say, else every call that is not safe to repeat. */
export function movesMoneyOf(call: ProviderCall): boolean {
  return call.movesMoney ?? !call.retrySafe;
}

function parsed<S extends v.GenericSchema>(
  schema: S,
  body: unknown,
  provider: ProviderName,
  call: ProviderCall,
) {
  return parseReply(schema, body, { provider, call: call.call, context: call.context });
}

/** Ends a call's `pay:call` trace with what the envelope said (docs/architecture.md#outcomes). */
function settleProviderCall(
  trace: CallTrace,
  outcome: { ok: true; value: ProviderOutcome } | { ok: false; error: unknown },
  call: ProviderCall,
): void {
  settleCall(trace, outcome);
  if (
    outcome.ok &&
    !outcome.value.ok &&
    movesMoneyOf(call) &&
    outcome.value.reply.earlierAttemptMayHaveReached
  )
    trace.outcome = 'unknown';
}
