/**
 * Shared state for applications that run more than one instance (issue 14): the idempotency ledger that makes a
 * retried money-moving call safe across processes and crashes, and the token cache that lets instances share one
 * provider login. The deduplication store of webhooks is in `webhooks/dedupe.ts`. Each contract maps onto one
 * atomic statement per call on PostgreSQL (`INSERT … ON CONFLICT`, row locks) and on Redis (`SET NX PX`, a
 * compare-and-set script); `@pay/store-postgres` and `@pay/store-redis` implement all three, and the in-memory
 * versions serve a single process.
 */

/** A JSON value, as the stores keep it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** What {@link IdempotencyStore.begin} found for a key. */
export type IdempotencyBegin =
  /**
   * The caller holds the key until `leaseSeconds` pass: it must `checkpoint`, `complete` or `release` it with
   * `lease`. `recoveryPoint` is `null` for a new key, or where an earlier attempt whose lease expired (a crash,
   * an unknown outcome) got to: the caller resumes from there instead of starting again.
   */
  | { state: 'acquired'; lease: string; recoveryPoint: JsonValue | null }
  /** Another attempt holds an unexpired lease on the key. */
  | { state: 'in_progress' }
  /** The call under this key finished: `result` is what it returned. */
  | { state: 'completed'; result: JsonValue }
  /** The key was used with a different request (its fingerprint differs). */
  | { state: 'mismatch' };

/** One key of the ledger, as {@link IdempotencyStore.read} returns it. */
export interface IdempotencyEntry {
  key: string;
  /** A digest of the request the key was first used with. */
  fingerprint: string;
  state: 'in_progress' | 'completed';
  recoveryPoint: JsonValue | null;
  result: JsonValue | null;
  /** Epoch milliseconds after which the entry is forgotten. */
  expiresAt: number;
}

/**
 * The idempotency ledger: per caller key, the request's fingerprint, the recovery point a multi-step call reached
 * and its final result, kept for `retentionSeconds` (at least 24 h). Every write after `begin` names the lease it
 * holds and is ignored (resolves `false`) when the lease was lost, so an attempt that outlived its lease cannot
 * overwrite the one that took over.
 */
export interface IdempotencyStore {
  /**
   * Leases `key` for `leaseSeconds` when it is new (recording `fingerprint`) or when its earlier lease expired
   * without completing; otherwise says whether it is `in_progress`, `completed` or used with another request.
   */
  begin(
    key: string,
    fingerprint: string,
    options: { leaseSeconds: number; retentionSeconds: number },
  ): Promise<IdempotencyBegin>;
  /** Records how far the call got (for example Provider T's transaction id after the quote). */
  checkpoint(key: string, lease: string, recoveryPoint: JsonValue): Promise<boolean>;
  /** Records the final result; later calls with the key get it back without calling the provider. */
  complete(key: string, lease: string, result: JsonValue): Promise<boolean>;
  /**
   * Forgets the key: the call failed in a way that proves no money moved (refused before anything was sent, or
   * refused by the provider on the first attempt), so the same key may be used again.
   */
  release(key: string, lease: string): Promise<boolean>;
  /** The ledger entry of `key`, or `null` when there is none (never used, released or expired). */
  read(key: string): Promise<IdempotencyEntry | null>;
}

/** An access token with its absolute expiry (epoch milliseconds). */
export interface CachedToken {
  token: string;
  expiresAt: number;
}

/**
 * A token cache shared by instances, so they reuse one provider login until it expires. Keys name the provider
 * and the credential they belong to (never the credential itself: use a digest). Tokens are credentials: the
 * store's own access control protects them.
 */
export interface TokenStore {
  /** The cached token of `name`, or `null` when there is none or it expired. */
  get(name: string): Promise<CachedToken | null>;
  /** Caches `token` until its `expiresAt`. */
  set(name: string, token: CachedToken): Promise<void>;
  /** Drops the cached token of `name` only when it is still `token` (the one a 401 rejected). */
  delete(name: string, token: string): Promise<void>;
}
