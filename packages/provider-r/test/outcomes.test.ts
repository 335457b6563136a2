/**
 * "Nothing happened" only when proven (docs/architecture.md#outcomes) on every call that moves money, through
 * nock: a refusal that may follow a processed attempt says `outcome: 'unknown'` and is not retryable, creations
 * are never repeated, and a capture found already done is a success only for the amount asked for.
 */
import { NetworkError, ProviderApiError, ValidationError } from '@pay/core';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import {
  BASE_URL,
  checkoutParams,
  FORM,
  MERCHANT,
  paymentParams,
  REDIRECT,
  rejectionOf,
  statusReply,
  TRANS_ID,
  testAdapter,
  useNock,
} from './fixtures.js';

useNock();

function expectUnknownOutcome(error: unknown, context: Record<string, unknown>) {
  expect(ProviderApiError.isInstance(error), String(error)).toBe(true);
  expect(error).toMatchObject({
    outcome: 'unknown',
    retryable: false,
    context: expect.objectContaining(context),
  });
  expect((error as Error).message).not.toMatch(/retry with the same input|safe to/i);
  expect((error as Error).message).toContain('retrievePayment');
}

describe('creations and refunds are sent once, and a 5xx or 1500 answer is an unknown outcome', () => {
  it.each([
    [
      'payments.create',
      '/v2.0/payment',
      (retry: number) => testAdapter({ retry }).createPayment(paymentParams),
    ],
    [
      'checkouts.create',
      `/v2.0/paymentRedirect/merchant/${MERCHANT}`,
      (retry: number) => testAdapter({ retry }).createCheckout(checkoutParams),
    ],
    [
      'createCheckoutRedirect',
      `/v2.0/paymentRedirect/merchant/${MERCHANT}`,
      (retry: number) => testAdapter({ retry }).createCheckoutRedirect(checkoutParams),
    ],
  ])('%s: a 502 is answered once and reported as possibly created', async (_op, path, run) => {
    const scope = nock(BASE_URL).post(path).once().reply(502, 'Bad Gateway');
    expectUnknownOutcome(await rejectionOf(run(2)), { refId: 'order-1001' });
    expect(scope.isDone()).toBe(true);
  });

  it('payments.create: a 1500 that carries a transId names it and is an unknown outcome', async () => {
    nock(BASE_URL)
      .post('/v2.0/payment')
      .reply(200, { code: 1500, message: 'Unexpected error', transId: TRANS_ID });
    expectUnknownOutcome(await rejectionOf(testAdapter().createPayment(paymentParams)), {
      transId: TRANS_ID,
      refId: 'order-1001',
    });
  });

  it('payments.create: a refusal that names a transaction keeps its id even when the code proves nothing moved', async () => {
    nock(BASE_URL)
      .post('/v2.0/payment')
      .reply(400, { code: 1309, message: 'Wrong amount', transId: TRANS_ID });
    const error = await rejectionOf(testAdapter().createPayment(paymentParams));
    expect(error).toMatchObject({ providerCode: '1309', context: { transId: TRANS_ID } });
  });

  it('payments.create: a plain 4xx refusal stays a plain refusal', async () => {
    nock(BASE_URL).post('/v2.0/payment').reply(400, { code: 1309, message: 'Wrong amount' });
    const error = await rejectionOf<ProviderApiError>(testAdapter().createPayment(paymentParams));
    expect(error.outcome).toBeUndefined();
    expect(error.retryable).toBe(false);
  });

  it('refunds.create: a 503 is answered once and reported as possibly refunded, naming the refund', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply(), FORM)
      .post('/v2.0/refund.json')
      .once()
      .reply(503, 'busy');
    const error = await rejectionOf(
      testAdapter({ retry: 2 }).createRefund({
        payment_id: TRANS_ID,
        amount: 1,
        provider_metadata: { refId: 'RF-1' },
      }),
    );
    expectUnknownOutcome(error, { transId: TRANS_ID, refId: 'RF-1' });
    expect(scope.isDone()).toBe(true);
  });

  it('payments.create: a reply lost after sending is a NetworkError with an unknown outcome, never retried', async () => {
    const scope = nock(BASE_URL).post('/v2.0/payment').once().replyWithError({ code: 'ECONNRESET' });
    const error = await rejectionOf(testAdapter({ retry: 2 }).createPayment(paymentParams));
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ outcome: 'unknown' });
    expect(scope.isDone()).toBe(true);
  });
});

describe('payments.capture returns success only for the amount asked for (docs/providers/provider-r.md#capture-and-cancel)', () => {
  const PREAUTH = `/v2.0/preauth/transId/${TRANS_ID}.json`;

  it('refuses when a retried capture was refused and the payment is captured for another amount', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'AUTHORIZED' }), FORM)
      .put(PREAUTH, { amount: 6000 })
      .reply(503, 'Service Unavailable')
      .put(PREAUTH, { amount: 6000 })
      .reply(400, { code: 1400, message: 'Payment is not pre-authorised' })
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PAID', price: '4000' }), FORM);
    const error = await rejectionOf(testAdapter({ retry: 1 }).capturePayment(TRANS_ID, { amount: 60 }));
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      providerCode: '1400',
      retryable: false,
      context: { transId: TRANS_ID, capturedAmount: 40, requestedAmount: 60 },
    });
    expect((error as Error).message).toContain('already captured for 40 CZK, not the 60 CZK asked for');
    expect(scope.isDone()).toBe(true);
  });

  it('answers an already captured payment with the amount asked for without capturing again', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PAID', price: '6000' }), FORM);
    await expect(testAdapter().capturePayment(TRANS_ID, { amount: 60 })).resolves.toMatchObject({
      status: 'succeeded',
      amount: 60,
    });
    expect(scope.isDone()).toBe(true);
  });

  it('refuses an already captured payment of another amount without capturing', async () => {
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PAID', price: '10000' }), FORM);
    const error = await rejectionOf(testAdapter().capturePayment(TRANS_ID, { amount: 60 }));
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues[0]).toMatchObject({ path: 'amount' });
    expect((error as Error).message).toContain('already captured for 100 CZK');
  });

  it('refuses an amount above the pre-authorisation, and a payment that is not pre-authorised, before capturing', async () => {
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'AUTHORIZED', price: '5000' }), FORM);
    expect(await rejectionOf(testAdapter().capturePayment(TRANS_ID, { amount: 60 }))).toMatchObject({
      code: 'validation_error',
      issues: [{ path: 'amount', message: 'must be at most 50, the amount pre-authorised' }],
    });
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PENDING' }), FORM);
    expect(await rejectionOf(testAdapter().capturePayment(TRANS_ID))).toMatchObject({
      code: 'validation_error',
      issues: [{ path: 'id' }],
    });
  });
});

describe('payments.cancel after a lost reply', () => {
  it('passes a refused retry on with an unknown outcome when the payment is not cancelled', async () => {
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PENDING' }), FORM)
      .delete(`/v2.0/payment/transId/${TRANS_ID}.json`)
      .reply(504, 'Gateway Timeout')
      .delete(`/v2.0/payment/transId/${TRANS_ID}.json`)
      .reply(400, { code: 1400, message: 'Payment cannot be cancelled' })
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PAID' }), FORM);
    expectUnknownOutcome(await rejectionOf(testAdapter({ retry: 1 }).cancelPayment(TRANS_ID)), {
      transId: TRANS_ID,
    });
  });
});

describe('records from a creation', () => {
  it('a production payment is live and nothing is paid yet', async () => {
    nock(BASE_URL)
      .post('/v2.0/payment', (body) => body.test === false)
      .reply(200, { code: 0, message: 'OK', transId: TRANS_ID, redirect: REDIRECT });
    await expect(testAdapter({ isSandbox: false }).createPayment(paymentParams)).resolves.toMatchObject({
      livemode: true,
      amount_paid: 0,
    });
  });
});
