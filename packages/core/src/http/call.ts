/**
 * One logical upstream call across its attempts (docs/architecture.md#http-client). {@link UpstreamCall.run} is the
 * whole loop, written out: check, send once, {@link decide}, then stop, log in again, or wait. ky does each single
 * exchange — it builds the Request with the caller's signal and times the attempt out — with its own retries off.
 */
import type { Options as KyOptions } from 'ky';
import type { CallTrace, HttpTraceBase } from '../diagnostics/channels.js';
import { startAttempt } from '../diagnostics/http-tracing.js';
import { redact, redactError } from '../redaction.js';
import { CallerAbort, untilAborted } from './deadline.js';
import { abortedError, loginFailure, neverSent, toNetworkError } from './failures.js';
import type { Observed } from './observation.js';
import { CREDENTIAL_HEADERS, notifyRequest, notifyResponse, rememberIssuedTokens } from './observation.js';
import { wireRequest, withAuthorization } from './paths.js';
import {
  type AttemptOutcome,
  type CallSoFar,
  callCapMs,
  type Decision,
  decide,
  retryAfterMs,
} from './retry-policy.js';
import type { Authorization, HttpClientOptions, HttpReply, HttpRequest, HttpRequestInfo } from './types.js';

/** What every call of one client shares, built once by `createHttpClient`. */
export interface ClientParts extends Observed, Pick<HttpClientOptions, 'authorization' | 'requestIdHeader'> {
  fetch: typeof fetch;
  /** An `onRequest` or `onResponse` hook listens: hook payloads are built (and redacted) only then. */
  listening: boolean;
  backoffBaseMs: number;
}

/** What the attempts of a traced call are published with: the call's fields, and its trace when it has one. */
export type AttemptTracing = { fields: Omit<HttpTraceBase, 'id' | 'parentId'>; call: CallTrace | undefined };

/** What the call has done so far, as {@link UpstreamCall.run} goes. */
interface Progress {
  /** The attempt number hooks see: 1, 2, … (a re-login's re-send keeps its attempt's number). */
  attempt: number;
  /** Exchanges handed to fetch: `pay:attempt`'s `attempt` (a re-login's re-send counts too). */
  exchanges: number;
  /** Retries decided (the re-login after a 401 is not one). */
  retries: number;
  reloggedIn: boolean;
  /** An attempt of this call may have reached the provider. */
  reached: boolean;
}

/** One attempt ready to go: its Authorization value, the headers it sends, and its hook payload (while listening). */
interface Prepared {
  authorization: string | undefined;
  headers: Record<string, string>;
  info: HttpRequestInfo | undefined;
  /** When it was handed to ky, for the `onResponse` hook's `durationMs`. */
  started: number;
}

/** How one attempt ended: the provider's answer, or no answer (`timedOut`: its per-attempt timeout ended it). */
type Ended = { reply: HttpReply } | { error: unknown; timedOut: boolean };

const UTF8 = new TextDecoder();

/**
 * ky, loaded on the first call rather than on import: ky probes the runtime at import time, which makes Node load
 * its fetch implementation and web streams — most of what importing core cost (tooling/bench `import.cold`).
 */
let kyLoading: Promise<typeof import('ky')> | undefined;
let kyLoaded: typeof import('ky') | undefined;
function loadKy(): Promise<typeof import('ky')> {
  kyLoading ??= import('ky').then((module) => (kyLoaded = module));
  return kyLoading;
}

/** One logical call: its request, sent by {@link UpstreamCall.run} until {@link decide} says stop. */
export class UpstreamCall {
  readonly requestId: string;
  readonly body: string | undefined;
  private readonly headers: Record<string, string>;
  /** When the call's overall budget runs out (`callCapMs`): no retry starts whose wait would not fit. */
  private readonly endsAt: number;
  private name: string | undefined;

  constructor(
    private readonly client: ClientParts,
    readonly request: HttpRequest,
    readonly url: string,
    /** The timeout of each attempt. */
    readonly timeoutMs: number,
    /** Retries the call may make if it is retry-safe. */
    readonly limit: number,
    private readonly tracing: AttemptTracing | undefined,
  ) {
    this.requestId = request.requestId ?? crypto.randomUUID();
    this.endsAt = Date.now() + callCapMs(timeoutMs, request.retrySafe ? limit : 0);
    const { headers, body } = wireRequest(request, client.requestIdHeader, this.requestId);
    for (const [name, value] of Object.entries(headers)) {
      if (CREDENTIAL_HEADERS.has(name.toLowerCase())) client.credentials.addAuthorization(value);
    }
    this.headers = headers;
    this.body = body;
  }

  /**
   * The call, attempt by attempt: the reply it ends with (whatever its status), or the error that ended it. A
   * login's error or the caller's abort before an attempt is sent ends the call as it is.
   */
  async run(): Promise<HttpReply> {
    // Once loaded, ky is taken as it is: no wait on every call.
    const ky = kyLoaded ?? (await loadKy());
    const progress: Progress = { attempt: 1, exchanges: 0, retries: 0, reloggedIn: false, reached: false };
    for (;;) {
      const prepared = await this.prepare(progress);
      const ended = await this.send(ky, prepared, progress);
      const decision = decide(this.soFar(progress, prepared), outcomeOf(ended));
      progress.reached = decision.reached;
      if (decision.next === 'stop') return this.outcome(ended, decision);
      if (decision.next === 'relogin') {
        // The refused credential is dropped, so the next attempt's authorisation logs in again.
        progress.reloggedIn = true;
        this.client.authorization?.rejected?.(prepared.authorization!);
        continue;
      }
      progress.retries += 1;
      progress.attempt += 1;
      this.logRetry(ended, progress.retries);
      // Aborted while waiting, the last outcome stands, as if no retry had been allowed.
      if (!(await waitForRetry(decision.waitMs, this.request.signal))) return this.outcome(ended, decision);
    }
  }

  /** Before an attempt is sent: the caller's abort, the login, the `onRequest` hook. What it throws ends the call. */
  private async prepare({ attempt, reached }: Progress): Promise<Prepared> {
    const { request, client } = this;
    if (request.signal?.aborted) throw abortedError(this, reached, 'before sending');
    let authorization: string | undefined;
    if (request.authorize !== false && client.authorization) {
      authorization = await this.authorize(client.authorization, reached);
      client.credentials.addAuthorization(authorization);
    }
    const headers = withAuthorization(this.headers, authorization);
    const info = client.listening ? await notifyRequest(client, this, headers, attempt) : undefined;
    // Checked again after the login and the hook: an attempt aborted before fetch was never sent.
    if (request.signal?.aborted) throw abortedError(this, reached, 'before sending');
    return { authorization, headers, info, started: Date.now() };
  }

  /**
   * One attempt, through ky with its retries off and no error thrown for a status: ky builds the Request, joins
   * the caller's signal and runs the per-attempt timeout; {@link exchange} is its `fetch`. Whatever ky throws is
   * an attempt that got no answer.
   */
  private async send(ky: typeof import('ky'), prepared: Prepared, progress: Progress): Promise<Ended> {
    let reply: HttpReply | undefined;
    const options: KyOptions = {
      method: this.request.method,
      timeout: this.timeoutMs,
      retry: 0,
      throwHttpErrors: false,
      fetch: async (sent) => {
        const exchanged = await this.exchange(sent as Request, prepared, progress);
        reply = exchanged.reply;
        return exchanged.response;
      },
    };
    if (this.request.signal) options.signal = this.request.signal;
    try {
      await ky.default(this.url, options);
    } catch (error) {
      return { error, timedOut: error instanceof ky.TimeoutError };
    }
    if (prepared.info)
      await notifyResponse(this.client, this.request, prepared.info, reply!, prepared.started);
    return { reply: reply! };
  }

  /**
   * The exchange of one attempt, as ky's `fetch`: the headers and body go as they are (ky's Request carries only the
   * method, URL and signal), and the reply is read here, under ky's timeout (which otherwise ends when the headers
   * arrive).
   */
  private async exchange(
    sent: Request,
    prepared: Prepared,
    progress: Progress,
  ): Promise<{ response: Response; reply: HttpReply }> {
    const { tracing, client, request } = this;
    // One `pay:attempt` per exchange, from the handover to fetch to the reply read
    // (docs/architecture.md#tracing-channels).
    const span = tracing ? startAttempt(tracing.fields, tracing.call?.id, progress.exchanges) : undefined;
    progress.exchanges += 1;
    if (tracing?.call) tracing.call.attempts = progress.exchanges;
    // Read before this attempt's decision: an earlier attempt may have reached the provider.
    const earlierAttemptMayHaveReached = progress.reached;
    let response: Response;
    let text: string;
    // Called as a plain function: workerd refuses its fetch called as a method of another object ("Illegal
    // invocation").
    const { fetch } = client;
    try {
      response = await fetch(sent.url, {
        method: sent.method,
        headers: prepared.headers,
        body: this.body,
        signal: sent.signal,
      });
      // Bytes decoded as UTF-8, which is what `.text()` does, without its warning: workerd logs one on every
      // `.text()` of a body whose content type is not text, as Provider R's form-encoded status replies are
      // (docs/providers/provider-r.md#status).
      text = UTF8.decode(await response.arrayBuffer());
      // ky's timeout fired while the reply was read: the attempt failed, whatever arrived.
      sent.signal.throwIfAborted();
    } catch (error) {
      span?.finish({
        error: redactError(error, client.credentials.values()),
        // ky's timeout aborts the attempt's signal; the caller's own abort is not a timeout.
        errorType: sent.signal.aborted && !request.signal?.aborted ? 'timeout' : 'network',
        mayHaveReached: !neverSent(error),
      });
      throw error;
    }
    if (tracing?.call) tracing.call.status = response.status;
    // A 401 proves the attempt was not processed (see decide).
    span?.finish({ status: response.status, mayHaveReached: response.status !== 401 });
    if (request.credentialsInReply) rememberIssuedTokens(text, client.credentials);
    const { status, headers } = response;
    return {
      response,
      reply: { status, headers, text, requestId: this.requestId, earlierAttemptMayHaveReached },
    };
  }

  /** What {@link decide} reads after an attempt. */
  private soFar(progress: Progress, prepared: Prepared): CallSoFar {
    const { client, request } = this;
    return {
      retrySafe: request.retrySafe,
      limit: this.limit,
      retries: progress.retries,
      canRelogin: Boolean(prepared.authorization && client.authorization?.rejected) && !progress.reloggedIn,
      reached: progress.reached,
      budgetMs: request.signal?.aborted ? 0 : this.endsAt - Date.now(),
      backoffBaseMs: client.backoffBaseMs,
      random: Math.random(),
    };
  }

  /** The call's outcome from its last attempt: the reply, or the network error that says what the failure proves. */
  private outcome(ended: Ended, decision: Decision): HttpReply {
    if ('reply' in ended) return ended.reply;
    const { error, timedOut } = ended;
    // ky's TimeoutError holds the Request, Authorization header included: it never becomes a cause.
    const cause = timedOut ? new DOMException(`timed out after ${this.timeoutMs} ms`, 'TimeoutError') : error;
    const byCaller = Boolean(this.request.signal?.aborted);
    throw toNetworkError(cause, this, this.client.credentials.values(), decision.outcome!, byCaller);
  }

  /** The Authorization header for an attempt; the caller's abort ends the wait, not the shared login. */
  private async authorize(authorization: Authorization, reached: boolean): Promise<string> {
    const { signal } = this.request;
    try {
      return await untilAborted(authorization.header(signal), signal);
    } catch (error) {
      if (error instanceof CallerAbort) throw abortedError(this, reached, 'waiting for a login');
      throw loginFailure(error, this, reached);
    }
  }

  /** How errors and logs name the call (provider, method, redacted path, never the query): built on first use. */
  get label(): string {
    const { provider, credentials } = this.client;
    this.name ??= `${provider} ${this.request.method} ${redact(this.request.path, credentials.values())}`;
    return this.name;
  }

  /** A retry that was decided is reported to the logger (`debug`): the call, which retry, and why. */
  private logRetry(after: Ended, retry: number): void {
    const log = this.client.logger();
    if (!log.enabled('debug')) return;
    const { request } = this;
    // ky's timeout, or a fetch that timed out by itself.
    const timedOut = 'error' in after && (after.error as Error | undefined)?.name === 'TimeoutError';
    const reason =
      'reply' in after ? `HTTP ${after.reply.status}` : timedOut ? 'a timeout' : 'a network failure';
    log.debug(`retrying ${this.label} after ${reason} (retry ${retry} of ${this.limit}).`, () => ({
      provider: this.client.provider,
      call: request.call,
      method: request.method,
      requestId: this.requestId,
      retry,
      reason,
    }));
  }
}

/** How an attempt ended, in {@link decide}'s words. */
function outcomeOf(ended: Ended): AttemptOutcome {
  if ('reply' in ended)
    return { status: ended.reply.status, retryAfterMs: retryAfterMs(ended.reply.headers) };
  return { neverSent: neverSent(ended.error) };
}

/** Waits `ms` before a retry: `true` once waited, `false` as soon as the caller's signal aborts. */
function waitForRetry(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (waited: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
      resolve(waited);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
