/**
 * One money model (docs/architecture.md#money). The public API takes and returns amounts in the currency's
 * standard unit (`250.5` = 250.50 CZK); the wire carries integer minor units (`price: 25050`), converted exactly
 * (decimal text, never float arithmetic); an amount finer than the currency's minor unit is a ValidationError
 * before any call. Every record an operation returns carries the request id of the call that produced it.
 */
import { createPay, ValidationError } from '@pay/core';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import {
  BASE_URL,
  FORM,
  MERCHANT,
  REDIRECT,
  rejectionOf,
  statusReply,
  TRANS_ID,
  testAdapter,
  useNock,
} from './fixtures.js';

useNock();

const created = { code: 0, message: 'OK', transId: TRANS_ID, redirect: REDIRECT };
const urls = { success_url: 'https://shop.example/paid', cancel_url: 'https://shop.example/cancelled' };
const payment = (amount: number, currency?: string) => ({
  customer: { id: 'cust_42' },
  amount,
  ...(currency ? { currency } : {}),
  provider_metadata: { email: 'payer@example.com' },
});

/** Records the `x-request-id` each intercepted call carried, in order. */
function requestIds(scope: nock.Scope): string[] {
  const ids: string[] = [];
  scope.on('request', (request: { headers: Record<string, string> }) =>
    ids.push(request.headers['x-request-id'] ?? ''),
  );
  return ids;
}

describe('amounts in the standard currency unit (docs/architecture.md#money)', () => {
  it('sends 250.5 CZK as price 25050 and returns the payment with amount 250.5', async () => {
    const scope = nock(BASE_URL)
      .post('/v2.0/payment', (body) => body.price === 25050 && body.curr === 'CZK')
      .reply(200, created);
    const result = await createPay(testAdapter()).payments.create(payment(250.5));
    expect(result).toMatchObject({ amount: 250.5, currency: 'CZK', amount_paid: 0 });
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    // The first four are one minor unit short with float arithmetic (x * 100 truncated); the last is the ceiling.
    [19.99, 'EUR', 1999],
    [1.15, 'CZK', 115],
    [0.29, 'PLN', 29],
    [1_234_567.89, 'HUF', 123_456_789],
    [9_999_999_999_999.99, 'CZK', 999_999_999_999_999],
  ])('converts %d %s to exactly %d minor units on the wire', async (amount, currency, price) => {
    const scope = nock(BASE_URL)
      .post(
        `/v2.0/paymentRedirect/merchant/${MERCHANT}`,
        (body) => body.price === price && body.curr === currency,
      )
      .reply(200, created);
    await testAdapter().createCheckout({
      ...urls,
      customer: { email: 'payer@example.com' },
      amount,
      currency,
    });
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    ['a payment', () => testAdapter().createPayment(payment(250.505))],
    ['a float sum 0.1 + 0.2', () => testAdapter().createPayment(payment(0.1 + 0.2))],
    [
      'a checkout',
      () =>
        testAdapter().createCheckout({
          ...urls,
          customer: { email: 'payer@example.com' },
          amount: 10.001,
          currency: 'EUR',
        }),
    ],
    ['a capture', () => testAdapter().capturePayment(TRANS_ID, { amount: 80.005 })],
    ['a refund', () => testAdapter().createRefund({ payment_id: TRANS_ID, amount: 0.001, currency: 'CZK' })],
  ])('refuses %s finer than a hundredth with a ValidationError before any call', async (_what, run) => {
    const untouched = nock(BASE_URL).post(/.*/).reply(500).put(/.*/).reply(500);
    const error = await rejectionOf(run());
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues).toEqual([
      {
        path: 'amount',
        message: expect.stringMatching(/^has more than 2 decimal digit\(s\), the minor unit of /),
      },
    ]);
    expect(untouched.pendingMocks()).toHaveLength(2);
  });

  it('reads the wire price back exactly: 25050 minor units is 250.5 CZK, and what was paid too', async () => {
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ price: '25050', status: 'PAID' }), FORM);
    await expect(testAdapter().retrievePayment(TRANS_ID)).resolves.toMatchObject({
      amount: 250.5,
      amount_paid: 250.5,
      currency: 'CZK',
    });
  });

  it('captures 80.5 of an authorisation of 100 as amount 8050', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'AUTHORIZED' }), FORM)
      .put(`/v2.0/preauth/transId/${TRANS_ID}.json`, { amount: 8050 })
      .reply(200, { code: 0, message: 'OK' })
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PAID', price: '8050' }), FORM);
    await expect(testAdapter().capturePayment(TRANS_ID, { amount: 80.5 })).resolves.toMatchObject({
      amount: 80.5,
      amount_paid: 80.5,
    });
    expect(scope.isDone()).toBe(true);
  });

  it('refunds 12.34 EUR as amount 1234, and the refund says 12.34', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ curr: 'EUR' }), FORM)
      .post('/v2.0/refund.json', (body) => body.amount === 1234 && body.curr === 'EUR')
      .reply(200, { code: 0, message: 'OK' });
    await expect(testAdapter().createRefund({ payment_id: TRANS_ID, amount: 12.34 })).resolves.toMatchObject({
      amount: 12.34,
      currency: 'EUR',
    });
    expect(scope.isDone()).toBe(true);
  });
});

describe('request_id on every returned record (docs/architecture.md#records)', () => {
  it('a created payment carries the id of the creation call', async () => {
    const scope = nock(BASE_URL).post('/v2.0/payment').reply(200, created);
    const ids = requestIds(scope);
    const result = await testAdapter().createPayment(payment(1));
    expect(ids).toHaveLength(1);
    expect(result.request_id).toBe(ids[0]);
  });

  it('a read payment carries the id of its status read', async () => {
    const scope = nock(BASE_URL).post('/v1.0/status').reply(200, statusReply(), FORM);
    const ids = requestIds(scope);
    const result = await testAdapter().retrievePayment(TRANS_ID);
    expect(result?.request_id).toBe(ids[0]);
  });

  it('a capture and a cancel carry the id of the call that made the change, a refund the id of the refund call', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'AUTHORIZED' }), FORM)
      .put(`/v2.0/preauth/transId/${TRANS_ID}.json`)
      .reply(200, { code: 0, message: 'OK' })
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PAID' }), FORM)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PENDING' }), FORM)
      .delete(`/v2.0/payment/transId/${TRANS_ID}.json`)
      .reply(200, { code: 0, message: 'OK' })
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'CANCELLED' }), FORM)
      .post('/v1.0/status')
      .reply(200, statusReply(), FORM)
      .post('/v2.0/refund.json')
      .reply(200, { code: 0, message: 'OK' });
    const ids = requestIds(scope);
    const adapter = testAdapter();
    expect((await adapter.capturePayment(TRANS_ID)).request_id).toBe(ids[1]);
    expect((await adapter.cancelPayment(TRANS_ID)).request_id).toBe(ids[4]);
    expect((await adapter.createRefund({ payment_id: TRANS_ID })).request_id).toBe(ids[7]);
    expect(new Set(ids).size).toBe(8);
  });

  it('a payment already cancelled carries the id of the status read that found it', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'CANCELLED' }), FORM);
    const ids = requestIds(scope);
    expect((await testAdapter().cancelPayment(TRANS_ID)).request_id).toBe(ids[0]);
  });
});
