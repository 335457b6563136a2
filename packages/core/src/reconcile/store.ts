/**
 * The reconciler's shared state (docs/architecture.md#reconciliation): the watched objects, when each is next
 * read, which instance holds it, and each provider's shared read budget; one atomic statement per call on
 * PostgreSQL and Redis.
 */

import { markInMemory } from '../diagnostics/production.js';
import type { IdempotencyEntry } from '../stores.js';

/** What the reconciler watches: objects this library created (or the application registered). */
export type WatchedKind = 'payment' | 'checkout' | 'refund';

/** One watched object of one provider, until a final status is seen or it expires (times in epoch ms). */
export interface WatchedObject {
  provider: string;
  kind: WatchedKind;
  id: string;
  /** The last normalised status the application was told about; `null`: none yet. */
  status: string | null;
  /** Reads made so far (the backoff grows with it). */
  reads: number;
  /** The next read is due at or after this. */
  dueAt: number;
  /** Stop watching after this, final or not. */
  expiresAt: number;
}

/** An object leased to one reconciler instance by {@link ReconciliationStore.claim}. */
export interface ClaimedObject {
  object: WatchedObject;
  /** The owner token: every write after `claim` names it. */
  lease: string;
}

/**
 * The watch list and read budget the reconciler shares across instances. Every write after `claim` names its lease
 * and is ignored (resolves `false`) when the lease was lost to another instance.
 */
export interface ReconciliationStore {
  /** Starts watching `object`. When (provider, kind, id) is already watched, nothing changes (never reset). */
  watch(object: WatchedObject): Promise<void>;
  /**
   * Leases up to `limit` due (`dueAt <= now`), unleased (or lease ended), unexpired objects of `provider`,
   * earliest first, for `leaseSeconds`; two concurrent claims never return the same one.
   */
  claim(
    provider: string,
    options: { now: number; limit: number; leaseSeconds: number },
  ): Promise<ClaimedObject[]>;
  /** With the lease: records the read's outcome and frees the lease (`next`), or stops watching (`'final'`). */
  settle(
    object: Pick<WatchedObject, 'provider' | 'kind' | 'id'>,
    lease: string,
    next: { status: string | null; reads: number; dueAt: number } | 'final',
  ): Promise<boolean>;
  /**
   * Records `status` as the last one announced for each watched `kinds` object of `provider` with this `id`,
   * whoever holds its lease: what a webhook delivered, so a lagging read never announces an earlier status
   * (docs/architecture.md#reconciliation). Nothing happens for an object not watched. A store without it leaves
   * that guard to the reads alone.
   */
  announce?(provider: string, kinds: readonly WatchedKind[], id: string, status: string): Promise<void>;
  /** Atomically grants up to `reads` of `provider`'s `perMinute` in the window `Math.floor(now / 60_000)`. */
  spend(provider: string, options: { now: number; reads: number; perMinute: number }): Promise<number>;
  /** For diagnostics: how many objects of `provider` are watched, how many are due at `now`, the oldest `dueAt` due. */
  backlog(
    provider: string,
    now: number,
  ): Promise<{ watched: number; due: number; oldestDueAt: number | null }>;
}

type Row = WatchedObject & { lease: string | null; leaseUntil: number };

/**
 * An in-memory {@link ReconciliationStore} for one process (tests, single-instance apps), forgotten on restart;
 * else use `@pay/store-postgres` or `@pay/store-redis`. `now` (epoch ms) is `watch`'s clock.
 */
export function createMemoryReconciliationStore(now: () => number = Date.now): ReconciliationStore {
  const rows = new Map<string, Row>();
  const windows = new Map<string, { window: number; reads: number }>();
  const keyOf = (object: Pick<WatchedObject, 'provider' | 'kind' | 'id'>): string =>
    JSON.stringify([object.provider, object.kind, object.id]);
  const dropExpired = (time: number): void => {
    for (const [key, row] of rows) if (row.expiresAt <= time) rows.delete(key);
  };
  return markInMemory({
    async watch(object) {
      dropExpired(now());
      const key = keyOf(object);
      if (!rows.has(key)) rows.set(key, { ...object, lease: null, leaseUntil: 0 });
    },
    async claim(provider, { now: time, limit, leaseSeconds }) {
      dropExpired(time);
      return [...rows.values()]
        .filter((row) => row.provider === provider && row.dueAt <= time && row.leaseUntil <= time)
        .sort((a, b) => a.dueAt - b.dueAt)
        .slice(0, Math.max(0, limit))
        .map((row) => {
          row.lease = crypto.randomUUID();
          row.leaseUntil = time + leaseSeconds * 1000;
          const { lease, leaseUntil: _until, ...object } = row;
          return { object, lease };
        });
    },
    async settle(object, lease, next) {
      const key = keyOf(object);
      const row = rows.get(key);
      // The lease is lost only when another claim replaced it: a settle that comes after its lease ended but
      // before anybody claimed the object again still records the read it made.
      if (row === undefined || row.lease !== lease) return false;
      if (next === 'final') rows.delete(key);
      else Object.assign(row, next, { lease: null, leaseUntil: 0 });
      return true;
    },
    async announce(provider, kinds, id, status) {
      for (const kind of kinds) {
        const row = rows.get(keyOf({ provider, kind, id }));
        if (row !== undefined) row.status = status;
      }
    },
    async spend(provider, { now: time, reads, perMinute }) {
      const window = Math.floor(time / 60_000);
      const current = windows.get(provider);
      const used = current?.window === window ? current.reads : 0;
      const granted = Math.max(0, Math.min(reads, perMinute - used));
      windows.set(provider, { window, reads: used + granted });
      return granted;
    },
    async backlog(provider, time) {
      dropExpired(time);
      const watched = [...rows.values()].filter((row) => row.provider === provider);
      const due = watched.filter((row) => row.dueAt <= time).map((row) => row.dueAt);
      const oldestDueAt = due.length === 0 ? null : due.reduce((oldest, dueAt) => Math.min(oldest, dueAt));
      return { watched: watched.length, due: due.length, oldestDueAt };
    },
  });
}

/** A stale idempotency key nobody can resolve: the provider cannot be asked about it (see `reconciler.unresolved()`). */
export interface UnresolvedKey {
  idempotencyKey: string;
  provider: string;
  /** The money-moving operation the key was used for, when the ledger says. */
  operation: string | undefined;
  /** What the adapter recorded before sending (e.g. Provider R's `refId`, amount and when it was sent). */
  recoveryPoint: IdempotencyEntry['recoveryPoint'];
  /** The last `unknown` answer's reason. */
  reason: string;
  /** When this instance first found the key stale, and how often it asked (ISO 8601). */
  firstSeenAt: string;
  asks: number;
}

/** What one instance knows of a stale key it asked about. */
export interface StaleKeyState {
  asks: number;
  /** Not asked before this (epoch ms). */
  askAgainAt: number;
  firstSeenAt: number;
  /** The ledger entry's end: the state is forgotten then. */
  expiresAt: number;
  unresolved?: UnresolvedKey;
}
