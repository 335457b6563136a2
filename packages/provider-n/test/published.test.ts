/**
 * The adapter reads what Provider N actually publishes (docs/architecture.md#lenient-reading). Every reply and
 * webhook in `test/fixtures/*.json` (each with its source) is replayed through nock or the webhook handler, and
 * the records are asserted field by field.
 */
import { readFileSync } from 'node:fs';
import { createPay, ProviderApiError, WebhookVerificationError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { providerNWebhookRequest } from '../src/testing/index.js';
import { HOST, nockLogin, testAdapter, WEBHOOK_SECRET } from './fixtures.js';

interface ReplyFixture {
  source: string;
  status: number;
  reply: { responseBody?: Record<string, unknown> } & Record<string, unknown>;
}

interface WebhookFixture {
  source: string;
  webhook: { eventType: string; eventData: Record<string, unknown> };
}

function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8')) as T;
}

const reply = (name: string) => fixture<ReplyFixture>(name);
const webhook = (name: string) => fixture<WebhookFixture>(name);

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
});

function handler() {
  return createPay(testAdapter()).webhooks.setup({ webhookSecret: WEBHOOK_SECRET });
}

async function replay(name: string) {
  const { webhook: payload } = webhook(name);
  const { events } = await handler().handle(
    await providerNWebhookRequest(payload, { webhookSecret: WEBHOOK_SECRET }),
  );
  return { events, payload };
}

describe('every fixture names its source', () => {
  it.each([
    'login',
    'init-transaction',
    'init-transaction-duplicate-reference',
    'transaction-query-paid',
    'transaction-query-v1',
    'transaction-query-pending',
    'transaction-query-not-found',
    'initiate-refund',
    'webhook-successful-transaction',
    'webhook-successful-transaction-offline',
    'webhook-rejected-payment',
    'webhook-settlement',
    'webhook-mandate-update',
    'webhook-successful-refund',
    'webhook-failed-refund',
    'webhook-successful-disbursement',
    'webhook-signed-documentation-example',
  ])('%s', (name) => {
    expect(fixture<{ source: string }>(name).source).toMatch(/\S{10,}/);
  });
});

describe('the published signed example', () => {
  const signed = fixture<{ clientSecretKey: string; signature: string; rawBody: string }>(
    'webhook-signed-documentation-example',
  );

  it('verifies with the documentation sample key as webhookSecret and yields the payment', async () => {
    const { events } = await createPay(testAdapter({ secretKey: signed.clientSecretKey }))
      .webhooks.setup({ webhookSecret: signed.clientSecretKey })
      .handle({
        body: signed.rawBody,
        headersAsObject: { 'providerN-signature': signed.signature },
        fullUrl: 'https://shop.example/webhooks/provider-n',
      });
    expect(events.map((event) => event.type)).toEqual([
      'payment.created',
      'providerN.SUCCESSFUL_TRANSACTION',
    ]);
    expect(events[0]?.data).toMatchObject({
      id: 'MNFY|76|20211117154810|000001',
      amount: 78000,
      amount_paid: 78000,
      currency: 'NGN',
      status: 'succeeded',
      customer: { email: '111222333@ZZAMZ4WT4Y3E.monnify' },
    });
  });

  it('is refused with another key, and when one byte of the body changes', async () => {
    const setup = (key: string) => createPay(testAdapter()).webhooks.setup({ webhookSecret: key });
    const request = {
      body: signed.rawBody,
      headersAsObject: { 'providerN-signature': signed.signature },
      fullUrl: 'https://shop.example/webhooks/provider-n',
    };
    const wrongKey = await setup(WEBHOOK_SECRET)
      .handle(request)
      .catch((error: unknown) => error);
    expect(WebhookVerificationError.isInstance(wrongKey)).toBe(true);
    const altered = await setup(signed.clientSecretKey)
      .handle({ ...request, body: signed.rawBody.replace('78000', '78001') })
      .catch((error: unknown) => error);
    expect(altered).toMatchObject({ reason: 'invalid_signature' });
  });
});

describe('published replies through nock', () => {
  it('login: the published reply shape gives the token the next call carries', async () => {
    const login = reply('login');
    nock(HOST).post('/api/v1/auth/login').reply(login.status, login.reply);
    const query = reply('transaction-query-paid');
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .matchHeader('authorization', 'Bearer ACCESS_TOKEN_PLACEHOLDER')
      .reply(query.status, query.reply);
    await expect(testAdapter().retrievePayment('MNFY|85|20220121154916|000006')).resolves.toMatchObject({
      status: 'succeeded',
    });
  });

  it('init-transaction: a Checkout with the checkout URL and no echoed apiKey in raw', async () => {
    const init = reply('init-transaction');
    nockLogin();
    nock(HOST).post('/api/v1/merchant/transactions/init-transaction').reply(init.status, init.reply);
    const checkout = await testAdapter().createCheckout({
      customer: { email: 'ada@example.com' },
      provider_metadata: { amount: 100, currency: 'NGN' },
    });
    expect(checkout).toMatchObject({
      id: 'MNFY|20190915200044|000090',
      checkoutUrl: 'https://sandbox.sdk.monnify.com/checkout/MNFY|20190915200044|000090',
      payment_url: 'https://sandbox.sdk.monnify.com/checkout/MNFY|20190915200044|000090',
      livemode: false,
    });
    expect(checkout.raw).not.toHaveProperty('apiKey');
  });

  it('init-transaction refused as a duplicate reference: outcome unknown, not "send again", with the reference', async () => {
    const duplicate = reply('init-transaction-duplicate-reference');
    nockLogin();
    nock(HOST)
      .post('/api/v1/merchant/transactions/init-transaction')
      .reply(duplicate.status, duplicate.reply);
    const error = await testAdapter({ retry: 2 })
      .createCheckout({
        customer: { email: 'ada@example.com' },
        provider_metadata: { amount: 100, currency: 'NGN' },
      })
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      outcome: 'unknown',
      retryable: false,
      providerCode: '99',
      context: { paymentReference: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    });
    expect((error as Error).message).toMatch(/retrievePayment before sending again/);
    expect((error as Error).message).not.toMatch(/retry with the same input/i);
  });

  it('status read (published Get Transaction Status reply): Payment with amounts asked and paid', async () => {
    const paid = reply('transaction-query-paid');
    nockLogin();
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .reply(paid.status, paid.reply, { 'X-Request-Id': 'pn-req-status-85' });
    expect(await testAdapter().retrievePayment('MNFY|85|20220121154916|000006')).toEqual({
      provider: 'providerN',
      id: 'MNFY|85|20220121154916|000006',
      amount: 30,
      amount_paid: 30,
      currency: 'NGN',
      status: 'succeeded',
      customer: { email: 'smekiluwa@teamapt.com' },
      item_id: null,
      metadata: {
        deviceType: 'mobile',
        ipAddress: '127.0.0.1',
        paymentStatus: 'PAID',
        paymentReference: '1642776556694',
        settlementAmount: '20',
      },
      requires_action: false,
      payment_url: null,
      livemode: false,
      request_id: 'pn-req-status-85',
      raw: paid.reply.responseBody,
    });
  });

  it('the v1 query reply with amount, currencyCode and a flat customerEmail is read (docs/providers/provider-n.md#transaction-query)', async () => {
    const v1 = reply('transaction-query-v1');
    nockLogin();
    nock(HOST).get('/api/v1/merchant/transactions/query').query(true).reply(v1.status, v1.reply);
    expect(await testAdapter().retrievePayment('MNFY|20190915200044|000090')).toMatchObject({
      amount: 100,
      amount_paid: 100,
      currency: 'NGN',
      status: 'succeeded',
      customer: { email: 'johndoe@example.com' },
      metadata: { name: 'John Doe', age: '45', paymentStatus: 'PAID' },
    });
  });

  it('an unpaid transaction read with amount and currencyCode is a pending Payment (docs/providers/provider-n.md#transaction-query)', async () => {
    const pending = reply('transaction-query-pending');
    nockLogin();
    nock(HOST).get('/api/v1/merchant/transactions/query').query(true).reply(pending.status, pending.reply);
    expect(await testAdapter().retrievePayment('MNFY|20190915200044|000090')).toMatchObject({
      amount: 100,
      amount_paid: 0,
      currency: 'NGN',
      status: 'pending',
      customer: { email: 'johndoe@example.com' },
    });
    nockLogin();
    nock(HOST).get('/api/v1/merchant/transactions/query').query(true).reply(pending.status, pending.reply);
    expect(await testAdapter().retrieveCheckout('MNFY|20190915200044|000090')).toMatchObject({
      amount: 100,
      currency: 'NGN',
      metadata: { paymentStatus: 'PENDING', amountPaid: '0' },
    });
  });

  it('an unknown reference resolves to null', async () => {
    const missing = reply('transaction-query-not-found');
    nockLogin();
    nock(HOST).get('/api/v1/merchant/transactions/query').query(true).reply(missing.status, missing.reply);
    expect(await testAdapter().retrievePayment('MNFY|nope')).toBeNull();
  });

  it('initiate-refund: the published reply becomes a Refund', async () => {
    const refund = reply('initiate-refund');
    nockLogin();
    nock(HOST).post('/api/v1/refunds/initiate-refund').reply(refund.status, refund.reply);
    expect(
      await testAdapter().createRefund({
        payment_id: 'MNFY|65|20220727094724|000477',
        amount: 3500,
        reason: 'Customer returned 2 of 5 items',
      }),
    ).toMatchObject({
      id: 'REFUND-ORD-20240601-001',
      payment_id: 'MNFY|65|20220727094724|000477',
      amount: 3500,
      currency: 'NGN',
      status: 'succeeded',
      reason: 'Customer returned 2 of 5 items',
      livemode: false,
    });
  });
});

describe('published webhooks through the handler', () => {
  it('SUCCESSFUL_TRANSACTION (paymentSourceInformation a list, settlementAmount a string)', async () => {
    const { events } = await replay('webhook-successful-transaction');
    expect(events.map((event) => [event.type, event.id])).toEqual([
      ['payment.created', 'MNFY|04|20211117112842|000170:PAID:payment.created'],
      [
        'providerN.SUCCESSFUL_TRANSACTION',
        'MNFY|04|20211117112842|000170:PAID:providerN.SUCCESSFUL_TRANSACTION',
      ],
    ]);
    expect(events[0]?.data).toMatchObject({
      amount: 3000,
      amount_paid: 3000,
      status: 'succeeded',
      customer: { email: 'test@tester.com' },
      metadata: { settlementAmount: '2990' },
    });
  });

  it('SUCCESSFUL_TRANSACTION_OFFLINE', async () => {
    const { events } = await replay('webhook-successful-transaction-offline');
    expect(events[0]).toMatchObject({
      type: 'payment.created',
      data: { amount: 15000, amount_paid: 15000, status: 'succeeded', metadata: { name: 'Khalid' } },
    });
  });

  it('REJECTED_PAYMENT (no currency, status or totalPayable; metaData a JSON string) is payment.failed, not a 400', async () => {
    const { events, payload } = await replay('webhook-rejected-payment');
    expect(events.map((event) => event.type)).toEqual(['payment.failed', 'providerN.REJECTED_PAYMENT']);
    expect(events[0]?.data).toEqual({
      provider: 'providerN',
      id: 'MNFY|85|20230626175354|041855',
      amount: 100,
      amount_paid: 0,
      currency: 'NGN',
      status: 'failed',
      customer: { email: 'benji71@gmail.com' },
      item_id: null,
      metadata: {
        name: 'Marvelous',
        age: '90',
        paymentReference: 'MNFY|PAYREF|GENERATED|1687798434397393735',
        rejectionReason: 'UNDER_PAYMENT',
        rejectedAmount: '40',
      },
      requires_action: false,
      payment_url: null,
      livemode: false,
      request_id: null,
      raw: payload.eventData,
    });
  });

  it('SETTLEMENT with string amounts and no per-transaction amount is one payment.updated per transaction', async () => {
    const { events } = await replay('webhook-settlement');
    expect(events.map((event) => [event.type, event.id])).toEqual([
      ['payment.updated', 'LB8HG1PNZT4ATJGZXQBY:0:payment.updated'],
      ['providerN.SETTLEMENT', 'LB8HG1PNZT4ATJGZXQBY:providerN.SETTLEMENT'],
    ]);
    expect(events[0]?.data).toMatchObject({
      id: 'MNFY|26|20211111142601|000001',
      amount: 1234,
      amount_paid: 1234,
      currency: 'NGN',
      status: 'succeeded',
      customer: { email: 'segunadeponle@gmail.com' },
      metadata: { settlementReference: 'LB8HG1PNZT4ATJGZXQBY', paymentStatus: 'PAID' },
    });
  });

  it('MANDATE_UPDATE takes the payer from customerEmailAddress', async () => {
    const { events } = await replay('webhook-mandate-update');
    expect(events[0]).toMatchObject({
      type: 'subscription.canceled',
      data: {
        id: 'MTDD|01J3GRJH8D58B20VNX1E6GSY1N',
        status: 'canceled',
        customer: { email: 'ogunnaike.damilare@gmail.com' },
        amount: 100000,
      },
    });
  });

  it.each([
    ['webhook-successful-refund', 'succeeded'],
    ['webhook-failed-refund', 'failed'],
  ])('%s keeps merchantReason as the Refund reason', async (name, status) => {
    const { events } = await replay(name);
    expect(events[0]).toMatchObject({
      type: 'refund.created',
      data: { id: 'ref001', amount: 10, status, reason: 'defective goods', currency: 'NGN' },
    });
  });

  it('a disbursement raises only its raw event', async () => {
    const { events } = await replay('webhook-successful-disbursement');
    expect(events.map((event) => event.type)).toEqual(['providerN.SUCCESSFUL_DISBURSEMENT']);
  });
});

describe('the simulator emits the published shapes', () => {
  it('uses the secret key as the webhook signing key', async () => {
    const { startProviderNSimulator } = await import('../src/testing/index.js');
    const sim = await startProviderNSimulator({ credentials: { secretKey: 'SIMULATED_SECRET_KEY_1' } });
    try {
      expect(sim.credentials.webhookSecret).toBe('SIMULATED_SECRET_KEY_1');
    } finally {
      await sim.close();
    }
  });
});
