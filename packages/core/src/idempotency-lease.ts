/**
 * The lease an attempt holds on its idempotency key (docs/architecture.md#idempotency), renewed while it works.
 */

import type { IdempotencyStore } from './stores.js';

/**
 * Runs `work` while renewing `lease` on `key` every third of the lease (when the store can renew), so an attempt
 * that is still working never loses its key to another one: another process's `pay.resolve(key)` then answers
 * `unknown` (in progress) instead of asking the provider about a step that may still land, and a retry is told
 * to come back (docs/architecture.md#idempotency). A crashed process stops renewing, so its key is free again one
 * lease later. A renewal the store refuses (the lease was lost) ends the renewals; one that fails is tried again at
 * the next tick, and when the lease runs out meanwhile, the next `checkpoint` stops the operation before its next
 * step.
 */
export async function whileHeld<T>(
  store: IdempotencyStore,
  key: string,
  lease: string,
  leaseSeconds: number,
  work: () => Promise<T>,
): Promise<T> {
  if (typeof store.renew !== 'function') return work();
  let held = true;
  const timer = setInterval(
    () => {
      if (!held) return;
      store.renew?.(key, lease, leaseSeconds).then(
        (kept) => {
          if (!kept) held = false;
        },
        () => undefined,
      );
    },
    (leaseSeconds * 1000) / 3,
  );
  // A pending renewal must not keep a process alive that has nothing else to do.
  (timer as { unref?: () => void }).unref?.();
  try {
    return await work();
  } finally {
    held = false;
    clearInterval(timer);
  }
}
