/**
 * Provider N: idempotency keys end to end against the simulator (docs/architecture.md#idempotency). The key
 * becomes the paymentReference / refundReference; a call repeated with the same key after its reply was lost
 * resolves to what the provider already holds, and money moves once. Also: the simulator refuses a reused
 * reference as the provider documents and answers the reads by reference that `resolve` uses.
 */
import { createHash } from 'node:crypto';
import {
  createMemoryIdempotencyStore,
  createPay,
  type IdempotencyStore,
  NetworkError,
  ProviderApiError,
} from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProviderN, type ProviderNConfig } from '../src/index.js';
import { type ProviderNSimulator, startProviderNSimulator } from '../src/testing/index.js';

let simulator: ProviderNSimulator;

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

beforeEach(async () => {
  simulator = await startProviderNSimulator();
});

afterEach(async () => {
  await simulator.close();
});

function adapterFor(sim: ProviderNSimulator, overrides: Partial<ProviderNConfig> = {}) {
  return createProviderN({
    apiKey: sim.credentials.apiKey,
    secretKey: sim.credentials.secretKey,
    isSandbox: true,
    contractCode: sim.credentials.contractCode,
    baseUrl: sim.url,
    retry: 1,
    ...overrides,
  });
}

/** The reference the README documents for a key: `idem-` + the first 31 hex digits of SHA-256(key). */
function referenceFor(key: string): string {
  return `idem-${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 31)}`;
}

const checkoutParams = {
  customer: { email: 'ada@example.com' },
  item_id: 'blue-mug',
  quantity: 1,
  success_url: 'https://shop.example/thanks',
  metadata: { orderId: '1001' },
  provider_metadata: { amount: 5000, currency: 'NGN', customerName: 'Ada Obi' },
};

/** A raw API session on the simulator: a Bearer token and `call(method, path, body?)`. */
async function rawSession(sim: ProviderNSimulator) {
  const basic = Buffer.from(`${sim.credentials.apiKey}:${sim.credentials.secretKey}`).toString('base64');
  const login = await fetch(`${sim.url}/v1/auth/login`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}` },
  });
  const { responseBody } = (await login.json()) as { responseBody: { accessToken: string } };
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${sim.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${responseBody.accessToken}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
}

/** A paid transaction in the simulator, opened through the adapter without a key. */
async function paidTransaction(amount = 5000): Promise<string> {
  const checkout = await adapterFor(simulator).createCheckout({
    ...checkoutParams,
    provider_metadata: { ...checkoutParams.provider_metadata, amount },
  });
  simulator.complete(checkout.id);
  return checkout.id;
}

describe('the simulator keeps references unique, as the provider does', () => {
  it('refuses a reused paymentReference with the published 422 / 99 "Duplicate payment reference"', async () => {
    const call = await rawSession(simulator);
    const init = () =>
      call('POST', '/v1/merchant/transactions/init-transaction', {
        amount: 100,
        currencyCode: 'NGN',
        contractCode: simulator.credentials.contractCode,
        customerEmail: 'ada@example.com',
        paymentReference: 'order-1001',
        paymentDescription: 'Mug',
      });
    expect((await init()).status).toBe(200);
    expect(await init()).toEqual({
      status: 422,
      json: { requestSuccessful: false, responseMessage: 'Duplicate payment reference', responseCode: '99' },
    });
    expect(simulator.books.transactions).toHaveLength(1);
  });

  it('refuses a reused refundReference with R9, even for an identical refund, and moves the money once', async () => {
    const transactionReference = await paidTransaction();
    const call = await rawSession(simulator);
    const refund = () =>
      call('POST', '/v1/refunds/initiate-refund', {
        transactionReference,
        refundReference: 'refund-1001',
        refundAmount: 1000,
        refundReason: 'Damaged',
      });
    expect((await refund()).status).toBe(200);
    expect(await refund()).toEqual({
      status: 400,
      json: {
        requestSuccessful: false,
        responseMessage: 'Supplied refund reference already exists for the merchant.',
        responseCode: 'R9',
      },
    });
    expect(simulator.books.refunds).toHaveLength(1);
    expect(simulator.books.balance).toBe(10_000_000 - 1000);
    expect(simulator.books.transactions[0]?.refundableAmount).toBe(4000);
  });

  it('reads a transaction by paymentReference (the published v1 query), 404 / 99 when unknown', async () => {
    const transactionReference = await paidTransaction();
    const { paymentReference } = simulator.books.transactions[0] ?? {};
    const call = await rawSession(simulator);
    const found = await call(
      'GET',
      `/v1/merchant/transactions/query?paymentReference=${encodeURIComponent(String(paymentReference))}`,
    );
    expect(found.status).toBe(200);
    expect(found.json.responseBody).toMatchObject({
      transactionReference,
      paymentReference,
      totalPayable: '5000.00',
    });
    const missing = await call('GET', '/v1/merchant/transactions/query?paymentReference=never-used');
    expect(missing).toMatchObject({ status: 404, json: { requestSuccessful: false, responseCode: '99' } });
  });

  it('reads a refund by refundReference (GET /v1/refunds/{ref}), R7 when unknown, Bearer required', async () => {
    const transactionReference = await paidTransaction();
    const call = await rawSession(simulator);
    await call('POST', '/v1/refunds/initiate-refund', {
      transactionReference,
      refundReference: 'refund/1 2',
      refundAmount: 1000,
      refundReason: 'Damaged',
    });
    const found = await call('GET', `/v1/refunds/${encodeURIComponent('refund/1 2')}`);
    expect(found).toEqual({
      status: 200,
      json: {
        requestSuccessful: true,
        responseMessage: 'success',
        responseCode: '0',
        responseBody: expect.objectContaining({
          refundReference: 'refund/1 2',
          transactionReference,
          refundAmount: 1000,
          refundStatus: 'IN_PROGRESS',
          refundReason: 'Damaged',
        }),
      },
    });
    expect(await call('GET', '/v1/refunds/never-used')).toEqual({
      status: 404,
      json: {
        requestSuccessful: false,
        responseMessage: 'No refund was initiated with the supplied refund reference.',
        responseCode: 'R7',
      },
    });
    const anonymous = await fetch(`${simulator.url}/v1/refunds/never-used`);
    expect(anonymous.status).toBe(401);
  });
});

describe('checkouts.create with an idempotency key', () => {
  it('sends the paymentReference derived from the key', async () => {
    await adapterFor(simulator).createCheckout(checkoutParams, { idempotencyKey: 'order-1001' });
    expect(simulator.books.transactions.map((transaction) => transaction.paymentReference)).toEqual([
      referenceFor('order-1001'),
    ]);
  });

  it('a repeat after a lost reply opens no second transaction and names the existing one', async () => {
    simulator.faults.inject({
      path: '/v1/merchant/transactions/init-transaction',
      fault: { kind: 'drop-after' },
    });
    const adapter = adapterFor(simulator);
    const lost = await adapter
      .createCheckout(checkoutParams, { idempotencyKey: 'order-1001' })
      .catch((thrown: unknown) => thrown);
    expect(NetworkError.isInstance(lost) && lost.outcome).toBe('unknown');

    const again = await adapter
      .createCheckout(checkoutParams, { idempotencyKey: 'order-1001' })
      .catch((thrown: unknown) => thrown);

    expect(simulator.books.transactions).toHaveLength(1);
    const existing = simulator.books.transactions[0];
    // The checkout URL went down with the lost reply and Provider N has no call that returns it: the repeat says
    // which transaction holds the key instead of inventing a URL or opening a second checkout. The checkout
    // exists under the key, so the refusal does not prove that nothing moved: outcome unknown keeps the key.
    expect(ProviderApiError.isInstance(again)).toBe(true);
    expect((again as ProviderApiError).outcome).toBe('unknown');
    expect(again).toMatchObject({
      context: {
        paymentReference: referenceFor('order-1001'),
        transactionReference: existing?.transactionReference,
        paymentStatus: 'PENDING',
      },
    });
    expect((again as Error).message).toContain(String(existing?.transactionReference));
    expect((again as Error).message).toContain('checkoutUrl');
  });

  it('a repeat after the result was not recorded returns the same checkout, URL included, one transaction', async () => {
    // The first process got the reply, then died before the ledger recorded the result: modelled by a store
    // whose `complete` only ends the lease, keeping the entry and the recovery point the adapter checkpointed.
    const inner = createMemoryIdempotencyStore();
    const store: IdempotencyStore = { ...inner, complete: (key, lease) => inner.abandon(key, lease) };
    const first = await createPay(adapterFor(simulator), { idempotency: store }).checkouts.create(
      checkoutParams,
      { idempotencyKey: 'order-1001' },
    );
    expect((await store.read('order-1001'))?.recoveryPoint).toEqual({
      transactionReference: first.id,
      checkoutUrl: first.checkoutUrl,
      expiresAt: first.expires_at,
    });

    const again = await createPay(adapterFor(simulator), { idempotency: store }).checkouts.create(
      checkoutParams,
      { idempotencyKey: 'order-1001' },
    );

    expect(simulator.books.transactions).toHaveLength(1);
    // The record of the repeat comes from the status read by paymentReference: that call's request id.
    const read = simulator.books.requests
      .filter((request) => request.path === '/v1/merchant/transactions/query')
      .at(-1);
    expect(again).toEqual({ ...first, raw: again.raw, request_id: read?.headers['x-request-id'] });
    expect(again.request_id).not.toBe(first.request_id);
  });

  it('the same key with another amount is refused and opens nothing', async () => {
    const adapter = adapterFor(simulator);
    await adapter.createCheckout(checkoutParams, { idempotencyKey: 'order-1001' });
    const error = await adapter
      .createCheckout(
        { ...checkoutParams, provider_metadata: { ...checkoutParams.provider_metadata, amount: 7000 } },
        { idempotencyKey: 'order-1001' },
      )
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect((error as ProviderApiError).outcome).toBeUndefined();
    expect((error as Error).message).toMatch(/NGN 5000.*NGN 7000/);
    expect(simulator.books.transactions).toHaveLength(1);
  });
});

describe('refunds.create with an idempotency key', () => {
  it('a repeat after a lost reply returns the refund the provider holds: money moves once', async () => {
    const transactionReference = await paidTransaction();
    simulator.faults.inject({ path: '/v1/refunds/initiate-refund', fault: { kind: 'drop-after' } });
    const adapter = adapterFor(simulator);
    const request = { payment_id: transactionReference, amount: 1000, reason: 'Damaged' };
    const lost = await adapter
      .createRefund(request, { idempotencyKey: 'refund-1001' })
      .catch((thrown: unknown) => thrown);
    expect(NetworkError.isInstance(lost) && lost.outcome).toBe('unknown');

    const refund = await adapter.createRefund(request, { idempotencyKey: 'refund-1001' });

    expect(refund).toMatchObject({
      provider: 'providerN',
      id: referenceFor('refund-1001'),
      payment_id: transactionReference,
      amount: 1000,
      currency: 'NGN',
      status: 'pending',
      reason: 'Damaged',
      livemode: false,
    });
    expect(simulator.books.refunds).toHaveLength(1);
    expect(simulator.books.balance).toBe(10_000_000 - 1000);
    expect(simulator.books.transactions[0]?.refundableAmount).toBe(4000);
  });

  it('the same key for another amount is refused, and nothing more is refunded', async () => {
    const transactionReference = await paidTransaction();
    const adapter = adapterFor(simulator);
    await adapter.createRefund(
      { payment_id: transactionReference, amount: 1000 },
      { idempotencyKey: 'refund-1001' },
    );
    const error = await adapter
      .createRefund({ payment_id: transactionReference, amount: 2000 }, { idempotencyKey: 'refund-1001' })
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect((error as ProviderApiError).outcome).toBeUndefined();
    expect(error).toMatchObject({ context: { refundReference: referenceFor('refund-1001') } });
    expect((error as Error).message).toMatch(/1000.*2000/);
    expect(simulator.books.refunds).toHaveLength(1);
    expect(simulator.books.balance).toBe(10_000_000 - 1000);
  });
});

describe('adapter.resolve', () => {
  it('finds the checkout and the refund a key opened, and proves a never-used key holds nothing', async () => {
    const adapter = adapterFor(simulator);
    const checkout = await adapter.createCheckout(checkoutParams, { idempotencyKey: 'order-1001' });
    simulator.complete(checkout.id);
    await adapter.createRefund({ payment_id: checkout.id, amount: 1000 }, { idempotencyKey: 'refund-1001' });
    const resolve = adapter.resolve;
    if (!resolve) throw new Error('the adapter has no resolve');

    await expect(
      resolve({ operation: 'checkouts.create', idempotencyKey: 'order-1001' }),
    ).resolves.toMatchObject({
      id: checkout.id,
      amount: 5000,
      currency: 'NGN',
      customer: { email: 'ada@example.com' },
    });
    await expect(
      resolve({ operation: 'refunds.create', idempotencyKey: 'refund-1001' }),
    ).resolves.toMatchObject({
      id: referenceFor('refund-1001'),
      payment_id: checkout.id,
      amount: 1000,
      status: 'pending',
    });
    await expect(
      resolve({ operation: 'checkouts.create', idempotencyKey: 'order-9999' }),
    ).resolves.toBeNull();
    await expect(resolve({ operation: 'refunds.create', idempotencyKey: 'refund-9999' })).resolves.toBeNull();
  });

  it('answers from the context of an error with outcome unknown (no key)', async () => {
    const transactionReference = await paidTransaction();
    simulator.faults.inject({ path: '/v1/refunds/initiate-refund', fault: { kind: 'drop-after' } });
    const adapter = adapterFor(simulator);
    const lost = (await adapter
      .createRefund({ payment_id: transactionReference, amount: 1000 })
      .catch((thrown: unknown) => thrown)) as NetworkError;
    expect(lost.outcome).toBe('unknown');
    await expect(
      adapter.resolve?.({ operation: 'refunds.create', ...(lost.context ? { context: lost.context } : {}) }),
    ).resolves.toMatchObject({ id: lost.context?.refundReference, amount: 1000 });
  });

  it('pay.resolve(error) finds the refund a lost reply hid (no key)', async () => {
    const transactionReference = await paidTransaction();
    simulator.faults.inject({ path: '/v1/refunds/initiate-refund', fault: { kind: 'drop-after' } });
    const pay = createPay(adapterFor(simulator));
    const lost = await pay.refunds
      .create({ payment_id: transactionReference, amount: 1000 })
      .catch((thrown: unknown) => thrown);
    await expect(pay.resolve(lost)).resolves.toMatchObject({
      status: 'found',
      record: {
        id: simulator.books.refunds[0]?.refundReference,
        payment_id: transactionReference,
        amount: 1000,
      },
    });
  });

  it('cannot tell without a key or a reference, nor for an operation Provider N does not perform', async () => {
    const adapter = adapterFor(simulator);
    await expect(adapter.resolve?.({ operation: 'refunds.create' })).resolves.toBeUndefined();
    await expect(
      adapter.resolve?.({ operation: 'payments.capture', idempotencyKey: 'k-1' }),
    ).resolves.toBeUndefined();
    expect(simulator.books.requests).toHaveLength(0);
  });
});

describe('through createPay', () => {
  it('a create whose reply was lost, repeated with the same key: one refund in the books, the same record', async () => {
    const transactionReference = await paidTransaction();
    const pay = createPay(adapterFor(simulator));
    simulator.faults.inject({ path: '/v1/refunds/initiate-refund', fault: { kind: 'drop-after' } });
    const request = { payment_id: transactionReference, amount: 1000 };
    const lost = await pay.refunds
      .create(request, { idempotencyKey: 'refund-1001' })
      .catch((thrown: unknown) => thrown);
    expect(NetworkError.isInstance(lost) && lost.outcome).toBe('unknown');

    const first = await pay.refunds.create(request, { idempotencyKey: 'refund-1001' });
    const second = await pay.refunds.create(request, { idempotencyKey: 'refund-1001' });

    expect(first).toMatchObject({
      id: referenceFor('refund-1001'),
      payment_id: transactionReference,
      amount: 1000,
    });
    expect(second).toEqual(first);
    expect(simulator.books.refunds).toHaveLength(1);
    expect(simulator.books.balance).toBe(10_000_000 - 1000);
  });

  it('a checkout whose reply was lost: the repeat opens nothing more, and pay.resolve(key) finds it', async () => {
    const pay = createPay(adapterFor(simulator));
    simulator.faults.inject({
      path: '/v1/merchant/transactions/init-transaction',
      fault: { kind: 'drop-after' },
    });
    await pay.checkouts.create(checkoutParams, { idempotencyKey: 'order-1001' }).catch(() => undefined);
    await pay.checkouts.create(checkoutParams, { idempotencyKey: 'order-1001' }).catch(() => undefined);
    expect(simulator.books.transactions).toHaveLength(1);

    // The repeat's answer ("exists, but its URL is lost") proves nothing new moved, so the ledger let the key go:
    // resolve is told the operation to ask the provider about.
    const found = await pay.resolve('order-1001', { operation: 'checkouts.create' });
    expect(found).toMatchObject({
      status: 'found',
      source: 'provider',
      record: { id: simulator.books.transactions[0]?.transactionReference, amount: 5000, currency: 'NGN' },
    });

    // A call dropped before the provider handled it: its outcome is unknown to the caller, resolve proves it.
    simulator.faults.inject({ path: '/v1/merchant/transactions/init-transaction', fault: { kind: 'drop' } });
    const dropped = await pay.checkouts
      .create(checkoutParams, { idempotencyKey: 'order-1002' })
      .catch((thrown: unknown) => thrown);
    expect(NetworkError.isInstance(dropped) && dropped.outcome).toBe('unknown');
    const nothing = await (pay as unknown as { resolve(key: string): Promise<unknown> }).resolve(
      'order-1002',
    );
    expect(nothing).toEqual({ status: 'not_found' });
    expect(simulator.books.transactions).toHaveLength(1);
  });
});
