/**
 * The ledger while a money-moving step may still land (docs/architecture.md#idempotency): an attempt renews its
 * lease while it works, so another process's `pay.resolve(key)` never asks the provider about a step still in
 * flight; an adapter that says the step may still land keeps the key; and a call that resolves to `null` (Provider
 * R's redirect checkout) resolves to what its key opened.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MayStillLand, ResolveLookup } from '../src/adapter-toolkit.js';
import { type Checkout, createMemoryIdempotencyStore, createPay, type JsonValue } from '../src/index.js';
import { deferred, ledgerAdapter, transfer } from './ledger-fixtures.js';

const INPUT = { amount: 25, currency: 'EUR' };

afterEach(() => {
  vi.useRealTimers();
});

describe('a lease while its holder is still working', () => {
  it('is renewed during a call held longer than the lease: resolve from another process answers unknown, never asks the provider', async () => {
    vi.useFakeTimers();
    const store = createMemoryIdempotencyStore();
    const commitReply = deferred<ReturnType<typeof transfer>>();
    const commitSent = deferred();
    const lookups: ResolveLookup[] = [];
    const adapter = ledgerAdapter(
      {
        async createPayment(_params, options) {
          await options.idempotency?.checkpoint({ transactionId: 'T-9', step: 'commit_sent' });
          commitSent.resolve();
          return commitReply.promise; // the provider holds the commit
        },
      },
      async (lookup) => {
        lookups.push(lookup);
        return null; // the provider's status read does not show the commit yet
      },
    );
    const holder = createPay(adapter, { idempotency: store, idempotencyLeaseSeconds: 5 });
    const other = createPay(adapter, { idempotency: store, idempotencyLeaseSeconds: 5 });
    const call = holder.payments.create(INPUT, { idempotencyKey: 'order-held' });
    await commitSent.promise;
    await vi.advanceTimersByTimeAsync(9_000);

    const answer = await other.resolve('order-held');
    expect(answer).toEqual({
      status: 'unknown',
      reason: expect.stringContaining('in progress'),
      askAgainAt: new Date(Date.now() + 5_000).toISOString(),
    });
    expect(lookups).toEqual([]);
    await expect(other.payments.create(INPUT, { idempotencyKey: 'order-held' })).rejects.toMatchObject({
      code: 'idempotency_in_progress',
    });

    commitReply.resolve(transfer('T-9'));
    expect((await call).id).toBe('T-9');
    expect(await other.resolve('order-held')).toMatchObject({
      status: 'found',
      source: 'ledger',
      record: { id: 'T-9' },
    });
  });

  it('stops renewing once the call is over, and an abandoned key can be taken at once', async () => {
    vi.useFakeTimers();
    const store = createMemoryIdempotencyStore();
    const adapter = ledgerAdapter({
      async createPayment(_params, options) {
        await options.idempotency?.checkpoint({ step: 'commit_sent' });
        throw new Error('socket hang up'); // the outcome is unknown: the key is abandoned, not released
      },
    });
    const pay = createPay(adapter, { idempotency: store, idempotencyLeaseSeconds: 5 });
    await expect(pay.payments.create(INPUT, { idempotencyKey: 'order-gone' })).rejects.toThrow('socket');
    expect(vi.getTimerCount()).toBe(0);
    const entry = await store.read('order-gone');
    expect(
      await store.begin('order-gone', entry?.fingerprint ?? '', {
        leaseSeconds: 5,
        retentionSeconds: 86_400,
      }),
    ).toMatchObject({ state: 'acquired', recoveryPoint: { step: 'commit_sent' } });
  });
});

describe('pay.resolve while the provider may still land the step', () => {
  it('answers unknown with when to ask again, and keeps the key (a new key would send the money twice)', async () => {
    const store = createMemoryIdempotencyStore();
    const landsBy = Date.parse('2030-01-01T00:30:00.000Z');
    const adapter = ledgerAdapter(
      {
        async createPayment(_params, options) {
          await options.idempotency?.checkpoint({ transactionId: 'T-3', step: 'commit_sent' });
          throw new Error('socket hang up');
        },
      },
      async (): Promise<MayStillLand> => ({
        mayStillLand: true,
        reason: 'the commit may still be processed by the provider',
        askAgainAt: landsBy,
      }),
    );
    const pay = createPay(adapter, { idempotency: store });
    await expect(pay.payments.create(INPUT, { idempotencyKey: 'order-3' })).rejects.toThrow();
    expect(await pay.resolve('order-3')).toEqual({
      status: 'unknown',
      reason: 'the commit may still be processed by the provider',
      askAgainAt: '2030-01-01T00:30:00.000Z',
    });
    expect(await store.read('order-3')).toMatchObject({
      state: 'in_progress',
      recoveryPoint: { transactionId: 'T-3', step: 'commit_sent' },
    });
  });
});

describe('pay.resolve of a keyed call that resolved to null', () => {
  it('asks the adapter with the recovery point, and answers the checkout the key opened', async () => {
    const store = createMemoryIdempotencyStore();
    const opened: Checkout = {
      id: 'TR-1',
      payment_url: 'https://pay.example/redirect/TR-1',
      amount: 25,
      currency: 'EUR',
      customer: null,
      session_type: 'one_time',
      products: [],
      expires_at: null,
      status: 'open',
      metadata: {},
      provider: 'providerT',
      livemode: false,
      request_id: null,
      raw: {},
    } as unknown as Checkout;
    const points: (JsonValue | null | undefined)[] = [];
    const adapter = ledgerAdapter(
      {
        async createCheckout(_params, options) {
          await options.idempotency?.checkpoint({
            step: 'created',
            checkout: opened as unknown as JsonValue,
          });
          return null;
        },
      },
      async (lookup) => {
        points.push(lookup.recoveryPoint);
        const point = lookup.recoveryPoint as { checkout?: Checkout } | null | undefined;
        return point?.checkout;
      },
    );
    const pay = createPay(adapter, { idempotency: store });
    expect(
      await pay.checkouts.create({ amount: 25, currency: 'EUR' }, { idempotencyKey: 'co-1' }),
    ).toBeNull();
    expect(await pay.resolve('co-1')).toEqual({ status: 'found', record: opened, source: 'ledger' });
    expect(points).toEqual([{ step: 'created', checkout: opened }]);
    // The replay still resolves to null, as the call itself does.
    expect(
      await pay.checkouts.create({ amount: 25, currency: 'EUR' }, { idempotencyKey: 'co-1' }),
    ).toBeNull();
  });
});
