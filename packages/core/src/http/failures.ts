/**
 * What a failed call says (docs/architecture.md#http-client): `not_sent` only when the connection provably never
 * opened or the caller aborted before anything was sent, `unknown` otherwise; the host and connection code named,
 * never a whole URL; a refused login pointing at the credentials.
 */
import { NetworkError, ProviderApiError } from '../errors.js';
import { redact } from '../redaction.js';
import type { HttpRequest } from './types.js';

/** The call a failure belongs to: how messages name it, and what its error's context carries. */
export interface FailedCall {
  readonly label: string;
  readonly url: string;
  readonly request: HttpRequest;
  readonly requestId: string;
}

/** Connection failures that prove the request never left this process. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);
/** What each connection failure code means, in words, for the error message (docs/architecture.md#http-client). */
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
/** The only advice a `not_sent` message may carry (docs/architecture.md#http-client). */
const NOT_SENT_ADVICE = 'The request never reached the provider; it is safe to send again.';
/** Advice of an `unknown` network error. */
const UNKNOWN_ADVICE = 'The provider may have processed it: look the resource up before sending it again.';
/** Appended when the provider refused the credentials (docs/architecture.md#provider-client); never a value. */
export const CREDENTIALS_HINT =
  "The provider refused the credentials: check the adapter's credentials (API key / secret) and that they belong to the configured environment (sandbox or live).";

/** A network error of `call`: `unknown` once an attempt may have reached the provider, else `not_sent`. */
function callError(call: FailedCall, reached: boolean, message: string, cause: unknown): NetworkError {
  const context = { ...call.request.context, requestId: call.requestId };
  return new NetworkError(message, { outcome: reached ? 'unknown' : 'not_sent', cause, context });
}

/** The caller aborted before an attempt was handed to fetch (`moment` says where). */
export function abortedError(call: FailedCall, reachedBefore: boolean, moment: string): NetworkError {
  const aborted = `${call.label} was aborted by the caller's signal (${moment})`;
  const message = reachedBefore
    ? `${aborted} after an earlier attempt may have been processed. Look the resource up before sending it again.`
    : `${aborted} before anything was sent. It is safe to send again.`;
  return callError(call, reachedBefore, message, call.request.signal?.reason);
}

/**
 * The error of a login that failed while authorising an attempt. A refused login before anything was sent is
 * the login's own error (with the credentials hint); a login that got no answer leaves this attempt unsent, and
 * after an attempt that may have landed, whatever stopped the retry cannot prove the call was not processed.
 */
export function loginFailure(error: unknown, call: FailedCall, reachedBefore: boolean): unknown {
  if (!NetworkError.isInstance(error) && !reachedBefore) return withCredentialsHint(error);
  // Why the login failed (its host and code), without its own advice: the login's outcome is not this
  // call's, and a `not_sent` message must not say "may have processed" (docs/architecture.md#http-client).
  const why = loginFailureReason(error);
  const message = reachedBefore
    ? `${call.label}: no access token could be obtained for a retry${why}, and an earlier attempt may have been processed. Look the resource up before sending it again.`
    : `${call.label} was not sent: no access token could be obtained${why}. It is safe to send again.`;
  return callError(call, reachedBefore, message, error);
}

/** A login refused for its credentials (401/403) gets {@link CREDENTIALS_HINT} appended. */
function withCredentialsHint(error: unknown): unknown {
  if (!ProviderApiError.isInstance(error) || (error.status !== 401 && error.status !== 403)) return error;
  if (error.message.includes(CREDENTIALS_HINT)) return error;
  return error.withDetails({ message: `${error.message.trimEnd()} ${CREDENTIALS_HINT}` });
}

/** `" (login: <what happened>)"`: the login's message without its advice, or its code if it claims an outcome. */
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

/** The network error of a failed attempt: `outcome` is what it proves; `byCaller`: the caller's signal aborted it. */
export function toNetworkError(
  error: unknown,
  call: FailedCall,
  secrets: readonly string[],
  outcome: 'not_sent' | 'unknown',
  byCaller: boolean,
): NetworkError {
  const code = findCode(error);
  // Name the host (never the whole URL: a query could carry a credential) and the code, so an unreachable
  // `baseUrl` is recognisable from the message alone (docs/architecture.md#http-client).
  const host = redact(new URL(call.url).host, secrets);
  const meaning = code === undefined ? undefined : CONNECTION_FAILURES.get(code);
  const what = byCaller
    ? `to ${host} was aborted by the caller's signal while in flight`
    : (error as Error | undefined)?.name === 'TimeoutError'
      ? `to ${host} timed out`
      : code
        ? `failed: could not reach ${host} (${code}${meaning ? `, ${meaning}` : ''})`
        : `to ${host} failed${causeWords(error, secrets)}`;
  const reached = outcome === 'unknown';
  const advice = reached
    ? UNKNOWN_ADVICE
    : `${NOT_SENT_ADVICE} Check that the adapter's baseUrl points at a reachable server.`;
  return callError(call, reached, `${call.label} ${what}. ${advice}`, error);
}

/** The longest a runtime's own words about a failure may run in a message. */
const CAUSE_WORDS_KEPT = 200;

/**
 * `" (<what the runtime said>)"` for a failure without a connection code: the innermost message of the cause chain,
 * where runtimes put the real reason under a generic "fetch failed" (Deno: `Requires net access to "host:port"`).
 * Every URL in it is cut to its host (a query could carry a credential), secrets are redacted, and it is shortened.
 */
function causeWords(error: unknown, secrets: readonly string[]): string {
  let words: string | undefined;
  for (const { message } of causes(error)) if (typeof message === 'string' && message.trim()) words = message;
  if (words === undefined) return '';
  const hostsOnly = words.replace(/\bhttps?:\/\/[^\s)"'<>]+/gi, (url) => {
    try {
      return new URL(url).host;
    } catch {
      return '[url]';
    }
  });
  const oneLine = redact(hostsOnly, secrets).replace(/\s+/g, ' ').trim().replace(/\.$/, '');
  return ` (${oneLine.length > CAUSE_WORDS_KEPT ? `${oneLine.slice(0, CAUSE_WORDS_KEPT)}…` : oneLine})`;
}

/** True when a failed exchange provably never left this process (its connection never opened). */
export function neverSent(error: unknown): boolean {
  const code = findCode(error);
  return code !== undefined && NOT_SENT_CODES.has(code);
}

function findCode(error: unknown): string | undefined {
  for (const { code } of causes(error)) if (typeof code === 'string') return code;
  return undefined;
}

/** The error and its causes, five deep at most. */
function* causes(error: unknown): Generator<{ code?: unknown; message?: unknown; cause?: unknown }> {
  for (let current = error as { cause?: unknown } | undefined, depth = 0; current && depth < 5; depth++) {
    yield current;
    current = current.cause as typeof current;
  }
}
