import { describe, expect, it } from 'vitest';
import {
  createMemoryIdempotencyStore,
  createMemoryReconciliationStore,
  type WatchedObject,
} from '../src/index.js';

const T0 = 1_800_000_000_000;

function watched(id: string, fields: Partial<WatchedObject> = {}): WatchedObject {
  return {
    provider: 'providerT',
    kind: 'payment',
    id,
    status: 'pending',
    reads: 0,
    dueAt: T0,
    expiresAt: T0 + 3_600_000,
    ...fields,
  };
}

describe('the in-memory reconciliation store', () => {
  it('never resets an object already watched', async () => {
    const store = createMemoryReconciliationStore(() => T0);
    await store.watch(watched('p1', { status: 'processing', reads: 4 }));
    await store.watch(watched('p1'));
    const [claimed] = await store.claim('providerT', { now: T0, limit: 5, leaseSeconds: 60 });
    expect(claimed?.object).toEqual(watched('p1', { status: 'processing', reads: 4 }));
  });

  it('claims due objects of one provider, earliest first, up to the limit, never one already leased', async () => {
    const store = createMemoryReconciliationStore(() => T0);
    await store.watch(watched('late', { dueAt: T0 - 1000 }));
    await store.watch(watched('early', { dueAt: T0 - 5000 }));
    await store.watch(watched('future', { dueAt: T0 + 1000 }));
    await store.watch(watched('other', { provider: 'providerR', dueAt: T0 - 9000 }));
    const first = await store.claim('providerT', { now: T0, limit: 1, leaseSeconds: 60 });
    expect(first.map(({ object }) => object.id)).toEqual(['early']);
    const second = await store.claim('providerT', { now: T0, limit: 5, leaseSeconds: 60 });
    expect(second.map(({ object }) => object.id)).toEqual(['late']);
    // A lease that ended is taken over.
    const third = await store.claim('providerT', { now: T0 + 61_000, limit: 5, leaseSeconds: 60 });
    expect(third.map(({ object }) => object.id)).toEqual(['early', 'late', 'future']);
  });

  it('settles with the lease only: a lease taken over cannot write', async () => {
    const store = createMemoryReconciliationStore(() => T0);
    await store.watch(watched('p1'));
    const [old] = await store.claim('providerT', { now: T0, limit: 1, leaseSeconds: 60 });
    const [taken] = await store.claim('providerT', { now: T0 + 61_000, limit: 1, leaseSeconds: 60 });
    const next = { status: 'succeeded', reads: 1, dueAt: T0 + 120_000 };
    expect(await store.settle(watched('p1'), old!.lease, next)).toBe(false);
    expect(await store.settle(watched('p1'), taken!.lease, next)).toBe(true);
    expect(await store.backlog('providerT', T0 + 120_000)).toEqual({
      watched: 1,
      due: 1,
      oldestDueAt: T0 + 120_000,
    });
    const [again] = await store.claim('providerT', { now: T0 + 120_000, limit: 1, leaseSeconds: 60 });
    expect(again?.object).toMatchObject({ status: 'succeeded', reads: 1 });
    expect(await store.settle(watched('p1'), again!.lease, 'final')).toBe(true);
    expect(await store.backlog('providerT', T0 + 120_000)).toEqual({ watched: 0, due: 0, oldestDueAt: null });
  });

  it('drops expired objects', async () => {
    const store = createMemoryReconciliationStore(() => T0);
    await store.watch(watched('p1', { expiresAt: T0 + 10 }));
    expect(await store.claim('providerT', { now: T0 + 10, limit: 5, leaseSeconds: 60 })).toEqual([]);
    expect((await store.backlog('providerT', T0)).watched).toBe(0);
  });

  it('grants reads from a per-minute budget per provider', async () => {
    const store = createMemoryReconciliationStore(() => T0);
    const minute = Math.floor(T0 / 60_000) * 60_000;
    expect(await store.spend('providerT', { now: minute, reads: 4, perMinute: 5 })).toBe(4);
    expect(await store.spend('providerT', { now: minute + 59_999, reads: 4, perMinute: 5 })).toBe(1);
    expect(await store.spend('providerR', { now: minute, reads: 4, perMinute: 5 })).toBe(4);
    expect(await store.spend('providerT', { now: minute + 60_000, reads: 4, perMinute: 5 })).toBe(4);
  });
});

describe('the in-memory idempotency store: stale', () => {
  it('lists entries in progress whose lease ended, oldest first, never completed or held ones', async () => {
    let now = T0;
    const store = createMemoryIdempotencyStore(() => now);
    const options = { leaseSeconds: 30, retentionSeconds: 86_400 };
    const first = await store.begin('k1', 'f', options);
    now += 1000;
    const second = await store.begin('k2', 'f', options);
    await store.begin('held', 'f', options);
    const done = await store.begin('done', 'f', options);
    if (first.state !== 'acquired' || second.state !== 'acquired' || done.state !== 'acquired')
      throw new Error('not acquired');
    await store.complete('done', done.lease, null);
    await store.abandon('k2', second.lease);
    expect((await store.stale!({ now, limit: 10 })).map((entry) => entry.key)).toEqual(['k2']);
    now += 30_000; // k1's and held's leases ended: crashed processes
    expect((await store.stale!({ now, limit: 10 })).map((entry) => entry.key)).toEqual(['k1', 'k2', 'held']);
    expect((await store.stale!({ now, limit: 1 })).map((entry) => entry.key)).toEqual(['k1']);
  });
});
