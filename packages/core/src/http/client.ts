/**
 * The HTTP client every adapter uses (docs/architecture.md#http-client), on ky: ky sends each attempt under its per-attempt timeout,
 * applies the waits between attempts (`Retry-After` capped at 5 s, exponential backoff with jitter) and runs the
 * hooks where each attempt starts (`beforeRequest`: authorisation, `onRequest`), ends (`afterResponse`, only
 * while an `onResponse`/`onRequest` hook listens) and is repeated (`beforeRetry`: the one re-login after a 401).
 * Its `fetch` is the exchange below, which sends the headers and body and reads and records the reply.
 * The client keeps what ky cannot know: which calls may be repeated (never one that could move money twice),
 * whether an earlier attempt may have reached the provider (docs/architecture.md#http-client), what a failure
 * proves (`not_sent` or `unknown`), and the call's overall deadline. Hooks only ever see redacted values and
 * cannot change an outcome.
 */
import type { BeforeRequestHook, Options } from 'ky';
import type { CallOptions } from '../adapter.js';
import { type CallTrace, enclosingOperation, type HttpTraceBase } from '../diagnostics/channels.js';
import { ambientLogger, createLogger, type PayLogger } from '../diagnostics/logger.js';
import {
  type CallDescription,
  callTraceOf,
  httpTraceFields,
  httpTracing,
  startAttempt,
  traceCall,
} from '../diagnostics/tracing.js';
import type { NetworkError } from '../errors.js';
import { assertCallSettings } from '../operation-context.js';
import { CredentialSet, redact, redactError } from '../redaction.js';
import { CallerAbort, callCapMs, Deadline, untilAborted } from './deadline.js';
import { abortedError, callLabel, loginFailure, neverSent, toNetworkError } from './failures.js';
import { CREDENTIAL_HEADERS, observe, redactHeaders, rememberIssuedTokens } from './observation.js';
import { buildUrl } from './paths.js';
import {
  isRetryStatus,
  kyRetryOptions,
  longestBackoff,
  type RetryState,
  retryAfterMs,
} from './retry-policy.js';
import type { HttpClient, HttpClientOptions, HttpReply, HttpRequest, HttpRequestInfo } from './types.js';

/**
 * ky, loaded on the first call rather than on import: ky probes the runtime at import time (it builds a streaming
 * `Request`), which makes Node load its fetch implementation and web streams — most of what importing core cost
 * (tooling/bench `import.cold`). Cold starts that make no call no longer pay it; the first call does, as plain
 * `fetch` would.
 */
let kyLoading: Promise<typeof import('ky')> | undefined;
let kyLoaded: typeof import('ky') | undefined;
async function loadKy(): Promise<typeof import('ky')> {
  kyLoading ??= import('ky').then((module) => (kyLoaded = module));
  return kyLoading;
}

/** Decodes reply bodies (see the exchange in {@link createHttpClient}). */
const UTF8 = new TextDecoder();

/** Stops ky from retrying: carries an error of ours (a login's, a caller's abort) out of a hook as it is. */
class CallStopped extends Error {
  constructor(readonly stoppedBy: unknown) {
    super('call stopped');
  }
}

/** What one logical call knows across its attempts. */
interface CallState extends RetryState {
  /** Attempt number shown to hooks: 1, 2, … (a re-login re-sends under the same number). */
  attempt: number;
  /** An attempt of this call may have reached the provider (it got an answer other than 401, or was lost). */
  reachedBefore: boolean;
  /** The re-login after a 401 has been used. */
  reauthorised: boolean;
  /** The Authorization value the current attempt sent. */
  authorization: string | undefined;
  /** When the current attempt was handed to ky's fetch. */
  started: number;
  /** The redacted request of the current attempt, when a hook listens. */
  info: HttpRequestInfo | undefined;
  /** The reply of the last attempt that got one. */
  reply: HttpReply | undefined;
  /** The failure of the last attempt that got none, and the error it was made from. */
  failure: { error: unknown; networkError: NetworkError } | undefined;
  /** A retry was decided and ky is waiting before it (a caller's abort now lets the last outcome stand). */
  waiting: boolean;
}

/** What the attempts of a traced call are published with: the call's fields, and its trace when it has one. */
interface AttemptTracing {
  fields: Omit<HttpTraceBase, 'id' | 'parentId'>;
  call: CallTrace | undefined;
}

/** Creates an adapter's HTTP client. No I/O happens until the first `send`. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const retries = options.retry ?? 2;
  if (!Number.isInteger(retries) || retries < 0)
    throw new RangeError('retry must be a whole number of retries (0 for none)');
  const timeoutMs = options.timeoutMs ?? 30_000;
  const backoffBase = options.backoffBaseMs ?? 300;
  // Configured secrets plus every credential this client sends or receives (docs/architecture.md#redaction).
  const credentials = new CredentialSet(options.secrets ?? []);
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  // The adapter's own logger, else the one of the `createPay` call this runs in (docs/architecture.md#logger);
  // redacted lines.
  const ownLogger =
    options.logger === undefined ? undefined : createLogger(options.logger, () => credentials.values());
  const logger = (): PayLogger => ownLogger ?? ambientLogger();
  const observed = { provider: options.provider, hooks: options.hooks, credentials, logger };
  const listening = Boolean(options.hooks?.onRequest || options.hooks?.onResponse);

  return {
    rememberSecrets(secrets) {
      for (const secret of secrets) if (typeof secret === 'string') credentials.add(secret);
    },
    send(given, context) {
      const request = withContext(given, context);
      // Tracing (docs/architecture.md#tracing-channels) costs one property read per channel while nobody
      // subscribes.
      const tracing = httpTracing();
      if (!tracing) return sendRedacted(request, undefined);
      // The request id is fixed now, so the trace names the id every attempt sends.
      const traced: HttpRequest = { ...request, requestId: request.requestId ?? crypto.randomUUID() };
      const describe = (): CallDescription => ({
        provider: options.provider,
        call: request.call,
        method: request.method,
        baseUrl,
        path: request.path,
        requestId: traced.requestId,
        idempotencyKey: enclosingOperation()?.idempotencyKey,
      });
      // A call the provider client already traces: its attempts are counted on that trace.
      const above = callTraceOf(given);
      if (above || !tracing.call)
        return sendRedacted(traced, { fields: above ?? httpTraceFields(describe()), call: above });
      return traceCall(describe, traced, (call) =>
        sendRedacted(traced, { fields: call ?? httpTraceFields(describe()), call }),
      );
    },
  };

  async function sendRedacted(request: HttpRequest, tracing: AttemptTracing | undefined): Promise<HttpReply> {
    try {
      return await sendCall(request, tracing);
    } catch (error) {
      // Whatever stops a call (its own network error, a login's error) leaves without a credential in it,
      // before any trace of it ends.
      throw redactError(error, credentials.values());
    }
  }

  /** One logical call: ky's attempts, then the reply of the last one or the error that ended the call. */
  async function sendCall(request: HttpRequest, tracing: AttemptTracing | undefined): Promise<HttpReply> {
    // Once loaded, ky is taken as it is: no wait on every call.
    const { default: ky, HTTPError, TimeoutError } = kyLoaded ?? (await loadKy());
    const requestId = request.requestId ?? crypto.randomUUID();
    const url = buildUrl(baseUrl, request.path, request.query);
    // Only errors and logs name the call: built on first use, not on every call.
    let labelText: string | undefined;
    const label = () => (labelText ??= callLabel(options.provider, request, credentials));
    // Per-call settings (docs/architecture.md#createpay): the request's own, else the operation's (see
    // `withContext`), else ours.
    const asked = { timeoutMs: request.timeoutMs, retry: request.retry };
    assertCallSettings(asked);
    const attemptTimeoutMs = asked.timeoutMs ?? timeoutMs;
    // Money-moving calls are never retried, whatever was asked for.
    const limit = request.retrySafe ? (asked.retry ?? retries) : 0;
    const deadline = new Deadline(callCapMs(attemptTimeoutMs, limit), request.signal);
    /** Exchanges handed to fetch so far: `pay:attempt`'s `attempt` (a re-login's re-send counts too). */
    let exchanges = 0;
    const state: CallState = {
      attempt: 0,
      retries: 0,
      relogin: false,
      reachedBefore: false,
      reauthorised: false,
      authorization: undefined,
      started: 0,
      info: undefined,
      reply: undefined,
      failure: undefined,
      waiting: false,
    };

    const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
    if (options.requestIdHeader) headers[options.requestIdHeader] = requestId;
    let body: string | undefined;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    } else if (request.form) {
      body = new URLSearchParams(request.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    for (const [name, value] of Object.entries(headers)) {
      if (CREDENTIAL_HEADERS.has(name.toLowerCase())) credentials.addAuthorization(value);
    }

    /** Where an attempt starts: the caller's abort, the login, the `onRequest` hook. */
    const beforeAttempt: BeforeRequestHook = async () => {
      state.waiting = false;
      if (state.relogin) state.relogin = false;
      else state.attempt += 1;
      try {
        if (request.signal?.aborted)
          throw abortedError(label(), request, requestId, state.reachedBefore, 'before sending');
        state.authorization = undefined;
        if (request.authorize !== false && options.authorization) {
          state.authorization = await authorizationFor(request, requestId, label, state.reachedBefore);
          credentials.addAuthorization(state.authorization);
        }
        // Hook payloads are built (and redacted) only when someone listens: the hot path stays lean.
        state.info = listening
          ? requestInfo(request, url, headers, state.authorization, body, requestId, state.attempt)
          : undefined;
        if (state.info)
          await observe(
            observed,
            'onRequest',
            { ...state.info, headers: { ...state.info.headers } },
            state.info,
          );
        // Checked again after the hook and the login: an attempt aborted before fetch was never sent.
        if (request.signal?.aborted)
          throw abortedError(label(), request, requestId, state.reachedBefore, 'before sending');
      } catch (error) {
        throw new CallStopped(error);
      }
      state.started = Date.now();
    };

    /**
     * The exchange of one attempt, as ky's `fetch`: the body goes as the string it is (ky's Request would carry
     * it as a stream, teed for retries: a chunked upload and several times the cost of the call), and the reply
     * is read and recorded here, under ky's timeout (which otherwise ends when the headers arrive). ky gets the
     * reply's status and headers; its body is already read.
     */
    const exchange = async (input: Request | URL | string) => {
      const sent = input as Request;
      // One `pay:attempt` per exchange, from the handover to fetch to the reply read
      // (docs/architecture.md#tracing-channels).
      const span = tracing ? startAttempt(tracing.fields, tracing.call?.id, exchanges) : undefined;
      exchanges += 1;
      if (tracing?.call) tracing.call.attempts = exchanges;
      let response: Response;
      let text: string;
      try {
        response = await send(sent.url, {
          method: sent.method,
          headers: withAuthorization(headers, state.authorization),
          ...(body === undefined ? {} : { body }),
          signal: sent.signal,
        });
        // Bytes decoded as UTF-8, which is what `.text()` does, without its warning: workerd logs one on every
        // `.text()` of a body whose content type is not text, as Provider R's form-encoded status replies are
        // (docs/providers/provider-r.md#status).
        text = UTF8.decode(await response.arrayBuffer());
        // ky's timeout fired while the reply was read: the attempt failed, whatever arrived.
        sent.signal.throwIfAborted();
      } catch (error) {
        if (span)
          span.finish({
            error: redactError(error, credentials.values()),
            // ky's timeout aborts the attempt's signal; the caller's own abort is not a timeout.
            errorType: sent.signal.aborted && !request.signal?.aborted ? 'timeout' : 'network',
            mayHaveReached: !neverSent(error),
          });
        throw error;
      }
      if (tracing?.call) tracing.call.status = response.status;
      // A 401 proves the attempt was not processed (see recordReply).
      span?.finish({ status: response.status, mayHaveReached: response.status !== 401 });
      recordReply(response, text);
      // ky clones what it hands to `afterResponse` hooks, and a body already read cannot be cloned.
      return listening
        ? new Response(null, {
            status: response.status,
            statusText: response.statusText,
            headers: response.headers,
          })
        : response;
    };

    /** What an answered attempt leaves: the reply, and whether the call may now have reached the provider. */
    function recordReply(response: Response, text: string): void {
      if (request.credentialsInReply) rememberIssuedTokens(text, credentials);
      state.reply = {
        status: response.status,
        headers: response.headers,
        text,
        requestId,
        earlierAttemptMayHaveReached: state.reachedBefore,
      };
      state.failure = undefined;
      // A 401 proves this attempt was not processed; any other answer means it reached the provider.
      if (response.status !== 401) state.reachedBefore = true;
    }

    /** The `onResponse` hook of an answered attempt, as ky's `afterResponse` (only when a hook listens). */
    const notifyResponse = async (_request: Request, _options: unknown, response: Response) => {
      const info = state.info;
      const reply = state.reply;
      if (!info || !reply) return;
      const replySecrets = credentials.values();
      await observe(
        observed,
        'onResponse',
        {
          ...info,
          headers: { ...info.headers },
          status: response.status,
          responseHeaders: redactHeaders([...response.headers], replySecrets),
          responseBody: request.credentialsInReply ? '[REDACTED]' : redact(reply.text, replySecrets),
          durationMs: Date.now() - state.started,
        },
        info,
      );
    };

    /** Whether ky sends the call again: `false` stops, `true` re-sends at once (re-login), `undefined` waits. */
    const shouldRetry = ({ error }: { error: Error }): boolean | undefined => {
      if (error instanceof CallStopped) return false;
      if (error instanceof HTTPError) {
        const status = error.response.status;
        if (status === 401 && state.authorization && options.authorization?.rejected && !state.reauthorised) {
          // A 401 proves the call was not processed, so sending it once more with a fresh token is safe.
          state.relogin = true;
          return true;
        }
        const pause = retryAfterMs(error.response.headers) ?? longestBackoff(state.retries + 1, backoffBase);
        return logRetry(decideRetry(isRetryStatus(status), pause), `HTTP ${status}`);
      }
      const failure = networkErrorOf(error);
      return logRetry(
        decideRetry(true, longestBackoff(state.retries + 1, backoffBase), failure),
        error.name === 'TimeoutError' ? 'a timeout' : 'a network failure',
      );
    };

    /** A retry that was decided is reported to the logger (`debug`): the call, which retry, and why. */
    function logRetry(decision: false | undefined, reason: string): false | undefined {
      if (decision !== undefined) return decision;
      const log = logger();
      if (log.enabled('debug'))
        log.debug(`retrying ${label()} after ${reason} (retry ${state.retries} of ${limit}).`, () => ({
          provider: options.provider,
          call: request.call,
          method: request.method,
          requestId,
          retry: state.retries,
          reason,
        }));
      return decision;
    }

    /** A retry of a retry-safe call within its limit and deadline; only ky's waits remain. */
    function decideRetry(retryable: boolean, pause: number, failure?: NetworkError): false | undefined {
      if (!retryable || state.retries >= limit || !deadline.allows(pause)) return false;
      if (failure) state.reachedBefore ||= failure.outcome === 'unknown';
      state.retries += 1;
      state.waiting = true;
      return undefined;
    }

    /** The network error of a failed exchange, classified once per failure. */
    function networkErrorOf(error: unknown): NetworkError {
      const known = state.failure;
      if (known && known.error === error) return known.networkError;
      const abortedBy = request.signal?.aborted
        ? 'caller'
        : error instanceof Error && error.name === 'TimeoutError'
          ? 'timeout'
          : undefined;
      // ky's TimeoutError holds the Request, Authorization header included: it never becomes a cause.
      const cause =
        error instanceof TimeoutError
          ? new DOMException(`timed out after ${attemptTimeoutMs} ms`, 'TimeoutError')
          : error;
      const networkError = toNetworkError(
        cause,
        abortedBy,
        options.provider,
        url,
        request,
        requestId,
        credentials,
        state.reachedBefore,
      );
      state.failure = { error, networkError };
      state.reply = undefined;
      return networkError;
    }

    const send = options.fetch ?? globalThis.fetch;
    const kyOptions: Options = {
      method: request.method,
      // The headers and body go straight to fetch (see exchange): ky's Request only carries the call's method,
      // URL and signal, so ky does not copy the headers into each of its Requests.
      fetch: exchange,
      ...(request.signal ? { signal: request.signal } : {}),
      timeout: attemptTimeoutMs,
      throwHttpErrors: true,
      retry: kyRetryOptions(state, limit, backoffBase, shouldRetry),
      hooks: {
        beforeRequest: [beforeAttempt],
        afterResponse: listening ? [notifyResponse] : [],
        beforeRetry: [
          () => {
            // The one re-login: drop the refused credential; the next attempt's authorisation logs in again.
            if (state.relogin && state.authorization) {
              state.reauthorised = true;
              options.authorization?.rejected?.(state.authorization);
            }
          },
        ],
      },
    };

    try {
      await ky(url, kyOptions);
      return state.reply!;
    } catch (error) {
      if (error instanceof CallStopped) throw error.stoppedBy;
      if (error instanceof HTTPError) return state.reply!;
      // Aborted while waiting for a retry: the last outcome stands, as if no retry had been allowed.
      if (state.waiting) {
        if (state.reply) return state.reply;
        if (state.failure) throw state.failure.networkError;
      }
      throw networkErrorOf(error);
    }
  }

  /**
   * The Authorization header for an attempt. The caller's abort is honoured while waiting: the shared login
   * goes on for the other callers.
   */
  async function authorizationFor(
    request: HttpRequest,
    requestId: string,
    label: () => string,
    reachedBefore: boolean,
  ): Promise<string> {
    try {
      return await untilAborted(options.authorization!.header(request.signal), request.signal);
    } catch (error) {
      if (error instanceof CallerAbort)
        throw abortedError(label(), request, requestId, reachedBefore, 'waiting for a login');
      throw loginFailure(error, label(), request, requestId, reachedBefore);
    }
  }

  /** The redacted request of one attempt, for hooks. */
  function requestInfo(
    request: HttpRequest,
    url: string,
    headers: Record<string, string>,
    authorization: string | undefined,
    body: string | undefined,
    requestId: string,
    attempt: number,
  ): HttpRequestInfo {
    const secrets = credentials.values();
    // Exactly the headers the exchange sends.
    const sent = withAuthorization(headers, authorization);
    return {
      provider: options.provider,
      method: request.method,
      url: redact(url, secrets),
      headers: redactHeaders(Object.entries(sent), secrets),
      body: body === undefined ? undefined : redact(body, secrets),
      requestId,
      attempt,
    };
  }
}

/** The headers of one attempt: the call's, with its Authorization value (whatever case the call's own used). */
function withAuthorization(
  headers: Record<string, string>,
  authorization: string | undefined,
): Record<string, string> {
  if (authorization === undefined) return headers;
  const sent: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() !== 'authorization') sent[name] = headers[name]!;
  }
  sent.authorization = authorization;
  return sent;
}

/**
 * The request with what its operation's context supplies where the request says nothing: the caller's signal and
 * per-call settings (docs/architecture.md#operation-context).
 */
function withContext(request: HttpRequest, context: CallOptions | undefined): HttpRequest {
  if (!context) return request;
  const { signal, timeoutMs, retry } = request;
  return {
    ...request,
    signal: signal ?? context.signal,
    timeoutMs: timeoutMs ?? context.timeoutMs,
    retry: retry ?? context.retry,
  };
}
