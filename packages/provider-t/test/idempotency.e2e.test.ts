/**
 * Idempotency keys end to end (docs/architecture.md#idempotency): `createPay` with the in-memory ledger over the
 * simulator. Each test breaks one call at one step (a lost reply, a dropped connection, a failing store: what a
 * crashed process leaves behind), calls again with the same key, and checks the simulator's books: money moved
 * once.
 */
import {
  createMemoryIdempotencyStore,
  createPay,
  type IdempotencyStore,
  type PayError,
  StoreError,
} from '@pay/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProviderT, type ProviderTConfig } from '../src/index.js';
import {
  generateProviderTKeyPair,
  type ProviderTSimulator,
  startProviderTSimulator,
} from '../src/testing/index.js';
import { transferMetadata } from './fixtures.js';

let sim: ProviderTSimulator;
const keyPair = generateProviderTKeyPair();

beforeEach(async () => {
  sim = await startProviderTSimulator({ keyPair });
});

afterEach(async () => {
  await sim.close();
});

const KEY = 'order-A-1001';
const paymentParams = {
  amount: 100,
  currency: 'USD',
  metadata: { orderId: 'A-1001' },
  provider_metadata: transferMetadata,
};

/** No automatic retry: each broken step surfaces as the failure of the first call. */
function adapter(overrides: Partial<ProviderTConfig> = {}) {
  return createProviderT({ ...sim.adapterConfig, retry: 0, ...overrides });
}

/** The in-memory ledger whose checkpoint at `failAt` fails once, as a store that went down for a moment. */
function storeFailingOnce(failAt: string): IdempotencyStore {
  const store = createMemoryIdempotencyStore();
  let failed = false;
  return {
    ...store,
    async checkpoint(key, lease, point) {
      if (!failed && (point as { step?: string }).step === failAt) {
        failed = true;
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
      }
      return store.checkpoint(key, lease, point);
    },
  };
}

async function failure(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (thrown: unknown) => thrown as PayError,
  );
}

/** What the books must show after a retried transfer: one quote, one committed transfer of 100 USD. */
function expectMovedOnce(transactionId: string) {
  expect(sim.quotes).toBe(1);
  expect(sim.committedTransfers).toBe(1);
  expect(sim.movements).toEqual([
    {
      kind: 'transfer',
      transactionId,
      amount: { value: 100, currencyCode: 'USD' },
      requestId: expect.any(String),
    },
  ]);
}

describe('a transfer retried with the same idempotency key moves money once', () => {
  it('commit landed but its reply was lost: the retry reads the status and returns the committed transfer', async () => {
    const pay = createPay(adapter());
    sim.faults.inject({ method: 'PUT', path: /\/commit$/, fault: { kind: 'drop-after' } });

    const lost = await failure(pay.payments.create(paymentParams, { idempotencyKey: KEY }));
    expect(lost.context).toMatchObject({ step: 'commit', outcome: 'unknown', idempotencyKey: KEY });
    const transactionId = lost.context?.transactionId as string;
    expect(sim.committedTransfers).toBe(1);

    const payment = await pay.payments.create(paymentParams, { idempotencyKey: KEY });

    expectMovedOnce(transactionId);
    expect(payment).toMatchObject({
      id: transactionId,
      status: 'succeeded',
      amount: 100,
      amount_paid: 100,
      currency: 'USD',
      metadata: { orderId: 'A-1001', referenceNumber: sim.transfer(transactionId)?.referenceNumber },
    });
    // And a third call returns the recorded result without calling the provider.
    const before = sim.requests.length;
    await expect(pay.payments.create(paymentParams, { idempotencyKey: KEY })).resolves.toEqual(payment);
    expect(sim.requests.length).toBe(before);
  });

  it('crash after the quote (update never answered): the retry updates and commits the same transfer', async () => {
    const pay = createPay(adapter());
    sim.faults.inject({
      method: 'PUT',
      path: /^\/transfer\/v1\/transactions\/[^/]+$/,
      fault: { kind: 'drop' },
    });

    const broken = await failure(pay.payments.create(paymentParams, { idempotencyKey: KEY }));
    expect(broken.context).toMatchObject({ step: 'update' });
    const transactionId = broken.context?.transactionId as string;
    expect(sim.committedTransfers).toBe(0);

    const payment = await pay.payments.create(paymentParams, { idempotencyKey: KEY });

    expectMovedOnce(transactionId);
    expect(payment).toMatchObject({
      id: transactionId,
      status: 'succeeded',
      metadata: { orderId: 'A-1001' },
    });
  });

  it('crash after the update (store down before the commit): nothing is committed, the retry commits once', async () => {
    const pay = createPay(adapter(), { idempotency: storeFailingOnce('commit_sent') });

    const stopped = await failure(pay.payments.create(paymentParams, { idempotencyKey: KEY }));
    expect(StoreError.isInstance(stopped)).toBe(true);
    expect(stopped.context).toMatchObject({ step: 'commit', outcome: 'not_sent' });
    expect(stopped.message).toContain('was quoted and updated but NOT committed');
    const transactionId = stopped.context?.transactionId as string;
    expect(sim.committedTransfers).toBe(0);
    expect(sim.requests.filter((request) => request.path.endsWith('/commit'))).toEqual([]);

    const payment = await pay.payments.create(paymentParams, { idempotencyKey: KEY });

    expectMovedOnce(transactionId);
    expect(payment).toMatchObject({ id: transactionId, status: 'succeeded' });
  });

  it('crash after commit_sent before the commit reached Provider T: the retry commits once', async () => {
    const pay = createPay(adapter());
    sim.faults.inject({ method: 'PUT', path: /\/commit$/, fault: { kind: 'drop' } });

    const broken = await failure(pay.payments.create(paymentParams, { idempotencyKey: KEY }));
    const transactionId = broken.context?.transactionId as string;
    expect(sim.committedTransfers).toBe(0);

    const payment = await pay.payments.create(paymentParams, { idempotencyKey: KEY });

    expectMovedOnce(transactionId);
    expect(payment).toMatchObject({ id: transactionId, status: 'succeeded' });
    expect(payment.metadata.receiptUrl).toMatch(/\/receipts\//);
  });

  it('a lost quote reply: the retry sends the same quote request id and Provider T replays the same transaction', async () => {
    const pay = createPay(adapter());
    sim.faults.inject({
      method: 'POST',
      path: '/transfer/v1/transactions/quote',
      fault: { kind: 'drop-after' },
    });

    await failure(pay.payments.create(paymentParams, { idempotencyKey: KEY }));
    expect(sim.quotes).toBe(1);

    const payment = await pay.payments.create(paymentParams, { idempotencyKey: KEY });

    expectMovedOnce(payment.id);
    expect(sim.replays).toBeGreaterThanOrEqual(1);
  });

  it('checkouts too: a lost commit reply, then the same key, gives the Checkout of the one transfer', async () => {
    const pay = createPay(adapter());
    const params = {
      item_id: 'remittance',
      provider_metadata: { ...transferMetadata, amount: 100, currency: 'USD' },
    };
    sim.faults.inject({ method: 'PUT', path: /\/commit$/, fault: { kind: 'drop-after' } });

    const lost = await failure(pay.checkouts.create(params, { idempotencyKey: KEY }));
    const transactionId = lost.context?.transactionId as string;
    const checkout = await pay.checkouts.create(params, { idempotencyKey: KEY });

    expectMovedOnce(transactionId);
    expect(checkout).toMatchObject({ id: transactionId, amount: 100, currency: 'USD' });
  });
});

describe('a refund retried with the same idempotency key refunds once', () => {
  it('refund commit landed, reply lost: the retry reads the status and returns the Refund', async () => {
    const pay = createPay(adapter());
    const payment = await pay.payments.create(paymentParams);
    sim.faults.inject({ method: 'PUT', path: /^\/refund\/.*\/commit$/, fault: { kind: 'drop-after' } });

    const lost = await failure(
      pay.refunds.create({ payment_id: payment.id }, { idempotencyKey: 'refund-1' }),
    );
    expect(lost.context).toMatchObject({ step: 'refund_commit', outcome: 'unknown' });
    const refund = await pay.refunds.create({ payment_id: payment.id }, { idempotencyKey: 'refund-1' });

    expect(sim.refunds).toHaveLength(1);
    expect(sim.movements.filter((movement) => movement.kind === 'refund')).toHaveLength(1);
    expect(refund).toMatchObject({
      id: sim.refunds[0]?.refundId,
      payment_id: payment.id,
      amount: 100,
      currency: 'USD',
      status: 'succeeded',
    });
  });

  it('store down before the refund commit: nothing refunded; the retry refunds once', async () => {
    const pay = createPay(adapter(), { idempotency: storeFailingOnce('commit_sent') });
    const payment = await pay.payments.create(paymentParams);

    const stopped = await failure(
      pay.refunds.create({ payment_id: payment.id }, { idempotencyKey: 'refund-2' }),
    );
    expect(StoreError.isInstance(stopped)).toBe(true);
    expect(sim.refunds).toHaveLength(0);

    const refund = await pay.refunds.create({ payment_id: payment.id }, { idempotencyKey: 'refund-2' });
    expect(sim.refunds).toHaveLength(1);
    expect(refund.payment_id).toBe(payment.id);
  });
});

describe('pay.resolve on Provider T', () => {
  it('finds the transfer behind an unknown-outcome error, and proves nothing for an unknown transaction', async () => {
    const pay = createPay(adapter());
    sim.faults.inject({ method: 'PUT', path: /\/commit$/, fault: { kind: 'drop-after' } });
    const lost = await failure(pay.payments.create(paymentParams, { idempotencyKey: KEY }));

    const found = await pay.resolve(lost);
    expect(found).toMatchObject({
      status: 'found',
      record: { id: lost.context?.transactionId, status: 'succeeded' },
    });
    // An error of the update: no commit was sent, so an unknown transaction proves nothing moved.
    const quotedOnly = await adapter().resolve?.({
      operation: 'payments.create',
      context: { transactionId: '00000000-0000-4000-8000-000000000000', step: 'update' },
    });
    expect(quotedOnly).toBeNull();
  });
});

describe('the simulator', () => {
  it('refuses a request id that is not a UUID, as the wire contract requires', async () => {
    const token = await fetch(`${sim.url}/oauth/accesstoken?grant_type=client_credentials`, {
      headers: {
        authorization: `Basic ${btoa(`${sim.credentials.clientId}:${sim.credentials.clientSecret}`)}`,
      },
    }).then((response) => response.json() as Promise<{ access_token: string }>);
    const response = await fetch(`${sim.url}/transfer/v1/transactions/quote`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token.access_token}`,
        'x-client-request-id': 'order-A-1001:quote',
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ errors: [{ code: 'INVALID_REQUEST_ID' }] });
    expect(sim.quotes).toBe(0);
  });
});
