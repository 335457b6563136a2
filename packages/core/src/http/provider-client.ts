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
import { enclosingOperation } from '../diagnostics/channels.js';
import { settleCall, traceCall } from '../diagnostics/tracing.js';
import {
  type ErrorContext,
  ProviderApiError,
  type ProviderErrorKind,
  providerErrorKindOf,
} from '../errors.js';
import { requestIdOf } from '../records.js';
import { redact, redactError } from '../redaction.js';
import { createHttpClient } from './client.js';
import { CREDENTIALS_HINT } from './failures.js';
import { parseReply } from './replies.js';
import type { HttpClientOptions, HttpReply, HttpRequest } from './types.js';

/** What the adapter's error table says about one provider code. */
export interface ProviderErrorRule {
  /** Portable kind of this refusal; default: the kind the HTTP status implies. */
  kind?: ProviderErrorKind;
  /** Whether the same call may succeed later; default: 429 and 5xx are. */
  retryable?: boolean;
  /**
   * The resource does not exist: `find` resolves to `null` instead of throwing (only for a status below 500: a
   * gateway failure never proves that something is absent). Nothing else makes a read `null`: an HTTP 404 that no
   * rule calls `notFound` (a proxy's error page, a missing route) throws.
   */
  notFound?: boolean;
  /**
   * Only for this HTTP status (a catch-all code such as Provider N's `99` means "not found" only with a 404).
   * Default: any status.
   */
  status?: number;
  /** What to do about this refusal, in the message: `<provider> answered HTTP <status> (code <code>): <advice>`. */
  advice?: string;
  /**
   * Only when the provider's message matches (a code the provider uses for several refusals, e.g. Provider R's
   * 1400 "Payment not found"); list such rules in an array under the code, most specific first.
   */
  message?: RegExp;
}

/**
 * The key of a table's rules for any code: they apply to a refusal that carries a provider code (whatever it is)
 * when none of that code's own rules does; never to a reply without a code (an error page). Provider T, whose
 * docs/providers/provider-t.md#errors reads "any code with HTTP 404" as "no such transaction", lists `{ status: 404, notFound: true }`
 * there.
 */
export const ANY_PROVIDER_CODE = '*';

/**
 * Provider code → rule, read with own-property checks (a code `constructor` is no rule). A code may list several
 * rules told apart by their `message` and `status`; the first that matches applies. Rules under
 * {@link ANY_PROVIDER_CODE} apply to any code no rule of its own matched.
 */
export type ProviderErrorTable = Readonly<Record<string, ProviderErrorRule | readonly ProviderErrorRule[]>>;

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
export interface ProviderClientOptions extends HttpClientOptions {
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

/** Creates an adapter's provider client. No I/O happens until the first call. */
export function createProviderClient(options: ProviderClientOptions): ProviderClient {
  const { readEnvelope, errors, credentialsHint, providerRequestIdHeader, ...httpOptions } = options;
  const http = createHttpClient(httpOptions);
  // Grows when a rotated credential replaces a configured one (rememberSecrets).
  const secrets = [...(options.secrets ?? [])];

  /** The refusal of one reply as a `ProviderApiError`, kind and advice from the table, else from the status. */
  function refusal(
    reply: HttpReply,
    call: ProviderCall,
    reading: Extract<EnvelopeReading, { ok: false }>,
  ): Extract<ProviderOutcome, { ok: false }> {
    const code = reading.code === undefined ? undefined : redact(reading.code, secrets);
    const providerMessage = reading.message === undefined ? undefined : redact(reading.message, secrets);
    const rule = ruleFor(errors, code, providerMessage, reply.status);
    // A 401 reaching here was already answered to the one re-login the HTTP client makes (or to a login): the
    // credentials themselves are refused, so the message says which configuration to check
    // (docs/architecture.md#provider-client).
    const credentialsRefused = reply.status === 401 || (call.authorize === false && reply.status === 403);
    const kind = rule?.kind ?? providerErrorKindOf(reply.status);
    const fields = {
      provider: options.provider,
      status: reply.status,
      providerCode: code,
      providerMessage,
      requestId: reply.requestId,
      kind,
      ...(rule?.retryable === undefined ? {} : { retryable: rule.retryable }),
    };
    const context = contextOf(
      call.context,
      reading.details && secrets.length > 0 ? redactError(reading.details, secrets) : reading.details,
    );
    const plain = new ProviderApiError(fields, context ? { context } : {});
    let message = rule?.advice
      ? `${options.provider} answered HTTP ${reply.status}${code ? ` (code ${code})` : ''}: ${rule.advice}`
      : undefined;
    if (credentialsRefused && kind === 'authentication')
      message = `${(message ?? plain.message).trimEnd()} ${CREDENTIALS_HINT}${credentialsHint ? ` ${credentialsHint}` : ''}`;
    const error = message ? new ProviderApiError({ ...fields, message }, context ? { context } : {}) : plain;
    return { ok: false, error, code, rule, reply };
  }

  async function send(call: ProviderCall, context?: CallOptions): Promise<ProviderOutcome> {
    const { movesMoney: _movesMoney, ...request } = call;
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
        return refusal(reply, call, reading);
      },
      (trace, outcome) => {
        settleCall(trace, outcome);
        // A refusal after an earlier attempt may have landed proves nothing about that attempt
        // (docs/architecture.md#outcomes).
        if (
          outcome.ok &&
          !outcome.value.ok &&
          movesMoneyOf(call) &&
          outcome.value.reply.earlierAttemptMayHaveReached
        )
          trace.outcome = 'unknown';
      },
    );
  }

  /** The refusal to throw: after an attempt that may have landed, a money-moving call's outcome is unknown. */
  function thrown(outcome: Extract<ProviderOutcome, { ok: false }>, call: ProviderCall): ProviderApiError {
    if (!movesMoneyOf(call) || !outcome.reply.earlierAttemptMayHaveReached) return outcome.error;
    return outcome.error.withDetails({
      message: `${options.provider} refused ${call.call} (HTTP ${outcome.reply.status}${
        outcome.code ? `, code ${outcome.code}` : ''
      }) after an earlier attempt of it may have reached the provider; this refusal proves nothing about that attempt.`,
      outcome: 'unknown',
    });
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
      throw thrown(outcome, call);
    }
    const { body, reply } = outcome;
    return {
      body: parsed(schema, body, call),
      raw: body,
      reply,
      requestId: requestIdOf(reply, providerRequestIdHeader),
    };
  }

  return {
    send,
    async request(schema, call, context) {
      const outcome = await send(call, context);
      if (!outcome.ok) throw thrown(outcome, call);
      return parsed(schema, outcome.body, call);
    },
    findReplied,
    async find(schema, call, context) {
      const found = await findReplied(schema, call, context);
      return found === null ? null : found.body;
    },
    rememberSecrets(values) {
      http.rememberSecrets(values);
      for (const value of values) if (!secrets.includes(value)) secrets.push(value);
    },
  };
}

/** Whether a call can move money: its own say, else every call that is not safe to repeat. */
function movesMoneyOf(call: ProviderCall): boolean {
  return call.movesMoney ?? !call.retrySafe;
}

/**
 * The rule for a refusal: the code's own rules (own properties only), then those for {@link ANY_PROVIDER_CODE};
 * among several, the first whose `status` and `message` both match. A reply without a code has no rule.
 */
function ruleFor(
  table: ProviderErrorTable,
  code: string | undefined,
  message: string | undefined,
  status: number,
): ProviderErrorRule | undefined {
  if (code === undefined) return undefined;
  const applies = (rule: ProviderErrorRule) =>
    (rule.status === undefined || rule.status === status) &&
    (rule.message === undefined || rule.message.test(message ?? ''));
  return rulesOf(table, code).find(applies) ?? rulesOf(table, ANY_PROVIDER_CODE).find(applies);
}

/** The rules a table lists under one key (own properties only; none for a key it does not list). */
function rulesOf(table: ProviderErrorTable, key: string): readonly ProviderErrorRule[] {
  if (!Object.hasOwn(table, key)) return [];
  const entry = table[key];
  return Array.isArray(entry) ? entry : [entry as ProviderErrorRule];
}

function contextOf(
  context: ErrorContext | undefined,
  details: Record<string, unknown> | undefined,
): ErrorContext | undefined {
  if (!details || Object.keys(details).length === 0) return context;
  return { ...context, ...details };
}
