/** Whether a call is sent again, and after how long (docs/architecture.md#http-client); ky carries it out. */

/** Statuses after which a retry-safe call is sent again (and whose `Retry-After` is honoured). */
const RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);
/** The longest wait between two attempts, whatever `Retry-After` asks for. */
export const MAX_WAIT_MS = 5_000;

/** The wait before retry `retry` (1 for the first): `base`, twice that, …, ±20 % by `random` (in [0, 1)), at most 5 s. */
function backoffMs(retry: number, base: number, random: number): number {
  // The jitter keeps clients that failed together from retrying together.
  return Math.min(MAX_WAIT_MS, base * 2 ** (retry - 1) * (0.8 + random * 0.4));
}

/** Exponential backoff with jitter (see `backoffMs`). Exported for tests. */
export function backoff(attempt: number, base: number): number {
  return backoffMs(attempt, base, Math.random());
}

/** The overall cap of a call with `retries` retries of `timeoutMs` each: no retry starts that would not fit. */
export function callCapMs(timeoutMs: number, retries: number): number {
  return timeoutMs * (retries + 1) + MAX_WAIT_MS * retries + 1_000;
}

/** The `Retry-After` wait in milliseconds (seconds or an HTTP date), capped at 5 s. Exported for tests. */
export function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(MAX_WAIT_MS, Math.max(0, ms)) : undefined;
}

/** What a call knows when one of its attempts has ended: everything {@link decide} reads. */
export interface CallSoFar {
  retrySafe: boolean;
  /** Retries the call may make. */
  limit: number;
  /** Retries decided so far (the re-login after a 401 is not one). */
  retries: number;
  /** The attempt sent a credential the authoriser can drop, and the call has not logged in again yet. */
  canRelogin: boolean;
  /** An earlier attempt may have reached the provider. */
  reached: boolean;
  /** What is left of the call's overall budget in milliseconds; 0 once the caller has aborted. */
  budgetMs: number;
  backoffBaseMs: number;
  /** A number in [0, 1) that sets the backoff's jitter. */
  random: number;
}

/** How an attempt ended: an answer that is not a success, or no answer (`neverSent`: its connection never opened). */
export type AttemptOutcome = { status: number; retryAfterMs: number | undefined } | { neverSent: boolean };

export interface Decision {
  /** `relogin`: drop the refused credential and send again at once (not a retry). */
  next: 'retry' | 'relogin' | 'stop';
  waitMs: number;
  /** An attempt of the call, this one included, may have reached the provider. */
  reached: boolean;
  /** What a failed attempt proves (docs/architecture.md#outcomes); undefined for an answer. */
  outcome: 'not_sent' | 'unknown' | undefined;
}

/**
 * What follows an attempt. A 401 proves the attempt was not processed, so it is sent once more with a fresh
 * login, whatever the call; any other answer means it reached the provider. A failure is `not_sent` only while
 * no attempt may have reached the provider and this one's connection provably never opened. Only a retry-safe
 * call is sent again, after 408/429/5xx or a failure, while its retries last and the wait fits its budget.
 */
export function decide(call: CallSoFar, attempt: AttemptOutcome): Decision {
  let waitMs = backoffMs(call.retries + 1, call.backoffBaseMs, call.random);
  let reached: boolean;
  let outcome: Decision['outcome'];
  if ('status' in attempt) {
    reached = call.reached || attempt.status !== 401;
    if (attempt.status === 401 && call.canRelogin) return { next: 'relogin', waitMs: 0, reached, outcome };
    if (!RETRY_STATUSES.has(attempt.status)) return { next: 'stop', waitMs: 0, reached, outcome };
    waitMs = attempt.retryAfterMs ?? waitMs;
  } else {
    reached = call.reached || !attempt.neverSent;
    outcome = reached ? 'unknown' : 'not_sent';
  }
  if (!call.retrySafe || call.retries >= call.limit || waitMs >= call.budgetMs)
    return { next: 'stop', waitMs: 0, reached, outcome };
  return { next: 'retry', waitMs, reached, outcome };
}
