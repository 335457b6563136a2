import { describe, expect, it } from 'vitest';
import { createRedisIdempotencyStore } from '../src/index.js';
import { CLIENT_KINDS, sleep, useClients, useRedisServer } from './clients.js';

const server = useRedisServer();

const DAY = 24 * 60 * 60;
const request = 'sha256:payments.create:EUR:1250:order-1042';
const quoted = { transactionId: 'T-8842', step: 'quoted' };
const payment = { id: 'pay_8842', status: 'succeeded', amount: 1250, currency: 'EUR', livemode: false };

describe.each(CLIENT_KINDS)('idempotency ledger over %s', (kind) => {
  const open = useClients(kind, server);
  const ledger = async (keyPrefix?: string) =>
    createRedisIdempotencyStore({ client: (await open()).store, ...(keyPrefix ? { keyPrefix } : {}) });
  const fresh = () => `order-1042-${crypto.randomUUID()}`;
  const leaseOf = (begun: Awaited<ReturnType<Awaited<ReturnType<typeof ledger>>['begin']>>) => {
    if (begun.state !== 'acquired') throw new Error(`expected a lease, got ${begun.state}`);
    return begun.lease;
  };

  it('leases a new key with no recovery point and records it as a hash under the prefix, kept for the retention', async () => {
    const client = await open();
    const store = createRedisIdempotencyStore({ client: client.store, keyPrefix: 'shop1:' });
    const key = fresh();
    const begun = await store.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY });
    expect(begun).toEqual({ state: 'acquired', lease: expect.any(String), recoveryPoint: null });
    const row = await client.hgetall(`shop1:idempotency:${key}`);
    expect(row).toEqual({
      fingerprint: request,
      state: 'in_progress',
      recoveryPoint: 'null',
      result: 'null',
      lease: leaseOf(begun),
      leaseUntil: expect.stringMatching(/^\d{13}$/),
      expiresAt: expect.stringMatching(/^\d{13}$/),
    });
    expect(Number(row.expiresAt) - Number(row.leaseUntil)).toBe((DAY - 30) * 1000);
    const ttl = await client.pttl(`shop1:idempotency:${key}`);
    expect(ttl).toBeGreaterThan((DAY - 5) * 1000);
    expect(ttl).toBeLessThanOrEqual(DAY * 1000);
  });

  it('answers in_progress to a concurrent call with a key still in flight', async () => {
    const store = await ledger();
    const key = fresh();
    leaseOf(await store.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY }));
    expect(await store.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY })).toEqual({
      state: 'in_progress',
    });
  });

  it('refuses the same key with a different request as a mismatch, even while it is in flight or completed', async () => {
    const store = await ledger();
    const key = fresh();
    const lease = leaseOf(await store.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY }));
    const other = 'sha256:payments.create:EUR:9900:order-1042';
    expect(await store.begin(key, other, { leaseSeconds: 30, retentionSeconds: DAY })).toEqual({
      state: 'mismatch',
    });
    expect(await store.complete(key, lease, payment)).toBe(true);
    expect(await store.begin(key, other, { leaseSeconds: 30, retentionSeconds: DAY })).toEqual({
      state: 'mismatch',
    });
  });

  it('returns the recorded result to a retry after the call completed, without a lease', async () => {
    const store = await ledger();
    const key = fresh();
    const lease = leaseOf(await store.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY }));
    expect(await store.complete(key, lease, payment)).toBe(true);
    expect(await store.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY })).toEqual({
      state: 'completed',
      result: payment,
    });
    expect(await store.read(key)).toEqual({
      key,
      fingerprint: request,
      state: 'completed',
      recoveryPoint: null,
      result: payment,
      expiresAt: expect.any(Number),
    });
  });

  it('keeps a completed result of null apart from a call still running', async () => {
    const store = await ledger();
    const key = fresh();
    const lease = leaseOf(await store.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY }));
    expect(await store.complete(key, lease, null)).toBe(true);
    expect(await store.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY })).toEqual({
      state: 'completed',
      result: null,
    });
  });

  it('resumes from the recovery point after a crash: checkpoint, lease expiry, then a retry on another instance', async () => {
    const crashed = await ledger();
    const retry = await ledger();
    const key = fresh();
    const first = leaseOf(await crashed.begin(key, request, { leaseSeconds: 0.3, retentionSeconds: DAY }));
    expect(await crashed.checkpoint(key, first, quoted)).toBe(true);
    expect(await retry.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY })).toEqual({
      state: 'in_progress',
    });
    await sleep(400);
    const resumed = await retry.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY });
    expect(resumed).toEqual({ state: 'acquired', lease: expect.any(String), recoveryPoint: quoted });
    const second = leaseOf(resumed);
    expect(second).not.toBe(first);

    // The crashed attempt wakes up: none of its writes may touch the entry the retry now owns.
    expect(await crashed.checkpoint(key, first, { transactionId: 'T-other', step: 'quoted' })).toBe(false);
    expect(await crashed.complete(key, first, { id: 'stale' })).toBe(false);
    expect(await crashed.abandon(key, first)).toBe(false);
    expect(await crashed.release(key, first)).toBe(false);
    expect(await retry.read(key)).toMatchObject({
      state: 'in_progress',
      recoveryPoint: quoted,
      result: null,
    });

    expect(await retry.checkpoint(key, second, { ...quoted, step: 'committed' })).toBe(true);
    expect(await retry.complete(key, second, payment)).toBe(true);
    expect(await crashed.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY })).toEqual({
      state: 'completed',
      result: payment,
    });
  });

  it('refuses every write of an attempt whose lease ran out, even before another attempt took over', async () => {
    const store = await ledger();
    const key = fresh();
    const late = leaseOf(await store.begin(key, request, { leaseSeconds: 0.2, retentionSeconds: DAY }));
    await sleep(300);
    expect(await store.checkpoint(key, late, quoted)).toBe(false);
    expect(await store.complete(key, late, payment)).toBe(false);
    expect(await store.abandon(key, late)).toBe(false);
    expect(await store.release(key, late)).toBe(false);
    expect(await store.read(key)).toMatchObject({ state: 'in_progress', recoveryPoint: null, result: null });
  });

  it('renews a held lease from the server clock, and refuses to renew one that ran out', async () => {
    const store = await ledger();
    const key = fresh();
    const held = leaseOf(await store.begin(key, request, { leaseSeconds: 0.2, retentionSeconds: DAY }));
    expect(await store.renew?.(key, held, 30)).toBe(true);
    await sleep(300);
    expect(await store.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY })).toEqual({
      state: 'in_progress',
    });
    expect(await store.checkpoint(key, held, quoted)).toBe(true);
    const other = fresh();
    const late = leaseOf(await store.begin(other, request, { leaseSeconds: 0.2, retentionSeconds: DAY }));
    await sleep(300);
    expect(await store.renew?.(other, late, 30)).toBe(false);
  });

  it('keeps the first expiry when a key is leased again, so retention counts from the first use', async () => {
    const client = await open();
    const store = createRedisIdempotencyStore({ client: client.store });
    const key = fresh();
    leaseOf(await store.begin(key, request, { leaseSeconds: 0.2, retentionSeconds: DAY }));
    const before = await store.read(key);
    await sleep(300);
    leaseOf(await store.begin(key, request, { leaseSeconds: 30, retentionSeconds: 2 * DAY }));
    expect((await store.read(key))?.expiresAt).toBe(before?.expiresAt);
    expect(await client.pttl(`pay:idempotency:${key}`)).toBeLessThanOrEqual(DAY * 1000);
  });

  it('lets a retry resume at once after the call abandoned its lease on an unknown outcome', async () => {
    const store = await ledger();
    const key = fresh();
    const first = leaseOf(await store.begin(key, request, { leaseSeconds: 300, retentionSeconds: DAY }));
    expect(await store.checkpoint(key, first, quoted)).toBe(true);
    expect(await store.abandon(key, first)).toBe(true);
    expect(await store.read(key)).toMatchObject({ state: 'in_progress', recoveryPoint: quoted });
    expect(await store.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY })).toEqual({
      state: 'acquired',
      lease: expect.any(String),
      recoveryPoint: quoted,
    });
    expect(await store.checkpoint(key, first, { step: 'late' })).toBe(false);
  });

  it('forgets a released key, so the same key may be used again (even with another request)', async () => {
    const client = await open();
    const store = createRedisIdempotencyStore({ client: client.store });
    const key = fresh();
    const lease = leaseOf(await store.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY }));
    expect(await store.release(key, lease)).toBe(true);
    expect(await client.hgetall(`pay:idempotency:${key}`)).toEqual({});
    expect(await store.read(key)).toBeNull();
    expect(
      await store.begin(key, 'sha256:another-request', { leaseSeconds: 30, retentionSeconds: DAY }),
    ).toEqual({ state: 'acquired', lease: expect.any(String), recoveryPoint: null });
  });

  it('forgets a key once its retention has passed', async () => {
    const client = await open();
    const store = createRedisIdempotencyStore({ client: client.store });
    const key = fresh();
    const lease = leaseOf(await store.begin(key, request, { leaseSeconds: 0.2, retentionSeconds: 0.5 }));
    expect(await store.complete(key, lease, payment)).toBe(true);
    expect((await store.read(key))?.state).toBe('completed');
    await sleep(650);
    expect(await client.hgetall(`pay:idempotency:${key}`)).toEqual({});
    expect(await store.read(key)).toBeNull();
    expect(
      await store.begin(key, 'sha256:another-request', { leaseSeconds: 30, retentionSeconds: DAY }),
    ).toEqual({ state: 'acquired', lease: expect.any(String), recoveryPoint: null });
  });

  it('answers read with null for a key never used', async () => {
    expect(await (await ledger()).read(fresh())).toBeNull();
  });

  it('gives the lease to exactly one of 50 concurrent calls with one key from five connections', async () => {
    const stores = await Promise.all(Array.from({ length: 5 }, () => ledger()));
    const key = fresh();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, attempt) =>
        stores[attempt % 5]!.begin(key, request, { leaseSeconds: 30, retentionSeconds: DAY }),
      ),
    );
    expect(results.filter((result) => result.state === 'acquired')).toHaveLength(1);
    expect(results.filter((result) => result.state === 'in_progress')).toHaveLength(49);
  });

  it('refuses a zero lease or retention before sending anything', async () => {
    const store = await ledger();
    await expect(
      store.begin(fresh(), request, { leaseSeconds: 0, retentionSeconds: DAY }),
    ).rejects.toMatchObject({
      code: 'validation_error',
      issues: [{ path: 'leaseSeconds', message: 'must be a positive, finite number of seconds' }],
    });
    await expect(
      store.begin(fresh(), request, { leaseSeconds: 30, retentionSeconds: Number.NaN }),
    ).rejects.toMatchObject({ code: 'validation_error', issues: [{ path: 'retentionSeconds' }] });
  });
});
