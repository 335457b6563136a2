/**
 * The idempotency keys nobody is working on (docs/architecture.md#reconciliation): their lease ended without
 * completion (a crashed process, a lost reply no caller retried). Each run resolves some through `pay.resolve`;
 * one that stays `unknown` is asked again with backoff, and after {@link UNRESOLVED_AFTER_ASKS} asks it is reported
 * as needing a person (`reconciler.unresolved()`), never asked again by this instance.
 */
import { operationOfFingerprint } from '../idempotency-fingerprint.js';
import type { Pay } from '../pay.js';
import { StoreError } from '../store-errors.js';
import type { IdempotencyEntry } from '../stores.js';
import { ANSWERS, isRateLimited, pauseReads, type RunContext, spendReads, storeCall } from './run-context.js';
import type { StaleKeyState, UnresolvedKey } from './store.js';
import { kindOfOperation, nextReadAt, watchObject } from './watch.js';

/** Stale idempotency keys looked at per run, besides those this instance is waiting on. */
const STALE_KEYS_PER_RUN = 20;
/** The most stale keys one `stale` call asks for, waiting ones included. */
const STALE_KEYS_MOST = 1_000;
/**
 * `unknown` answers before a key is reported unresolved: asked 2, 4, 8, 16 and 32 minutes apart (the watched
 * objects' backoff), about an hour after the reconciler first found it stale.
 */
export const UNRESOLVED_AFTER_ASKS = 6;

/** Resolves the stale keys the read budget allows (found: then watched; unknown: asked again with backoff). */
export async function resolveStaleKeys(context: RunContext): Promise<void> {
  const ledgerStore = context.ledger.store;
  if (ledgerStore.stale === undefined) return;
  const { staleKeys, settings, summary } = context;
  const now = settings.now();
  for (const [key, state] of staleKeys) if (state.expiresAt <= now) staleKeys.delete(key);
  const limit = Math.min(STALE_KEYS_MOST, STALE_KEYS_PER_RUN + staleKeys.size);
  const entries = await storeCall(context, 'stale', () => ledgerStore.stale!({ now, limit }), ANSWERS.stale);
  summary.unresolved = [...staleKeys.values()].filter((state) => state.unresolved).length;
  const todo = entries
    .filter((entry) => (staleKeys.get(entry.key)?.askAgainAt ?? 0) <= now)
    .slice(0, STALE_KEYS_PER_RUN);
  if (todo.length === 0 || now < context.reads.pausedUntil) return;
  const granted = await spendReads(context, now, todo.length);
  // Each through `pay.resolve`; a found record of a kind the reconciler reads is watched.
  for (const entry of todo.slice(0, granted)) {
    summary.staleKeys += 1;
    summary.reads += 1;
    if ((await resolveStaleKey(context, entry, now)) === 'rate_limited') return;
  }
}

/** Resolves one stale key; `'rate_limited'` when the provider answered 429 (the run asks no more). */
async function resolveStaleKey(context: RunContext, entry: IdempotencyEntry, now: number) {
  const { staleKeys, settings, provider, summary } = context;
  let answer: Awaited<ReturnType<Pay['resolve']>>;
  try {
    answer = await context.pay.resolve(entry.key, { retry: 0 });
  } catch (error) {
    if (StoreError.isInstance(error)) throw error;
    summary.errors += 1;
    if (isRateLimited(error)) {
      await pauseReads(context, now);
      return 'rate_limited';
    }
    asked(context, entry, now, now + settings.intervalMs);
    context.logger.warn(
      'The reconciler could not resolve a stale idempotency key; it asks again later.',
      () => ({
        provider,
        idempotencyKey: entry.key,
        error,
      }),
    );
    return;
  }
  if (answer.status === 'unknown') {
    const at = answer.askAgainAt === undefined ? Number.NaN : Date.parse(answer.askAgainAt);
    const state = asked(context, entry, now, Number.isNaN(at) ? now : at);
    if (state.asks >= UNRESOLVED_AFTER_ASKS) reportUnresolved(context, entry, state, answer.reason);
    return;
  }
  staleKeys.delete(entry.key);
  if (answer.status === 'not_found') return;
  const operation = operationOfFingerprint(entry.fingerprint);
  const kind = operation === undefined ? undefined : kindOfOperation(operation);
  // A found checkout's key stays for the caller's retry (its create reply cannot be read back): do not ask again.
  if (operation === 'checkouts.create')
    staleKeys.set(entry.key, {
      asks: 1,
      askAgainAt: entry.expiresAt,
      firstSeenAt: now,
      expiresAt: entry.expiresAt,
    });
  if (kind === undefined) return;
  // The application never learnt this record (the call that made it did not return): status null, read now, so
  // its current status is delivered on the next run.
  const object = { provider, kind, id: answer.record.id, status: null };
  await storeCall(context, 'watch', () => watchObject(context.store, object, now, now));
}

/** Counts an ask about `entry`; the next is due at `earliest` or after the backoff, whichever is later. */
function asked(context: RunContext, entry: IdempotencyEntry, now: number, earliest: number): StaleKeyState {
  const known = context.staleKeys.get(entry.key);
  const asks = (known?.asks ?? 0) + 1;
  const state = {
    asks,
    askAgainAt: Math.max(earliest, nextReadAt(asks - 1, now)),
    firstSeenAt: known?.firstSeenAt ?? now,
    expiresAt: entry.expiresAt,
  };
  context.staleKeys.set(entry.key, state);
  return state;
}

/**
 * Reports a key nobody can resolve: never asked again by this instance, listed by `reconciler.unresolved()`,
 * counted on `pay:reconcile` and logged at `error` with what is known (docs/architecture.md#reconciliation).
 */
function reportUnresolved(
  context: RunContext,
  entry: IdempotencyEntry,
  state: StaleKeyState,
  reason: string,
) {
  const unresolved: UnresolvedKey = {
    idempotencyKey: entry.key,
    provider: context.provider,
    operation: operationOfFingerprint(entry.fingerprint),
    recoveryPoint: entry.recoveryPoint,
    reason,
    firstSeenAt: new Date(state.firstSeenAt).toISOString(),
    asks: state.asks,
  };
  Object.assign(state, { askAgainAt: entry.expiresAt, unresolved });
  context.summary.unresolved += 1;
  context.logger.error(
    `The outcome of ${unresolved.operation ?? 'a money-moving call'} under idempotency key ${entry.key} cannot be resolved: ${context.provider} cannot be asked about it. A person must settle it (docs/architecture.md#reconciliation); the reconciler no longer asks.`,
    () => ({ ...unresolved }),
  );
}
