/**
 * Idempotency keys for Provider R, end to end through `createPay` and the in-memory ledger against the simulator
 * (docs/architecture.md#idempotency): Provider R has no idempotency of its own and no lookup by merchant
 * reference, so the ledger is the mechanism. The books of the simulator are the proof: a key never creates or
 * refunds twice.
 */
import {
  createMemoryIdempotencyStore,
  createPay,
  type IdempotencyStore,
  NetworkError,
  StoreError,
} from '@pay/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProviderR, idempotencyRefId, type ProviderRAdapter } from '../src/index.js';
import { type ProviderRSimulator, startProviderRSimulator } from '../src/testing/index.js';
import { rejectionOf } from './fixtures.js';

let simulator: ProviderRSimulator;

beforeEach(async () => {
  simulator = await startProviderRSimulator();
});
afterEach(async () => {
  await simulator.close();
});

function adapterFor(target: ProviderRSimulator, retry = 1): ProviderRAdapter {
  return createProviderR({ ...target.credentials, isSandbox: true, baseUrl: target.url, retry });
}

const paymentParams = {
  customer: { id: 'cust_42' },
  // 100.00 CZK: the simulator holds the wire price, 10000 minor units.
  amount: 100,
  metadata: { cart: 'c-9' },
  provider_metadata: { email: 'payer@example.com' },
};
const checkoutParams = {
  customer: { email: 'payer@example.com' },
  amount: 250,
  currency: 'CZK',
  success_url: 'https://shop.example/paid',
  cancel_url: 'https://shop.example/cancelled',
};

const sentTo = (path: string) => simulator.requests.filter((request) => request.path === path);

/** The in-memory ledger, with its `checkpoint` failing as a store that went down would. */
function storeFailingAtCheckpoint(): IdempotencyStore {
  const store = createMemoryIdempotencyStore();
  return {
    ...store,
    checkpoint: async () => {
      throw new Error('connection refused');
    },
  };
}

/**
 * The in-memory ledger of a process that crashed after the provider's reply and before recording the result:
 * `complete` leaves the entry as an abandoned attempt (recovery point kept), as the next process finds it.
 */
function storeCrashingBeforeComplete(): IdempotencyStore {
  const store = createMemoryIdempotencyStore();
  return {
    ...store,
    complete: (key, lease) => store.abandon(key, lease),
  };
}

function expectUnknownCreation(error: unknown, context: Record<string, unknown>) {
  expect(NetworkError.isInstance(error), String(error)).toBe(true);
  expect(error).toMatchObject({ outcome: 'unknown', context: expect.objectContaining(context) });
  const message = (error as Error).message;
  expect(message).toContain(`refId ${String(context.refId)}`);
  expect(message).toMatch(/portal/);
  expect(message).toMatch(/new idempotency key only once/);
  expect(message).not.toMatch(/safe to (send|call|retry)/i);
}

describe('Provider R idempotency keys against the simulator (the ledger is the mechanism)', () => {
  it('a payment whose reply was lost is never created again by a retry with the same key: one transaction, a typed unknown outcome naming the refId', async () => {
    const pay = createPay(adapterFor(simulator));
    const key = 'order-7-payment';
    const refId = await idempotencyRefId(key);
    simulator.faults.inject({
      method: 'POST',
      path: '/v2.0/payment',
      times: 1,
      fault: { kind: 'drop-after' },
    });

    const lost = await rejectionOf(pay.payments.create(paymentParams, { idempotencyKey: key }));
    expect(lost).toMatchObject({ outcome: 'unknown', context: { refId, idempotencyKey: key } });
    expect(simulator.transactions).toHaveLength(1);
    expect(simulator.transactions[0]).toMatchObject({ refId, payerId: 'cust_42', price: 10000 });

    const retried = await rejectionOf(pay.payments.create(paymentParams, { idempotencyKey: key }));
    expectUnknownCreation(retried, { refId, idempotencyKey: key, resumedFrom: 'create_sent' });
    // Nothing was sent again: one creation request, one transaction in the provider's books.
    expect(sentTo('/v2.0/payment')).toHaveLength(1);
    expect(simulator.transactions).toHaveLength(1);

    // The ledger alone cannot tell what the lost attempt did: resolve says so instead of "not found".
    await expect(pay.resolve(key)).resolves.toMatchObject({ status: 'unknown' });
    await expect(pay.resolve(retried)).resolves.toMatchObject({ status: 'unknown' });
  });

  it('a checkout whose reply was lost is not opened again by a retry with the same key', async () => {
    const pay = createPay(adapterFor(simulator));
    const key = 'order-8-checkout';
    const refId = await idempotencyRefId(key);
    const path = `/v2.0/paymentRedirect/merchant/${simulator.credentials.merchant}`;
    simulator.faults.inject({ method: 'POST', path, times: 1, fault: { kind: 'drop-after' } });

    await rejectionOf(pay.checkouts.create(checkoutParams, { idempotencyKey: key }));
    const retried = await rejectionOf(pay.checkouts.create(checkoutParams, { idempotencyKey: key }));
    expectUnknownCreation(retried, { refId, idempotencyKey: key });
    expect(sentTo(path)).toHaveLength(1);
    expect(simulator.transactions).toHaveLength(1);
    expect(simulator.transactions[0]).toMatchObject({ kind: 'checkout', refId });
  });

  it('a refund whose reply was lost is not refunded again by a retry with the same key', async () => {
    const pay = createPay(adapterFor(simulator));
    const payment = await pay.payments.create(paymentParams);
    simulator.pay(payment.id);
    const key = 'order-7-refund-1';
    const refId = await idempotencyRefId(key);
    simulator.faults.inject({
      method: 'POST',
      path: '/v2.0/refund.json',
      times: 1,
      fault: { kind: 'drop-after' },
    });

    await rejectionOf(pay.refunds.create({ payment_id: payment.id, amount: 30 }, { idempotencyKey: key }));
    const retried = await rejectionOf(
      pay.refunds.create({ payment_id: payment.id, amount: 30 }, { idempotencyKey: key }),
    );
    expectUnknownCreation(retried, { refId, transId: payment.id, idempotencyKey: key });
    expect(sentTo('/v2.0/refund.json')).toHaveLength(1);
    expect(simulator.refunds).toHaveLength(1);
    expect(simulator.refunds[0]).toMatchObject({ transId: payment.id, amount: 3000, refId });
  });

  it('a store that cannot record the checkpoint stops the creation before anything is sent', async () => {
    const pay = createPay(adapterFor(simulator), { idempotency: storeFailingAtCheckpoint() });
    const error = await rejectionOf(pay.payments.create(paymentParams, { idempotencyKey: 'order-9' }));
    expect(StoreError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'store_unavailable',
      step: 'checkpoint',
      context: { refId: await idempotencyRefId('order-9'), idempotencyKey: 'order-9', sent: false },
    });
    expect((error as Error).message).toMatch(/nothing was sent/i);
    expect(sentTo('/v2.0/payment')).toHaveLength(0);
    expect(simulator.transactions).toHaveLength(0);

    const payment = await createPay(adapterFor(simulator)).payments.create(paymentParams);
    simulator.pay(payment.id);
    const refund = await rejectionOf(
      pay.refunds.create({ payment_id: payment.id }, { idempotencyKey: 'order-9-refund' }),
    );
    expect(refund).toMatchObject({
      code: 'store_unavailable',
      context: { transId: payment.id, sent: false },
    });
    expect(sentTo('/v2.0/refund.json')).toHaveLength(0);
    expect(simulator.refunds).toHaveLength(0);
  });

  it('a completed key returns the recorded payment without calling the provider, and its refId derives from the key', async () => {
    const pay = createPay(adapterFor(simulator));
    const key = 'order-10';
    const first = await pay.payments.create(paymentParams, { idempotencyKey: key });
    expect(simulator.transaction(first.id)).toMatchObject({ refId: await idempotencyRefId(key) });
    const before = simulator.requests.length;

    await expect(pay.payments.create(paymentParams, { idempotencyKey: key })).resolves.toEqual(first);
    expect(simulator.requests).toHaveLength(before);
    expect(simulator.transactions).toHaveLength(1);
    await expect(pay.resolve(key)).resolves.toEqual({ status: 'found', record: first, source: 'ledger' });
  });

  it('a process that crashed after the reply: the retry with the key returns the created payment, with no second creation', async () => {
    const store = storeCrashingBeforeComplete();
    const pay = createPay(adapterFor(simulator), { idempotency: store });
    const key = 'order-11';
    const first = await pay.payments.create(paymentParams, { idempotencyKey: key });
    const again = await pay.payments.create(paymentParams, { idempotencyKey: key });
    expect(again).toEqual(first);
    expect(sentTo('/v2.0/payment')).toHaveLength(1);
    expect(simulator.transactions).toHaveLength(1);

    // resolve reads the transaction the recovery point names.
    simulator.pay(first.id);
    await expect(pay.resolve(key)).resolves.toMatchObject({
      status: 'found',
      source: 'provider',
      record: { id: first.id, status: 'succeeded', amount_paid: 100 },
    });
  });

  it('a capture whose reply was lost: the retry with the key reads the status and returns the captured payment; resolve finds it', async () => {
    const pay = createPay(adapterFor(simulator, 0));
    const payment = await pay.payments.create(paymentParams);
    simulator.authorize(payment.id);
    const path = `/v2.0/preauth/transId/${payment.id}.json`;
    simulator.faults.inject({ method: 'PUT', path, times: 1, fault: { kind: 'drop-after' } });

    const lost = await rejectionOf(
      pay.payments.capture(payment.id, { amount: 100 }, { idempotencyKey: 'cap-1' }),
    );
    expect(lost).toMatchObject({ outcome: 'unknown' });
    await expect(pay.resolve('cap-1')).resolves.toMatchObject({
      status: 'found',
      record: { id: payment.id, status: 'succeeded', amount_paid: 100 },
    });
    await expect(
      pay.payments.capture(payment.id, { amount: 100 }, { idempotencyKey: 'cap-1' }),
    ).resolves.toMatchObject({ id: payment.id, status: 'succeeded' });
    expect(simulator.requests.filter((request) => request.method === 'PUT')).toHaveLength(1);
  });

  it('a cancel whose reply was lost: resolve finds the cancelled payment by the transId of the recovery point', async () => {
    const pay = createPay(adapterFor(simulator, 0));
    const payment = await pay.payments.create(paymentParams);
    const path = `/v2.0/payment/transId/${payment.id}.json`;
    simulator.faults.inject({ method: 'DELETE', path, times: 1, fault: { kind: 'drop-after' } });

    await rejectionOf(pay.payments.cancel(payment.id, { idempotencyKey: 'cancel-1' }));
    await expect(pay.resolve('cancel-1')).resolves.toMatchObject({
      status: 'found',
      record: { id: payment.id, status: 'canceled' },
    });
  });

  it('resolve with only a key whose creation is unknown, or a refund, cannot tell; an unknown transId is not found', async () => {
    const pay = createPay(adapterFor(simulator));
    await expect(
      pay.adapter.resolve?.({
        operation: 'payments.create',
        idempotencyKey: 'k',
        context: { refId: 'idem-x' },
      }),
    ).resolves.toBeUndefined();
    await expect(
      pay.adapter.resolve?.({ operation: 'payments.create', context: { transId: 'NOPE-0000-0000' } }),
    ).resolves.toBeNull();
    const payment = await pay.payments.create(paymentParams);
    await expect(
      pay.adapter.resolve?.({ operation: 'payments.create', context: { transId: payment.id } }),
    ).resolves.toMatchObject({ id: payment.id, status: 'pending', amount: 100 });
    await expect(
      pay.adapter.resolve?.({ operation: 'refunds.create', context: { transId: payment.id, refId: 'RF-1' } }),
    ).resolves.toBeUndefined();
  });
});
