/**
 * The HTTP client every adapter uses (design §6): a ky instance per adapter with a per-attempt timeout and an
 * overall cap, the caller's signal honoured, retries only where repeating cannot move money twice, one
 * request id per logical call reused on every retry, a single re-authorisation after a 401, and
 * `onRequest`/`onResponse` hooks that only ever see redacted values and can never change a call's outcome.
 * Every reply and error says whether an earlier attempt of the call may have reached the provider (issue 11 §1).
 */
import ky, { type KyInstance } from 'ky';
import * as v from 'valibot';
import { assertCallSettings, settingsOf } from '../call-settings.js';
import {
  CredentialSet,
  type ErrorContext,
  InvalidResponseError,
  NetworkError,
  ProviderApiError,
  redact,
  redactError,
  ValidationError,
} from '../errors.js';
import type { ProviderName } from '../records.js';
import type { TokenStore } from '../stores.js';
import { mismatchedFields } from '../validation.js';

/** What a hook sees of a request. Authorization and every configured secret are already redacted. */
export interface HttpRequestInfo {
  provider: ProviderName;
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  requestId: string;
  /** 1 for the first attempt, 2 for the first retry, … */
  attempt: number;
}

/** What a hook sees of a reply, redacted like the request. */
export interface HttpResponseInfo extends HttpRequestInfo {
  status: number;
  /** The reply's headers (lower-case names), every credential redacted. */
  responseHeaders: Record<string, string>;
  responseBody: string;
  durationMs: number;
}

/** Which hook failed, and the (redacted) call it was observing. */
export interface HookFailure {
  hook: 'onRequest' | 'onResponse';
  request: HttpRequestInfo;
}

/**
 * Observation hooks (logging, metrics). They never see a secret, token or Authorization header, and they can
 * never change what a call does: a hook that throws or rejects is reported to `onHookError` (default: one
 * `console.warn` line) and the call goes on as if it had returned (issue 11 §1).
 */
export interface HttpHooks {
  onRequest?: (request: HttpRequestInfo) => void | Promise<void>;
  onResponse?: (response: HttpResponseInfo) => void | Promise<void>;
  /** Receives what an `onRequest`/`onResponse` hook threw. What this one throws is ignored. */
  onHookError?: (error: unknown, failure: HookFailure) => void;
}

/** Transport options every adapter config accepts (design §2). */
export interface TransportOptions {
  /** Overrides the provider's base URL (a simulator, a proxy). */
  baseUrl?: string;
  /** The fetch implementation to use (default: the global one). */
  fetch?: typeof fetch;
  /** Timeout of one attempt in milliseconds (default 30 000). */
  timeoutMs?: number;
  /** Retries after the first attempt for calls that are safe to repeat (default 2, `0` for none). */
  retry?: number;
  hooks?: HttpHooks;
  /**
   * A token cache shared by every instance (`@pay/store-postgres`, `@pay/store-redis`, or
   * `createMemoryTokenStore()`), so instances reuse one provider login until it expires. Default: each adapter
   * instance keeps its own token in memory.
   */
  tokenStore?: TokenStore;
}

/** HTTP methods the adapters use. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How a client authorises its calls. */
export interface Authorization {
  /**
   * The `Authorization` header value for the next call. `signal` is the caller's: a shared login should keep
   * running for others when it aborts. The client stops waiting for the header when the caller aborts anyway.
   */
  header(signal?: AbortSignal): Promise<string>;
  /** Called with the rejected header value when the provider answers 401; the call is then sent once more. */
  rejected?(headerValue: string): void;
}

/** One logical upstream call. */
export interface HttpRequest {
  method: HttpMethod;
  /** Path below the base URL, built with {@link path} so each segment is encoded. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /**
   * True only when repeating the call cannot move money twice (reads, idempotent PUTs, logins). Only such
   * calls are retried on 408/429/5xx and network failures.
   */
  retrySafe: boolean;
  /** `false` sends no `Authorization` from the client's authoriser (e.g. the login itself). */
  authorize?: boolean;
  /**
   * The reply carries credentials no configured secret covers (a login's fresh access token): hooks see its
   * body as `[REDACTED]`.
   */
  credentialsInReply?: boolean;
  /** The request id to send; default a new UUID. The same id is sent on every retry of this call. */
  requestId?: string;
  signal?: AbortSignal;
  /**
   * Timeout of one attempt of this call, overriding the client's `timeoutMs`. Default: the caller's per-call
   * `timeoutMs` (carried on the signal `defineAdapter` passes), else the client's.
   */
  timeoutMs?: number;
  /**
   * Retries of this call, overriding the client's `retry`; like it, only used when `retrySafe` is true: a call
   * that could move money is never retried. Default: the caller's per-call `retry`, else the client's.
   */
  retry?: number;
  /** Where a multi-step operation is, copied into any error this call raises. */
  context?: ErrorContext;
}

/** A reply, whatever its status: the adapter decides what is an error from the provider's envelope. */
export interface HttpReply {
  status: number;
  headers: Headers;
  text: string;
  requestId: string;
  /**
   * True when an earlier attempt of this same logical call may have reached the provider (it timed out, lost
   * its reply, or got a retryable status). After such an attempt this answer proves nothing about the earlier
   * one: a refusal (4xx) of a money-moving call must not be reported as "nothing happened" — reconcile with a
   * status read, or throw with `outcome: 'unknown'` (issue 11 §1).
   */
  earlierAttemptMayHaveReached: boolean;
}

/** Client options: transport plus what the adapter knows. */
export interface HttpClientOptions extends TransportOptions {
  provider: ProviderName;
  baseUrl: string;
  authorization?: Authorization;
  /** Header carrying the request id (e.g. `X-Client-Request-Id`); omitted means none is sent. */
  requestIdHeader?: string;
  /**
   * Values to redact from anything a hook or an error could show (secrets, API keys), whatever their length
   * (see `redact` for secrets shorter than 4 characters). Every credential the client sends is redacted too.
   */
  secrets?: readonly string[];
  /** Base of the backoff in milliseconds (default 300). */
  backoffBaseMs?: number;
}

/** The client an adapter sends its calls through. */
export interface HttpClient {
  send(request: HttpRequest): Promise<HttpReply>;
}

const RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);
const MAX_WAIT_MS = 5_000;
/** Connection failures that prove the request never left this process. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);
/** What each connection failure code means, in words, for the error message (issue 16). */
const CONNECTION_FAILURES = new Map([
  ['ECONNREFUSED', 'connection refused'],
  ['ENOTFOUND', 'host name not found'],
  ['EAI_AGAIN', 'host name lookup failed, temporarily'],
  ['ENETUNREACH', 'network unreachable'],
  ['EHOSTUNREACH', 'host unreachable'],
  ['ECONNRESET', 'connection reset'],
  ['ETIMEDOUT', 'connection timed out'],
  ['EPIPE', 'connection closed while sending'],
  ['UND_ERR_SOCKET', 'connection closed'],
]);
/** Advice of a `not_sent` network error: the only advice a `not_sent` message may carry (issue 16). */
const NOT_SENT_ADVICE = 'The request never reached the provider; it is safe to send again.';
/** Advice of an `unknown` network error. */
const UNKNOWN_ADVICE = 'The provider may have processed it: look the resource up before sending it again.';
/**
 * Appended when the provider refused the credentials (a refused login): which configuration to check, named
 * generically and never with a value (issue 16).
 */
export const CREDENTIALS_HINT =
  "The provider refused the credentials: check the adapter's credentials (API key / secret) and that they belong to the configured environment (sandbox or live).";

/** Marks a failure of the HTTP exchange itself, as opposed to one of the login. */
class TransportFailure {
  constructor(
    readonly cause: unknown,
    /** Why the attempt's signal fired, when it did: the attempt timeout (or cap) or the caller. */
    readonly abortedBy: AbortCause | undefined,
  ) {}
}

/** Who ended an attempt early. */
type AbortCause = 'timeout' | 'caller';

/** Header names whose values are credentials: they are remembered and redacted everywhere. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization']);

/**
 * Builds a path from a template, encoding every interpolated value as one path segment. A value that would
 * not be one segment of its own — empty, `.` or `..`, which URL resolution collapses (`/status/..` becomes
 * `/`) — is a `ValidationError` before any I/O (issue 11 §3).
 */
export function path(strings: TemplateStringsArray, ...segments: (string | number)[]): string {
  const issues = segments.flatMap((segment, index) => {
    const text = String(segment);
    if (text.trim() === '') return [{ path: `path segment ${index + 1}`, message: 'must not be empty' }];
    if (text === '.' || text === '..')
      return [
        { path: `path segment ${index + 1}`, message: `must not be "${text}" (it would change the URL)` },
      ];
    return [];
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return strings.reduce(
    (built, part, index) =>
      built + part + (index < segments.length ? encodeURIComponent(String(segments[index])) : ''),
    '',
  );
}

/** Creates an adapter's HTTP client. No I/O happens until the first `send`. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const retries = options.retry ?? 2;
  if (!Number.isInteger(retries) || retries < 0)
    throw new RangeError('retry must be a whole number of retries (0 for none)');
  const timeoutMs = options.timeoutMs ?? 30_000;
  const backoffBase = options.backoffBaseMs ?? 300;
  // Configured secrets plus every credential this client sends or receives (issue 11 §2).
  const credentials = new CredentialSet(options.secrets ?? []);
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  // Timeouts are ours (one AbortController per attempt under the call's Deadline) rather than ky's own timer:
  // the same behaviour at a fraction of the cost per call. Retries are ours too, so each attempt is classified.
  const instance: KyInstance = ky.create({
    ...(options.fetch ? { fetch: options.fetch } : {}),
    timeout: false,
    retry: 0,
    throwHttpErrors: false,
  });

  /**
   * The Authorization header for an attempt. A login that fails for lack of an answer leaves this attempt
   * unsent, whatever the login's own outcome was; the call as a whole is unsent only when no earlier attempt
   * may have reached the provider. The caller's abort is honoured while waiting: the shared login goes on for
   * the other callers.
   */
  async function authorizationFor(
    request: HttpRequest,
    requestId: string,
    reachedBefore: boolean,
  ): Promise<string> {
    try {
      return await untilAborted(options.authorization!.header(request.signal), request.signal);
    } catch (error) {
      if (error instanceof CallerAbort)
        throw abortedError(request, requestId, reachedBefore, 'waiting for a login');
      // A refused login before anything was sent is the login's own error; after an attempt that may have
      // landed, whatever stopped the retry cannot prove the call was not processed.
      if (!NetworkError.isInstance(error) && !reachedBefore) throw withCredentialsHint(error);
      const where = `${options.provider} ${request.method} ${redact(request.path, credentials.values())}`;
      // Why the login failed (its host and code), without its own advice: the login's outcome is not this
      // call's, and a `not_sent` message must not say "may have processed" (issue 16).
      const why = loginFailureReason(error);
      throw new NetworkError(
        reachedBefore
          ? `${where}: no access token could be obtained for a retry${why}, and an earlier attempt may have been processed. Look the resource up before sending it again.`
          : `${where} was not sent: no access token could be obtained${why}. It is safe to send again.`,
        {
          outcome: reachedBefore ? 'unknown' : 'not_sent',
          cause: error,
          context: { ...request.context, requestId },
        },
      );
    }
  }

  /** The caller aborted before this attempt was handed to fetch. */
  function abortedError(request: HttpRequest, requestId: string, reachedBefore: boolean, moment: string) {
    const where = `${options.provider} ${request.method} ${redact(request.path, credentials.values())}`;
    return new NetworkError(
      reachedBefore
        ? `${where} was aborted by the caller's signal (${moment}) after an earlier attempt may have been processed. Look the resource up before sending it again.`
        : `${where} was aborted by the caller's signal (${moment}) before anything was sent. It is safe to send again.`,
      {
        outcome: reachedBefore ? 'unknown' : 'not_sent',
        cause: request.signal?.reason,
        context: { ...request.context, requestId },
      },
    );
  }

  /**
   * Runs an observation hook so that nothing it does can change the call: what it throws (or rejects with)
   * goes to `onHookError`, or to one `console.warn` line when none is given.
   */
  async function observe<P extends HttpRequestInfo>(
    hook: 'onRequest' | 'onResponse',
    run: ((payload: P) => void | Promise<void>) | undefined,
    payload: P,
    request: HttpRequestInfo,
  ): Promise<void> {
    if (!run) return;
    try {
      await run(payload);
    } catch (error) {
      try {
        if (options.hooks?.onHookError) options.hooks.onHookError(error, { hook, request });
        else
          console.warn(
            `@pay/core: the ${hook} hook threw (${redact(String((error as Error | undefined)?.message ?? error), credentials.values())}); the ${options.provider} call went on unaffected. Pass hooks.onHookError to handle hook failures.`,
          );
      } catch {
        // A failing error reporter must not change the call either.
      }
    }
  }

  async function attemptOnce(
    request: HttpRequest,
    url: string,
    requestId: string,
    attempt: number,
    deadline: Deadline,
    reachedBefore: boolean,
    attemptTimeoutMs: number,
  ) {
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
    if (options.requestIdHeader) headers[options.requestIdHeader] = requestId;
    if (request.signal?.aborted) throw abortedError(request, requestId, reachedBefore, 'before sending');
    let authorization: string | undefined;
    if (request.authorize !== false && options.authorization) {
      authorization = await authorizationFor(request, requestId, reachedBefore);
      headers.authorization = authorization;
    }
    for (const [name, value] of Object.entries(headers)) {
      if (CREDENTIAL_HEADERS.has(name.toLowerCase())) credentials.addAuthorization(value);
    }
    let body: string | undefined;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    } else if (request.form) {
      body = new URLSearchParams(request.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    // Hook payloads are built (and redacted) only when someone listens: the hot path stays lean.
    const hooks = options.hooks;
    const secrets = hooks?.onRequest || hooks?.onResponse ? credentials.values() : [];
    const info: HttpRequestInfo | undefined =
      hooks?.onRequest || hooks?.onResponse
        ? {
            provider: options.provider,
            method: request.method,
            url: redact(url, secrets),
            headers: redactHeaders(Object.entries(headers), secrets),
            body: body === undefined ? undefined : redact(body, secrets),
            requestId,
            attempt,
          }
        : undefined;
    if (info) await observe('onRequest', hooks?.onRequest, { ...info, headers: { ...info.headers } }, info);
    // Checked again after the hook and the login: an attempt aborted before fetch was never sent.
    if (request.signal?.aborted) throw abortedError(request, requestId, reachedBefore, 'before sending');
    const started = Date.now();
    const abort = deadline.attempt(attemptTimeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await instance(url, { method: request.method, headers, body, signal: abort.signal });
      text = await response.text();
    } catch (error) {
      throw new TransportFailure(error, abort.firedBy());
    } finally {
      abort.done();
    }
    if (request.credentialsInReply) rememberIssuedTokens(text, credentials);
    if (info) {
      const replySecrets = credentials.values();
      await observe(
        'onResponse',
        hooks?.onResponse,
        {
          ...info,
          headers: { ...info.headers },
          status: response.status,
          responseHeaders: redactHeaders([...response.headers], replySecrets),
          responseBody: request.credentialsInReply ? '[REDACTED]' : redact(text, replySecrets),
          durationMs: Date.now() - started,
        },
        info,
      );
    }
    const reply: HttpReply = {
      status: response.status,
      headers: response.headers,
      text,
      requestId,
      earlierAttemptMayHaveReached: reachedBefore,
    };
    return { reply, authorization };
  }

  return {
    async send(request) {
      try {
        return await sendCall(request);
      } catch (error) {
        // Whatever stops a call (its own network error, a login's error) leaves without a credential in it.
        throw redactError(error, credentials.values());
      }
    },
  };

  async function sendCall(request: HttpRequest): Promise<HttpReply> {
    const requestId = request.requestId ?? crypto.randomUUID();
    const url = buildUrl(baseUrl, request.path, request.query);
    // Per-call settings (issue 16): the request's own, else the caller's (carried on the signal), else ours.
    const perCall = settingsOf(request.signal);
    const asked = {
      timeoutMs: request.timeoutMs ?? perCall?.timeoutMs,
      retry: request.retry ?? perCall?.retry,
    };
    assertCallSettings(asked);
    const callTimeoutMs = asked.timeoutMs ?? timeoutMs;
    const callRetries = asked.retry ?? retries;
    // Money-moving calls are never retried, whatever was asked for.
    const limit = request.retrySafe ? callRetries : 0;
    // The overall cap: every attempt's timeout plus the longest waits between them.
    const deadline = new Deadline(callTimeoutMs * (limit + 1) + MAX_WAIT_MS * limit + 1_000, request.signal);
    let reauthorised = false;
    let reachedBefore = false;
    for (let attempt = 1; ; attempt++) {
      let outcome: Awaited<ReturnType<typeof attemptOnce>>;
      try {
        outcome = await attemptOnce(request, url, requestId, attempt, deadline, reachedBefore, callTimeoutMs);
      } catch (error) {
        // Only a failure of the exchange itself is a network error; a failing login propagates as is.
        if (!(error instanceof TransportFailure)) throw error;
        const failure = toNetworkError(
          error,
          options.provider,
          url,
          request,
          requestId,
          credentials,
          reachedBefore,
        );
        // Once one attempt may have reached the provider, no later failure can prove the call never landed.
        reachedBefore ||= failure.outcome === 'unknown';
        const pause = backoff(attempt, backoffBase);
        if (attempt <= limit && deadline.allows(pause)) {
          await deadline.wait(pause).catch(() => Promise.reject(failure));
          continue;
        }
        throw failure;
      }
      const { reply, authorization } = outcome;
      // A 401 proves this attempt was not processed; any other answer means it reached the provider.
      if (reply.status !== 401) reachedBefore = true;
      if (reply.status === 401 && authorization && options.authorization?.rejected && !reauthorised) {
        // A 401 proves the call was not processed, so sending it once more with a fresh token is safe.
        options.authorization.rejected(authorization);
        reauthorised = true;
        attempt -= 1;
        continue;
      }
      const pause = retryAfterMs(reply.headers) ?? backoff(attempt, backoffBase);
      if (RETRY_STATUSES.has(reply.status) && attempt <= limit && deadline.allows(pause)) {
        // Aborted while waiting: the last answer stands, as if no retry had been allowed.
        const aborted = await deadline.wait(pause).then(
          () => false,
          () => true,
        );
        if (!aborted) continue;
      }
      return reply;
    }
  }
}

/** Rejection used when the caller's signal fires while waiting for something that is not ours to cancel. */
class CallerAbort {}

/** Waits for `work`, but stops waiting (leaving `work` running) when `signal` aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new CallerAbort());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CallerAbort());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Remembers the access tokens a login reply carries, so they are redacted before they are ever sent. */
function rememberIssuedTokens(text: string, credentials: CredentialSet): void {
  const visit = (value: unknown, key: string, depth: number): void => {
    if (typeof value === 'string') {
      // Token fields only: a `token_type` of "Bearer" is no credential and must not blank every message.
      if (/(?:access|refresh|id)_?token$/i.test(key)) credentials.add(value);
      return;
    }
    if (value === null || typeof value !== 'object' || depth > 4) return;
    for (const [name, item] of Object.entries(value)) visit(item, name, depth + 1);
  };
  visit(parseJson(text), '', 0);
}

function buildUrl(baseUrl: string, requestPath: string, query: HttpRequest['query']): string {
  const url = new URL(baseUrl + requestPath);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url.toString();
}

function redactHeaders(
  headers: Iterable<[string, string]>,
  secrets: readonly string[],
): Record<string, string> {
  return Object.fromEntries(
    [...headers].map(([name, value]) => [
      name,
      CREDENTIAL_HEADERS.has(name.toLowerCase()) ? '[REDACTED]' : redact(value, secrets),
    ]),
  );
}

/** Exponential backoff with jitter: about 300 ms, 600 ms, 1.2 s, …, never above 5 s. Exported for tests. */
export function backoff(attempt: number, base: number): number {
  const exponential = base * 2 ** (attempt - 1);
  return Math.min(MAX_WAIT_MS, exponential * (0.8 + Math.random() * 0.4));
}

/** The `Retry-After` wait in milliseconds (seconds or an HTTP date), capped at 5 s. Exported for tests. */
export function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(MAX_WAIT_MS, Math.max(0, ms)) : undefined;
}

/**
 * The time budget of one logical call: the caller's signal and the overall cap. Each attempt gets one
 * AbortController whose timer is the smaller of the per-attempt timeout and what is left of the cap (one
 * controller and one timer per attempt: AbortSignal.timeout/any cost several times more on the hot path).
 */
class Deadline {
  readonly #endsAt: number;
  readonly #caller: AbortSignal | undefined;

  constructor(capMs: number, caller: AbortSignal | undefined) {
    this.#endsAt = Date.now() + capMs;
    this.#caller = caller;
  }

  /** Whether waiting `ms` and then trying once more still fits. */
  allows(ms: number): boolean {
    return !this.#caller?.aborted && Date.now() + ms < this.#endsAt;
  }

  /**
   * A signal for one attempt, aborted by the caller, the attempt timeout or the cap; `firedBy()` tells which
   * (a caller's abort is not a timeout, whatever reason the caller gave); call `done()` after.
   */
  attempt(timeoutMs: number): { signal: AbortSignal; firedBy(): AbortCause | undefined; done(): void } {
    const controller = new AbortController();
    let firedBy: AbortCause | undefined;
    const ms = Math.max(0, Math.min(timeoutMs, this.#endsAt - Date.now()));
    const timer = setTimeout(() => {
      firedBy ??= 'timeout';
      controller.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError'));
    }, ms);
    const caller = this.#caller;
    const onAbort = () => {
      firedBy ??= 'caller';
      controller.abort(caller?.reason);
    };
    if (caller?.aborted) onAbort();
    else caller?.addEventListener('abort', onAbort, { once: true });
    return {
      signal: controller.signal,
      firedBy: () => firedBy,
      done: () => {
        clearTimeout(timer);
        caller?.removeEventListener('abort', onAbort);
      },
    };
  }

  /** Waits `ms` between attempts; rejects when the caller aborts. */
  wait(ms: number): Promise<void> {
    const caller = this.#caller;
    return new Promise((resolve, reject) => {
      if (caller?.aborted) return reject(caller.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(caller?.reason);
      };
      const timer = setTimeout(() => {
        caller?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      caller?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * A login refused for its credentials (401/403) gets {@link CREDENTIALS_HINT} appended; anything else is
 * returned as is.
 */
function withCredentialsHint(error: unknown): unknown {
  if (!ProviderApiError.isInstance(error) || (error.status !== 401 && error.status !== 403)) return error;
  if (error.message.includes(CREDENTIALS_HINT)) return error;
  return error.withDetails({ message: `${error.message.trimEnd()} ${CREDENTIALS_HINT}` });
}

/**
 * `" (login: <what happened>)"` for a login that failed without an answer: its message without its advice, or
 * just its code when the message carries an outcome claim of its own.
 */
function loginFailureReason(error: unknown): string {
  const message = (error as Error | undefined)?.message;
  if (typeof message !== 'string') return '';
  const reason = message
    .replace(NOT_SENT_ADVICE, '')
    .replace(UNKNOWN_ADVICE, '')
    .replace(/\s{2,}/g, ' ')
    .trim()
    .replace(/\.$/, '');
  if (reason && !/may have|safe to send|not sent|never reached/i.test(reason)) return ` (login: ${reason})`;
  const code = findCode(error);
  return code ? ` (login failed: ${code})` : '';
}

/** Classifies a failed attempt: `not_sent` only when the connection provably never opened. */
function toNetworkError(
  failure: TransportFailure,
  provider: ProviderName,
  url: string,
  request: HttpRequest,
  requestId: string,
  credentials: CredentialSet,
  reachedBefore: boolean,
) {
  const error = failure.cause;
  const secrets = credentials.values();
  const code = findCode(error);
  const notSent = !reachedBefore && code !== undefined && NOT_SENT_CODES.has(code);
  // Name the host (never the whole URL: a query could carry a credential) and the code, so an unreachable
  // `baseUrl` is recognisable from the message alone (issue 16).
  const host = redact(new URL(url).host, secrets);
  const meaning = code === undefined ? undefined : CONNECTION_FAILURES.get(code);
  const what =
    failure.abortedBy === 'caller'
      ? `to ${host} was aborted by the caller's signal while in flight`
      : failure.abortedBy === 'timeout' || (error as Error | undefined)?.name === 'TimeoutError'
        ? `to ${host} timed out`
        : code
          ? `failed: could not reach ${host} (${code}${meaning ? `, ${meaning}` : ''})`
          : `to ${host} failed`;
  const outcome = notSent ? 'not_sent' : 'unknown';
  const advice = notSent
    ? `${NOT_SENT_ADVICE} Check that the adapter's baseUrl points at a reachable server.`
    : UNKNOWN_ADVICE;
  return new NetworkError(
    `${provider} ${request.method} ${redact(request.path, secrets)} ${what}. ${advice}`,
    {
      outcome,
      cause: error,
      context: { ...request.context, requestId },
    },
  );
}

function findCode(error: unknown): string | undefined {
  for (
    let current = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    current && depth < 5;
    depth++
  ) {
    if (typeof current.code === 'string') return current.code;
    current = current.cause as typeof current;
  }
  return undefined;
}

/** Parses JSON text; `undefined` when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Parses `application/x-www-form-urlencoded` text into an object of strings. */
export function parseForm(text: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(text));
}

/**
 * Validates an upstream reply against the adapter's lenient wire schema. A mismatch is an
 * `InvalidResponseError` naming the fields (never their values, which could hold personal data).
 */
export function parseReply<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  where: { provider: ProviderName; call: string; context?: ErrorContext },
): v.InferOutput<S> {
  const result = v.safeParse(schema, value, { abortEarly: false });
  if (result.success) return result.output;
  const fields = mismatchedFields(result.issues);
  throw new InvalidResponseError(
    `${where.provider} answered ${where.call} with a reply we cannot read (fields ${fields} do not match the wire contract). If this persists, the provider's API changed; report it.`,
    { context: where.context },
  );
}
