import { describe, expect, it } from 'vitest';
import { createRedisDeduplicationStore } from '../src/index.js';
import { CLIENT_KINDS, sleep, useClients, useRedisServer } from './clients.js';

const server = useRedisServer();

describe.each(CLIENT_KINDS)('deduplication store over %s', (kind) => {
  const open = useClients(kind, server);
  const fresh = () => `delivery-${crypto.randomUUID()}`;

  it('leases a new delivery key as `leased:<owner token>` under the prefix, with the lease as its expiry', async () => {
    const client = await open();
    const store = createRedisDeduplicationStore({ client: client.store, keyPrefix: 'shop1:' });
    const key = fresh();
    const begun = await store.begin(key, { leaseSeconds: 30 });
    expect(begun).toEqual({ state: 'acquired', lease: expect.any(String) });
    const lease = begun.state === 'acquired' ? begun.lease : '';
    expect(await client.get(`shop1:dedupe:${key}`)).toBe(`leased:${lease}`);
    const ttl = await client.pttl(`shop1:dedupe:${key}`);
    expect(ttl).toBeGreaterThan(29_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  it('answers in_progress to a second attempt while the first holds the lease', async () => {
    const store = createRedisDeduplicationStore({ client: (await open()).store });
    const key = fresh();
    expect((await store.begin(key, { leaseSeconds: 30 })).state).toBe('acquired');
    expect(await store.begin(key, { leaseSeconds: 30 })).toEqual({ state: 'in_progress' });
  });

  it('answers done to a redelivery after the delivery completed, until the time to live runs out', async () => {
    const client = await open();
    const store = createRedisDeduplicationStore({ client: client.store });
    const key = fresh();
    const begun = await store.begin(key, { leaseSeconds: 30 });
    if (begun.state !== 'acquired') throw new Error('expected a lease');
    await store.complete(key, begun.lease, 0.4);
    expect(await client.get(`pay:dedupe:${key}`)).toBe('done');
    expect(await store.begin(key, { leaseSeconds: 30 })).toEqual({ state: 'done' });
    await sleep(500);
    expect(await client.get(`pay:dedupe:${key}`)).toBeNull();
    expect((await store.begin(key, { leaseSeconds: 30 })).state).toBe('acquired');
  });

  it('lets the next delivery run a key whose attempt released it', async () => {
    const client = await open();
    const store = createRedisDeduplicationStore({ client: client.store });
    const key = fresh();
    const begun = await store.begin(key, { leaseSeconds: 30 });
    if (begun.state !== 'acquired') throw new Error('expected a lease');
    await store.release(key, begun.lease);
    expect(await client.get(`pay:dedupe:${key}`)).toBeNull();
    const again = await store.begin(key, { leaseSeconds: 30 });
    expect(again).toEqual({ state: 'acquired', lease: expect.any(String) });
    expect(again.state === 'acquired' && again.lease).not.toBe(begun.lease);
  });

  it('lets another instance take over a delivery whose attempt crashed, once its lease expired', async () => {
    const crashed = createRedisDeduplicationStore({ client: (await open()).store });
    const other = createRedisDeduplicationStore({ client: (await open()).store });
    const key = fresh();
    expect((await crashed.begin(key, { leaseSeconds: 0.3 })).state).toBe('acquired');
    expect(await other.begin(key, { leaseSeconds: 30 })).toEqual({ state: 'in_progress' });
    await sleep(400);
    expect((await other.begin(key, { leaseSeconds: 30 })).state).toBe('acquired');
  });

  it("does not let an attempt whose lease expired complete or release the new owner's lease", async () => {
    const client = await open();
    const slow = createRedisDeduplicationStore({ client: client.store });
    const takeover = createRedisDeduplicationStore({ client: (await open()).store });
    const key = fresh();
    const stale = await slow.begin(key, { leaseSeconds: 0.2 });
    if (stale.state !== 'acquired') throw new Error('expected a lease');
    await sleep(300);
    const current = await takeover.begin(key, { leaseSeconds: 30 });
    if (current.state !== 'acquired') throw new Error('expected the takeover to lease the key');

    await slow.complete(key, stale.lease, 60);
    expect(await client.get(`pay:dedupe:${key}`)).toBe(`leased:${current.lease}`);
    await slow.release(key, stale.lease);
    expect(await client.get(`pay:dedupe:${key}`)).toBe(`leased:${current.lease}`);
    expect(await slow.begin(key, { leaseSeconds: 30 })).toEqual({ state: 'in_progress' });

    await takeover.complete(key, current.lease, 60);
    expect(await client.get(`pay:dedupe:${key}`)).toBe('done');
  });

  it('gives the lease to exactly one of 50 concurrent begins on one key from five connections', async () => {
    const stores = await Promise.all(
      Array.from({ length: 5 }, async () => createRedisDeduplicationStore({ client: (await open()).store })),
    );
    const key = fresh();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, attempt) => stores[attempt % 5]!.begin(key, { leaseSeconds: 30 })),
    );
    expect(results.filter((result) => result.state === 'acquired')).toHaveLength(1);
    expect(results.filter((result) => result.state === 'in_progress')).toHaveLength(49);
  });

  it('keeps deliveries of different key prefixes apart', async () => {
    const client = await open();
    const shopA = createRedisDeduplicationStore({ client: client.store, keyPrefix: 'a:' });
    const shopB = createRedisDeduplicationStore({ client: client.store, keyPrefix: 'b:' });
    const key = fresh();
    expect((await shopA.begin(key, { leaseSeconds: 30 })).state).toBe('acquired');
    expect((await shopB.begin(key, { leaseSeconds: 30 })).state).toBe('acquired');
  });
});
