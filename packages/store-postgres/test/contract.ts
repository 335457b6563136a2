// The behaviour every implementation of core's store contracts must show (DeduplicationStore in
// core/src/webhooks/dedupe.ts, IdempotencyStore and TokenStore in core/src/stores.ts, ReconciliationStore in
// core/src/reconcile/store.ts), written once so another store (Redis) or core's in-memory reference can run the
// same suite. Timing uses real time with short leases;
// every test uses fresh keys, so stores need no reset between tests.
import type {
  ClaimedObject,
  DeduplicationStore,
  IdempotencyStore,
  ReconciliationStore,
  TokenStore,
  WatchedObject,
} from '@pay/core';
import { beforeAll, describe, expect, it } from 'vitest';

/** The three stores under test. */
export interface ContractStores {
  deduplication: DeduplicationStore;
  idempotency: IdempotencyStore;
  tokens: TokenStore;
}

/**
 * A lease short enough to wait out in a test, long enough that the statements before the wait finish within it
 * on a busy machine. The tests run concurrently (fresh keys each), so the waits overlap.
 */
const SHORT_LEASE_SECONDS = 1;
const WAIT_OUT_SHORT_LEASE_MS = 1_400;
const LONG = { leaseSeconds: 60, retentionSeconds: 86_400 };
const SHORT = { leaseSeconds: SHORT_LEASE_SECONDS, retentionSeconds: 86_400 };
const CONCURRENT_ATTEMPTS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const freshKey = (what: string) => `${what}:${crypto.randomUUID()}`;

/** Registers the contract tests; `makeStores` runs once before them. */
export function runStoreContract(makeStores: () => ContractStores | Promise<ContractStores>): void {
  let stores: ContractStores;
  beforeAll(async () => {
    stores = await makeStores();
  });

  describe.concurrent('deduplication (webhook deliveries)', () => {
    it('leases a new delivery key to the first attempt and answers in_progress while the lease runs', async () => {
      const key = freshKey('delivery');
      const first = await stores.deduplication.begin(key, { leaseSeconds: 60 });
      expect(first).toEqual({ state: 'acquired', lease: expect.any(String) });
      expect(await stores.deduplication.begin(key, { leaseSeconds: 60 })).toEqual({ state: 'in_progress' });
    });

    it('skips a redelivery once the delivery is done, until the done mark expires', async () => {
      const key = freshKey('delivery');
      const first = await stores.deduplication.begin(key, { leaseSeconds: 60 });
      if (first.state !== 'acquired') throw new Error('expected the lease');
      await stores.deduplication.complete(key, first.lease, SHORT_LEASE_SECONDS);
      expect(await stores.deduplication.begin(key, { leaseSeconds: 60 })).toEqual({ state: 'done' });
      await sleep(WAIT_OUT_SHORT_LEASE_MS);
      expect((await stores.deduplication.begin(key, { leaseSeconds: 60 })).state).toBe('acquired');
    });

    it('runs the delivery again after a failed attempt released it', async () => {
      const key = freshKey('delivery');
      const first = await stores.deduplication.begin(key, { leaseSeconds: 60 });
      if (first.state !== 'acquired') throw new Error('expected the lease');
      await stores.deduplication.release(key, first.lease);
      const second = await stores.deduplication.begin(key, { leaseSeconds: 60 });
      expect(second.state).toBe('acquired');
      expect(second).not.toEqual(first);
    });

    it('lets another attempt take over when a crashed attempt’s lease expires', async () => {
      const key = freshKey('delivery');
      const crashed = await stores.deduplication.begin(key, { leaseSeconds: SHORT_LEASE_SECONDS });
      expect(crashed.state).toBe('acquired');
      await sleep(WAIT_OUT_SHORT_LEASE_MS);
      const takeover = await stores.deduplication.begin(key, { leaseSeconds: 60 });
      expect(takeover.state).toBe('acquired');
      expect(takeover).not.toEqual(crashed);
    });

    it('never lets an attempt whose lease was taken over complete or release the new owner’s lease', async () => {
      const key = freshKey('delivery');
      const stale = await stores.deduplication.begin(key, { leaseSeconds: SHORT_LEASE_SECONDS });
      await sleep(WAIT_OUT_SHORT_LEASE_MS);
      const owner = await stores.deduplication.begin(key, { leaseSeconds: 60 });
      if (stale.state !== 'acquired' || owner.state !== 'acquired') throw new Error('expected two leases');

      await stores.deduplication.complete(key, stale.lease, 3600);
      expect(await stores.deduplication.begin(key, { leaseSeconds: 60 })).toEqual({ state: 'in_progress' });
      await stores.deduplication.release(key, stale.lease);
      expect(await stores.deduplication.begin(key, { leaseSeconds: 60 })).toEqual({ state: 'in_progress' });

      await stores.deduplication.complete(key, owner.lease, 3600);
      expect(await stores.deduplication.begin(key, { leaseSeconds: 60 })).toEqual({ state: 'done' });
    });

    it(`leases a delivery to exactly one of ${CONCURRENT_ATTEMPTS} concurrent attempts`, async () => {
      const key = freshKey('delivery');
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT_ATTEMPTS }, () =>
          stores.deduplication.begin(key, { leaseSeconds: 60 }),
        ),
      );
      expect(answers.filter((answer) => answer.state === 'acquired')).toHaveLength(1);
      expect(answers.filter((answer) => answer.state === 'in_progress')).toHaveLength(
        CONCURRENT_ATTEMPTS - 1,
      );
    });
  });

  describe.concurrent('idempotency ledger', () => {
    it('leases a new key with no recovery point and records the request’s fingerprint and retention', async () => {
      const key = freshKey('payment');
      const before = Date.now();
      const begin = await stores.idempotency.begin(key, 'fingerprint-a', LONG);
      expect(begin).toEqual({ state: 'acquired', lease: expect.any(String), recoveryPoint: null });
      const entry = await stores.idempotency.read(key);
      expect(entry).toEqual({
        key,
        fingerprint: 'fingerprint-a',
        state: 'in_progress',
        recoveryPoint: null,
        result: null,
        expiresAt: expect.any(Number),
      });
      // Retention is counted from the first use (allowing for clock skew between the test and a database).
      expect(entry?.expiresAt).toBeGreaterThanOrEqual(before + 86_400_000 - 2_000);
      expect(entry?.expiresAt).toBeLessThanOrEqual(Date.now() + 86_400_000 + 2_000);
    });

    it('answers in_progress to a concurrent call with the same key while the first holds it', async () => {
      const key = freshKey('payment');
      await stores.idempotency.begin(key, 'fingerprint-a', LONG);
      expect(await stores.idempotency.begin(key, 'fingerprint-a', LONG)).toEqual({ state: 'in_progress' });
    });

    it('refuses the same key with a different request, in progress, completed or after its lease expired', async () => {
      const running = freshKey('payment');
      await stores.idempotency.begin(running, 'fingerprint-a', LONG);
      expect(await stores.idempotency.begin(running, 'fingerprint-b', LONG)).toEqual({ state: 'mismatch' });

      const finished = freshKey('payment');
      const lease = await acquire(stores.idempotency, finished, 'fingerprint-a', LONG);
      await stores.idempotency.complete(finished, lease, { id: 'pay_1' });
      expect(await stores.idempotency.begin(finished, 'fingerprint-b', LONG)).toEqual({ state: 'mismatch' });

      const crashed = freshKey('payment');
      await stores.idempotency.begin(crashed, 'fingerprint-a', {
        leaseSeconds: SHORT_LEASE_SECONDS,
        retentionSeconds: 86_400,
      });
      await sleep(WAIT_OUT_SHORT_LEASE_MS);
      expect(await stores.idempotency.begin(crashed, 'fingerprint-b', LONG)).toEqual({ state: 'mismatch' });
    });

    it('returns the recorded result to every later call with the same key and request', async () => {
      const key = freshKey('payment');
      const lease = await acquire(stores.idempotency, key, 'fingerprint-a', LONG);
      const result = {
        id: 'pay_123',
        amount: 10_000,
        currency: 'CZK',
        status: 'succeeded',
        amount_paid: null,
        livemode: false,
        metadata: { order: 'A-17', ünïcode: '✓' },
        events: ['created', 'captured'],
      };
      expect(await stores.idempotency.complete(key, lease, result)).toBe(true);
      expect(await stores.idempotency.begin(key, 'fingerprint-a', LONG)).toEqual({
        state: 'completed',
        result,
      });
      expect(await stores.idempotency.begin(key, 'fingerprint-a', LONG)).toEqual({
        state: 'completed',
        result,
      });
      expect(await stores.idempotency.read(key)).toMatchObject({ state: 'completed', result });
    });

    it('keeps results that are not objects exactly (a string, null, an array)', async () => {
      for (const result of ['tx-42', null, [1, 'two', { three: 3 }], 0, false]) {
        const key = freshKey('payment');
        const lease = await acquire(stores.idempotency, key, 'fingerprint-a', LONG);
        await stores.idempotency.complete(key, lease, result);
        expect(await stores.idempotency.begin(key, 'fingerprint-a', LONG)).toEqual({
          state: 'completed',
          result,
        });
      }
    });

    it('resumes from the recovery point after a crashed attempt’s lease expires', async () => {
      const key = freshKey('transfer');
      const crashed = await acquire(stores.idempotency, key, 'fingerprint-a', {
        leaseSeconds: SHORT_LEASE_SECONDS,
        retentionSeconds: 86_400,
      });
      expect(
        await stores.idempotency.checkpoint(key, crashed, { transactionId: 'T-1001', step: 'quoted' }),
      ).toBe(true);
      expect(await stores.idempotency.begin(key, 'fingerprint-a', LONG)).toEqual({ state: 'in_progress' });
      await sleep(WAIT_OUT_SHORT_LEASE_MS);
      const resumed = await stores.idempotency.begin(key, 'fingerprint-a', LONG);
      expect(resumed).toEqual({
        state: 'acquired',
        lease: expect.any(String),
        recoveryPoint: { transactionId: 'T-1001', step: 'quoted' },
      });
      if (resumed.state !== 'acquired') throw new Error('expected the lease');
      expect(resumed.lease).not.toBe(crashed);
      expect(
        await stores.idempotency.checkpoint(key, resumed.lease, {
          transactionId: 'T-1001',
          step: 'committed',
        }),
      ).toBe(true);
      expect(await stores.idempotency.read(key)).toMatchObject({
        state: 'in_progress',
        recoveryPoint: { transactionId: 'T-1001', step: 'committed' },
      });
    });

    it('renews a held lease from now, so an attempt still working keeps its key past the first lease', async () => {
      const key = freshKey('transfer');
      const lease = await acquire(stores.idempotency, key, 'fingerprint-a', SHORT);
      expect(await stores.idempotency.renew?.(key, lease, 60)).toBe(true);
      await sleep(WAIT_OUT_SHORT_LEASE_MS);
      expect(await stores.idempotency.begin(key, 'fingerprint-a', LONG)).toEqual({ state: 'in_progress' });
      expect(await stores.idempotency.checkpoint(key, lease, { step: 'commit_sent' })).toBe(true);
    });

    it('refuses to renew a lease that ran out or was taken over', async () => {
      const key = freshKey('transfer');
      const late = await acquire(stores.idempotency, key, 'fingerprint-a', SHORT);
      await sleep(WAIT_OUT_SHORT_LEASE_MS);
      expect(await stores.idempotency.renew?.(key, late, 60)).toBe(false);
      const current = await acquire(stores.idempotency, key, 'fingerprint-a', LONG);
      expect(await stores.idempotency.renew?.(key, late, 60)).toBe(false);
      expect(await stores.idempotency.renew?.(key, current, 60)).toBe(true);
    });

    it('lets the next call resume at once after an attempt abandoned its lease (unknown outcome)', async () => {
      const key = freshKey('transfer');
      const lease = await acquire(stores.idempotency, key, 'fingerprint-a', LONG);
      await stores.idempotency.checkpoint(key, lease, { transactionId: 'T-2002', step: 'commit sent' });
      expect(await stores.idempotency.abandon(key, lease)).toBe(true);
      const resumed = await stores.idempotency.begin(key, 'fingerprint-a', LONG);
      expect(resumed).toEqual({
        state: 'acquired',
        lease: expect.any(String),
        recoveryPoint: { transactionId: 'T-2002', step: 'commit sent' },
      });
      expect(await stores.idempotency.checkpoint(key, lease, 'after abandon')).toBe(false);
    });

    it('forgets a released key, so the same key may be used again, even for another request', async () => {
      const key = freshKey('payment');
      const lease = await acquire(stores.idempotency, key, 'fingerprint-a', LONG);
      await stores.idempotency.checkpoint(key, lease, 'refused before sending');
      expect(await stores.idempotency.release(key, lease)).toBe(true);
      expect(await stores.idempotency.read(key)).toBeNull();
      expect(await stores.idempotency.begin(key, 'fingerprint-b', LONG)).toEqual({
        state: 'acquired',
        lease: expect.any(String),
        recoveryPoint: null,
      });
    });

    it('ignores every write of an attempt whose lease was taken over, and keeps the new owner’s entry', async () => {
      const key = freshKey('transfer');
      const stale = await acquire(stores.idempotency, key, 'fingerprint-a', {
        leaseSeconds: SHORT_LEASE_SECONDS,
        retentionSeconds: 86_400,
      });
      await sleep(WAIT_OUT_SHORT_LEASE_MS);
      const owner = await acquire(stores.idempotency, key, 'fingerprint-a', LONG);
      await stores.idempotency.checkpoint(key, owner, 'owner point');

      expect(await stores.idempotency.checkpoint(key, stale, 'stale point')).toBe(false);
      expect(await stores.idempotency.complete(key, stale, 'stale result')).toBe(false);
      expect(await stores.idempotency.abandon(key, stale)).toBe(false);
      expect(await stores.idempotency.release(key, stale)).toBe(false);
      expect(await stores.idempotency.read(key)).toMatchObject({
        state: 'in_progress',
        recoveryPoint: 'owner point',
        result: null,
      });
      expect(await stores.idempotency.begin(key, 'fingerprint-a', LONG)).toEqual({ state: 'in_progress' });
      expect(await stores.idempotency.complete(key, owner, 'owner result')).toBe(true);
    });

    it('ignores writes under a lease that expired even when nobody took the key over', async () => {
      const key = freshKey('payment');
      const lease = await acquire(stores.idempotency, key, 'fingerprint-a', {
        leaseSeconds: SHORT_LEASE_SECONDS,
        retentionSeconds: 86_400,
      });
      await sleep(WAIT_OUT_SHORT_LEASE_MS);
      expect(await stores.idempotency.complete(key, lease, 'late result')).toBe(false);
      expect(await stores.idempotency.read(key)).toMatchObject({ state: 'in_progress', result: null });
    });

    it('records one result only: a second complete is refused', async () => {
      const key = freshKey('payment');
      const lease = await acquire(stores.idempotency, key, 'fingerprint-a', LONG);
      expect(await stores.idempotency.complete(key, lease, 'first')).toBe(true);
      expect(await stores.idempotency.complete(key, lease, 'second')).toBe(false);
      expect(await stores.idempotency.release(key, lease)).toBe(false);
      expect(await stores.idempotency.begin(key, 'fingerprint-a', LONG)).toEqual({
        state: 'completed',
        result: 'first',
      });
    });

    it('forgets a key after its retention: the key starts afresh, even for another request', async () => {
      const key = freshKey('payment');
      const lease = await acquire(stores.idempotency, key, 'fingerprint-a', {
        leaseSeconds: SHORT_LEASE_SECONDS,
        retentionSeconds: SHORT_LEASE_SECONDS,
      });
      await stores.idempotency.complete(key, lease, 'old result');
      await sleep(WAIT_OUT_SHORT_LEASE_MS);
      expect(await stores.idempotency.read(key)).toBeNull();
      expect(await stores.idempotency.begin(key, 'fingerprint-b', LONG)).toEqual({
        state: 'acquired',
        lease: expect.any(String),
        recoveryPoint: null,
      });
      expect(await stores.idempotency.read(key)).toMatchObject({
        fingerprint: 'fingerprint-b',
        result: null,
      });
    });

    it('keeps the first use’s retention when an expired lease is taken over', async () => {
      const key = freshKey('payment');
      await stores.idempotency.begin(key, 'fingerprint-a', {
        leaseSeconds: SHORT_LEASE_SECONDS,
        retentionSeconds: 3600,
      });
      const firstExpiry = (await stores.idempotency.read(key))?.expiresAt;
      await sleep(WAIT_OUT_SHORT_LEASE_MS);
      await acquire(stores.idempotency, key, 'fingerprint-a', LONG);
      expect((await stores.idempotency.read(key))?.expiresAt).toBe(firstExpiry);
    });

    it(`leases a key to exactly one of ${CONCURRENT_ATTEMPTS} concurrent calls`, async () => {
      const key = freshKey('payment');
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT_ATTEMPTS }, () =>
          stores.idempotency.begin(key, 'fingerprint-a', LONG),
        ),
      );
      expect(answers.filter((answer) => answer.state === 'acquired')).toHaveLength(1);
      expect(answers.filter((answer) => answer.state === 'in_progress')).toHaveLength(
        CONCURRENT_ATTEMPTS - 1,
      );
    });

    it('answers null for a key never used', async () => {
      expect(await stores.idempotency.read(freshKey('payment'))).toBeNull();
    });
  });

  describe.concurrent('token cache', () => {
    it('answers null for a name never cached', async () => {
      expect(await stores.tokens.get(freshKey('provider-n'))).toBeNull();
    });

    it('returns the cached token and its expiry, and the latest one after a new login', async () => {
      const name = freshKey('provider-n');
      const expiresAt = Date.now() + 3_600_000;
      await stores.tokens.set(name, { token: 'access-token-1', expiresAt });
      expect(await stores.tokens.get(name)).toEqual({ token: 'access-token-1', expiresAt });
      await stores.tokens.set(name, { token: 'access-token-2', expiresAt: expiresAt + 1 });
      expect(await stores.tokens.get(name)).toEqual({ token: 'access-token-2', expiresAt: expiresAt + 1 });
      expect(await stores.tokens.get(freshKey('provider-n'))).toBeNull();
    });

    it('stops returning a token once it expired', async () => {
      const name = freshKey('provider-n');
      await stores.tokens.set(name, {
        token: 'short-lived',
        expiresAt: Date.now() + SHORT_LEASE_SECONDS * 1000,
      });
      expect((await stores.tokens.get(name))?.token).toBe('short-lived');
      await sleep(WAIT_OUT_SHORT_LEASE_MS);
      expect(await stores.tokens.get(name)).toBeNull();
    });

    it('drops a token only when it is still the one a 401 rejected', async () => {
      const name = freshKey('provider-n');
      const expiresAt = Date.now() + 3_600_000;
      await stores.tokens.set(name, { token: 'fresh-from-another-instance', expiresAt });
      await stores.tokens.delete(name, 'rejected-old-token');
      expect(await stores.tokens.get(name)).toEqual({ token: 'fresh-from-another-instance', expiresAt });
      await stores.tokens.delete(name, 'fresh-from-another-instance');
      expect(await stores.tokens.get(name)).toBeNull();
    });
  });
}

/** Begins `key` and returns the lease, failing the test when the key was not free. */
async function acquire(
  store: IdempotencyStore,
  key: string,
  fingerprint: string,
  options: { leaseSeconds: number; retentionSeconds: number },
): Promise<string> {
  const begin = await store.begin(key, fingerprint, options);
  if (begin.state !== 'acquired') throw new Error(`expected to acquire ${key}, got ${begin.state}`);
  return begin.lease;
}

/** The reconciler's store and the idempotency ledger whose stale entries it resolves. */
export interface ReconciliationContractStores {
  reconciliation: ReconciliationStore;
  idempotency: IdempotencyStore;
}

const HOUR_MS = 3_600_000;

/**
 * Registers the contract tests of core's `ReconciliationStore` (core/src/reconcile/store.ts) and of
 * `IdempotencyStore.stale`. Reconciliation times are the `now` each call is given, so leases and windows are
 * waited out by passing a later `now`, not by sleeping. Every test watches objects of a provider of its own.
 */
export function runReconciliationContract(
  makeStores: () => ReconciliationContractStores | Promise<ReconciliationContractStores>,
): void {
  let stores: ReconciliationContractStores;
  beforeAll(async () => {
    stores = await makeStores();
  });
  const watchEnds = Date.now() + 10 * HOUR_MS;
  /** A watched object of `provider`, due at `dueAt`, watched for ten hours. */
  const watched = (provider: string, id: string, dueAt: number, kind: WatchedObject['kind'] = 'payment') => ({
    provider,
    kind,
    id,
    status: null,
    reads: 0,
    dueAt,
    expiresAt: watchEnds,
  });
  const claimOne = async (provider: string, now: number, leaseSeconds = 30) => {
    const claimed = await stores.reconciliation.claim(provider, { now, limit: 10, leaseSeconds });
    if (claimed.length !== 1) throw new Error(`expected one claimed object, got ${claimed.length}`);
    return claimed[0] as ClaimedObject;
  };

  describe.concurrent('reconciliation store', () => {
    it('leases due objects earliest first, up to the limit, with every field as watched', async () => {
      const provider = freshKey('provider-t');
      const now = Date.now();
      const late = { ...watched(provider, 'T-3', now - 1_000, 'refund'), status: 'pending', reads: 4 };
      await stores.reconciliation.watch(watched(provider, 'T-2', now - 2_000, 'checkout'));
      await stores.reconciliation.watch(late);
      await stores.reconciliation.watch(watched(provider, 'T-1', now - 3_000));
      await stores.reconciliation.watch(watched(provider, 'T-4', now + 60_000));
      await stores.reconciliation.watch(watched(freshKey('provider-n'), 'T-0', now - 9_000));

      const first = await stores.reconciliation.claim(provider, { now, limit: 2, leaseSeconds: 30 });
      expect(first.map((claimed) => claimed.object.id)).toEqual(['T-1', 'T-2']);
      expect(first[1]).toEqual({
        object: watched(provider, 'T-2', now - 2_000, 'checkout'),
        lease: expect.any(String),
      });
      const second = await stores.reconciliation.claim(provider, { now, limit: 2, leaseSeconds: 30 });
      expect(second).toEqual([{ object: late, lease: expect.any(String) }]);
      expect(await stores.reconciliation.claim(provider, { now, limit: 2, leaseSeconds: 30 })).toEqual([]);
    });

    it('never resets an object already watched: its reads, status and due time survive a second watch', async () => {
      const provider = freshKey('provider-r');
      const now = Date.now();
      await stores.reconciliation.watch(watched(provider, 'R-1', now - 1_000));
      const claimed = await claimOne(provider, now);
      const next = { status: 'pending', reads: 1, dueAt: now + 60_000 };
      expect(await stores.reconciliation.settle(claimed.object, claimed.lease, next)).toBe(true);

      await stores.reconciliation.watch(watched(provider, 'R-1', now - 1_000));
      await stores.reconciliation.watch({
        ...watched(provider, 'R-1', now - 5_000),
        status: 'failed',
        reads: 9,
      });
      expect(await stores.reconciliation.claim(provider, { now, limit: 10, leaseSeconds: 30 })).toEqual([]);
      const later = await claimOne(provider, now + 60_000);
      expect(later.object).toMatchObject({ id: 'R-1', ...next });
    });

    it('records an announced status on the payment and checkout of that id, leased or not, and nothing else', async () => {
      const provider = freshKey('provider-n');
      const now = Date.now();
      await stores.reconciliation.watch(watched(provider, 'N-1', now - 1_000));
      await stores.reconciliation.watch(watched(provider, 'N-1', now - 1_000, 'checkout'));
      await stores.reconciliation.watch(watched(provider, 'N-1', now - 1_000, 'refund'));
      await stores.reconciliation.watch(watched(provider, 'N-2', now - 1_000));
      const leased = await stores.reconciliation.claim(provider, { now, limit: 1, leaseSeconds: 30 });
      await stores.reconciliation.announce?.(provider, ['payment', 'checkout'], 'N-1', 'succeeded');
      await stores.reconciliation.announce?.(provider, ['payment'], 'N-9', 'succeeded');
      const later = await stores.reconciliation.claim(provider, {
        now: now + 60_000,
        limit: 10,
        leaseSeconds: 30,
      });
      const statuses = Object.fromEntries(
        later.map(({ object }) => [`${object.kind}:${object.id}`, object.status]),
      );
      expect(leased).toHaveLength(1);
      expect(statuses).toEqual({
        'payment:N-1': 'succeeded',
        'checkout:N-1': 'succeeded',
        'refund:N-1': null,
        'payment:N-2': null,
      });
    });

    it(`leases each due object to exactly one of ${CONCURRENT_ATTEMPTS} concurrent claims`, async () => {
      const provider = freshKey('provider-n');
      const now = Date.now();
      const due = Array.from({ length: 40 }, (_, index) => `N-${index}`);
      await Promise.all(
        due.map((id, index) => stores.reconciliation.watch(watched(provider, id, now - index))),
      );
      await stores.reconciliation.watch(watched(provider, 'N-not-due', now + 60_000));
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT_ATTEMPTS }, () =>
          stores.reconciliation.claim(provider, { now, limit: 3, leaseSeconds: 30 }),
        ),
      );
      const ids = answers.flat().map((claimed) => claimed.object.id);
      expect(ids).toHaveLength(due.length);
      expect(new Set(ids)).toEqual(new Set(due));
    });

    it('lets another claim take an object over once its lease ended, and not before', async () => {
      const provider = freshKey('provider-t');
      const now = Date.now();
      await stores.reconciliation.watch(watched(provider, 'T-9', now - 1_000));
      const crashed = await claimOne(provider, now, 1);
      expect(
        await stores.reconciliation.claim(provider, { now: now + 999, limit: 10, leaseSeconds: 30 }),
      ).toEqual([]);
      const takeover = await claimOne(provider, now + 1_000);
      expect(takeover.object).toEqual(crashed.object);
      expect(takeover.lease).not.toBe(crashed.lease);
    });

    it('changes nothing when an instance settles with a lease another claim took over', async () => {
      const provider = freshKey('provider-r');
      const now = Date.now();
      await stores.reconciliation.watch(watched(provider, 'R-7', now - 1_000));
      const slow = await claimOne(provider, now, 1);
      const owner = await claimOne(provider, now + 1_500);

      const next = { status: 'succeeded', reads: 1, dueAt: now };
      expect(await stores.reconciliation.settle(slow.object, slow.lease, next)).toBe(false);
      expect(await stores.reconciliation.settle(slow.object, slow.lease, 'final')).toBe(false);
      expect(
        await stores.reconciliation.claim(provider, { now: now + 1_500, limit: 10, leaseSeconds: 30 }),
      ).toEqual([]);
      expect(await stores.reconciliation.backlog(provider, now + 1_500)).toEqual({
        watched: 1,
        due: 1,
        oldestDueAt: now - 1_000,
      });
      expect(
        await stores.reconciliation.settle(owner.object, owner.lease, { ...next, status: 'pending' }),
      ).toBe(true);
      expect((await claimOne(provider, now + 1_500)).object).toMatchObject({ status: 'pending', reads: 1 });
    });

    it('records a read settled after its lease ended when nobody claimed the object since', async () => {
      const provider = freshKey('provider-n');
      const now = Date.now();
      await stores.reconciliation.watch(watched(provider, 'N-5', now - 1_000));
      const late = await claimOne(provider, now, 1);
      const next = { status: 'pending', reads: 1, dueAt: now + 10_000 };
      expect(await stores.reconciliation.settle(late.object, late.lease, next)).toBe(true);
      expect(
        await stores.reconciliation.claim(provider, { now: now + 5_000, limit: 10, leaseSeconds: 30 }),
      ).toEqual([]);
      expect((await claimOne(provider, now + 10_000)).object).toMatchObject({ id: 'N-5', ...next });
    });

    it("stops watching an object settled 'final'", async () => {
      const provider = freshKey('provider-t');
      const now = Date.now();
      await stores.reconciliation.watch(watched(provider, 'T-5', now - 1_000));
      const claimed = await claimOne(provider, now);
      expect(await stores.reconciliation.settle(claimed.object, claimed.lease, 'final')).toBe(true);
      expect(
        await stores.reconciliation.claim(provider, { now: now + HOUR_MS / 2, limit: 10, leaseSeconds: 30 }),
      ).toEqual([]);
      expect(await stores.reconciliation.backlog(provider, now)).toEqual({
        watched: 0,
        due: 0,
        oldestDueAt: null,
      });
      expect(await stores.reconciliation.settle(claimed.object, claimed.lease, 'final')).toBe(false);
    });

    it('stops watching an object past its expiry, final or not, and watches it afresh when asked again', async () => {
      const provider = freshKey('provider-r');
      const now = Date.now();
      await stores.reconciliation.watch({ ...watched(provider, 'R-2', now - 1_000), expiresAt: now + 2_000 });
      expect(await stores.reconciliation.backlog(provider, now + 1_999)).toMatchObject({
        watched: 1,
        due: 1,
      });
      expect(
        await stores.reconciliation.claim(provider, { now: now + 2_000, limit: 10, leaseSeconds: 30 }),
      ).toEqual([]);
      expect(await stores.reconciliation.backlog(provider, now + 2_000)).toEqual({
        watched: 0,
        due: 0,
        oldestDueAt: null,
      });

      // Expiry against this process's clock: an object whose watch already ended is watched again from scratch.
      await stores.reconciliation.watch({
        ...watched(provider, 'R-3', now - 1_000),
        expiresAt: Date.now() - 1,
      });
      await stores.reconciliation.watch({
        ...watched(provider, 'R-3', now - 500),
        status: 'pending',
        reads: 2,
      });
      expect((await claimOne(provider, now + 2_000)).object).toMatchObject({
        id: 'R-3',
        status: 'pending',
        reads: 2,
      });
    });

    it('counts the watched objects, those due (leased or not) and the oldest due time', async () => {
      const provider = freshKey('provider-n');
      const now = Date.now();
      expect(await stores.reconciliation.backlog(provider, now)).toEqual({
        watched: 0,
        due: 0,
        oldestDueAt: null,
      });
      await stores.reconciliation.watch(watched(provider, 'N-1', now - 5_000));
      await stores.reconciliation.watch(watched(provider, 'N-2', now - 2_000, 'refund'));
      await stores.reconciliation.watch(watched(provider, 'N-3', now + 30_000));
      await stores.reconciliation.watch(watched(freshKey('provider-n'), 'N-4', now - 9_000));
      await stores.reconciliation.claim(provider, { now, limit: 1, leaseSeconds: 30 });
      expect(await stores.reconciliation.backlog(provider, now)).toEqual({
        watched: 3,
        due: 2,
        oldestDueAt: now - 5_000,
      });
      expect(await stores.reconciliation.backlog(provider, now + 30_000)).toEqual({
        watched: 3,
        due: 3,
        oldestDueAt: now - 5_000,
      });
    });

    it('grants a minute’s reads once across concurrent spenders, and grants again in the next minute', async () => {
      const provider = freshKey('provider-t');
      const minute = Math.floor(Date.now() / 60_000) * 60_000;
      const asks = Array.from({ length: 30 }, (_, index) => 1 + (index % 3));
      const grants = await Promise.all(
        asks.map((reads, index) =>
          stores.reconciliation.spend(provider, { now: minute + index, reads, perMinute: 25 }),
        ),
      );
      grants.forEach((granted, index) => {
        expect(granted).toBeGreaterThanOrEqual(0);
        expect(granted).toBeLessThanOrEqual(asks[index] as number);
      });
      expect(grants.reduce((sum, granted) => sum + granted, 0)).toBe(25);
      expect(
        await stores.reconciliation.spend(provider, { now: minute + 59_999, reads: 1, perMinute: 25 }),
      ).toBe(0);
      expect(
        await stores.reconciliation.spend(freshKey('provider-t'), { now: minute, reads: 5, perMinute: 25 }),
      ).toBe(5);

      const next = minute + 60_000;
      expect(await stores.reconciliation.spend(provider, { now: next, reads: 20, perMinute: 25 })).toBe(20);
      expect(await stores.reconciliation.spend(provider, { now: next + 1, reads: 10, perMinute: 25 })).toBe(
        5,
      );
      expect(await stores.reconciliation.spend(provider, { now: next + 2, reads: 10, perMinute: 25 })).toBe(
        0,
      );
    });
  });

  describe.concurrent('idempotency ledger: stale entries', () => {
    it('lists only entries in progress whose lease ended (expired or abandoned), oldest first', async () => {
      const ledger = stores.idempotency;
      const keys = {
        crashed: freshKey('stale-crashed'),
        abandoned: freshKey('stale-abandoned'),
        running: freshKey('stale-running'),
        completed: freshKey('stale-completed'),
        released: freshKey('stale-released'),
      };
      // Its lease outlasts the calls up to the first listing even on a loaded machine (a 1 s lease did not), and
      // ends before the later listings look 20 s ahead.
      const crashed = await acquire(ledger, keys.crashed, 'fingerprint-a', {
        leaseSeconds: 10,
        retentionSeconds: 3_600,
      });
      await ledger.checkpoint(keys.crashed, crashed, { transactionId: 'T-76', step: 'quoted' });
      const abandoned = await acquire(ledger, keys.abandoned, 'fingerprint-a', {
        leaseSeconds: 60,
        retentionSeconds: 7_200,
      });
      await ledger.checkpoint(keys.abandoned, abandoned, { transactionId: 'T-77', step: 'commit sent' });
      await ledger.abandon(keys.abandoned, abandoned);
      await acquire(ledger, keys.running, 'fingerprint-a', LONG);
      const completed = await acquire(ledger, keys.completed, 'fingerprint-a', SHORT);
      await ledger.complete(keys.completed, completed, 'done');
      const released = await acquire(ledger, keys.released, 'fingerprint-a', SHORT);
      await ledger.release(keys.released, released);
      const ours = new Set(Object.values(keys));
      const listed = async (now: number) =>
        ((await ledger.stale?.({ now, limit: 10_000 })) ?? []).filter((entry) => ours.has(entry.key));

      expect((await listed(Date.now())).map((entry) => entry.key)).toEqual([keys.abandoned]);
      const later = await listed(Date.now() + 20_000);
      expect(later.map((entry) => entry.key)).toEqual([keys.crashed, keys.abandoned]);
      expect(later[1]).toEqual({
        key: keys.abandoned,
        fingerprint: 'fingerprint-a',
        state: 'in_progress',
        recoveryPoint: { transactionId: 'T-77', step: 'commit sent' },
        result: null,
        expiresAt: expect.any(Number),
      });
      expect(await ledger.stale?.({ now: Date.now() + 20_000, limit: 1 })).toHaveLength(1);

      // Taken up again by a caller's retry: no longer stale.
      await acquire(ledger, keys.abandoned, 'fingerprint-a', LONG);
      expect((await listed(Date.now() + 20_000)).map((entry) => entry.key)).toEqual([keys.crashed]);
    });
  });
}
