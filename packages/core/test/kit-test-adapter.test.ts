import { describe, expect, it } from 'vitest';
import { OPERATION_METHODS } from '../src/adapter-toolkit.js';
import {
  createMemoryDeduplicationStore,
  createPay,
  type Operation,
  type Payment,
  ProviderApiError,
  type Refund,
  ValidationError,
  WebhookVerificationError,
} from '../src/index.js';
import { createTestAdapter, signTestWebhook, TEST_SIGNATURE_HEADER } from '../src/testing/index.js';

/** A test adapter, a Pay over it and a webhook handler recording what it dispatched. */
function shop() {
  const test = createTestAdapter();
  const pay = createPay(test.adapter);
  const seen: { type: string; id: string; data: unknown }[] = [];
  const handler = pay.webhooks
    .setup({ webhookSecret: test.webhookSecret, deduplicate: createMemoryDeduplicationStore() })
    .on('payment.succeeded', (event) => void seen.push({ type: event.type, id: event.id, data: event.data }))
    .on('payment.failed', (event) => void seen.push({ type: event.type, id: event.id, data: event.data }))
    .on('payment.updated', (event) => void seen.push({ type: event.type, id: event.id, data: event.data }))
    .on('refund.created', (event) => void seen.push({ type: event.type, id: event.id, data: event.data }));
  return { test, pay, handler, seen };
}

describe('the in-memory test adapter', () => {
  it('takes a checkout from creation to a paid payment whose signed webhook the app handler verifies', async () => {
    const { test, pay, handler, seen } = shop();
    const checkout = await pay.checkouts.create({
      amount: 250.5,
      currency: 'czk',
      metadata: { order: '7' },
      success_url: 'https://shop.test/ok',
    });
    expect(checkout).toMatchObject({
      id: 'cs_test_000001',
      amount: 250.5,
      currency: 'CZK',
      payment_url: 'https://checkout.test-adapter.invalid/pay/pay_test_000001',
      livemode: false,
      request_id: null,
      provider: 'providerN',
    });
    await test.payer.pay(checkout.id);
    const results = await test.deliverWebhooks(handler);
    expect(results).toEqual([
      { events: [expect.objectContaining({ type: 'payment.succeeded' })], duplicates: [] },
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.id).toBe('evt_test_000001:payment.succeeded');
    expect(seen[0]?.data).toMatchObject<Partial<Payment>>({
      id: 'pay_test_000001',
      status: 'succeeded',
      amount: 250.5,
      amount_paid: 250.5,
      metadata: { order: '7' },
    });
    expect(await pay.payments.retrieve('pay_test_000001')).toMatchObject({ status: 'succeeded' });
    expect(test.books().payments.map((payment) => payment.status)).toEqual(['succeeded']);
    expect(test.pendingWebhooks).toEqual([]);
  });

  it('raises payment.failed for Fail and payment.updated (canceled) for Cancel, and refuses a second action', async () => {
    const { test, pay, handler, seen } = shop();
    const failed = await pay.payments.create({ amount: 10, currency: 'USD' });
    const cancelled = await pay.payments.create({ amount: 10, currency: 'USD' });
    await test.payer.fail(failed.id);
    await test.payer.cancel(cancelled.id);
    await expect(test.payer.pay(failed.id)).rejects.toThrow(
      'Payment pay_test_000001 is failed: the payer can no longer pay it.',
    );
    await test.deliverWebhooks(handler);
    expect(seen.map((event) => [event.type, (event.data as Payment).status])).toEqual([
      ['payment.failed', 'failed'],
      ['payment.updated', 'canceled'],
    ]);
  });

  it('refuses a tampered or wrongly signed webhook, and reports a redelivery as a duplicate', async () => {
    const { test, pay, handler } = shop();
    const payment = await pay.payments.create({ amount: 5, currency: 'EUR' });
    await test.payer.pay(payment.id);
    const [delivery] = await test.takeWebhooks();
    if (!delivery) throw new Error('no delivery');
    const tampered = { ...delivery, body: delivery.body.replace('"amount":5', '"amount":500') };
    await expect(handler.handle(tampered)).rejects.toMatchObject({
      constructor: WebhookVerificationError,
      reason: 'invalid_signature',
    });
    const other = createPay(test.adapter).webhooks.setup({ webhookSecret: 'whsec_other' });
    await expect(other.handle(delivery)).rejects.toMatchObject({ reason: 'invalid_signature' });
    const unsigned = { ...delivery, headersAsObject: { 'content-type': 'application/json' } };
    await expect(handler.handle(unsigned)).rejects.toMatchObject({ reason: 'missing_signature' });
    expect((await handler.handle(delivery)).events).toHaveLength(1);
    expect(await handler.handle(delivery)).toEqual({ events: [], duplicates: ['evt_test_000001'] });
  });

  it('refuses a signed payload that is not a test event as malformed', async () => {
    const { test, handler } = shop();
    const body = JSON.stringify({ id: 'evt_x', type: 'payment.exploded', created: 1, data: {} });
    const request = {
      body,
      headersAsObject: { [TEST_SIGNATURE_HEADER]: await signTestWebhook(body, test.webhookSecret) },
      fullUrl: 'https://shop.test/webhooks',
    };
    await expect(handler.handle(request)).rejects.toMatchObject({ reason: 'malformed_payload' });
  });

  it('refunds exactly in minor units and refuses a refund beyond what is left, leaving the books unchanged', async () => {
    const { test, pay, handler, seen } = shop();
    const payment = await pay.payments.create({ amount: 0.3, currency: 'USD' });
    await test.payer.pay(payment.id);
    await pay.refunds.create({ payment_id: payment.id, amount: 0.1 });
    await pay.refunds.create({ payment_id: payment.id, amount: 0.2 });
    const refused = await pay.refunds
      .create({ payment_id: payment.id, amount: 0.01 })
      .catch((error) => error);
    expect(refused).toBeInstanceOf(ProviderApiError);
    expect(refused).toMatchObject({ status: 400, kind: 'invalid_request' });
    expect(refused.message).toBe(
      'providerN (test adapter) answered HTTP 400: Refund of 0.01 exceeds what is left to refund of payment pay_test_000001.',
    );
    expect(test.books().refunds.map((refund) => refund.amount)).toEqual([0.1, 0.2]);
    await test.deliverWebhooks(handler);
    expect(
      seen.filter((event) => event.type === 'refund.created').map((event) => (event.data as Refund).amount),
    ).toEqual([0.1, 0.2]);
  });

  it('refuses an amount finer than the currency minor unit, or a missing currency, with a ValidationError', async () => {
    const { test, pay } = shop();
    const finer = await pay.payments.create({ amount: 10.005, currency: 'USD' }).catch((error) => error);
    expect(finer).toBeInstanceOf(ValidationError);
    expect(finer.issues).toEqual([
      { path: 'amount', message: 'has more than 2 decimal digit(s), the minor unit of USD' },
    ]);
    const noCurrency = await pay.checkouts.create({ amount: 10 }).catch((error) => error);
    expect(noCurrency.issues).toEqual([{ path: 'currency', message: 'is required by the test adapter' }]);
    expect(test.books().payments).toEqual([]);
  });

  it('holds a manual-capture payment in requires_capture until payments.capture', async () => {
    const { test, pay } = shop();
    const payment = await pay.payments.create({
      amount: 100,
      currency: 'NGN',
      provider_metadata: { capture: 'manual' },
    });
    await test.payer.pay(payment.id);
    expect((await pay.payments.retrieve(payment.id))?.status).toBe('requires_capture');
    await expect(pay.payments.capture(payment.id, { amount: 100.01 })).rejects.toMatchObject({ status: 400 });
    expect(await pay.payments.capture(payment.id, { amount: 80 })).toMatchObject({
      status: 'succeeded',
      amount_paid: 80,
    });
    await expect(pay.payments.cancel(payment.id)).rejects.toMatchObject({ status: 409, kind: 'conflict' });
    expect(test.pendingWebhooks.map((webhook) => webhook.type)).toEqual([
      'payment.updated',
      'payment.succeeded',
    ]);
  });

  it('implements every operation of the adapter contract over its books', async () => {
    const { test, pay } = shop();
    expect([...test.adapter.capabilities].sort()).toEqual(
      (Object.keys(OPERATION_METHODS) as Operation[]).sort(),
    );
    const customer = await pay.customers.create({ email: 'ada@shop.test', name: 'Ada' });
    expect(await pay.customers.update(customer.id, { metadata: { tier: 'gold' } })).toMatchObject({
      metadata: { tier: 'gold' },
    });
    const subscription = await pay.subscriptions.create({
      customer: { id: customer.id },
      amount: 9,
      currency: 'EUR',
    });
    expect(await pay.subscriptions.cancel(subscription.id)).toMatchObject({ status: 'canceled' });
    await pay.subscriptions.delete(subscription.id);
    expect(await pay.subscriptions.retrieve(subscription.id)).toBeNull();
    await pay.customers.delete(customer.id);
    expect(await pay.customers.retrieve(customer.id)).toBeNull();
    const checkout = await pay.checkouts.create({ amount: 1, currency: 'EUR' });
    expect(await pay.checkouts.update(checkout.id, { metadata: { a: 'b' } })).toMatchObject({
      metadata: { a: 'b' },
    });
    await pay.checkouts.delete(checkout.id);
    expect(await pay.checkouts.retrieve(checkout.id)).toBeNull();
    await expect(pay.payments.delete('pay_missing')).rejects.toMatchObject({
      status: 404,
      kind: 'not_found',
    });
    expect(test.calls.map((call) => call.method)).toEqual([
      'createCustomer',
      'updateCustomer',
      'createSubscription',
      'cancelSubscription',
      'deleteSubscription',
      'retrieveSubscription',
      'deleteCustomer',
      'retrieveCustomer',
      'createCheckout',
      'updateCheckout',
      'deleteCheckout',
      'retrieveCheckout',
      'deletePayment',
    ]);
  });

  it('throws an armed failure once, before the books change', async () => {
    const { test, pay } = shop();
    test.failNext('createPayment', new Error('upstream down'));
    await expect(pay.payments.create({ amount: 1, currency: 'EUR' })).rejects.toThrow('upstream down');
    expect(test.books().payments).toEqual([]);
    expect((await pay.payments.create({ amount: 1, currency: 'EUR' })).id).toBe('pay_test_000001');
  });

  it('resolves an idempotency key to the record it created, and an unknown key to nothing held', async () => {
    const { test, pay } = shop();
    const payment = await pay.payments.create({ amount: 3, currency: 'EUR' }, { idempotencyKey: 'order-7' });
    expect(
      await test.adapter.resolve?.({ operation: 'payments.create', idempotencyKey: 'order-7' }),
    ).toMatchObject({
      id: payment.id,
    });
    expect(
      await test.adapter.resolve?.({ operation: 'payments.create', idempotencyKey: 'order-8' }),
    ).toBeNull();
    expect(await test.adapter.resolve?.({ operation: 'payments.create' })).toBeUndefined();
  });
});
