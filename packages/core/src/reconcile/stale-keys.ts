/**
 * The idempotency keys nobody is working on (docs/architecture.md#reconciliation): their lease ended without
 * completion (a crashed process, a lost reply no caller retried). Each run resolves some through `pay.resolve`.
 */
import { operationOfFingerprint } from '../idempotency-fingerprint.js';
import type { Pay } from '../pay.js';
import { StoreError } from '../store-errors.js';
import { ANSWERS, isRateLimited, pauseReads, type RunContext, spendReads, storeCall } from './run-context.js';
import { kindOfOperation, watchObject } from './watch.js';

/** Stale idempotency keys looked at per run. */
const STALE_KEYS_PER_RUN = 20;

/** Resolves the stale keys the read budget allows (found: then watched; unknown: asked again at `askAgainAt`). */
export async function resolveStaleKeys(context: RunContext): Promise<void> {
  const ledgerStore = context.ledger.store;
  if (ledgerStore.stale === undefined) return;
  const { askAgain, settings, provider, summary } = context;
  const now = settings.now();
  const entries = await storeCall(
    context,
    'stale',
    () => ledgerStore.stale!({ now, limit: STALE_KEYS_PER_RUN }),
    ANSWERS.stale,
  );
  for (const [key, until] of askAgain) if (until <= now) askAgain.delete(key);
  const todo = entries.filter((entry) => !askAgain.has(entry.key));
  if (todo.length === 0 || now < context.reads.pausedUntil) return;
  const granted = await spendReads(context, now, todo.length);
  // Each through `pay.resolve`; a found record of a kind the reconciler reads is watched.
  for (const entry of todo.slice(0, granted)) {
    summary.staleKeys += 1;
    summary.reads += 1;
    let answer: Awaited<ReturnType<Pay['resolve']>>;
    try {
      answer = await context.pay.resolve(entry.key, { retry: 0 });
    } catch (error) {
      if (StoreError.isInstance(error)) throw error;
      summary.errors += 1;
      if (isRateLimited(error)) {
        await pauseReads(context, now);
        return;
      }
      askAgain.set(entry.key, now + settings.intervalMs);
      context.logger.warn(
        'The reconciler could not resolve a stale idempotency key; it asks again later.',
        () => ({
          provider,
          idempotencyKey: entry.key,
          error,
        }),
      );
      continue;
    }
    if (answer.status === 'unknown') {
      const at = answer.askAgainAt === undefined ? Number.NaN : Date.parse(answer.askAgainAt);
      askAgain.set(entry.key, Number.isNaN(at) ? now + settings.intervalMs : at);
      continue;
    }
    if (answer.status === 'not_found') continue;
    const operation = operationOfFingerprint(entry.fingerprint);
    const kind = operation === undefined ? undefined : kindOfOperation(operation);
    // A found checkout's key stays for the caller's retry (its create reply cannot be read back): do not ask again.
    if (operation === 'checkouts.create') askAgain.set(entry.key, entry.expiresAt);
    if (kind === undefined) continue;
    // The application never learnt this record (the call that made it did not return): status null, read now, so
    // its current status is delivered on the next run.
    const object = { provider, kind, id: answer.record.id, status: null };
    await storeCall(context, 'watch', () => watchObject(context.store, object, now, now));
  }
}
