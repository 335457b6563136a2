/**
 * The retry decision as a table (docs/architecture.md#http-client): what the call knows × how its attempt ended →
 * what happens next. `decide` is pure, so every row is one call of it; the HTTP tests show ky carrying it out.
 */
import { describe, expect, it } from 'vitest';
import { type AttemptOutcome, type CallSoFar, type Decision, decide } from '../src/http/retry-policy.js';

/**
 * A retry-safe call after its first attempt: 2 retries allowed, none used, nothing reached yet, a minute of budget
 * left, a 300 ms backoff base and the jitter at its middle (`random` 0.5 waits exactly the base).
 */
const FIRST: CallSoFar = {
  retrySafe: true,
  limit: 2,
  retries: 0,
  canRelogin: false,
  reached: false,
  budgetMs: 60_000,
  backoffBaseMs: 300,
  random: 0.5,
};
const MONEY_MOVING: Partial<CallSoFar> = { retrySafe: false };

const answer = (status: number, retryAfterMs?: number): AttemptOutcome => ({ status, retryAfterMs });
/** A timeout, or a connection reset that lost the reply: the request may have arrived. */
const TIMEOUT: AttemptOutcome = { neverSent: false };
const RESET: AttemptOutcome = { neverSent: false };
/** ECONNREFUSED and the like: the connection never opened. */
const REFUSED: AttemptOutcome = { neverSent: true };

const retry = (waitMs: number, reached: boolean, outcome?: Decision['outcome']): Decision => ({
  next: 'retry',
  waitMs,
  reached,
  outcome,
});
const relogin = (reached: boolean): Decision => ({ next: 'relogin', waitMs: 0, reached, outcome: undefined });
const stop = (reached: boolean, outcome?: Decision['outcome']): Decision => ({
  next: 'stop',
  waitMs: 0,
  reached,
  outcome,
});

const TABLE: [string, Partial<CallSoFar>, AttemptOutcome, Decision][] = [
  // Statuses: 408, 429 and 5xx gateway errors are sent again; any other answer is the call's.
  ['503: sent again after the backoff; it reached the provider', {}, answer(503), retry(300, true)],
  ['500', {}, answer(500), retry(300, true)],
  ['502', {}, answer(502), retry(300, true)],
  ['504', {}, answer(504), retry(300, true)],
  ['408', {}, answer(408), retry(300, true)],
  ['429', {}, answer(429), retry(300, true)],
  ['501 is an answer, not a passing fault', {}, answer(501), stop(true)],
  ['400', {}, answer(400), stop(true)],
  ['404', {}, answer(404), stop(true)],
  ['409', {}, answer(409), stop(true)],
  ['413', {}, answer(413), stop(true)],
  ['422', {}, answer(422), stop(true)],
  // Waits: exponential backoff with ±20 % jitter, at most 5 s; Retry-After instead when the provider sends one.
  ['the second retry waits twice as long', { retries: 1, reached: true }, answer(503), retry(600, true)],
  ['the third four times', { retries: 2, limit: 3, reached: true }, answer(503), retry(1_200, true)],
  ['jitter at its lowest: 80 %', { random: 0 }, answer(503), retry(240, true)],
  ['jitter near its highest: 120 %', { random: 0.75 }, answer(503), retry(330, true)],
  [
    'the backoff never exceeds 5 s',
    { retries: 8, limit: 10, reached: true },
    answer(503),
    retry(5_000, true),
  ],
  ['Retry-After replaces the backoff', {}, answer(429, 2_000), retry(2_000, true)],
  ['Retry-After: 0 sends again at once', {}, answer(503, 0), retry(0, true)],
  // The call cap: its retries and its overall budget.
  ['no retry left: the last answer stands', { retries: 2, reached: true }, answer(503), stop(true)],
  ['retry: 0', { limit: 0 }, answer(503), stop(true)],
  ['a backoff that would not fit the budget', { budgetMs: 300 }, answer(503), stop(true)],
  ['a Retry-After that would not fit the budget', { budgetMs: 1_999 }, answer(429, 2_000), stop(true)],
  ['a backoff that fits with a millisecond to spare', { budgetMs: 301 }, answer(503), retry(300, true)],
  ["the caller's abort leaves no budget", { budgetMs: 0 }, answer(503, 0), stop(true)],
  // Failures without an answer: what they prove, and whether they are sent again.
  ['a timeout: sent again; the outcome is unknown', {}, TIMEOUT, retry(300, true, 'unknown')],
  ['a connection reset: sent again; unknown', {}, RESET, retry(300, true, 'unknown')],
  ['a refused connection: sent again; not sent', {}, REFUSED, retry(300, false, 'not_sent')],
  [
    'a refused connection after an attempt that may have landed: unknown',
    { retries: 1, reached: true },
    REFUSED,
    retry(600, true, 'unknown'),
  ],
  ['a timeout with no retry left', { retries: 2, reached: true }, TIMEOUT, stop(true, 'unknown')],
  ['a refused connection with no retry left: not sent', { limit: 0 }, REFUSED, stop(false, 'not_sent')],
  ["a failure after the caller's abort", { budgetMs: 0 }, RESET, stop(true, 'unknown')],
  // Calls that could move money twice are never sent again, whatever they asked for.
  ['money-moving: 503', { ...MONEY_MOVING, limit: 5 }, answer(503), stop(true)],
  ['money-moving: 429 with Retry-After', MONEY_MOVING, answer(429, 0), stop(true)],
  ['money-moving: a timeout', MONEY_MOVING, TIMEOUT, stop(true, 'unknown')],
  ['money-moving: a refused connection, not sent', MONEY_MOVING, REFUSED, stop(false, 'not_sent')],
  // 401: the one re-login, which proves nothing was processed and is not a retry.
  [
    '401 with a credential to drop: at once with a fresh login, even money-moving',
    { ...MONEY_MOVING, canRelogin: true },
    answer(401),
    relogin(false),
  ],
  ['401 once the re-login was used', {}, answer(401), stop(false)],
  [
    'the re-login needs no retry left',
    { canRelogin: true, retries: 2, limit: 2 },
    answer(401),
    relogin(false),
  ],
  ['nor budget', { canRelogin: true, budgetMs: 0 }, answer(401), relogin(false)],
  [
    '401 after an attempt that may have landed keeps that known',
    { canRelogin: true, retries: 1, reached: true },
    answer(401),
    relogin(true),
  ],
  ['a refusal after an attempt that may have landed', { retries: 1, reached: true }, answer(400), stop(true)],
];

describe('decide: what follows an attempt (docs/architecture.md#http-client)', () => {
  it.each(TABLE)('%s', (_name, call, attempt, decision) => {
    expect(decide({ ...FIRST, ...call }, attempt)).toEqual(decision);
  });
});

/** Runs `decide` over a call's attempts as the call does: what one decision says, the next attempt knows. */
function walk(call: CallSoFar, attempts: AttemptOutcome[]): Decision['next'][] {
  const decisions: Decision['next'][] = [];
  let known = call;
  for (const attempt of attempts) {
    const decision = decide(known, attempt);
    decisions.push(decision.next);
    known = {
      ...known,
      reached: decision.reached,
      retries: known.retries + (decision.next === 'retry' ? 1 : 0),
      canRelogin: known.canRelogin && decision.next !== 'relogin',
    };
    if (decision.next === 'stop') break;
  }
  return decisions;
}

describe('a call walked attempt by attempt', () => {
  it('a read re-logs in once, then spends its two retries, then the last answer stands', () => {
    const attempts = [answer(401), answer(503), TIMEOUT, answer(401), answer(503)];
    expect(walk({ ...FIRST, canRelogin: true }, attempts)).toEqual(['relogin', 'retry', 'retry', 'stop']);
  });

  it('a refused connection stays not sent only until an attempt may have landed', () => {
    const known = { ...FIRST, limit: 3 };
    const first = decide(known, REFUSED);
    const second = decide({ ...known, retries: 1, reached: first.reached }, TIMEOUT);
    const third = decide({ ...known, retries: 2, reached: second.reached }, REFUSED);
    expect([first.outcome, second.outcome, third.outcome]).toEqual(['not_sent', 'unknown', 'unknown']);
  });

  it('a money-moving call is sent once, and once more only after a 401', () => {
    expect(walk({ ...FIRST, retrySafe: false, canRelogin: true }, [answer(401), answer(503)])).toEqual([
      'relogin',
      'stop',
    ]);
  });
});
