/**
 * The provider client (Contract A, issue 13 item 1): the one layer between core's HTTP client and an adapter's
 * operations. An adapter supplies its authorisation, a reader of its reply envelope and its error table as data
 * (provider code → kind, retryable, not found, advice); the client sends, reads the envelope, and turns a
 * refusal into a `ProviderApiError` with a portable `kind`, the provider's words redacted, and — when a call that
 * moves money is refused after an earlier attempt may have reached the provider — `outcome: 'unknown'`
 * (issue 11 §1), so nobody is told "nothing happened" without proof.
 */
import type * as v from 'valibot';
import { enclosingOperation } from '../diagnostics/channels.js';
import { settleCall, traceCall } from '../diagnostics/tracing.js';
import {
  type ErrorContext,
  ProviderApiError,
  type ProviderErrorKind,
  providerErrorKindOf,
  redact,
  redactError,
} from '../errors.js';
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
  /** The resource does not exist: `find` resolves to `null` instead of throwing. */
  notFound?: boolean;
  /** What to do about this refusal, in the message: `<provider> answered HTTP <status> (code <code>): <advice>`. */
  advice?: string;
  /**
   * Only when the provider's message matches (a code the provider uses for several refusals, e.g. Provider R's
   * 1400 "Payment not found"); list such rules in an array under the code, most specific first.
   */
  message?: RegExp;
}

/**
 * Provider code → rule, read with own-property checks (a code `constructor` is no rule). A code may list several
 * rules told apart by their `message`; the first that matches applies.
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

/** The client an adapter's operations send through. */
export interface ProviderClient {
  /** Sends and reads the envelope. Refusals come back as `{ ok: false }` (never thrown); transport failures throw. */
  send(call: ProviderCall): Promise<ProviderOutcome>;
  /**
   * `send`, then throw the refusal (with `outcome: 'unknown'` when a money-moving call is refused after an
   * earlier attempt may have reached the provider), else parse the body with `schema` (`InvalidResponseError`
   * naming the mismatched fields).
   */
  request<S extends v.GenericSchema>(schema: S, call: ProviderCall): Promise<v.InferOutput<S>>;
  /** A read: a refusal whose rule says `notFound` (or an HTTP 404 with no rule) resolves to `null`. */
  find<S extends v.GenericSchema>(schema: S, call: ProviderCall): Promise<v.InferOutput<S> | null>;
}

/** Creates an adapter's provider client. No I/O happens until the first call. */
export function createProviderClient(options: ProviderClientOptions): ProviderClient {
  const { readEnvelope, errors, credentialsHint, ...httpOptions } = options;
  const http = createHttpClient(httpOptions);
  const secrets = options.secrets ?? [];

  /** The refusal of one reply as a `ProviderApiError`, kind and advice from the table, else from the status. */
  function refusal(
    reply: HttpReply,
    call: ProviderCall,
    reading: Extract<EnvelopeReading, { ok: false }>,
  ): Extract<ProviderOutcome, { ok: false }> {
    const code = reading.code === undefined ? undefined : redact(reading.code, secrets);
    const providerMessage = reading.message === undefined ? undefined : redact(reading.message, secrets);
    const rule = ruleFor(errors, code, providerMessage);
    // A 401 reaching here was already answered to the one re-login the HTTP client makes (or to a login): the
    // credentials themselves are refused, so the message says which configuration to check (issue 16).
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

  async function send(call: ProviderCall): Promise<ProviderOutcome> {
    const { movesMoney: _movesMoney, ...request } = call;
    // One `pay:call` per logical call (issue 15), ended with what the envelope said, not only the status.
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
        const reply = await http.send(request);
        const reading = readEnvelope(reply, call);
        if (reading.ok) return { ok: true, body: reading.body, reply } as const;
        return refusal(reply, call, reading);
      },
      (trace, outcome) => {
        settleCall(trace, outcome);
        // A refusal after an earlier attempt may have landed proves nothing about that attempt (issue 11 §1).
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

  return {
    send,
    async request(schema, call) {
      const outcome = await send(call);
      if (!outcome.ok) throw thrown(outcome, call);
      return parsed(schema, outcome.body, call);
    },
    async find(schema, call) {
      const outcome = await send(call);
      if (outcome.ok) return parsed(schema, outcome.body, call);
      const notFound = outcome.rule ? outcome.rule.notFound === true : outcome.reply.status === 404;
      if (notFound) return null;
      throw thrown(outcome, call);
    },
  };
}

/** Whether a call can move money: its own say, else every call that is not safe to repeat. */
function movesMoneyOf(call: ProviderCall): boolean {
  return call.movesMoney ?? !call.retrySafe;
}

/** The rule for a provider code: own properties only; among several, the first whose `message` matches. */
function ruleFor(
  table: ProviderErrorTable,
  code: string | undefined,
  message: string | undefined,
): ProviderErrorRule | undefined {
  if (code === undefined || !Object.hasOwn(table, code)) return undefined;
  const entry = table[code];
  const rules: readonly ProviderErrorRule[] = Array.isArray(entry) ? entry : [entry as ProviderErrorRule];
  return rules.find((rule) => rule.message === undefined || rule.message.test(message ?? ''));
}

function contextOf(
  context: ErrorContext | undefined,
  details: Record<string, unknown> | undefined,
): ErrorContext | undefined {
  if (!details || Object.keys(details).length === 0) return context;
  return { ...context, ...details };
}
