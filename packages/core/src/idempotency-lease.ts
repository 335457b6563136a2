import type { IdempotencyStore } from './stores.js';

/**
 * Runs `work` while renewing `lease` on `key` every third of the lease (when the store can renew), so an attempt
 * still working never loses its key (`pay.resolve` elsewhere then answers `unknown` instead of asking the provider
 * about a step that may still land), while a crashed one frees it one lease later (docs/architecture.md#idempotency).
 * A refused renewal (the lease was lost) ends the renewals; a failed one is tried again at the next tick.
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
