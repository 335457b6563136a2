import { describe, expect, it, vi } from 'vitest';
import type { IdempotencyContext, OperationContext } from '../src/adapter-toolkit.js';
import { canonicalJson, fingerprintOf } from '../src/idempotency-fingerprint.js';
import {
  ConfigurationError,
  createMemoryIdempotencyStore,
  createPay,
  IdempotencyInProgressError,
  IdempotencyKeyMismatchError,
  NetworkError,
  type PayError,
  ProviderApiError,
  StoreError,
  ValidationError,
} from '../src/index.js';
import { countingStore, deferred, downStore, ledgerAdapter, transfer } from './ledger-fixtures.js';

const INPUT = { amount: 25, currency: 'EUR' };

/** An adapter whose createPayment records each call and answers with the given behaviour. */
function recordingAdapter(
  behaviour: (call: number, options: OperationContext) => Promise<ReturnType<typeof transfer>>,
) {
  const seen: OperationContext[] = [];
  const adapter = ledgerAdapter({
    async createPayment(_params, options) {
      seen.push(options);
      return behaviour(seen.length, options);
    },
    async retrievePayment(id, options) {
      seen.push(options);
      return transfer(id);
    },
  });
  return { adapter, seen };
}

describe('idempotency keys on money-moving calls (docs/architecture.md#idempotency)', () => {
  it('the same key with the same request returns the recorded result without a second provider call', async () => {
    const { adapter, seen } = recordingAdapter(async (call) => transfer(`t${call}`));
    const pay = createPay(adapter);
    const first = await pay.payments.create(INPUT, { idempotencyKey: 'order-1' });
    const again = await pay.payments.create(INPUT, { idempotencyKey: 'order-1' });
    expect(first.id).toBe('t1');
    expect(again).toEqual(first);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.idempotency).toMatchObject({ key: 'order-1', recoveryPoint: null });
  });

  it('treats the same request written with other field order or currency case as the same request', async () => {
    const { adapter, seen } = recordingAdapter(async (call) => transfer(`t${call}`));
    const pay = createPay(adapter);
    await pay.payments.create({ amount: 25, currency: 'eur' }, { idempotencyKey: 'order-2' });
    const again = await pay.payments.create({ currency: 'EUR', amount: 25 }, { idempotencyKey: 'order-2' });
    expect(again.id).toBe('t1');
    expect(seen).toHaveLength(1);
  });

  it('refuses the same key with a different request with IdempotencyKeyMismatchError, sending nothing', async () => {
    const { adapter, seen } = recordingAdapter(async (call) => transfer(`t${call}`));
    const pay = createPay(adapter);
    await pay.payments.create(INPUT, { idempotencyKey: 'order-3' });
    const error = await pay.payments
      .create({ amount: 26, currency: 'EUR' }, { idempotencyKey: 'order-3' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdempotencyKeyMismatchError);
    expect(error).toMatchObject({
      code: 'idempotency_key_mismatch',
      retryable: false,
      idempotencyKey: 'order-3',
      context: { idempotencyKey: 'order-3' },
    });
    expect(seen).toHaveLength(1);
  });

  it('tells a concurrent call with a key still in flight that it is in progress (retryable), sending nothing', async () => {
    const hold = deferred();
    const { adapter, seen } = recordingAdapter(async (call) => {
      await hold.promise;
      return transfer(`t${call}`);
    });
    const pay = createPay(adapter);
    const first = pay.payments.create(INPUT, { idempotencyKey: 'order-4' });
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    const error = await pay.payments.create(INPUT, { idempotencyKey: 'order-4' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdempotencyInProgressError);
    expect(error).toMatchObject({
      code: 'idempotency_in_progress',
      retryable: true,
      context: { idempotencyKey: 'order-4' },
    });
    hold.resolve();
    expect((await first).id).toBe('t1');
    expect(seen).toHaveLength(1);
  });

  it('after an unknown outcome the next call with the key gets the recovery point the first one reached', async () => {
    const { adapter, seen } = recordingAdapter(async (call, options) => {
      if (call === 1) {
        await options.idempotency?.checkpoint({ transactionId: 'T-9', step: 'commit_sent' });
        throw new NetworkError('reply lost', { outcome: 'unknown', context: { transactionId: 'T-9' } });
      }
      return transfer(
        String((options.idempotency?.recoveryPoint as { transactionId?: string } | null)?.transactionId),
      );
    });
    const store = countingStore();
    const pay = createPay(adapter, { idempotency: store });
    const error = await pay.payments.create(INPUT, { idempotencyKey: 'order-5' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    // The key joins the adapter's own context; nothing of it is lost.
    expect((error as NetworkError).context).toEqual({ transactionId: 'T-9', idempotencyKey: 'order-5' });
    expect(store.calls).toEqual(['begin', 'checkpoint', 'abandon']);
    const resumed = await pay.payments.create(INPUT, { idempotencyKey: 'order-5' });
    expect(seen[1]?.idempotency?.recoveryPoint).toEqual({ transactionId: 'T-9', step: 'commit_sent' });
    expect(resumed.id).toBe('T-9');
    expect(await store.read('order-5')).toMatchObject({ state: 'completed', result: { id: 'T-9' } });
  });

  it('releases the key after a refusal that proves no money moved, so it can be used again', async () => {
    const { adapter, seen } = recordingAdapter(async (call) => {
      if (call === 1)
        throw new ProviderApiError({ provider: 'providerT', status: 422, providerCode: 'AMOUNT_TOO_LOW' });
      return transfer(`t${call}`);
    });
    const store = countingStore();
    const pay = createPay(adapter, { idempotency: store });
    await expect(pay.payments.create(INPUT, { idempotencyKey: 'order-6' })).rejects.toMatchObject({
      code: 'provider_api_error',
      context: { idempotencyKey: 'order-6' },
    });
    expect(store.calls).toEqual(['begin', 'release']);
    expect(await store.read('order-6')).toBeNull();
    // Released: even a corrected request may use the key now, starting from nothing.
    const fixed = await pay.payments.create({ amount: 30, currency: 'EUR' }, { idempotencyKey: 'order-6' });
    expect(fixed.id).toBe('t2');
    expect(seen[1]?.idempotency?.recoveryPoint).toBeNull();
  });

  it.each([
    [
      'a refusal after an earlier attempt may have landed',
      () => new ProviderApiError({ provider: 'providerT', status: 409 }, { outcome: 'unknown' }),
    ],
    ['a lost reply', () => new NetworkError('lost', { outcome: 'unknown' })],
    ['an unexpected exception', () => new TypeError('bug')],
  ])('keeps the key (abandon, never release) after %s', async (_name, failure) => {
    const { adapter } = recordingAdapter(async () => {
      throw failure();
    });
    const store = countingStore();
    const pay = createPay(adapter, { idempotency: store });
    await expect(pay.payments.create(INPUT, { idempotencyKey: 'order-7' })).rejects.toBeDefined();
    expect(store.calls).toEqual(['begin', 'abandon']);
    expect(await store.read('order-7')).toMatchObject({ state: 'in_progress', recoveryPoint: null });
  });

  it('never releases a key once progress was recorded, even when the next step is refused outright', async () => {
    const { adapter } = recordingAdapter(async (_call, options) => {
      await options.idempotency?.checkpoint({ transactionId: 'T-1', step: 'quoted' });
      throw new ProviderApiError({ provider: 'providerT', status: 400 });
    });
    const store = countingStore();
    const pay = createPay(adapter, { idempotency: store });
    await expect(pay.payments.create(INPUT, { idempotencyKey: 'order-8' })).rejects.toBeInstanceOf(
      ProviderApiError,
    );
    expect(store.calls).toEqual(['begin', 'checkpoint', 'abandon']);
    expect((await store.read('order-8'))?.recoveryPoint).toEqual({ transactionId: 'T-1', step: 'quoted' });
  });

  it('fails closed when the store is down: StoreError, nothing sent, no credential of the store in it', async () => {
    const { adapter, seen } = recordingAdapter(async () => transfer('t1'));
    const store = downStore();
    const pay = createPay(adapter, { idempotency: store });
    const error = (await pay.payments
      .create(INPUT, { idempotencyKey: 'order-9' })
      .catch((e: unknown) => e)) as StoreError;
    expect(error).toBeInstanceOf(StoreError);
    expect(StoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'store_unavailable',
      step: 'begin',
      reason: 'unavailable',
      retryable: true,
      context: { idempotencyKey: 'order-9' },
    });
    expect(error.message).toMatch(/Nothing was sent/);
    expect(error.message).toContain('ECONNREFUSED');
    expect(seen).toEqual([]);
    expect(store.calls).toEqual(['begin']);
    const everything = JSON.stringify({
      json: error.toJSON(),
      message: error.message,
      stack: error.stack,
      cause: String(error.cause),
      causeStack: (error.cause as Error).stack,
    });
    expect(everything).not.toContain('s3cr3t-pw');
    expect(everything).not.toContain('pay_app:');
  });

  it('stops the adapter before its next step when a checkpoint cannot be recorded', async () => {
    let stepTwoSent = false;
    const inner = createMemoryIdempotencyStore();
    const store = {
      ...inner,
      checkpoint: async () => {
        throw new Error('read ETIMEDOUT');
      },
    };
    const { adapter } = recordingAdapter(async (_call, options) => {
      await options.idempotency?.checkpoint({ transactionId: 'T-2', step: 'quoted' });
      stepTwoSent = true;
      return transfer('T-2');
    });
    const pay = createPay(adapter, { idempotency: store, onStoreError: () => {} });
    const error = await pay.payments.create(INPUT, { idempotencyKey: 'order-10' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ step: 'checkpoint', context: { idempotencyKey: 'order-10' } });
    expect(stepTwoSent).toBe(false);
  });

  it('rejects a checkpoint of an attempt that lost its lease, so it cannot move money after a takeover', async () => {
    let now = 0;
    const store = createMemoryIdempotencyStore(() => now);
    const hold = deferred();
    let checkpointError: unknown;
    const { adapter } = recordingAdapter(async (call, options) => {
      if (call === 1) {
        await hold.promise;
        checkpointError = await options.idempotency?.checkpoint({ step: 'late' }).then(
          () => undefined,
          (e: unknown) => e,
        );
        throw checkpointError;
      }
      return transfer('t2');
    });
    const pay = createPay(adapter, {
      idempotency: store,
      idempotencyLeaseSeconds: 10,
      onStoreError: () => {},
    });
    const slow = pay.payments.create(INPUT, { idempotencyKey: 'order-11' }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(store.read('order-11')).resolves.not.toBeNull());
    now = 11_000;
    expect((await pay.payments.create(INPUT, { idempotencyKey: 'order-11' })).id).toBe('t2');
    hold.resolve();
    await slow;
    expect(checkpointError).toBeInstanceOf(StoreError);
    expect(checkpointError).toMatchObject({ reason: 'lease_lost', step: 'checkpoint' });
  });

  it('returns the result when recording it fails after the provider succeeded, and reports it to onStoreError', async () => {
    const inner = createMemoryIdempotencyStore();
    const store = {
      ...inner,
      complete: async () => {
        throw new Error('connection terminated');
      },
    };
    const reported: unknown[][] = [];
    const { adapter } = recordingAdapter(async () => transfer('t1'));
    const pay = createPay(adapter, {
      idempotency: store,
      onStoreError: (error, failure) => reported.push([error, failure]),
    });
    expect((await pay.payments.create(INPUT, { idempotencyKey: 'order-12' })).id).toBe('t1');
    expect(reported).toHaveLength(1);
    expect(reported[0]?.[0]).toBeInstanceOf(StoreError);
    expect(reported[0]?.[1]).toEqual({
      operation: 'payments.create',
      idempotencyKey: 'order-12',
      step: 'complete',
    });
  });

  it('warns once on the console when recording fails and no onStoreError is given', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const store = {
        ...createMemoryIdempotencyStore(),
        complete: async () => {
          throw new Error('connection terminated');
        },
      };
      const pay = createPay(recordingAdapter(async () => transfer('t1')).adapter, { idempotency: store });
      await pay.payments.create(INPUT, { idempotencyKey: 'order-13' });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/idempotency store failed at complete/);
    } finally {
      warn.mockRestore();
    }
  });

  it('validates the input before touching the ledger, and the validation error carries the key', async () => {
    const store = countingStore();
    const { adapter, seen } = recordingAdapter(async () => transfer('t1'));
    const pay = createPay(adapter, { idempotency: store });
    const error = await pay.payments
      .create({ amount: -1, currency: 'EUR' }, { idempotencyKey: 'order-14' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).context).toEqual({ idempotencyKey: 'order-14' });
    expect(store.calls).toEqual([]);
    expect(seen).toEqual([]);
  });

  it.each([
    ['', 'must be 1 to 255 characters long'],
    ['x'.repeat(256), 'must be 1 to 255 characters long'],
    ['line\nbreak', 'must not contain control characters'],
    [42, 'must be a string'],
  ])('refuses the idempotency key %j before any I/O', async (key, message) => {
    const store = countingStore();
    const { adapter, seen } = recordingAdapter(async () => transfer('t1'));
    const pay = createPay(adapter, { idempotency: store });
    const error = await pay.payments
      .create(INPUT, { idempotencyKey: key as string })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([{ path: 'options.idempotencyKey', message }]);
    expect(store.calls).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('runs every call without a key, and reads with a key, straight through (no ledger)', async () => {
    const store = countingStore();
    const { adapter, seen } = recordingAdapter(async (call) => transfer(`t${call}`));
    const pay = createPay(adapter, { idempotency: store });
    await pay.payments.create(INPUT);
    await pay.payments.create(INPUT);
    await pay.payments.retrieve('t1', { idempotencyKey: 'read-1' });
    await pay.payments.retrieve('t1', { idempotencyKey: 'read-1' });
    expect(seen).toHaveLength(4);
    expect(store.calls).toEqual([]);
  });

  it('never lets a caller pass its own idempotency context to an operation', async () => {
    const { adapter, seen } = recordingAdapter(async () => transfer('t1'));
    const forged: IdempotencyContext = {
      key: 'x',
      recoveryPoint: { step: 'committed' },
      checkpoint: async () => {},
    };
    await createPay(adapter).payments.create(INPUT, { idempotency: forged } as never);
    await adapter.createPayment(INPUT, { idempotencyKey: 'direct', idempotency: forged } as never);
    expect(seen[0]?.idempotency).toBeUndefined();
    expect(seen[1]?.idempotency).toBeUndefined();
    expect(seen[1]?.idempotencyKey).toBe('direct');
  });

  it('wraps capture, cancel, refunds and checkouts too, keyed by operation', async () => {
    const calls: string[] = [];
    const adapter = ledgerAdapter({
      async capturePayment(id) {
        calls.push(`capture ${id}`);
        return transfer(id);
      },
      async cancelPayment(id) {
        calls.push(`cancel ${id}`);
        return transfer(id);
      },
      async createRefund(params) {
        calls.push(`refund ${params.payment_id}`);
        return {
          id: 'r1',
          payment_id: params.payment_id,
          amount: 5,
          currency: 'EUR',
          status: 'pending',
          provider: 'providerT',
          livemode: false,
          request_id: null,
          raw: {},
        } as never;
      },
      async createCheckout() {
        calls.push('checkout');
        return null;
      },
    });
    const pay = createPay(adapter);
    for (let round = 0; round < 2; round++) {
      await pay.payments.capture('p1', undefined, { idempotencyKey: 'cap-1' });
      await pay.payments.cancel('p2', { idempotencyKey: 'can-1' });
      await pay.refunds.create({ payment_id: 'p3', amount: 5 }, { idempotencyKey: 'ref-1' });
      await pay.checkouts.create({ amount: 5, currency: 'EUR' } as never, { idempotencyKey: 'chk-1' });
    }
    expect(calls).toEqual(['capture p1', 'cancel p2', 'refund p3', 'checkout']);
    // One key, two operations: the second is a different request.
    await expect(pay.payments.cancel('p1', { idempotencyKey: 'cap-1' })).rejects.toBeInstanceOf(
      IdempotencyKeyMismatchError,
    );
  });

  it('wraps an adapter not built by defineAdapter as well', async () => {
    const base = recordingAdapter(async (call) => transfer(`t${call}`));
    const seen: unknown[] = [];
    const foreign = {
      ...base.adapter,
      createPayment: async (_params: unknown, options: OperationContext) => {
        seen.push(options?.idempotency?.key);
        return transfer(`f${seen.length}`);
      },
    };
    const pay = createPay(foreign as typeof base.adapter);
    await pay.payments.create(INPUT, { idempotencyKey: 'foreign-1' });
    const again = await pay.payments.create(INPUT, { idempotencyKey: 'foreign-1' });
    expect(again.id).toBe('f1');
    expect(seen).toEqual(['foreign-1']);
  });
});

describe('createPay idempotency options', () => {
  const adapter = ledgerAdapter({});

  it('refuses a retention below 24 hours', () => {
    expect(() => createPay(adapter, { idempotencyRetentionSeconds: 3600 })).toThrow(ConfigurationError);
    expect(() => createPay(adapter, { idempotencyRetentionSeconds: 86_400 })).not.toThrow();
  });

  it('refuses a lease out of bounds', () => {
    expect(() => createPay(adapter, { idempotencyLeaseSeconds: 1 })).toThrow(ConfigurationError);
    expect(() => createPay(adapter, { idempotencyLeaseSeconds: 1.5 })).toThrow(ConfigurationError);
    expect(() => createPay(adapter, { idempotencyLeaseSeconds: 86_400 })).toThrow(ConfigurationError);
  });

  it('refuses something that is not an idempotency store', () => {
    const error = (() => {
      try {
        createPay(adapter, { idempotency: { begin() {} } as never });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as PayError).message).toMatch(/lacks checkpoint, complete, release, abandon, read/);
  });

  it('takes the lease and retention it was given to the store', async () => {
    const store = countingStore();
    const begin = vi.spyOn(store, 'begin');
    const pay = createPay(recordingAdapter(async () => transfer('t1')).adapter, {
      idempotency: store,
      idempotencyRetentionSeconds: 172_800,
      idempotencyLeaseSeconds: 30,
    });
    await pay.payments.create(INPUT, { idempotencyKey: 'opt-1' });
    expect(begin).toHaveBeenCalledWith('opt-1', expect.stringMatching(/^v1:payments\.create:[0-9a-f]{64}$/), {
      leaseSeconds: 30,
      retentionSeconds: 172_800,
    });
  });
});

describe('request fingerprints', () => {
  it('are SHA-256 over canonical JSON of the operation and input, naming the operation', async () => {
    expect(canonicalJson({ b: 1, a: { d: undefined, c: [2, { z: 1, y: 2 }] } })).toBe(
      '{"a":{"c":[2,{"y":2,"z":1}]},"b":1}',
    );
    const one = await fingerprintOf('payments.create', [{ amount: 1, currency: 'EUR' }]);
    expect(one).toBe(await fingerprintOf('payments.create', [{ currency: 'EUR', amount: 1 }]));
    expect(one).not.toBe(await fingerprintOf('refunds.create', [{ currency: 'EUR', amount: 1 }]));
    expect(one).toMatch(/^v1:payments\.create:[0-9a-f]{64}$/);
  });
});
