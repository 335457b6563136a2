/**
 * Shared state for applications that run more than one instance (docs/architecture.md#stores): the idempotency
 * ledger and the token cache (the webhook deduplication store is in `webhooks/dedupe.ts`). Each contract maps onto
 * one atomic statement per call on PostgreSQL and on Redis; the in-memory versions serve a single process.
 */
import { markInMemory } from './diagnostics/production.js';
import { StoreError, type StoreStep } from './store-errors.js';

/** A JSON value, as the stores keep it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** What {@link IdempotencyStore.begin} found for a key. */
export type IdempotencyBegin =
  /**
   * The caller holds the key with `lease` until `leaseSeconds` pass. `recoveryPoint` is `null` for a new key, or
   * where an earlier attempt whose lease expired got to: the caller resumes from there.
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
 * and its final result. Every write after `begin` names the lease it holds and is ignored (resolves `false`) when
 * the lease was lost, so an attempt that outlived its lease cannot overwrite the one that took over.
 */
export interface IdempotencyStore {
  /** Leases `key` when it is new (recording `fingerprint`) or its earlier lease expired; else says why not. */
  begin(
    key: string,
    fingerprint: string,
    options: { leaseSeconds: number; retentionSeconds: number },
  ): Promise<IdempotencyBegin>;
  /** Records how far the call got (for example Provider T's transaction id after the quote). */
  checkpoint(key: string, lease: string, recoveryPoint: JsonValue): Promise<boolean>;
  /**
   * Extends a held lease to `leaseSeconds` from now; `false` when the lease was lost. Optional: without it the lease
   * is never renewed and must outlast the slowest money-moving call (docs/architecture.md#idempotency).
   */
  renew?(key: string, lease: string, leaseSeconds: number): Promise<boolean>;
  /** Records the final result; later calls with the key get it back without calling the provider. */
  complete(key: string, lease: string, result: JsonValue): Promise<boolean>;
  /** Forgets the key: the call failed in a way that proves no money moved, so the key may be used again. */
  release(key: string, lease: string): Promise<boolean>;
  /** Ends the lease but keeps the entry: the outcome is unknown, so the next call resumes from the recovery point. */
  abandon(key: string, lease: string): Promise<boolean>;
  /** The ledger entry of `key`, or `null` when there is none (never used, released or expired). */
  read(key: string): Promise<IdempotencyEntry | null>;
  /**
   * Entries still `in_progress` whose lease ended at `now`, oldest first, at most `limit`: the reconciler resolves
   * them (docs/architecture.md#reconciliation). Optional: without it abandoned keys wait for a caller's retry.
   */
  stale?(options: { now: number; limit: number }): Promise<IdempotencyEntry[]>;
}

/** An access token with its absolute expiry (epoch milliseconds). */
export interface CachedToken {
  token: string;
  expiresAt: number;
}

/**
 * A token cache shared by instances. Keys name the provider and the credential they belong to (never the
 * credential itself: use a digest). Tokens are credentials: the store's own access control protects them.
 */
export interface TokenStore {
  /** The cached token of `name`, or `null` when there is none or it expired. */
  get(name: string): Promise<CachedToken | null>;
  /** Caches `token` until its `expiresAt`. */
  set(name: string, token: CachedToken): Promise<void>;
  /** Drops the cached token of `name` only when it is still `token` (the one a 401 rejected). */
  delete(name: string, token: string): Promise<void>;
}

type LedgerRow = IdempotencyEntry & { lease: string | null; leaseUntil: number };

function entryOf(row: LedgerRow): IdempotencyEntry {
  const { lease: _lease, leaseUntil: _until, ...entry } = row;
  return entry;
}

/**
 * An in-memory {@link IdempotencyStore} for one process: it forgets everything on restart, so a crash between
 * sending money and recording the result is not covered. `now` is the clock in epoch milliseconds.
 */
export function createMemoryIdempotencyStore(now: () => number = Date.now): IdempotencyStore {
  const rows = new Map<string, LedgerRow>();
  const live = (key: string): LedgerRow | undefined => {
    const row = rows.get(key);
    if (row && row.expiresAt <= now()) rows.delete(key);
    return rows.get(key);
  };
  /** Changes the row while `lease` holds it; `false` when the lease was lost. */
  const whenHeld = (key: string, lease: string, change: (row: LedgerRow) => void): boolean => {
    const row = live(key);
    const held = row?.state === 'in_progress' && row.lease === lease && row.leaseUntil > now();
    if (held) change(row);
    return held;
  };
  return markInMemory({
    async begin(key, fingerprint, { leaseSeconds, retentionSeconds }) {
      const row = live(key);
      if (row && row.fingerprint !== fingerprint) return { state: 'mismatch' };
      if (row?.state === 'completed') return { state: 'completed', result: row.result };
      if (row && row.leaseUntil > now()) return { state: 'in_progress' };
      const lease = crypto.randomUUID();
      const recoveryPoint = row?.recoveryPoint ?? null;
      rows.set(key, {
        key,
        fingerprint,
        state: 'in_progress',
        recoveryPoint,
        result: null,
        expiresAt: row?.expiresAt ?? now() + retentionSeconds * 1000,
        lease,
        leaseUntil: now() + leaseSeconds * 1000,
      });
      return { state: 'acquired', lease, recoveryPoint };
    },
    async checkpoint(key, lease, recoveryPoint) {
      return whenHeld(key, lease, (row) => Object.assign(row, { recoveryPoint }));
    },
    async renew(key, lease, leaseSeconds) {
      return whenHeld(key, lease, (row) => Object.assign(row, { leaseUntil: now() + leaseSeconds * 1000 }));
    },
    async complete(key, lease, result) {
      return whenHeld(key, lease, (row) =>
        Object.assign(row, { state: 'completed', result, lease: null, leaseUntil: 0 }),
      );
    },
    async release(key, lease) {
      return whenHeld(key, lease, () => rows.delete(key));
    },
    async abandon(key, lease) {
      return whenHeld(key, lease, (row) => Object.assign(row, { leaseUntil: 0 }));
    },
    async read(key) {
      const row = live(key);
      return row ? entryOf(row) : null;
    },
    async stale({ now: time, limit }) {
      const stale: LedgerRow[] = [];
      for (const key of [...rows.keys()]) {
        const row = live(key);
        if (row?.state === 'in_progress' && row.leaseUntil <= time) stale.push(row);
      }
      // Oldest first: the entry that began earliest (its retention started then) has waited longest.
      return stale
        .sort((a, b) => a.expiresAt - b.expiresAt)
        .slice(0, Math.max(0, limit))
        .map(entryOf);
    },
  });
}

/** An in-memory {@link TokenStore} for one process. `now` is the clock in epoch milliseconds. */
export function createMemoryTokenStore(now: () => number = Date.now): TokenStore {
  const tokens = new Map<string, CachedToken>();
  return {
    async get(name) {
      const cached = tokens.get(name);
      if (cached && cached.expiresAt <= now()) tokens.delete(name);
      return tokens.get(name) ?? null;
    },
    async set(name, token) {
      tokens.set(name, { ...token });
    },
    async delete(name, token) {
      if (tokens.get(name)?.token === token) tokens.delete(name);
    },
  };
}

/** Where a store package's failed call happened: the backend and the store call (`idempotency.begin`, `tokens.get`). */
export interface StoreFailureContext extends Record<string, unknown> {
  /** The backend (`'postgres'`, `'redis'`). */
  store: string;
  /** The store call that failed: `<store>.<step>`, e.g. `deduplication.begin`, `tokens.set`, `sweep`. */
  operation: string;
}

/**
 * The error a store package throws when its backend did not answer a call, or answered what the store never
 * writes: core's {@link StoreError} (`reason: 'unavailable'`), one class for every store. Core removes
 * connection-string credentials from `message`. `step` is the store call's last segment (`tokens.get` → `get`).
 */
export function storeUnavailable(message: string, context: StoreFailureContext): StoreError {
  const step = context.operation.slice(context.operation.lastIndexOf('.') + 1);
  return new StoreError(message, { step: step as StoreStep, context });
}

/**
 * Runs one store call under a deadline kept by the application: it settles as `call` does, or rejects with
 * `Error: no answer within <timeoutMs> ms …`. A server-side limit cannot fire on a hung server and clients queue
 * calls while they reconnect, so without it a frozen store would hold a payment forever instead of failing closed
 * (docs/architecture.md#stores). A later answer is ignored.
 */
export async function withinStoreDeadline<T>(timeoutMs: number, call: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${timeoutMs} ms (is the server up and reachable?)`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([call(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
