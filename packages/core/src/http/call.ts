/** One logical upstream call across its attempts (docs/architecture.md#http-client), driven by ky's hooks. */
import type { CallTrace, HttpTraceBase } from '../diagnostics/channels.js';
import { startAttempt } from '../diagnostics/http-tracing.js';
import type { NetworkError } from '../errors.js';
import { redact, redactError } from '../redaction.js';
import { CallerAbort, untilAborted } from './deadline.js';
import { abortedError, loginFailure, neverSent, toNetworkError } from './failures.js';
import type { Observed } from './observation.js';
import { CREDENTIAL_HEADERS, notifyRequest, notifyResponse, rememberIssuedTokens } from './observation.js';
import { wireRequest, withAuthorization } from './paths.js';
import { type AttemptOutcome, callCapMs, type Decision, decide, retryAfterMs } from './retry-policy.js';
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

/** An attempt that failed without an answer; `timedOut`: ky's per-attempt timeout ended it. */
export type FailedAttempt = { error: unknown; timedOut: boolean };

const UTF8 = new TextDecoder();

/** One logical call: its request, what its attempts have proved so far, and its outcome. */
export class UpstreamCall {
  readonly requestId: string;
  /** The wait ky makes before the next attempt (its `retry.delay`), as {@link decide} said. */
  waitMs = 0;
  private readonly headers: Record<string, string>;
  readonly body: string | undefined;
  private readonly endsAt: number;
  private name: string | undefined;
  /** Attempt number shown to hooks: 1, 2, … (a re-login re-sends under the same number). */
  private attempt = 0;
  /** Exchanges handed to fetch so far: `pay:attempt`'s `attempt` (a re-login's re-send counts too). */
  private exchanges = 0;
  private retries = 0;
  /** What the last decision said until the next attempt starts (a retry: ky is waiting before it). */
  private next: Decision['next'] | undefined;
  private reloggedIn = false;
  /** An attempt of this call may have reached the provider. */
  private reached = false;
  /** The Authorization value and the headers the current attempt sends. */
  private authorization: string | undefined;
  private sentHeaders: Record<string, string> = {};
  /** When the current attempt was handed to fetch, and its redacted request while a hook listens. */
  private started = 0;
  private info: HttpRequestInfo | undefined;
  /** The last attempt's outcome: its reply, or its failure and the error it was made from. */
  private reply: HttpReply | undefined;
  private failure: NetworkError | undefined;
  private failedWith: unknown;
  /** What kept an attempt from being sent (a login's error, the caller's abort): it ends the call as it is. */
  private stopped: { by: unknown } | undefined;

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

  /** Where an attempt starts: the caller's abort, the login, the `onRequest` hook. */
  async beforeAttempt(): Promise<void> {
    if (this.next !== 'relogin') this.attempt += 1;
    this.next = undefined;
    const { request, client } = this;
    try {
      if (request.signal?.aborted) throw abortedError(this, this.reached, 'before sending');
      this.authorization = undefined;
      if (request.authorize !== false && client.authorization) {
        this.authorization = await this.authorize(client.authorization);
        client.credentials.addAuthorization(this.authorization);
      }
      this.sentHeaders = withAuthorization(this.headers, this.authorization);
      if (client.listening) this.info = await notifyRequest(client, this, this.sentHeaders, this.attempt);
      // Checked again after the hook and the login: an attempt aborted before fetch was never sent.
      if (request.signal?.aborted) throw abortedError(this, this.reached, 'before sending');
    } catch (error) {
      this.stopped = { by: error };
      throw error;
    }
    this.started = Date.now();
  }

  /**
   * The exchange of one attempt, as ky's `fetch`: the body goes as the string it is (ky's Request would carry
   * it as a stream, teed for retries), and the reply is read here, under ky's timeout (which otherwise ends when
   * the headers arrive).
   */
  async exchange(sent: Request): Promise<Response> {
    const { tracing, client, request } = this;
    // One `pay:attempt` per exchange, from the handover to fetch to the reply read
    // (docs/architecture.md#tracing-channels).
    const span = tracing ? startAttempt(tracing.fields, tracing.call?.id, this.exchanges) : undefined;
    this.exchanges += 1;
    if (tracing?.call) tracing.call.attempts = this.exchanges;
    let response: Response;
    let text: string;
    // Called as a plain function: workerd refuses its fetch called as a method of another object ("Illegal
    // invocation").
    const { fetch } = client;
    try {
      response = await fetch(sent.url, {
        method: sent.method,
        headers: this.sentHeaders,
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
    const earlierAttemptMayHaveReached = this.reached;
    this.reply = { status, headers, text, requestId: this.requestId, earlierAttemptMayHaveReached };
    this.failure = undefined;
    // ky clones what it hands to `afterResponse` hooks, and a body already read cannot be cloned.
    return client.listening
      ? new Response(null, { status, statusText: response.statusText, headers })
      : response;
  }

  /** The `onResponse` hook of an answered attempt, as ky's `afterResponse` (only when a hook listens). */
  async notifyResponse(response: Response): Promise<void> {
    const { info, reply } = this;
    if (info && reply)
      await notifyResponse(this.client, this.request, info, response, reply.text, this.started);
  }

  /** After an attempt that did not succeed (ky's `shouldRetry`): `true` sends again after {@link waitMs}. */
  attemptEnded(ended: { status: number; headers: Headers } | FailedAttempt): boolean {
    if (this.stopped) return false;
    const decision = decide(this.soFar(), outcomeOf(ended));
    if (!('status' in ended)) this.fail(ended, decision.outcome!);
    this.reached = decision.reached;
    this.next = decision.next;
    this.waitMs = decision.waitMs;
    if (decision.next === 'retry') {
      this.retries += 1;
      this.logRetry(ended);
    }
    return decision.next !== 'stop';
  }

  /** Before a re-sent attempt (ky's `beforeRetry`): the one re-login drops the refused credential. */
  beforeRetry(): void {
    if (this.next !== 'relogin' || !this.authorization) return;
    this.reloggedIn = true;
    // The next attempt's authorisation logs in again.
    this.client.authorization?.rejected?.(this.authorization);
  }

  /**
   * The call's outcome once ky has stopped (`failed`: ky rejected with something other than an answer). Aborted
   * while ky waited for a retry, the last outcome stands, as if no retry had been allowed.
   */
  result(failed?: FailedAttempt): HttpReply {
    if (this.stopped) throw this.stopped.by;
    if (failed && this.next !== 'retry' && failed.error !== this.failedWith)
      // ky rejected with an error no attempt ended with (it was never asked): a failure all the same.
      this.fail(failed, decide(this.soFar(), outcomeOf(failed)).outcome!);
    if (this.failure) throw this.failure;
    return this.reply!;
  }

  /** What {@link decide} reads (its `CallSoFar`). */
  private soFar() {
    const { client, request } = this;
    return {
      retrySafe: request.retrySafe,
      limit: this.limit,
      retries: this.retries,
      canRelogin: Boolean(this.authorization && client.authorization?.rejected) && !this.reloggedIn,
      reached: this.reached,
      budgetMs: request.signal?.aborted ? 0 : this.endsAt - Date.now(),
      backoffBaseMs: client.backoffBaseMs,
      random: Math.random(),
    };
  }

  /** Records a failed attempt as the network error that says what it proves. */
  private fail({ error, timedOut }: FailedAttempt, outcome: 'not_sent' | 'unknown'): void {
    // ky's TimeoutError holds the Request, Authorization header included: it never becomes a cause.
    const cause = timedOut ? new DOMException(`timed out after ${this.timeoutMs} ms`, 'TimeoutError') : error;
    const secrets = this.client.credentials.values();
    this.failure = toNetworkError(cause, this, secrets, outcome, Boolean(this.request.signal?.aborted));
    this.failedWith = error;
    this.reply = undefined;
  }

  /** The Authorization header for an attempt; the caller's abort ends the wait, not the shared login. */
  private async authorize(authorization: Authorization): Promise<string> {
    const { signal } = this.request;
    try {
      return await untilAborted(authorization.header(signal), signal);
    } catch (error) {
      if (error instanceof CallerAbort) throw abortedError(this, this.reached, 'waiting for a login');
      throw loginFailure(error, this, this.reached);
    }
  }

  /** How errors and logs name the call (provider, method, redacted path, never the query): built on first use. */
  get label(): string {
    const { provider, credentials } = this.client;
    this.name ??= `${provider} ${this.request.method} ${redact(this.request.path, credentials.values())}`;
    return this.name;
  }

  /** A retry that was decided is reported to the logger (`debug`): the call, which retry, and why. */
  private logRetry(after: { status: number } | FailedAttempt): void {
    const log = this.client.logger();
    if (!log.enabled('debug')) return;
    const { request, retries } = this;
    // ky's timeout, or a fetch that timed out by itself.
    const timedOut = !('status' in after) && (after.error as Error | undefined)?.name === 'TimeoutError';
    const reason = 'status' in after ? `HTTP ${after.status}` : timedOut ? 'a timeout' : 'a network failure';
    log.debug(`retrying ${this.label} after ${reason} (retry ${retries} of ${this.limit}).`, () => ({
      provider: this.client.provider,
      call: request.call,
      method: request.method,
      requestId: this.requestId,
      retry: retries,
      reason,
    }));
  }
}

/** How an attempt ended, in {@link decide}'s words. */
function outcomeOf(ended: { status: number; headers: Headers } | FailedAttempt): AttemptOutcome {
  if ('status' in ended) return { status: ended.status, retryAfterMs: retryAfterMs(ended.headers) };
  return { neverSent: neverSent(ended.error) };
}
