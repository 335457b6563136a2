import { describe, expect, it } from 'vitest';
import { StoreError } from '../src/store-errors.js';
import {
  createMemoryIdempotencyStore,
  createMemoryTokenStore,
  storeUnavailable,
  withinStoreDeadline,
} from '../src/stores.js';

function clock(start = 1_700_000_000_000) {
  let time = start;
  return { now: () => time, advance: (ms: number) => (time += ms) };
}

const options = { leaseSeconds: 30, retentionSeconds: 24 * 3600 };

describe('the in-memory idempotency ledger', () => {
  it('leases a new key, then answers in progress to a second caller while the lease lasts', async () => {
    const store = createMemoryIdempotencyStore(clock().now);
    const first = await store.begin('order-1', 'fp-a', options);
    expect(first).toEqual({ state: 'acquired', lease: expect.any(String), recoveryPoint: null });
    expect(await store.begin('order-1', 'fp-a', options)).toEqual({ state: 'in_progress' });
  });

  it('renews a held lease from now, and refuses to renew one that ran out', async () => {
    const time = clock();
    const store = createMemoryIdempotencyStore(time.now);
    const begun = await store.begin('order-r', 'fp-a', options);
    if (begun.state !== 'acquired') throw new Error('expected the lease');
    time.advance(20_000);
    expect(await store.renew?.('order-r', begun.lease, 30)).toBe(true);
    time.advance(20_000); // 40 s after begin: past the first lease, within the renewed one
    expect(await store.begin('order-r', 'fp-a', options)).toEqual({ state: 'in_progress' });
    time.advance(11_000);
    expect(await store.renew?.('order-r', begun.lease, 30)).toBe(false);
  });

  it('refuses the same key with a different request', async () => {
    const store = createMemoryIdempotencyStore(clock().now);
    await store.begin('order-1', 'fp-a', options);
    expect(await store.begin('order-1', 'fp-b', options)).toEqual({ state: 'mismatch' });
  });

  it('returns the recorded result once the call completed', async () => {
    const store = createMemoryIdempotencyStore(clock().now);
    const first = await store.begin('order-1', 'fp-a', options);
    if (first.state !== 'acquired') throw new Error('not acquired');
    expect(await store.complete('order-1', first.lease, { id: 'tx-1', status: 'succeeded' })).toBe(true);
    expect(await store.begin('order-1', 'fp-a', options)).toEqual({
      state: 'completed',
      result: { id: 'tx-1', status: 'succeeded' },
    });
  });

  it('hands an expired lease over with the recovery point the crashed attempt reached', async () => {
    const time = clock();
    const store = createMemoryIdempotencyStore(time.now);
    const first = await store.begin('order-1', 'fp-a', options);
    if (first.state !== 'acquired') throw new Error('not acquired');
    await store.checkpoint('order-1', first.lease, { transactionId: 'T-9', step: 'quoted' });
    time.advance(31_000);
    const second = await store.begin('order-1', 'fp-a', options);
    expect(second).toEqual({
      state: 'acquired',
      lease: expect.any(String),
      recoveryPoint: { transactionId: 'T-9', step: 'quoted' },
    });
    // The attempt that outlived its lease can no longer write over the one that took over.
    expect(await store.checkpoint('order-1', first.lease, { step: 'stale' })).toBe(false);
    expect(await store.complete('order-1', first.lease, { stale: true })).toBe(false);
    expect(await store.release('order-1', first.lease)).toBe(false);
    expect((await store.read('order-1'))?.recoveryPoint).toEqual({ transactionId: 'T-9', step: 'quoted' });
  });

  it('lets the next call resume at once after an attempt whose outcome is unknown was abandoned', async () => {
    const store = createMemoryIdempotencyStore(clock().now);
    const first = await store.begin('order-1', 'fp-a', options);
    if (first.state !== 'acquired') throw new Error('not acquired');
    await store.checkpoint('order-1', first.lease, { transactionId: 'T-9', step: 'commit_sent' });
    expect(await store.abandon('order-1', first.lease)).toBe(true);
    expect(await store.begin('order-1', 'fp-a', options)).toEqual({
      state: 'acquired',
      lease: expect.any(String),
      recoveryPoint: { transactionId: 'T-9', step: 'commit_sent' },
    });
    expect(await store.abandon('order-1', first.lease)).toBe(false);
  });

  it('frees a released key for a new request, and forgets every key after its retention', async () => {
    const time = clock();
    const store = createMemoryIdempotencyStore(time.now);
    const first = await store.begin('order-1', 'fp-a', options);
    if (first.state !== 'acquired') throw new Error('not acquired');
    expect(await store.release('order-1', first.lease)).toBe(true);
    expect(await store.read('order-1')).toBeNull();
    const again = await store.begin('order-1', 'fp-b', options);
    if (again.state !== 'acquired') throw new Error('not acquired');
    await store.complete('order-1', again.lease, 'done');
    time.advance(24 * 3600 * 1000);
    expect(await store.read('order-1')).toBeNull();
    expect((await store.begin('order-1', 'fp-c', options)).state).toBe('acquired');
  });
});

describe('the in-memory token cache', () => {
  it('serves a token until it expires and drops it only when it is still the rejected one', async () => {
    const time = clock();
    const store = createMemoryTokenStore(time.now);
    await store.set('providerN:abc', { token: 'tok-1', expiresAt: time.now() + 60_000 });
    expect(await store.get('providerN:abc')).toEqual({ token: 'tok-1', expiresAt: time.now() + 60_000 });
    await store.delete('providerN:abc', 'tok-0');
    expect((await store.get('providerN:abc'))?.token).toBe('tok-1');
    await store.delete('providerN:abc', 'tok-1');
    expect(await store.get('providerN:abc')).toBeNull();
    await store.set('providerN:abc', { token: 'tok-2', expiresAt: time.now() + 1_000 });
    time.advance(1_000);
    expect(await store.get('providerN:abc')).toBeNull();
  });
});

describe('storeUnavailable: the one error every store package throws', () => {
  it('is core’s StoreError (store_unavailable) with the store call as context and step, credentials removed', () => {
    const error = storeUnavailable(
      'The PostgreSQL store could not complete tokens.get (ECONNREFUSED: postgres://app:pw-9931@db:5432/pay).',
      { store: 'postgres', operation: 'tokens.get', driverCode: 'ECONNREFUSED' },
    );
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({
      name: 'StoreError',
      code: 'store_unavailable',
      reason: 'unavailable',
      step: 'get',
      retryable: true,
      context: { store: 'postgres', operation: 'tokens.get', driverCode: 'ECONNREFUSED' },
    });
    expect(error.message).not.toContain('pw-9931');
    expect(storeUnavailable('sweep failed', { store: 'postgres', operation: 'sweep' }).step).toBe('sweep');
  });
});

describe('withinStoreDeadline: the client-side deadline of every store call', () => {
  it('rejects a call that never answers once the deadline passes, saying how long it waited', async () => {
    const started = Date.now();
    const failure = await withinStoreDeadline(50, () => new Promise<never>(() => {})).catch((e) => e);
    expect(failure).toBeInstanceOf(Error);
    expect(failure.message).toBe('no answer within 50 ms (is the server up and reachable?)');
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('settles as the call does when it answers in time, and ignores a late rejection', async () => {
    expect(await withinStoreDeadline(1_000, async () => 'row')).toBe('row');
    await expect(withinStoreDeadline(1_000, () => Promise.reject(new Error('ECONNREFUSED')))).rejects.toThrow(
      'ECONNREFUSED',
    );
    let rejectLate: (error: Error) => void = () => {};
    const late = new Promise<never>((_, reject) => {
      rejectLate = reject;
    });
    await expect(withinStoreDeadline(20, () => late)).rejects.toThrow('no answer within 20 ms');
    // A rejection after the deadline is already handled: no unhandled rejection reaches the process.
    rejectLate(new Error('connection terminated'));
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
});
