/**
 * Deduplication of webhook events (design §5). Providers deliver at least once and in no guaranteed order: a
 * store lets an event that was already processed be skipped on redelivery.
 */

/** A store that remembers which event ids were claimed. Back it with Redis or a database across processes. */
export interface DeduplicationStore {
  /** Claims `id` for `ttlSeconds`; resolves `false` when it is already claimed (a redelivery). */
  claim(id: string, ttlSeconds: number): Promise<boolean>;
  /** Releases a claim so that a redelivery runs again (called when a callback failed). */
  release(id: string): Promise<void>;
}

/** An in-memory {@link DeduplicationStore} for one process (tests, single-instance apps). */
export function createMemoryDeduplicationStore(now: () => number = Date.now): DeduplicationStore {
  const claims = new Map<string, number>();
  return {
    async claim(id, ttlSeconds) {
      const expiry = claims.get(id);
      if (expiry !== undefined && expiry > now()) return false;
      claims.set(id, now() + ttlSeconds * 1000);
      if (claims.size % 1024 === 0) {
        for (const [key, until] of claims) if (until <= now()) claims.delete(key);
      }
      return true;
    },
    async release(id) {
      claims.delete(id);
    },
  };
}
