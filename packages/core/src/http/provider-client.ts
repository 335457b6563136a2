/**
 * The provider client (docs/architecture.md#provider-client): the one layer between core's HTTP client and an
 * adapter's operations. An adapter supplies its authorisation, a reader of its reply envelope and its error table
 * as data (provider code → kind, retryable, not found, advice); the client sends, reads the envelope, and turns a
 * refusal into a `ProviderApiError` with a portable `kind`, the provider's words redacted, and — when a call that
 * moves money is refused after an earlier attempt may have reached the provider — `outcome: 'unknown'`
 * (docs/architecture.md#outcomes), so nobody is told "nothing happened" without proof.
 */
import type * as v from 'valibot';
import type { CallOptions } from '../adapter.js';
import { type CallTrace, enclosingOperation } from '../diagnostics/channels.js';
import { settleCall, traceCall } from '../diagnostics/http-tracing.js';
import type { ProviderApiError } from '../errors.js';
import { requestIdOf } from '../records.js';
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
   * Reads one reply, whatever its status: `{ ok: true, body }` for success, `{ ok: false, … }` for a refusal
   * (an error page without an envelope included). It may throw `InvalidResponseError` for a reply that is
   * neither (e.g. a 2xx without the envelope); `call` names the call for that message.
   */
  readEnvelope(reply: HttpReply, call: ProviderCall): EnvelopeReading;
  errors: ProviderErrorTable;
  /**
   * Appended after core's `CREDENTIALS_HINT` when the provider refuses the credentials for good (a 401 after the
   * one re-login, or a refused login): names the adapter's credential variables, never a value
   * (e.g. `Check PROVIDER_N_API_KEY and PROVIDER_N_SECRET_KEY.`).
   */
  credentialsHint?: string;
  /**
   * The reply header in which the provider names its own id for a call (any case). `findReplied` then gives that
   * id as `requestId` when the reply carries it (see `requestIdOf`). Default: none, the id `@pay` sent.
   */
  providerRequestIdHeader?: string;
  /**
   * How every call is authorised, declared (docs/architecture.md#provider-client-auth): Basic, a static bearer
   * token or a header of the provider's own; a function is read once per call, so credentials replaced while the
   * process runs apply from the next call, never halfway through one. A token login is declared as `login`
   * instead.
   */
  auth?: ProviderAuth | (() => ProviderAuth);
  /**
   * A token login whose credentials rotate, declared (docs/architecture.md#provider-client-auth), instead of an
   * `authorization` of the adapter's own: the client then has `updateCredentials`, and the login's `secrets` are
   * redacted with the configured ones.
   */
  login?: ProviderLogin<C>;
  /**
   * The adapter's config, whose transport members (`fetch`, `timeoutMs`, `retry`, `hooks`, `logger`) the client
   * takes whole (docs/architecture.md#provider-client-auth); members given beside it win.
   */
  transport?: TransportOptions;
}

/** One call through the provider client. */
export interface ProviderCall extends Omit<HttpRequest, 'retrySafe'> {
  /** Names the call in errors without any value: `'init-transaction'`, `'PUT /v2.0/preauth'`. */
  call: string;
  /** True only when repeating the call cannot move money twice (reads, logins, idempotent PUTs). */
  retrySafe: boolean;
  /**
   * The call can move money (default: `!retrySafe`). Set it on a retry-safe call that still moves money (a
   * capture the provider refuses twice): `request` then reports a refusal after an attempt that may have
   * reached the provider with `outcome: 'unknown'`.
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

/** What a read found: the parsed body, the unparsed one, the reply and the request id a record carries. */
export interface Replied<T> {
  /** The envelope's body, parsed with the read's schema. */
  body: T;
  /** The envelope's body as the reader returned it, before parsing (for a record's `raw`). */
  raw: unknown;
  /** The reply itself (status, headers, `earlierAttemptMayHaveReached`). */
  reply: HttpReply;
  /**
   * The record's `request_id`: the provider's own id when `providerRequestIdHeader` names a header the reply
   * carries, else the id `@pay` sent with the call.
   */
  requestId: string;
}

/**
 * The client an adapter's operations send through. Each call takes the operation's context (the last argument of
 * the implementation, docs/architecture.md#operation-context) and hands it to the HTTP client: the caller's signal
 * and per-call settings apply to the call.
 */
export interface ProviderClient {
  /** Sends and reads the envelope. Refusals come back as `{ ok: false }` (never thrown); transport failures throw. */
  send(call: ProviderCall, context?: CallOptions): Promise<ProviderOutcome>;
  /**
   * `send`, then throw the refusal (with `outcome: 'unknown'` when a money-moving call is refused after an
   * earlier attempt may have reached the provider), else parse the body with `schema` (`InvalidResponseError`
   * naming the mismatched fields).
   */
  request<S extends v.GenericSchema>(
    schema: S,
    call: ProviderCall,
    context?: CallOptions,
  ): Promise<v.InferOutput<S>>;
  /**
   * A read: `null` only when the error table's rule for the refusal says `notFound` and the status is below
   * 500; any other refusal throws (as `request` does), so an error page without the provider's code (a proxy's
   * HTML 404) is never taken for "does not exist". Resolves to the parsed body.
   */
  find<S extends v.GenericSchema>(
    schema: S,
    call: ProviderCall,
    context?: CallOptions,
  ): Promise<v.InferOutput<S> | null>;
  /**
   * `find`, resolving to what a record is built from: the parsed body, the raw body, the reply and its request
   * id (see {@link Replied}).
   */
  findReplied<S extends v.GenericSchema>(
    schema: S,
    call: ProviderCall,
    context?: CallOptions,
  ): Promise<Replied<v.InferOutput<S>> | null>;
  /** Redacts `secrets` from then on too, as the configured ones (see {@link HttpClient.rememberSecrets}). */
  rememberSecrets(secrets: readonly string[]): void;
}

/**
 * Creates an adapter's provider client. No I/O happens until the first call. With a declared `login`, its
 * `updateCredentials` replaces the login's credentials (docs/architecture.md#credential-rotation).
 */
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
  const rotating = login && loginOf(login, () => client);
  // Grows when a rotated credential replaces a configured one (rememberSecrets).
  const secrets = [...(options.secrets ?? []), ...(login ? login.secrets(login.credentials) : [])];
  const http = createHttpClient({
    ...transportOf(transport),
    ...httpOptions,
    secrets: [...secrets],
    ...(rotating ? { authorization: rotating.authorization } : {}),
  });

  async function send(call: ProviderCall, context?: CallOptions): Promise<ProviderOutcome> {
    const { movesMoney: _movesMoney, ...rest } = call;
    const request = authorised(rest, auth, rememberSecrets);
    // One `pay:call` per logical call (docs/architecture.md#tracing-channels), ended with what the envelope said,
    // not only the status.
    return traceCall(
      () => {
        // Fixed here so the trace names the request id every attempt sends.
        request.requestId ??= crypto.randomUUID();
        return {
          provider: options.provider,
          call: call.call,
          method: call.method,
          baseUrl: options.baseUrl,
          path: call.path,
          requestId: request.requestId,
          idempotencyKey: enclosingOperation()?.idempotencyKey,
        };
      },
      request,
      async () => {
        const reply = await http.send(request, context);
        const reading = readEnvelope(reply, call);
        if (reading.ok) return { ok: true, body: reading.body, reply } as const;
        return refusalOf(reply, call, reading, {
          provider: options.provider,
          errors,
          credentialsHint,
          secrets,
        });
      },
      (trace, outcome) => settleProviderCall(trace, outcome, call),
    );
  }

  function parsed<S extends v.GenericSchema>(schema: S, body: unknown, call: ProviderCall) {
    return parseReply(schema, body, {
      provider: options.provider,
      call: call.call,
      ...(call.context ? { context: call.context } : {}),
    });
  }

  async function findReplied<S extends v.GenericSchema>(
    schema: S,
    call: ProviderCall,
    context?: CallOptions,
  ): Promise<Replied<v.InferOutput<S>> | null> {
    const outcome = await send(call, context);
    if (!outcome.ok) {
      // Not-found comes from the table only, and never from a gateway failure.
      if (outcome.rule?.notFound === true && outcome.reply.status < 500) return null;
      throw thrownRefusal(options.provider, outcome, call);
    }
    const { body, reply } = outcome;
    return {
      body: parsed(schema, body, call),
      raw: body,
      reply,
      requestId: requestIdOf(reply, providerRequestIdHeader),
    };
  }

  const client: ProviderClient & { updateCredentials(credentials: C): void } = {
    send,
    async request(schema, call, context) {
      const outcome = await send(call, context);
      if (!outcome.ok) throw thrownRefusal(options.provider, outcome, call);
      return parsed(schema, outcome.body, call);
    },
    findReplied,
    async find(schema, call, context) {
      const found = await findReplied(schema, call, context);
      return found === null ? null : found.body;
    },
    rememberSecrets,
    updateCredentials(credentials) {
      if (!rotating)
        throw new TypeError(`${options.provider}'s client declares no login whose credentials rotate.`);
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

/**
 * Ends a call's `pay:call` trace with what the envelope said: a refusal after an earlier attempt may have landed
 * proves nothing about that attempt (docs/architecture.md#outcomes).
 */
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
