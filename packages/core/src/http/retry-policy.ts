/**
 * When a call is sent again (docs/architecture.md#http-client): only calls that cannot move money twice, only after 408/429/5xx or a
 * failed exchange, waiting as `Retry-After` says (capped at 5 s) or an exponential backoff with jitter. ky applies
 * the waits (`retry.delay`, `jitter`, `backoffLimit`, `afterStatusCodes`, `maxRetryAfter`); the decision stays
 * with the client, which alone knows whether a call may move money and whether an attempt may have landed.
 */
import type { RetryOptions } from 'ky';

/** Statuses after which a retry-safe call is sent again (and whose `Retry-After` is honoured). */
export const RETRY_STATUSES: readonly number[] = [408, 429, 500, 502, 503, 504];
const RETRY_STATUS_SET = new Set(RETRY_STATUSES);
const RETRY_STATUS_LIST = RETRY_STATUSES as number[];
/** The longest wait between two attempts, whatever `Retry-After` asks for. */
export const MAX_WAIT_MS = 5_000;

/** True for a status after which a retry-safe call is sent again. */
export function isRetryStatus(status: number): boolean {
  return RETRY_STATUS_SET.has(status);
}

/** The backoff before retry `attempt` (1 for the first retry) without jitter: 300 ms, 600 ms, 1.2 s, … */
function exponential(attempt: number, base: number): number {
  return base * 2 ** (attempt - 1);
}

/** Jitter of ±20 %, so clients that failed together do not retry together. */
function withJitter(ms: number): number {
  return ms * (0.8 + Math.random() * 0.4);
}

/** Exponential backoff with jitter: about 300 ms, 600 ms, 1.2 s, …, never above 5 s. Exported for tests. */
export function backoff(attempt: number, base: number): number {
  return Math.min(MAX_WAIT_MS, withJitter(exponential(attempt, base)));
}

/** The longest backoff before retry `attempt` could be (the jitter at its top): for the call's deadline. */
export function longestBackoff(attempt: number, base: number): number {
  return Math.min(MAX_WAIT_MS, exponential(attempt, base) * 1.2);
}

/** The `Retry-After` wait in milliseconds (seconds or an HTTP date), capped at 5 s. Exported for tests. */
export function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(MAX_WAIT_MS, Math.max(0, ms)) : undefined;
}

/** What one call's retry state tells ky: how many retries it counts, and whether the next one is a re-login. */
export interface RetryState {
  /** Retries decided so far (a re-login after a 401 is not one). */
  retries: number;
  /** The next attempt re-sends after a 401 with a fresh login: it goes at once. */
  relogin: boolean;
}

/**
 * ky's retry options for one call. `limit` leaves room for the one re-login; `shouldRetry` decides every
 * case (`false`: stop; `true`: the re-login, sent at once; `undefined`: a retry with ky's waits).
 */
export function kyRetryOptions(
  state: RetryState,
  limit: number,
  backoffBaseMs: number,
  shouldRetry: NonNullable<RetryOptions['shouldRetry']>,
): RetryOptions {
  return {
    limit: limit + 1,
    // Every method: whether a call may be repeated depends on the call (retrySafe), not on its method.
    methods: ['get', 'post', 'put', 'patch', 'delete'],
    // ky only reads these lists: the same ones serve every call.
    statusCodes: RETRY_STATUS_LIST,
    afterStatusCodes: RETRY_STATUS_LIST,
    maxRetryAfter: MAX_WAIT_MS,
    backoffLimit: MAX_WAIT_MS,
    delay: () => (state.relogin ? 0 : exponential(state.retries, backoffBaseMs)),
    jitter: (ms) => (state.relogin ? 0 : withJitter(ms)),
    retryOnTimeout: true,
    shouldRetry,
  };
}
