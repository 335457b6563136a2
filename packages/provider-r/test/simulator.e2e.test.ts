import {
  createMemoryDeduplicationStore,
  createPay,
  InvalidResponseError,
  NetworkError,
  ProviderApiError,
  toNodeListener,
} from '@pay/core';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProviderR, type ProviderRAdapter } from '../src/index.js';
import { type ProviderRSimulator, startProviderRSimulator } from '../src/testing/index.js';
import { rejectionOf } from './fixtures.js';

let simulator: ProviderRSimulator;
let endpoint: LoopbackServer | undefined;

beforeEach(async () => {
  simulator = await startProviderRSimulator();
});
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  await simulator.close();
});

function adapterFor(target: ProviderRSimulator, retry = 1): ProviderRAdapter {
  return createProviderR({ ...target.credentials, isSandbox: true, baseUrl: target.url, retry });
}

const checkoutParams = {
  customer: { email: 'payer@example.com' },
  item_id: 'order-1001',
  // 250.00 CZK; the simulator (the provider) holds the wire price in minor units, 25000.
  amount: 250,
  currency: 'CZK',
  success_url: 'https://shop.example/paid',
  cancel_url: 'https://shop.example/cancelled',
};

const paymentParams = {
  customer: { id: 'cust_42' },
  item_id: 'order-2002',
  amount: 100,
  provider_metadata: { email: 'payer@example.com' },
};

describe('Provider R against its simulator over loopback', () => {
  it('creates a checkout, the payer pays, and the push runs each callback once, also on redelivery', async () => {
    const pay = createPay(adapterFor(simulator));
    const { transId, redirectUrl } = await pay.adapter.createCheckoutRedirect(checkoutParams);
    expect(redirectUrl).toBe(`${simulator.url}/client/instructions/index?id=${transId}`);
    expect(simulator.transaction(transId)).toMatchObject({
      kind: 'checkout',
      status: 'PENDING',
      price: 25000,
      test: true,
      refId: 'order-1001',
    });

    const succeeded = vi.fn();
    const invoiced = vi.fn();
    const raw = vi.fn();
    const handler = pay.webhooks
      .setup({ webhookSecret: simulator.credentials.secret, deduplicate: createMemoryDeduplicationStore() })
      .on('payment.succeeded', succeeded)
      .on('invoice.generated', invoiced)
      .on('providerR.PAID', (event) => raw(event.data.status, event.data.price));
    endpoint = await startLoopbackServer(toNodeListener(handler));

    simulator.pay(transId);
    expect(await simulator.deliverWebhook(`${endpoint.url}/webhooks/provider-r`, { transId })).toBe(200);
    expect(
      await simulator.deliverWebhook(`${endpoint.url}/webhooks/provider-r`, { transId, format: 'json' }),
    ).toBe(200);

    expect(succeeded).toHaveBeenCalledTimes(1);
    expect(succeeded.mock.calls[0]?.[0]).toMatchObject({
      id: `${transId}:PAID:payment.succeeded`,
      data: { id: transId, status: 'succeeded' },
    });
    expect(invoiced).toHaveBeenCalledTimes(1);
    expect(raw).toHaveBeenCalledWith('PAID', 25000);
    expect(raw).toHaveBeenCalledTimes(1);
    // The redelivery is recognised before its status read (docs/architecture.md#webhook-deduplication): one status
    // call for both.
    const statusCalls = simulator.requests.filter((request) => request.path === '/v1.0/status');
    expect(statusCalls).toHaveLength(1);
    expect(await pay.checkouts.create(checkoutParams)).toBeNull();
    expect(simulator.transactions).toHaveLength(2);
  });

  it('answers 503 to a PAID push the provider does not confirm yet, then 200 once it does', async () => {
    const pay = createPay(adapterFor(simulator));
    const payment = await pay.payments.create(paymentParams);
    const succeeded = vi.fn();
    endpoint = await startLoopbackServer(
      toNodeListener(
        pay.webhooks
          .setup({ webhookSecret: simulator.credentials.secret })
          .on('payment.succeeded', succeeded),
      ),
    );
    expect(await simulator.deliverWebhook(endpoint.url, { transId: payment.id, status: 'PAID' })).toBe(503);
    expect(succeeded).not.toHaveBeenCalled();
    simulator.pay(payment.id);
    expect(await simulator.deliverWebhook(endpoint.url, { transId: payment.id })).toBe(200);
    expect(succeeded).toHaveBeenCalledTimes(1);
  });

  it('answers 400 to a push with a wrong secret or another merchant, running nothing', async () => {
    const pay = createPay(adapterFor(simulator));
    const payment = await pay.payments.create(paymentParams);
    const callback = vi.fn();
    endpoint = await startLoopbackServer(
      toNodeListener(
        pay.webhooks.setup({ webhookSecret: simulator.credentials.secret }).on('payment.created', callback),
      ),
    );
    expect(await simulator.deliverWebhook(endpoint.url, { transId: payment.id, secret: 'guess' })).toBe(400);
    expect(await simulator.deliverWebhook(endpoint.url, { transId: payment.id, merchant: '999' })).toBe(400);
    expect(callback).not.toHaveBeenCalled();
    expect(
      await simulator.deliverWebhook(endpoint.url, {
        transId: payment.id,
        format: 'json',
        contentType: 'application/json; charset=utf-8',
      }),
    ).toBe(200);
    expect(callback).toHaveBeenCalledTimes(1);
  });

  it('pre-authorises, captures part, refunds in two parts and refuses a refund above what remains', async () => {
    const pay = createPay(adapterFor(simulator));
    const payment = await pay.payments.create(paymentParams);
    expect(payment).toMatchObject({
      status: 'pending',
      requires_action: true,
      payment_url: expect.stringContaining(payment.id),
    });
    simulator.authorize(payment.id);
    expect(await pay.payments.retrieve(payment.id)).toMatchObject({
      status: 'requires_capture',
      amount: 100,
    });

    const captured = await pay.payments.capture(payment.id, { amount: 80 });
    expect(captured).toMatchObject({ status: 'succeeded', amount: 80, customer: { id: 'cust_42' } });

    const first = await pay.refunds.create({
      payment_id: payment.id,
      amount: 30,
      reason: 'one item returned',
    });
    expect(first).toMatchObject({
      payment_id: payment.id,
      amount: 30,
      currency: 'CZK',
      status: 'succeeded',
    });
    expect(simulator.refundable(payment.id)).toBe(5000);
    const error = await rejectionOf(pay.refunds.create({ payment_id: payment.id, amount: 50.01 }));
    expect(error).toMatchObject({ code: 'provider_api_error', providerCode: '1402' });
    await pay.refunds.create({ payment_id: payment.id, amount: 50 });
    expect(simulator.refundable(payment.id)).toBe(0);
    expect(simulator.refunds.map((refund) => refund.amount)).toEqual([3000, 5000]);
  });

  it('refunds a paid payment in full when no amount is given', async () => {
    const pay = createPay(adapterFor(simulator));
    const payment = await pay.payments.create(paymentParams);
    simulator.pay(payment.id);
    await expect(pay.refunds.create({ payment_id: payment.id })).resolves.toMatchObject({ amount: 100 });
    expect(simulator.refundable(payment.id)).toBe(0);
  });

  it('cancels a pending payment and a pre-authorisation, refuses a paid one, and a cancelled one cannot be refunded', async () => {
    const pay = createPay(adapterFor(simulator));
    const pending = await pay.payments.create(paymentParams);
    await expect(pay.payments.cancel(pending.id)).resolves.toMatchObject({ status: 'canceled' });
    expect(simulator.transaction(pending.id)?.status).toBe('CANCELLED');
    expect(await rejectionOf(pay.refunds.create({ payment_id: pending.id, amount: 1 }))).toMatchObject({
      providerCode: '1401',
    });

    const authorised = await pay.payments.create(paymentParams);
    simulator.authorize(authorised.id);
    await expect(pay.payments.cancel(authorised.id)).resolves.toMatchObject({ status: 'canceled' });
    expect(
      simulator.requests.some(
        (request) => request.method === 'DELETE' && request.path.startsWith('/v2.0/preauth/'),
      ),
    ).toBe(true);

    const paid = await pay.payments.create(paymentParams);
    simulator.pay(paid.id);
    expect(await rejectionOf(pay.payments.cancel(paid.id))).toMatchObject({ code: 'validation_error' });
  });

  it('resolves to null for a transaction the provider does not know, and reads a JSON status reply', async () => {
    await expect(adapterFor(simulator).retrievePayment('NOPE-NOPE-NOPE')).resolves.toBeNull();
    const jsonSimulator = await startProviderRSimulator({
      statusFormat: 'json',
      merchant: '200002',
      secret: 'other-secret-value',
    });
    try {
      const adapter = adapterFor(jsonSimulator);
      const payment = await adapter.createPayment(paymentParams);
      jsonSimulator.pay(payment.id);
      await expect(adapter.retrievePayment(payment.id)).resolves.toMatchObject({
        status: 'succeeded',
        amount: 100,
      });
    } finally {
      await jsonSimulator.close();
    }
  });

  it('refuses a wrong secret with the provider code of an unauthorised call', async () => {
    const adapter = createProviderR({
      merchant: simulator.credentials.merchant,
      secret: 'wrong-secret',
      isSandbox: true,
      baseUrl: simulator.url,
    });
    const error = await rejectionOf(adapter.createPayment(paymentParams));
    expect(error).toMatchObject({ status: 401, providerCode: '1400', kind: 'authentication' });
    // The message says which configuration to check, never its value.
    expect((error as Error).message).toContain('PROVIDER_R_MERCHANT and PROVIDER_R_SECRET');
    expect((error as Error).message).not.toContain('wrong-secret');
    expect(simulator.transactions).toHaveLength(0);
  });

  it('retries a status read after an injected 503 with the same request id, but never a payment creation', async () => {
    const adapter = adapterFor(simulator, 1);
    const payment = await adapter.createPayment(paymentParams);
    simulator.faults.inject({
      method: 'POST',
      path: '/v1.0/status',
      times: 1,
      fault: { kind: 'status', status: 503 },
    });
    await expect(adapter.retrievePayment(payment.id)).resolves.toMatchObject({ status: 'pending' });
    const reads = simulator.requests.filter((request) => request.path === '/v1.0/status');
    expect(reads).toHaveLength(2);
    expect(reads[0]?.requestId).toBeDefined();
    expect(reads[0]?.requestId).toBe(reads[1]?.requestId);

    simulator.faults.inject({
      method: 'POST',
      path: '/v2.0/payment',
      times: 1,
      fault: { kind: 'drop-after' },
    });
    const error = await rejectionOf(adapter.createPayment(paymentParams));
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ outcome: 'unknown' });
    expect(simulator.requests.filter((request) => request.path === '/v2.0/payment')).toHaveLength(2);
    expect(simulator.transactions).toHaveLength(2);
  });

  it('reports a malformed reply as InvalidResponseError and a 500 on a refund as an unknown outcome', async () => {
    const adapter = adapterFor(simulator, 0);
    const payment = await adapter.createPayment(paymentParams);
    simulator.faults.inject({ path: '/v1.0/status', fault: { kind: 'malformed' } });
    expect(InvalidResponseError.isInstance(await rejectionOf(adapter.retrievePayment(payment.id)))).toBe(
      true,
    );
    simulator.pay(payment.id);
    simulator.faults.inject({ path: '/v2.0/refund.json', fault: { kind: 'status', status: 500 } });
    const error = await rejectionOf(adapter.createRefund({ payment_id: payment.id, amount: 1 }));
    expect(ProviderApiError.isInstance(error)).toBe(true);
    // A 500 to a refund does not prove that nothing was refunded (docs/architecture.md#outcomes).
    expect(error).toMatchObject({ status: 500, retryable: false, outcome: 'unknown' });
    expect(simulator.refunds).toHaveLength(0);
  });
});

describe('Provider R simulator: delivery binding, deduplication and published shapes', () => {
  it('makes one status read for one delivery replayed twenty times through a handler with a store', async () => {
    const pay = createPay(adapterFor(simulator));
    const payment = await pay.payments.create(paymentParams);
    simulator.pay(payment.id);
    const succeeded = vi.fn();
    endpoint = await startLoopbackServer(
      toNodeListener(
        pay.webhooks
          .setup({
            webhookSecret: simulator.credentials.secret,
            deduplicate: createMemoryDeduplicationStore(),
          })
          .on('payment.succeeded', succeeded),
      ),
    );
    const before = simulator.requests.filter((request) => request.path === '/v1.0/status').length;
    for (let replay = 0; replay < 20; replay++)
      expect(await simulator.deliverWebhook(endpoint.url, { transId: payment.id })).toBe(200);
    expect(simulator.requests.filter((request) => request.path === '/v1.0/status').length - before).toBe(1);
    expect(succeeded).toHaveBeenCalledTimes(1);
  });

  it('refuses a test push at a production handler and a live push at a sandbox handler, with no status read', async () => {
    const sandbox = createPay(adapterFor(simulator));
    const payment = await sandbox.payments.create(paymentParams);
    const production = createPay(
      createProviderR({ ...simulator.credentials, isSandbox: false, baseUrl: simulator.url, retry: 0 }),
    );
    const productionEndpoint = await startLoopbackServer(
      toNodeListener(production.webhooks.setup({ webhookSecret: simulator.credentials.secret })),
    );
    endpoint = await startLoopbackServer(
      toNodeListener(sandbox.webhooks.setup({ webhookSecret: simulator.credentials.secret })),
    );
    try {
      const before = simulator.requests.length;
      expect(await simulator.deliverWebhook(productionEndpoint.url, { transId: payment.id })).toBe(400);
      expect(await simulator.deliverWebhook(endpoint.url, { transId: payment.id, test: false })).toBe(400);
      expect(simulator.requests.length).toBe(before);
      expect(await simulator.deliverWebhook(endpoint.url, { transId: payment.id })).toBe(200);
    } finally {
      await productionEndpoint.close();
    }
  });

  it('answers an unknown payment as the provider does (error=1400, Payment not found), and a refused location still throws', async () => {
    const adapter = adapterFor(simulator, 0);
    await expect(adapter.retrievePayment('NOPE-NOPE-NOPE')).resolves.toBeNull();
    const payment = await adapter.createPayment(paymentParams);
    simulator.refuseLocation(true);
    const error = await rejectionOf(adapter.retrievePayment(payment.id));
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      providerCode: '1400',
      providerMessage: 'Access from unauthorized location [127.0.0.1]!',
    });
    expect(await rejectionOf(adapter.createPayment(paymentParams))).toMatchObject({ providerCode: '1400' });
    simulator.refuseLocation(false);
    await expect(adapter.retrievePayment(payment.id)).resolves.toMatchObject({ id: payment.id });
  });

  it('a capture whose reply was lost is reconciled: the retry is refused and the payment, captured once, is returned', async () => {
    const adapter = adapterFor(simulator, 1);
    const payment = await adapter.createPayment(paymentParams);
    simulator.authorize(payment.id);
    simulator.faults.inject({
      method: 'PUT',
      path: /^\/v2\.0\/preauth\//,
      times: 1,
      fault: { kind: 'drop-after' },
    });
    await expect(adapter.capturePayment(payment.id, { amount: 70 })).resolves.toMatchObject({
      status: 'succeeded',
      amount: 70,
      amount_paid: 70,
    });
    const puts = simulator.requests.filter((request) => request.method === 'PUT');
    expect(puts).toHaveLength(2);
    expect(simulator.transaction(payment.id)).toMatchObject({ status: 'PAID', price: 7000 });
  });

  it('a cancel whose reply was lost is reconciled the same way', async () => {
    const adapter = adapterFor(simulator, 1);
    const payment = await adapter.createPayment(paymentParams);
    simulator.faults.inject({
      method: 'DELETE',
      path: /^\/v2\.0\/payment\//,
      times: 1,
      fault: { kind: 'drop-after' },
    });
    await expect(adapter.cancelPayment(payment.id)).resolves.toMatchObject({ status: 'canceled' });
    expect(simulator.requests.filter((request) => request.method === 'DELETE')).toHaveLength(2);
  });

  it.each([
    ['payments.create', '/v2.0/payment', (adapter: ProviderRAdapter) => adapter.createPayment(paymentParams)],
    [
      'createCheckoutRedirect',
      /^\/v2\.0\/paymentRedirect\//,
      (adapter: ProviderRAdapter) => adapter.createCheckoutRedirect(checkoutParams),
    ],
  ] as const)('%s: a 503 is sent once and reported as an unknown outcome', async (_op, path, run) => {
    const adapter = adapterFor(simulator, 2);
    simulator.faults.inject({ method: 'POST', path, times: 1, fault: { kind: 'status', status: 503 } });
    expect(await rejectionOf(run(adapter))).toMatchObject({ outcome: 'unknown', retryable: false });
    expect(simulator.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
  });

  it('a refund whose reply was lost is never repeated and says its outcome is unknown', async () => {
    const adapter = adapterFor(simulator, 2);
    const payment = await adapter.createPayment(paymentParams);
    simulator.pay(payment.id);
    simulator.faults.inject({
      method: 'POST',
      path: '/v2.0/refund.json',
      times: 1,
      fault: { kind: 'drop-after' },
    });
    const error = await rejectionOf(adapter.createRefund({ payment_id: payment.id, amount: 10 }));
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ outcome: 'unknown' });
    expect(simulator.refunds).toHaveLength(1);
  });
});
