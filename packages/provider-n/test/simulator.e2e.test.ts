import { createPay, InvalidResponseError, NetworkError, ProviderApiError, toNodeListener } from '@pay/core';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import nock from 'nock';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProviderN, type ProviderNConfig } from '../src/index.js';
import {
  type ProviderNSimulator,
  providerNWebhookRequest,
  startProviderNSimulator,
} from '../src/testing/index.js';

let simulator: ProviderNSimulator;
const servers: LoopbackServer[] = [];

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

beforeEach(async () => {
  simulator = await startProviderNSimulator();
});

afterEach(async () => {
  await simulator.close();
  await Promise.all(servers.splice(0).map((server) => server.close()));
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

const checkoutParams = {
  customer: { email: 'ada@example.com' },
  item_id: 'blue-mug',
  quantity: 1,
  success_url: 'https://shop.example/thanks',
  metadata: { orderId: '1001' },
  provider_metadata: { amount: 5000, currency: 'NGN', customerName: 'Ada Obi' },
};

/** A paid checkout in the simulator, created through the adapter. */
async function paidCheckout(adapter = adapterFor(simulator), amount = 5000) {
  const checkout = await adapter.createCheckout({
    ...checkoutParams,
    provider_metadata: { ...checkoutParams.provider_metadata, amount },
  });
  simulator.complete(checkout.id);
  return checkout;
}

describe('end to end against the simulator', () => {
  it('checkout → payer pays → signed webhook through the Node bridge → callbacks once → refund', async () => {
    const pay = createPay(adapterFor(simulator));
    const seen = { created: [] as string[], raw: [] as string[], refunds: [] as string[] };
    const handler = pay.webhooks
      .setup({ webhookSecret: simulator.credentials.webhookSecret })
      .on('payment.created', (event) => {
        seen.created.push(`${event.data.id}:${event.data.status}:${event.data.amount}`);
      })
      .on('providerN.SUCCESSFUL_TRANSACTION', (event) => {
        seen.raw.push(event.data.transactionReference);
      })
      .on('refund.created', (event) => {
        seen.refunds.push(`${event.data.id}:${event.data.status}:${event.data.amount}`);
      });
    const endpoint = await startLoopbackServer(toNodeListener(handler));
    servers.push(endpoint);

    const checkout = await pay.checkouts.create(checkoutParams);
    expect(checkout.checkoutUrl).toBe(`${simulator.url}/checkout/${encodeURIComponent(checkout.id)}`);
    expect(checkout.payment_url).toBe(checkout.checkoutUrl);
    expect(await pay.payments.retrieve(checkout.id)).toMatchObject({ status: 'pending', amount: 5000 });
    const page = await fetch(checkout.checkoutUrl);
    expect(page.status).toBe(200);
    await page.arrayBuffer();

    const paid = simulator.complete(checkout.id);
    expect(
      await simulator.deliverWebhook(`${endpoint.url}/webhooks/provider-n`, {
        eventType: 'SUCCESSFUL_TRANSACTION',
        eventData: paid,
      }),
    ).toBe(200);
    expect(seen.created).toEqual([`${checkout.id}:succeeded:5000`]);
    expect(seen.raw).toEqual([checkout.id]);

    expect(await pay.payments.retrieve(checkout.id)).toMatchObject({
      id: checkout.id,
      status: 'succeeded',
      amount: 5000,
      amount_paid: 5000,
      currency: 'NGN',
      customer: { email: 'ada@example.com' },
      metadata: { orderId: '1001', paymentStatus: 'PAID' },
      livemode: false,
    });
    expect(await pay.checkouts.retrieve(checkout.id)).toMatchObject({ id: checkout.id, amount: 5000 });

    const refund = await pay.refunds.create({
      payment_id: checkout.id,
      amount: 1500.5,
      reason: 'Damaged item',
    });
    expect(refund).toMatchObject({
      payment_id: checkout.id,
      amount: 1500.5,
      status: 'pending',
      currency: 'NGN',
    });
    const done = simulator.completeRefund(refund.id);
    expect(
      await simulator.deliverWebhook(`${endpoint.url}/webhooks/provider-n`, {
        eventType: 'SUCCESSFUL_REFUND',
        eventData: done,
      }),
    ).toBe(200);
    expect(seen.refunds).toEqual([`${refund.id}:succeeded:1500.5`]);

    const { books } = simulator;
    expect(books.logins).toBe(1);
    expect(books.transactions).toHaveLength(1);
    expect(books.transactions[0]).toMatchObject({
      paymentStatus: 'PAID',
      amount: 5000,
      refundableAmount: 3499.5,
      customerName: 'Ada Obi',
      contractCode: simulator.credentials.contractCode,
      redirectUrl: 'https://shop.example/thanks',
    });
    expect(books.refunds).toEqual([
      expect.objectContaining({
        refundReference: refund.id,
        refundAmount: 1500.5,
        refundStatus: 'COMPLETED',
      }),
    ]);
    expect(books.balance).toBe(10_000_000 - 1500.5);
  });

  it('answers a redelivered webhook with 200 and the same event ids; a bad signature with 400 and no callback', async () => {
    const callback = vi.fn();
    const handler = createPay(adapterFor(simulator))
      .webhooks.setup({ webhookSecret: simulator.credentials.webhookSecret })
      .on('payment.created', callback);
    const endpoint = await startLoopbackServer(toNodeListener(handler));
    servers.push(endpoint);
    const checkout = await adapterFor(simulator).createCheckout(checkoutParams);
    const payload = { eventType: 'SUCCESSFUL_TRANSACTION', eventData: simulator.complete(checkout.id) };
    expect(await simulator.deliverWebhook(endpoint.url, payload, { signature: 'ab'.repeat(64) })).toBe(400);
    expect(callback).not.toHaveBeenCalled();
    expect(await simulator.deliverWebhook(endpoint.url, payload)).toBe(200);
    expect(await simulator.deliverWebhook(endpoint.url, payload)).toBe(200);
    expect(callback).toHaveBeenCalledTimes(2);
    expect(callback.mock.calls[0]?.[0].id).toBe(callback.mock.calls[1]?.[0].id);
  });

  it('normalises a SETTLEMENT built by the simulator into one payment.updated per transaction', async () => {
    const first = await paidCheckout();
    const second = await paidCheckout(adapterFor(simulator), 2500.25);
    const settlement = simulator.settle([first.id, second.id]);
    const handler = createPay(adapterFor(simulator)).webhooks.setup({
      webhookSecret: simulator.credentials.webhookSecret,
    });
    const updated: [string, number][] = [];
    handler.on('payment.updated', (event) => {
      updated.push([event.data.id, event.data.amount]);
    });
    const endpoint = await startLoopbackServer(toNodeListener(handler));
    servers.push(endpoint);
    expect(
      await simulator.deliverWebhook(endpoint.url, { eventType: 'SETTLEMENT', eventData: settlement }),
    ).toBe(200);
    expect(updated).toEqual([
      [first.id, 5000],
      [second.id, 2500.25],
    ]);
  });

  it('a rejected under-payment delivered by the simulator (published shape) is payment.failed with nothing held', async () => {
    const checkout = await adapterFor(simulator).createCheckout(checkoutParams);
    const rejected = simulator.rejectPayment(checkout.id, { amountSent: 40 });
    expect(typeof rejected.metaData).toBe('string');
    const handler = createPay(adapterFor(simulator)).webhooks.setup({
      webhookSecret: simulator.credentials.secretKey,
    });
    const failed: unknown[] = [];
    handler.on('payment.failed', (event) => {
      failed.push(event.data);
    });
    const endpoint = await startLoopbackServer(toNodeListener(handler));
    servers.push(endpoint);
    expect(
      await simulator.deliverWebhook(endpoint.url, { eventType: 'REJECTED_PAYMENT', eventData: rejected }),
    ).toBe(200);
    expect(failed).toEqual([
      expect.objectContaining({
        id: checkout.id,
        amount: 5000,
        amount_paid: 0,
        status: 'failed',
        metadata: expect.objectContaining({
          orderId: '1001',
          rejectionReason: 'UNDER_PAYMENT',
          rejectedAmount: '40',
        }),
      }),
    ]);
    // Not paid yet: the read shows the provider's unpaid shape (amount / currencyCode), read as pending.
    expect(await adapterFor(simulator).retrievePayment(checkout.id)).toMatchObject({
      status: 'pending',
      amount: 5000,
      amount_paid: 0,
      currency: 'NGN',
      customer: { email: 'ada@example.com' },
    });
  });

  it('a refund webhook from the simulator carries merchantReason, which becomes the Refund reason', async () => {
    const checkout = await paidCheckout();
    const refund = await adapterFor(simulator).createRefund({
      payment_id: checkout.id,
      amount: 1000,
      reason: 'damaged item',
    });
    const eventData = simulator.completeRefund(refund.id);
    expect(eventData).toMatchObject({ merchantReason: 'damaged item' });
    expect(eventData).not.toHaveProperty('refundReason');
    const { events } = await createPay(adapterFor(simulator))
      .webhooks.setup({ webhookSecret: simulator.credentials.webhookSecret })
      .handle(
        await providerNWebhookRequest(
          { eventType: 'SUCCESSFUL_REFUND', eventData },
          { webhookSecret: simulator.credentials.secretKey },
        ),
      );
    expect(events[0]?.data).toMatchObject({ id: refund.id, status: 'succeeded', reason: 'damaged item' });
  });

  it('resolves payments.retrieve to null for a reference the provider does not know', async () => {
    expect(await adapterFor(simulator).retrievePayment('PN|20260101000000|999999')).toBeNull();
  });
});

describe('tokens against the simulator', () => {
  it('logs in once for 20 parallel calls on a cold adapter', async () => {
    const checkout = await paidCheckout();
    const adapter = adapterFor(simulator);
    const before = simulator.books.logins;
    await Promise.all(Array.from({ length: 20 }, () => adapter.retrievePayment(checkout.id)));
    expect(simulator.books.logins - before).toBe(1);
  });

  it('logs in again once the token is revoked: the 401 triggers one re-login and the call succeeds', async () => {
    const adapter = adapterFor(simulator);
    const checkout = await paidCheckout(adapter);
    simulator.expireTokens();
    await expect(adapter.retrievePayment(checkout.id)).resolves.toMatchObject({ status: 'succeeded' });
    expect(simulator.books.logins).toBe(2);
    const statuses = simulator.books.requests
      .filter((request) => request.path === '/v1/merchant/transactions/query')
      .map((request) => request.headers.authorization?.slice(0, 7));
    expect(statuses).toEqual(['Bearer ', 'Bearer ']);
  });

  it('a token whose short lifetime ran out is replaced before the next call, which succeeds without a 401', async () => {
    await simulator.close();
    simulator = await startProviderNSimulator({ tokenLifetimeSeconds: 1 });
    const adapter = adapterFor(simulator);
    const checkout = await paidCheckout(adapter);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await expect(adapter.retrievePayment(checkout.id)).resolves.toMatchObject({ status: 'succeeded' });
    // A positive lifetime, however short, is honoured (core's floor applies only to 0 or less): the second call
    // logs in again first, so the read is sent once.
    expect(simulator.books.logins).toBe(2);
    const queries = simulator.books.requests.filter((request) => request.path.endsWith('/query'));
    expect(queries).toHaveLength(1);
  });

  it('reports wrong credentials as a ProviderApiError without the secret', async () => {
    const error = await adapterFor(simulator, { secretKey: 'wrong-secret-key' })
      .retrievePayment('PN|x')
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/apiKey and secretKey/);
    expect(JSON.stringify(error)).not.toContain('wrong-secret-key');
  });
});

describe('refunds against the simulator', () => {
  async function refundError(promise: Promise<unknown>) {
    const error = await promise.catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    return (error as ProviderApiError).providerCode;
  }

  it('keeps the remaining amount: partial refunds up to the paid amount, then R3', async () => {
    const adapter = adapterFor(simulator);
    const checkout = await paidCheckout(adapter);
    await adapter.createRefund({ payment_id: checkout.id, amount: 3000 });
    const last = await adapter.createRefund({ payment_id: checkout.id, amount: 2000 });
    expect(last.status).toBe('pending');
    expect(await refundError(adapter.createRefund({ payment_id: checkout.id, amount: 10 }))).toBe('R2');
    expect(simulator.books.transactions[0]?.refundableAmount).toBe(0);
  });

  it('gives a failed refund back to the remaining amount', async () => {
    const adapter = adapterFor(simulator);
    const checkout = await paidCheckout(adapter);
    const refund = await adapter.createRefund({ payment_id: checkout.id, amount: 5000 });
    expect(simulator.books.refunds[0]?.refundType).toBe('FULL_REFUND');
    expect(await refundError(adapter.createRefund({ payment_id: checkout.id, amount: 10 }))).toBe('R2');
    simulator.completeRefund(refund.id, { status: 'FAILED' });
    expect(simulator.books.transactions[0]?.refundableAmount).toBe(5000);
    expect(await refundError(adapter.createRefund({ payment_id: checkout.id, amount: 5000.01 }))).toBe('R3');
  });

  it('answers R1 for an unknown transaction, R2 for an unpaid one, R4 below the minimum', async () => {
    const adapter = adapterFor(simulator);
    expect(await refundError(adapter.createRefund({ payment_id: 'PN|nope', amount: 100 }))).toBe('R1');
    const pending = await adapter.createCheckout(checkoutParams);
    expect(await refundError(adapter.createRefund({ payment_id: pending.id, amount: 100 }))).toBe('R2');
    simulator.complete(pending.id);
    expect(await refundError(adapter.createRefund({ payment_id: pending.id, amount: 9.99 }))).toBe('R4');
  });

  it('answers R5 when the merchant balance is too low', async () => {
    await simulator.close();
    simulator = await startProviderNSimulator({ merchantBalance: 100 });
    const adapter = adapterFor(simulator);
    const checkout = await paidCheckout(adapter);
    expect(await refundError(adapter.createRefund({ payment_id: checkout.id, amount: 100.01 }))).toBe('R5');
  });

  it('forwards extra provider_metadata members to the refund endpoint', async () => {
    const adapter = adapterFor(simulator);
    const checkout = await paidCheckout(adapter);
    await adapter.createRefund({
      payment_id: checkout.id,
      amount: 100,
      provider_metadata: {
        customerNote: 'Sorry',
        destinationAccountNumber: '0123456789',
        destinationAccountBankCode: '058',
      },
    });
    expect(simulator.books.refunds[0]?.received).toMatchObject({
      customerNote: 'Sorry',
      destinationAccountNumber: '0123456789',
      destinationAccountBankCode: '058',
    });
  });
});

describe('the simulator imitates the provider', () => {
  it('refuses a duplicate paymentReference', async () => {
    const login = await fetch(`${simulator.url}/v1/auth/login`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${simulator.credentials.apiKey}:${simulator.credentials.secretKey}`).toString('base64')}`,
      },
    });
    const { responseBody } = (await login.json()) as { responseBody: { accessToken: string } };
    const init = () =>
      fetch(`${simulator.url}/v1/merchant/transactions/init-transaction`, {
        method: 'POST',
        headers: { authorization: `Bearer ${responseBody.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          amount: 100,
          currencyCode: 'NGN',
          contractCode: simulator.credentials.contractCode,
          customerEmail: 'ada@example.com',
          paymentReference: 'order-1001',
          paymentDescription: 'Mug',
          paymentMethods: ['CARD'],
        }),
      });
    expect((await init()).status).toBe(200);
    const again = await init();
    // The published reply (test/fixtures/init-transaction-duplicate-reference.json) is HTTP 422.
    expect(again.status).toBe(422);
    expect(await again.json()).toEqual({
      requestSuccessful: false,
      responseMessage: 'Duplicate payment reference',
      responseCode: '99',
    });
  });

  it('refuses init-transaction without the contract code it expects', async () => {
    const error = await adapterFor(simulator, { contractCode: undefined })
      .createCheckout(checkoutParams)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      code: 'provider_api_error',
      status: 400,
      providerMessage: 'Invalid contract code',
    });
  });
});

describe('faults', () => {
  it('retries a read after an injected 503 and a dropped login', async () => {
    const checkout = await paidCheckout();
    simulator.faults.inject({ method: 'POST', path: '/v1/auth/login', fault: { kind: 'drop' } });
    simulator.faults.inject({
      method: 'GET',
      path: '/v1/merchant/transactions/query',
      fault: { kind: 'status', status: 503 },
    });
    await expect(adapterFor(simulator).retrievePayment(checkout.id)).resolves.toMatchObject({
      status: 'succeeded',
    });
  });

  it('never repeats an init-transaction whose reply was lost, and says the outcome is unknown', async () => {
    simulator.faults.inject({
      path: '/v1/merchant/transactions/init-transaction',
      fault: { kind: 'drop-after' },
    });
    const error = await adapterFor(simulator, { retry: 2 })
      .createCheckout(checkoutParams)
      .catch((thrown: unknown) => thrown);
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ outcome: 'unknown' });
    expect(simulator.books.transactions).toHaveLength(1);
    // The error names the paymentReference, so the caller can match the checkout that was opened.
    expect((error as NetworkError).context?.paymentReference).toBe(
      simulator.books.transactions[0]?.paymentReference,
    );
    expect(
      simulator.books.requests.filter((request) => request.path.endsWith('init-transaction')),
    ).toHaveLength(1);
  });

  it('never repeats a refund that met a 500', async () => {
    const adapter = adapterFor(simulator, { retry: 2 });
    const checkout = await paidCheckout(adapter);
    simulator.faults.inject({ path: '/v1/refunds/initiate-refund', fault: { kind: 'status', status: 500 } });
    await expect(adapter.createRefund({ payment_id: checkout.id, amount: 100 })).rejects.toMatchObject({
      status: 500,
    });
    expect(
      simulator.books.requests.filter((request) => request.path.endsWith('initiate-refund')),
    ).toHaveLength(1);
  });

  it('reports a malformed reply as InvalidResponseError', async () => {
    const checkout = await paidCheckout();
    simulator.faults.inject({ path: '/v1/merchant/transactions/query', fault: { kind: 'malformed' } });
    const error = await adapterFor(simulator)
      .retrievePayment(checkout.id)
      .catch((thrown: unknown) => thrown);
    expect(InvalidResponseError.isInstance(error)).toBe(true);
  });
});

describe('the README quick start', () => {
  it('runs as written', async () => {
    const sim = simulator;
    const onPaid = vi.fn();
    const { apiKey, secretKey, contractCode, webhookSecret } = sim.credentials;
    const pay = createPay(
      createProviderN({ apiKey, secretKey, contractCode, isSandbox: true, baseUrl: sim.url, retry: 1 }),
    );
    const handler = pay.webhooks.setup({ webhookSecret }).on('payment.created', onPaid);
    const endpoint = await startLoopbackServer(toNodeListener(handler));
    servers.push(endpoint);
    const checkout = await pay.checkouts.create({
      customer: { email: 'ada@example.com' },
      provider_metadata: { amount: 5000, currency: 'NGN' },
    });
    const paid = sim.complete(checkout.id);
    expect(
      await sim.deliverWebhook(endpoint.url, { eventType: 'SUCCESSFUL_TRANSACTION', eventData: paid }),
    ).toBe(200);
    await pay.refunds.create({ payment_id: checkout.id, amount: 1000 });
    expect(sim.books.logins).toBe(1);
    expect(onPaid).toHaveBeenCalledTimes(1);
  });
});
