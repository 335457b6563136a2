import { describe, expect, it, vi } from 'vitest';
import type { ResolveLookup } from '../src/adapter-toolkit.js';
import {
  createMemoryIdempotencyStore,
  createPay,
  NetworkError,
  StoreError,
  ValidationError,
} from '../src/index.js';
import { countingStore, deferred, downStore, ledgerAdapter, transfer } from './ledger-fixtures.js';

const INPUT = { amount: 25, currency: 'EUR' };

/**
 * A transfer whose first attempt records how far it got and then loses its reply; `resolve` answers what the
 * test says the provider holds.
 */
function lostReplyAdapter(
  providerHolds: (lookup: ResolveLookup) => Promise<ReturnType<typeof transfer> | null | undefined>,
) {
  const lookups: ResolveLookup[] = [];
  let sent = 0;
  const adapter = ledgerAdapter(
    {
      async createPayment(_params, options) {
        sent += 1;
        if (sent === 1) {
          await options.idempotency?.checkpoint({ transactionId: 'T-7', step: 'commit_sent' });
          throw new NetworkError('lost reply', { outcome: 'unknown', context: { transactionId: 'T-7' } });
        }
        return transfer('T-new');
      },
    },
    async (lookup) => {
      lookups.push(lookup);
      return providerHolds(lookup);
    },
  );
  return { adapter, lookups, sent: () => sent };
}

describe('pay.resolve (docs/architecture.md#createpay)', () => {
  it('answers found from the ledger for a completed key, without asking the provider', async () => {
    const { adapter, lookups } = lostReplyAdapter(async () => undefined);
    const pay = createPay(adapter);
    await pay.payments.create(INPUT, { idempotencyKey: 'k1' }).catch(() => {});
    await pay.payments.create(INPUT, { idempotencyKey: 'k1' });
    expect(await pay.resolve('k1')).toEqual({ status: 'found', record: transfer('T-new'), source: 'ledger' });
    expect(lookups).toEqual([]);
  });

  it('asks the provider with the recovery point for an unknown outcome, and records what it found', async () => {
    const { adapter, lookups, sent } = lostReplyAdapter(async (lookup) =>
      transfer(String((lookup.recoveryPoint as { transactionId?: string } | null)?.transactionId)),
    );
    const store = createMemoryIdempotencyStore();
    const pay = createPay(adapter, { idempotency: store });
    await expect(pay.payments.create(INPUT, { idempotencyKey: 'k2' })).rejects.toBeInstanceOf(NetworkError);
    const answer = await pay.resolve('k2');
    expect(answer).toEqual({ status: 'found', record: transfer('T-7'), source: 'provider' });
    expect(lookups).toEqual([
      {
        operation: 'payments.create',
        idempotencyKey: 'k2',
        recoveryPoint: { transactionId: 'T-7', step: 'commit_sent' },
      },
    ]);
    // Settled: a retry with the key returns the found record and sends nothing.
    expect((await pay.payments.create(INPUT, { idempotencyKey: 'k2' })).id).toBe('T-7');
    expect(sent()).toBe(1);
  });

  it('returns a checkout it found but never records it as the create result (the read lacks the payment page)', async () => {
    let sent = 0;
    const found = { id: 'T-8', status: 'pending' } as never;
    const adapter = ledgerAdapter(
      {
        async createCheckout(_params, options) {
          sent += 1;
          await options.idempotency?.checkpoint({ transactionId: 'T-8', step: 'commit_sent' });
          throw new NetworkError('lost reply', { outcome: 'unknown', context: { transactionId: 'T-8' } });
        },
      },
      async () => found,
    );
    const store = createMemoryIdempotencyStore();
    const pay = createPay(adapter, { idempotency: store });
    await pay.checkouts.create(INPUT as never, { idempotencyKey: 'k-checkout' }).catch(() => {});
    expect(await pay.resolve('k-checkout')).toEqual({ status: 'found', record: found, source: 'provider' });
    expect(await store.read('k-checkout')).toMatchObject({
      state: 'in_progress',
      result: null,
      recoveryPoint: { transactionId: 'T-8', step: 'commit_sent' },
    });
    // A retry resumes through the adapter with the recovery point instead of replaying the read-back record.
    await pay.checkouts.create(INPUT as never, { idempotencyKey: 'k-checkout' }).catch(() => {});
    expect(sent).toBe(2);
  });

  it('answers not_found when the provider proves it holds nothing, and frees the key', async () => {
    const { adapter, sent } = lostReplyAdapter(async () => null);
    const store = createMemoryIdempotencyStore();
    const pay = createPay(adapter, { idempotency: store });
    await pay.payments.create(INPUT, { idempotencyKey: 'k3' }).catch(() => {});
    expect(await pay.resolve('k3')).toEqual({ status: 'not_found' });
    expect(await store.read('k3')).toBeNull();
    expect((await pay.payments.create(INPUT, { idempotencyKey: 'k3' })).id).toBe('T-new');
    expect(sent()).toBe(2);
  });

  it('answers unknown when the provider cannot tell, and keeps the recovery point', async () => {
    const { adapter } = lostReplyAdapter(async () => undefined);
    const store = createMemoryIdempotencyStore();
    const pay = createPay(adapter, { idempotency: store });
    await pay.payments.create(INPUT, { idempotencyKey: 'k4' }).catch(() => {});
    const answer = await pay.resolve('k4');
    expect(answer.status).toBe('unknown');
    expect(await store.read('k4')).toMatchObject({
      state: 'in_progress',
      recoveryPoint: { transactionId: 'T-7', step: 'commit_sent' },
    });
  });

  it('answers unknown for an adapter without resolve, never not_found', async () => {
    const adapter = ledgerAdapter({
      async createPayment() {
        throw new NetworkError('lost', { outcome: 'unknown' });
      },
    });
    const pay = createPay(adapter);
    await pay.payments.create(INPUT, { idempotencyKey: 'k5' }).catch(() => {});
    expect(await pay.resolve('k5')).toMatchObject({ status: 'unknown' });
  });

  it('answers unknown while an attempt holds the key, without asking the provider', async () => {
    const hold = deferred();
    const lookups: unknown[] = [];
    const adapter = ledgerAdapter(
      {
        async createPayment() {
          await hold.promise;
          return transfer('t1');
        },
      },
      async (lookup) => {
        lookups.push(lookup);
        return null;
      },
    );
    const store = createMemoryIdempotencyStore();
    const pay = createPay(adapter, { idempotency: store });
    const running = pay.payments.create(INPUT, { idempotencyKey: 'k6' });
    await vi.waitFor(() => expect(store.read('k6')).resolves.not.toBeNull());
    expect(await pay.resolve('k6')).toEqual({
      status: 'unknown',
      reason: 'an attempt with this key is in progress (it renews its lease while it works); ask again later',
      askAgainAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(lookups).toEqual([]);
    hold.resolve();
    await running;
  });

  it('never answers not_found from a missing ledger entry alone', async () => {
    const lookups: ResolveLookup[] = [];
    const adapter = ledgerAdapter({}, async (lookup) => {
      lookups.push(lookup);
      return null;
    });
    const pay = createPay(adapter);
    expect(await pay.resolve('never-seen')).toMatchObject({ status: 'unknown' });
    expect(lookups).toEqual([]);
    // Told which operation it was, core asks the provider; its proof is what says not_found.
    expect(await pay.resolve('never-seen', { operation: 'payments.create' })).toEqual({
      status: 'not_found',
    });
    expect(lookups).toEqual([{ operation: 'payments.create', idempotencyKey: 'never-seen' }]);
  });

  it('resolves an error with outcome unknown: by its key, or by its operation and context', async () => {
    const { adapter, lookups } = lostReplyAdapter(async () => transfer('T-7'));
    const pay = createPay(adapter);
    const keyed = await pay.payments.create(INPUT, { idempotencyKey: 'k8' }).catch((e: unknown) => e);
    expect(await pay.resolve(keyed)).toMatchObject({ status: 'found', record: { id: 'T-7' } });
    expect(lookups[0]).toEqual({
      operation: 'payments.create',
      idempotencyKey: 'k8',
      recoveryPoint: { transactionId: 'T-7', step: 'commit_sent' },
      context: { transactionId: 'T-7', idempotencyKey: 'k8' },
    });

    const { adapter: second, lookups: secondLookups } = lostReplyAdapter(async () => transfer('T-7'));
    const unkeyed = await createPay(second)
      .payments.create(INPUT)
      .catch((e: unknown) => e);
    expect(await createPay(second).resolve(unkeyed)).toMatchObject({ status: 'found' });
    expect(secondLookups).toEqual([{ operation: 'payments.create', context: { transactionId: 'T-7' } }]);
  });

  it('throws StoreError when the ledger cannot be read', async () => {
    const pay = createPay(ledgerAdapter({}), { idempotency: downStore() });
    const error = await pay.resolve('k9').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ step: 'read', context: { idempotencyKey: 'k9' } });
    expect(JSON.stringify((error as StoreError).toJSON())).not.toContain('s3cr3t-pw');
  });

  it('refuses what is neither a key nor an error of @pay', async () => {
    const pay = createPay(ledgerAdapter({}));
    await expect(pay.resolve(new Error('x'))).rejects.toBeInstanceOf(ValidationError);
    await expect(pay.resolve('')).rejects.toBeInstanceOf(ValidationError);
  });

  it('releases nothing and records nothing when the provider lookup itself fails', async () => {
    const store = countingStore();
    const adapter = ledgerAdapter(
      {
        async createPayment() {
          throw new NetworkError('lost', { outcome: 'unknown' });
        },
      },
      async () => {
        throw new NetworkError('status read timed out', { outcome: 'unknown' });
      },
    );
    const pay = createPay(adapter, { idempotency: store });
    await pay.payments.create(INPUT, { idempotencyKey: 'k10' }).catch(() => {});
    const error = await pay.resolve('k10').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'network_error', context: { idempotencyKey: 'k10' } });
    expect(store.calls).toEqual(['begin', 'abandon', 'read', 'begin', 'abandon']);
  });
});
