/** The types of the HTTP layer (docs/architecture.md#http-client): requests, replies, hooks and options. */
import type { CallOptions } from '../adapter.js';
import type { Logger } from '../diagnostics/logger.js';
import type { ErrorContext } from '../errors.js';
import type { ProviderName } from '../records.js';
import type { TokenStore } from '../stores.js';

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
 * never change what a call does: what one throws is reported to the `logger` (`warn`) and to `onHookError`
 * (docs/architecture.md#http-client).
 */
export interface HttpHooks {
  onRequest?: (request: HttpRequestInfo) => void | Promise<void>;
  onResponse?: (response: HttpResponseInfo) => void | Promise<void>;
  /**
   * Receives what an `onRequest`/`onResponse` hook threw. What this one throws is ignored.
   * @deprecated Pass `logger` instead: a failed hook is reported there as a `warn` line. Still called when given.
   */
  onHookError?: (error: unknown, failure: HookFailure) => void;
}

/** Transport options every adapter config accepts (docs/architecture.md#configuration). */
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
  /** A token cache shared by every instance (`createMemoryTokenStore()`, a store package); default: per instance. */
  tokenStore?: TokenStore;
  /**
   * Where the client reports a retry (`debug`) and a hook that failed (`warn`), redacted. Default: the `logger`
   * given to `createPay`, for calls made through it.
   */
  logger?: Logger;
}

/** HTTP methods the adapters use. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How a client authorises its calls. */
export interface Authorization {
  /**
   * The `Authorization` header value for the next call. `signal` is the caller's: a shared login should keep
   * running for others when it aborts.
   */
  header(signal?: AbortSignal): Promise<string>;
  /** Called with the rejected header value when the provider answers 401; the call is then sent once more. */
  rejected?(headerValue: string): void;
}

/** One logical upstream call. */
export interface HttpRequest {
  /** Names the call in traces and log lines, without any value (`'init-transaction'`); default method and path. */
  call?: string;
  method: HttpMethod;
  /** Path below the base URL, built with {@link path} so each segment is encoded. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** True only when repeating the call cannot move money twice (reads, idempotent PUTs, logins): only then retried. */
  retrySafe: boolean;
  /** `false` sends no `Authorization` from the client's authoriser (e.g. the login itself). */
  authorize?: boolean;
  /** The reply carries credentials (a login's fresh access token): hooks see its body as `[REDACTED]`. */
  credentialsInReply?: boolean;
  /** The request id to send; default a new UUID. The same id is sent on every retry of this call. */
  requestId?: string;
  signal?: AbortSignal;
  /** Timeout of one attempt of this call; default the operation context's `timeoutMs`, else the client's. */
  timeoutMs?: number;
  /** Retries of this call, only when `retrySafe`; default the operation context's `retry`, else the client's. */
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
   * An earlier attempt of this call may have reached the provider: a refusal of a money-moving call then proves
   * nothing about it — reconcile with a status read, or throw with `outcome: 'unknown'`
   * (docs/architecture.md#outcomes).
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
  /** Values to redact from anything a hook or an error could show; every credential sent is redacted too. */
  secrets?: readonly string[];
  /** Base of the backoff in milliseconds (default 300). */
  backoffBaseMs?: number;
}

/** The client an adapter sends its calls through. */
export interface HttpClient {
  /**
   * Sends one call; the operation's `context` (docs/architecture.md#operation-context) supplies the signal and
   * settings the request gives none of.
   */
  send(request: HttpRequest, context?: CallOptions): Promise<HttpReply>;
  /** Redacts `secrets` from then on too (docs/architecture.md#credential-rotation); earlier ones stay redacted. */
  rememberSecrets(secrets: readonly string[]): void;
}
