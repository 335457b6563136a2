/**
 * The HTTP client every adapter uses (design §6): a ky instance per adapter with a per-attempt timeout and an
 * overall cap, the caller's signal honoured, retries only where repeating cannot move money twice, one
 * request id per logical call reused on every retry, a single re-authorisation after a 401, and
 * `onRequest`/`onResponse` hooks that only ever see redacted values.
 */
import ky, { type KyInstance } from 'ky';
import * as v from 'valibot';
import { type ErrorContext, InvalidResponseError, NetworkError, redact } from './errors.js';
import type { ProviderName } from './records.js';
import { mismatchedFields } from './validation.js';

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
  responseBody: string;
  durationMs: number;
}

/** Observation hooks (logging, metrics). They never see a secret, token or Authorization header. */
export interface HttpHooks {
  onRequest?: (request: HttpRequestInfo) => void | Promise<void>;
  onResponse?: (response: HttpResponseInfo) => void | Promise<void>;
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
}

/** HTTP methods the adapters use. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How a client authorises its calls. */
export interface Authorization {
  /** The `Authorization` header value for the next call. */
  header(): Promise<string>;
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
  /** Values to redact from anything a hook or an error could show (secrets, API keys). */
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

/** Marks a failure of the HTTP exchange itself, as opposed to one of the login or a hook. */
class TransportFailure {
  constructor(readonly cause: unknown) {}
}

/** Builds a path from a template, encoding every interpolated value as one path segment. */
export function path(strings: TemplateStringsArray, ...segments: (string | number)[]): string {
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
  const secrets = options.secrets ?? [];
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
   * may have reached the provider.
   */
  async function authorizationFor(
    request: HttpRequest,
    requestId: string,
    reachedBefore: boolean,
  ): Promise<string> {
    try {
      return await options.authorization!.header();
    } catch (error) {
      // A refused login before anything was sent is the login's own error; after an attempt that may have
      // landed, whatever stopped the retry cannot prove the call was not processed.
      if (!NetworkError.isInstance(error) && !reachedBefore) throw error;
      const where = `${options.provider} ${request.method} ${redact(request.path, secrets)}`;
      throw new NetworkError(
        reachedBefore
          ? `${where}: no access token could be obtained for a retry, and an earlier attempt may have been processed. Look the resource up before sending it again.`
          : `${where} was not sent: no access token could be obtained. It is safe to send again.`,
        {
          outcome: reachedBefore ? 'unknown' : 'not_sent',
          cause: error,
          context: { ...request.context, requestId },
        },
      );
    }
  }

  async function attemptOnce(
    request: HttpRequest,
    url: string,
    requestId: string,
    attempt: number,
    deadline: Deadline,
    reachedBefore: boolean,
  ) {
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
    if (options.requestIdHeader) headers[options.requestIdHeader] = requestId;
    let authorization: string | undefined;
    if (request.authorize !== false && options.authorization) {
      authorization = await authorizationFor(request, requestId, reachedBefore);
      headers.authorization = authorization;
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
    const info: HttpRequestInfo | undefined =
      hooks?.onRequest || hooks?.onResponse
        ? {
            provider: options.provider,
            method: request.method,
            url: redact(url, secrets),
            headers: redactHeaders(headers, secrets),
            body: body === undefined ? undefined : redact(body, secrets),
            requestId,
            attempt,
          }
        : undefined;
    if (info) await hooks?.onRequest?.(info);
    const started = Date.now();
    const abort = deadline.attempt(timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await instance(url, { method: request.method, headers, body, signal: abort.signal });
      text = await response.text();
    } catch (error) {
      throw new TransportFailure(error);
    } finally {
      abort.done();
    }
    if (info)
      await hooks?.onResponse?.({
        ...info,
        status: response.status,
        responseBody: request.credentialsInReply ? '[REDACTED]' : redact(text, secrets),
        durationMs: Date.now() - started,
      });
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
      const requestId = request.requestId ?? crypto.randomUUID();
      const url = buildUrl(baseUrl, request.path, request.query);
      const limit = request.retrySafe ? retries : 0;
      // The overall cap: every attempt's timeout plus the longest waits between them.
      const deadline = new Deadline(timeoutMs * (limit + 1) + MAX_WAIT_MS * limit + 1_000, request.signal);
      let reauthorised = false;
      let reachedBefore = false;
      for (let attempt = 1; ; attempt++) {
        let outcome: Awaited<ReturnType<typeof attemptOnce>>;
        try {
          outcome = await attemptOnce(request, url, requestId, attempt, deadline, reachedBefore);
        } catch (error) {
          // Only a failure of the exchange itself is a network error; a failing login or hook propagates as is.
          if (!(error instanceof TransportFailure)) throw error;
          const failure = toNetworkError(
            error.cause,
            options.provider,
            request,
            requestId,
            secrets,
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
    },
  };
}

function buildUrl(baseUrl: string, requestPath: string, query: HttpRequest['query']): string {
  const url = new URL(baseUrl + requestPath);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url.toString();
}

function redactHeaders(headers: Record<string, string>, secrets: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      name.toLowerCase() === 'authorization' ? '[REDACTED]' : redact(value, secrets),
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

  /** A signal for one attempt, aborted by the caller, the attempt timeout or the cap; call `done()` after. */
  attempt(timeoutMs: number): { signal: AbortSignal; done(): void } {
    const controller = new AbortController();
    const ms = Math.max(0, Math.min(timeoutMs, this.#endsAt - Date.now()));
    const timer = setTimeout(
      () => controller.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError')),
      ms,
    );
    const caller = this.#caller;
    const onAbort = () => controller.abort(caller?.reason);
    if (caller?.aborted) onAbort();
    else caller?.addEventListener('abort', onAbort, { once: true });
    return {
      signal: controller.signal,
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

/** Classifies a failed attempt: `not_sent` only when the connection provably never opened. */
function toNetworkError(
  error: unknown,
  provider: ProviderName,
  request: HttpRequest,
  requestId: string,
  secrets: readonly string[],
  reachedBefore: boolean,
) {
  const code = findCode(error);
  const notSent = !reachedBefore && code !== undefined && NOT_SENT_CODES.has(code);
  const timedOut = (error as Error | undefined)?.name === 'TimeoutError';
  const what = timedOut ? 'timed out' : `failed${code ? ` (${code})` : ''}`;
  const outcome = notSent ? 'not_sent' : 'unknown';
  const advice = notSent
    ? 'The request never reached the provider; it is safe to send again.'
    : 'The provider may have processed it: look the resource up before sending it again.';
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
