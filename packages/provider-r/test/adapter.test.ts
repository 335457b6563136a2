import {
  ConfigurationError,
  createPay,
  InvalidResponseError,
  ProviderApiError,
  ProviderNotSupportedError,
  ValidationError,
} from '@pay/core';
import nock from 'nock';
import { describe, expect, it, vi } from 'vitest';
import { PROVIDER_R_CODES } from '../src/index.js';
import {
  BASE_URL,
  BASIC,
  FORM,
  MERCHANT,
  REDIRECT,
  rejectionOf,
  SECRET,
  statusReply,
  statusRequest,
  TRANS_ID,
  testAdapter,
  useNock,
} from './fixtures.js';

useNock();

const checkoutParams = {
  customer: { email: 'payer@example.com' },
  item_id: 'order-1001',
  session_type: 'one_time' as const,
  quantity: 1,
  // 100.00 CZK in the currency's standard unit; the wire carries 10000 minor units.
  amount: 100,
  currency: 'czk',
  success_url: 'https://shop.example/paid',
  cancel_url: 'https://shop.example/cancelled',
};

const createdReply = { code: 0, message: 'OK', transId: TRANS_ID, redirect: REDIRECT };

describe('checkouts.create', () => {
  it('posts the redirect request with Basic auth and resolves to null', async () => {
    const scope = nock(BASE_URL)
      .post(`/v2.0/paymentRedirect/merchant/${MERCHANT}`, {
        price: 10000,
        curr: 'CZK',
        label: 'Order from Eshop',
        refId: 'order-1001',
        email: 'payer@example.com',
        method: 'ALL',
        test: true,
        url_paid: 'https://shop.example/paid',
        url_cancelled: 'https://shop.example/cancelled',
        url_pending: 'https://shop.example/paid',
      })
      .matchHeader('authorization', BASIC)
      .matchHeader('content-type', 'application/json')
      .reply(200, createdReply);
    await expect(createPay(testAdapter()).checkouts.create(checkoutParams)).resolves.toBeNull();
    expect(scope.isDone()).toBe(true);
  });

  it('gives callers who redirect themselves the transaction and the hosted page', async () => {
    const scope = nock(BASE_URL)
      .post(`/v2.0/paymentRedirect/merchant/${MERCHANT}`, (body) => {
        return (
          body.email === 'billing@example.com' &&
          body.label === 'Tickets' &&
          body.refId === 'INV-7' &&
          body.test === false
        );
      })
      .reply(200, createdReply);
    const pay = createPay(testAdapter({ isSandbox: false }));
    const redirect = await pay.adapter.createCheckoutRedirect({
      ...checkoutParams,
      customer: { id: 'cust_42' },
      provider_metadata: { email: 'billing@example.com', label: 'Tickets', refId: 'INV-7' },
    });
    expect(redirect).toEqual({ transId: TRANS_ID, redirectUrl: REDIRECT });
    expect(scope.isDone()).toBe(true);
  });

  it('lists every missing field in one ValidationError before any call', async () => {
    const error = await rejectionOf(testAdapter().createCheckout({ customer: { id: 'cust_42' } } as never));
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues.map((issue) => issue.path).sort()).toEqual(
      ['amount', 'cancel_url', 'currency', 'customer', 'success_url'].sort(),
    );
  });

  it('refuses a label longer than 16 characters, an amount finer than a hundredth and a currency the provider lacks', async () => {
    const error = await rejectionOf(
      testAdapter().createCheckout({
        ...checkoutParams,
        amount: 100.505,
        currency: 'JPY',
        provider_metadata: { label: 'A label far too long for the page' },
      }),
    );
    expect((error as ValidationError).issues.map((issue) => issue.path).sort()).toEqual([
      'amount',
      'currency',
      'provider_metadata.label',
    ]);
  });

  it('turns a non-zero provider code into a ProviderApiError whatever the HTTP status', async () => {
    nock(BASE_URL)
      .post(`/v2.0/paymentRedirect/merchant/${MERCHANT}`)
      .reply(200, { code: 1309, message: 'Wrong amount' });
    const error = await rejectionOf(testAdapter().createCheckout(checkoutParams));
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'provider_api_error',
      status: 200,
      providerCode: '1309',
      providerMessage: 'Wrong amount',
      retryable: false,
    });
    expect((error as ProviderApiError).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never repeats the creation on a 503, and says it may have been created instead of advising a retry', async () => {
    const scope = nock(BASE_URL)
      .post(`/v2.0/paymentRedirect/merchant/${MERCHANT}`)
      .once()
      .reply(503, 'Service Unavailable');
    const error = await rejectionOf(testAdapter({ retry: 2 }).createCheckout(checkoutParams));
    expect(error).toMatchObject({
      code: 'provider_api_error',
      status: 503,
      retryable: false,
      outcome: 'unknown',
      context: { refId: 'order-1001' },
    });
    expect((error as Error).message).not.toContain('retry with the same input');
    expect(scope.isDone()).toBe(true);
  });

  it('refuses a success reply it cannot read with InvalidResponseError', async () => {
    nock(BASE_URL).post(`/v2.0/paymentRedirect/merchant/${MERCHANT}`).reply(200, { code: 0, message: 'OK' });
    expect(
      InvalidResponseError.isInstance(await rejectionOf(testAdapter().createCheckout(checkoutParams))),
    ).toBe(true);
  });
});

describe('provider codes', () => {
  const codes = Object.keys(PROVIDER_R_CODES).filter((code) => code !== '0');

  it.each(codes)('turns code %s into a ProviderApiError carrying the code and the message', async (code) => {
    const message = PROVIDER_R_CODES[Number(code) as keyof typeof PROVIDER_R_CODES];
    nock(BASE_URL)
      .post('/v2.0/payment')
      .reply(400, { code: Number(code), message });
    const error = await rejectionOf(
      testAdapter().createPayment({
        customer: { id: 'c' },
        amount: 1,
        provider_metadata: { email: 'a@example.com' },
      }),
    );
    expect(ProviderApiError.isInstance(error)).toBe(true);
    // A creating call is never "retry with the same input": the provider's own failures (1200, 1500) may come
    // after the payment was created, so their outcome is unknown (docs/providers/provider-r.md#response-codes).
    const ownFailure = ['1200', '1500'].includes(code);
    expect(error).toMatchObject({
      status: 400,
      providerCode: code,
      providerMessage: message,
      retryable: false,
    });
    expect((error as ProviderApiError).outcome).toBe(ownFailure ? 'unknown' : undefined);
    expect((error as Error).message).not.toContain('retry with the same input');
  });

  it.each([
    ['1104', 'not_found'],
    ['1301', 'authentication'],
    ['1200', 'provider_unavailable'],
    ['1500', 'provider_unavailable'],
    ['1401', 'conflict'],
    ['1402', 'invalid_request'],
    // Not in R's table: the kind the HTTP status implies (invalid_request at 200).
    ['1309', 'invalid_request'],
  ])('gives code %s the portable kind %s from the error table, at HTTP 200', async (code, kind) => {
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, { code: Number(code), message: 'refused' });
    const error = await rejectionOf<ProviderApiError>(testAdapter().capturePayment(TRANS_ID));
    expect(error).toMatchObject({ providerCode: code, kind });
    expect(error.retryable).toBe(kind === 'provider_unavailable');
  });

  it('accepts code 0 given as text', async () => {
    nock(BASE_URL)
      .post('/v2.0/payment')
      .reply(200, { ...createdReply, code: '0' });
    await expect(
      testAdapter().createPayment({
        customer: { id: 'c' },
        amount: 1,
        provider_metadata: { email: 'a@example.com' },
      }),
    ).resolves.toMatchObject({ id: TRANS_ID });
  });
});

describe('payments.create', () => {
  const params = {
    customer: { id: 'cust_42' },
    item_id: 'order-1001',
    amount: 250.5,
    metadata: { cart: 'c-9' },
    provider_metadata: { email: 'payer@example.com' },
  };

  it('posts the payment with the defaults (CZK, default label) and returns a pending Payment with the redirect', async () => {
    const scope = nock(BASE_URL)
      .post('/v2.0/payment', {
        price: 25050,
        curr: 'CZK',
        label: 'Order from Eshop',
        refId: 'order-1001',
        payerId: 'cust_42',
        email: 'payer@example.com',
        method: 'ALL',
        prepareOnly: true,
        test: true,
      })
      .matchHeader('authorization', BASIC)
      .reply(200, createdReply);
    const payment = await createPay(testAdapter()).payments.create(params);
    expect(payment).toEqual({
      provider: 'providerR',
      id: TRANS_ID,
      amount: 250.5,
      amount_paid: 0,
      currency: 'CZK',
      status: 'pending',
      customer: { id: 'cust_42' },
      item_id: 'order-1001',
      metadata: { cart: 'c-9' },
      requires_action: true,
      payment_url: REDIRECT,
      livemode: false,
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      raw: createdReply,
    });
    expect(scope.isDone()).toBe(true);
  });

  it('sends the payment label, the reference and the currency given', async () => {
    const scope = nock(BASE_URL)
      .post(
        '/v2.0/payment',
        (body) => body.label === 'Season pass' && body.refId === 'R-1' && body.curr === 'EUR',
      )
      .reply(200, createdReply);
    await testAdapter().createPayment({
      ...params,
      currency: 'eur',
      provider_metadata: { email: 'payer@example.com', paymentLabel: 'Season pass', refId: 'R-1' },
    });
    expect(scope.isDone()).toBe(true);
  });

  it('refuses an e-mail customer, a missing payer e-mail and an amount finer than a hundredth together, before any call', async () => {
    const error = await rejectionOf(
      testAdapter().createPayment({
        customer: { email: 'payer@example.com' },
        amount: 99.999,
        provider_metadata: {} as never,
      }),
    );
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues.map((issue) => issue.path).sort()).toEqual([
      'amount',
      'customer',
      'provider_metadata.email',
    ]);
  });

  it('refuses zero, negative and unknown provider_metadata members', async () => {
    for (const amount of [0, -1]) {
      const error = await rejectionOf(testAdapter().createPayment({ ...params, amount }));
      expect((error as ValidationError).issues[0]?.path).toBe('amount');
    }
    const error = await rejectionOf(
      testAdapter().createPayment({
        ...params,
        provider_metadata: { email: 'payer@example.com', emial: 'x' } as never,
      }),
    );
    expect((error as ValidationError).issues).toEqual([
      { path: 'provider_metadata.emial', message: 'is not a known field' },
    ]);
  });
});

describe('payments.retrieve', () => {
  it('reads the status with the form-encoded call and maps the form reply, without the echoed secret', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status', statusRequest())
      .matchHeader('authorization', BASIC)
      .matchHeader('content-type', 'application/x-www-form-urlencoded')
      .reply(200, statusReply(), FORM);
    const payment = await testAdapter().retrievePayment(TRANS_ID);
    expect(payment).toMatchObject({
      provider: 'providerR',
      id: TRANS_ID,
      amount: 100,
      amount_paid: 100,
      currency: 'CZK',
      status: 'succeeded',
      customer: { id: 'cust_42' },
      item_id: 'order-1001',
      metadata: { refId: 'order-1001', label: 'Order from Eshop' },
      requires_action: false,
      payment_url: null,
    });
    expect(payment?.raw).toMatchObject({ price: 10000, test: true, status: 'PAID', method: 'CARD' });
    expect(payment?.raw).not.toHaveProperty('secret');
    expect(JSON.stringify(payment)).not.toContain(SECRET);
    expect(scope.isDone()).toBe(true);
  });

  it('accepts a JSON status reply with numbers', async () => {
    nock(BASE_URL).post('/v1.0/status').reply(200, {
      code: 0,
      message: 'OK',
      transId: TRANS_ID,
      status: 'AUTHORIZED',
      price: 5000,
      curr: 'EUR',
      email: 'a@example.com',
      secret: SECRET,
    });
    const payment = await testAdapter().retrievePayment(TRANS_ID);
    expect(payment).toMatchObject({
      status: 'requires_capture',
      amount: 50,
      amount_paid: 0,
      currency: 'EUR',
      customer: { email: 'a@example.com' },
    });
    expect(payment?.raw).not.toHaveProperty('secret');
  });

  it('maps every provider status through the table', async () => {
    const expected = {
      PENDING: 'pending',
      AUTHORIZED: 'requires_capture',
      PAID: 'succeeded',
      CANCELLED: 'canceled',
    };
    for (const [status, unified] of Object.entries(expected)) {
      nock(BASE_URL).post('/v1.0/status').reply(200, statusReply({ status }), FORM);
      expect((await testAdapter().retrievePayment(TRANS_ID))?.status).toBe(unified);
    }
  });

  it('resolves to null for an unknown transId (code 1104)', async () => {
    nock(BASE_URL).post('/v1.0/status').reply(200, 'code=1104&message=Transaction+not+found', FORM);
    await expect(testAdapter().retrievePayment('NOPE-0000-0000')).resolves.toBeNull();
  });

  it('throws a gateway failure that carries the unknown-transaction code (a 5xx proves no absence)', async () => {
    nock(BASE_URL).post('/v1.0/status').reply(502, 'code=1104&message=Transaction+not+found', FORM);
    const error = await rejectionOf(testAdapter({ retry: 0 }).retrievePayment(TRANS_ID));
    expect(error).toBeInstanceOf(ProviderApiError);
    expect(error).toMatchObject({ status: 502, providerCode: '1104' });
  });

  it('records the request id of the status read it was built from', async () => {
    let sent = '';
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(function () {
        sent = String(this.req.headers['x-request-id']);
        return [200, statusReply(), { ...FORM, 'x-request-id': 'echoed-by-a-proxy' }];
      });
    const payment = await testAdapter().retrievePayment(TRANS_ID);
    expect(sent).not.toBe('');
    expect(payment?.request_id).toBe(sent);
  });

  it('throws other provider codes, with the message redacted of the secret', async () => {
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(
        200,
        new URLSearchParams({ code: '1400', message: `Access denied for secret ${SECRET}` }).toString(),
        FORM,
      );
    const error = await rejectionOf(testAdapter().retrievePayment(TRANS_ID));
    expect(error).toMatchObject({ code: 'provider_api_error', providerCode: '1400' });
    expect(JSON.stringify(error)).not.toContain(SECRET);
    expect((error as ProviderApiError).providerMessage).toContain('[REDACTED]');
  });

  it('retries the status read after a 503 (it is a read) with the same request id', async () => {
    const ids: string[] = [];
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(function () {
        ids.push(String(this.req.headers['x-request-id']));
        return [503, 'busy'];
      })
      .post('/v1.0/status')
      .reply(function () {
        ids.push(String(this.req.headers['x-request-id']));
        return [200, statusReply(), FORM];
      });
    const payment = await testAdapter({ retry: 1 }).retrievePayment(TRANS_ID);
    expect(payment?.status).toBe('succeeded');
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
  });

  it('never shows the secret or the Authorization header to hooks', async () => {
    nock(BASE_URL).post('/v1.0/status').reply(200, statusReply(), FORM);
    const onRequest = vi.fn();
    const onResponse = vi.fn();
    await testAdapter({ hooks: { onRequest, onResponse } }).retrievePayment(TRANS_ID);
    const seen = JSON.stringify([onRequest.mock.calls, onResponse.mock.calls]);
    expect(onResponse).toHaveBeenCalledTimes(1);
    for (const spelling of [
      SECRET,
      encodeURIComponent(SECRET),
      new URLSearchParams({ s: SECRET }).toString().slice(2),
      BASIC,
    ]) {
      expect(seen).not.toContain(spelling);
    }
    expect(seen).toContain('[REDACTED]');
  });

  it('refuses a status reply without a status as InvalidResponseError', async () => {
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, 'code=0&message=OK&transId=AB12-CD34-EF56&price=100&curr=CZK', FORM);
    expect(InvalidResponseError.isInstance(await rejectionOf(testAdapter().retrievePayment(TRANS_ID)))).toBe(
      true,
    );
  });
});

describe('payments.capture', () => {
  it('reads the authorisation, captures it with PUT and returns the payment read afterwards', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status', statusRequest())
      .reply(200, statusReply({ status: 'AUTHORIZED' }), FORM)
      .put(`/v2.0/preauth/transId/${TRANS_ID}.json`, { amount: 8000 })
      .matchHeader('authorization', BASIC)
      .reply(200, { code: 0, message: 'OK' })
      .post('/v1.0/status', statusRequest())
      .reply(200, statusReply({ price: '8000' }), FORM);
    const payment = await createPay(testAdapter()).payments.capture(TRANS_ID, { amount: 80 });
    expect(payment).toMatchObject({ id: TRANS_ID, status: 'succeeded', amount: 80, amount_paid: 80 });
    expect(scope.isDone()).toBe(true);
  });

  it('captures the whole authorisation when no amount is given, and encodes the transId as one segment', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status', statusRequest('A/B'))
      .reply(200, statusReply({ transId: 'A/B', status: 'AUTHORIZED' }), FORM)
      .put('/v2.0/preauth/transId/A%2FB.json', {})
      .reply(200, { code: 0, message: 'OK' })
      .post('/v1.0/status', statusRequest('A/B'))
      .reply(200, statusReply({ transId: 'A/B' }), FORM);
    await testAdapter().capturePayment('A/B');
    expect(scope.isDone()).toBe(true);
  });

  it('answers with the captured payment when a retried capture is refused because the first one landed with the amount asked', async () => {
    // The first PUT captured the money but its reply was lost (503); the retry is refused with 1400.
    const scope = nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'AUTHORIZED' }), FORM)
      .put(`/v2.0/preauth/transId/${TRANS_ID}.json`)
      .reply(503, 'Service Unavailable')
      .put(`/v2.0/preauth/transId/${TRANS_ID}.json`)
      .reply(400, { code: 1400, message: 'Payment is not pre-authorised' })
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PAID' }), FORM);
    const payment = await testAdapter({ retry: 1 }).capturePayment(TRANS_ID);
    expect(payment).toMatchObject({ id: TRANS_ID, status: 'succeeded', amount: 100 });
    expect(scope.isDone()).toBe(true);
  });

  it('passes a refused capture on when the payment is still not captured, with outcome unknown after a lost reply', async () => {
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'AUTHORIZED' }), FORM)
      .put(`/v2.0/preauth/transId/${TRANS_ID}.json`)
      .reply(502, 'Bad Gateway')
      .put(`/v2.0/preauth/transId/${TRANS_ID}.json`)
      .reply(400, { code: 1400, message: 'Payment is not pre-authorised' })
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'AUTHORIZED' }), FORM);
    const error = await rejectionOf(testAdapter({ retry: 1 }).capturePayment(TRANS_ID));
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      providerCode: '1400',
      outcome: 'unknown',
      retryable: false,
      context: { transId: TRANS_ID },
    });
    expect((error as Error).message).toContain('retrievePayment');
  });

  it('refuses a capture amount finer than a hundredth before any call', async () => {
    expect(
      ValidationError.isInstance(
        await rejectionOf(testAdapter().capturePayment(TRANS_ID, { amount: 1.505 })),
      ),
    ).toBe(true);
  });
});

describe('payments.cancel', () => {
  it('cancels a PENDING payment with DELETE /v2.0/payment', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PENDING' }), FORM)
      .delete(`/v2.0/payment/transId/${TRANS_ID}.json`)
      .matchHeader('authorization', BASIC)
      .reply(200, { code: 0, message: 'OK' })
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'CANCELLED' }), FORM);
    await expect(testAdapter().cancelPayment(TRANS_ID)).resolves.toMatchObject({ status: 'canceled' });
    expect(scope.isDone()).toBe(true);
  });

  it('answers with the cancelled payment when a retried cancel is refused because the first one landed', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PENDING' }), FORM)
      .delete(`/v2.0/payment/transId/${TRANS_ID}.json`)
      .reply(502, 'Bad Gateway')
      .delete(`/v2.0/payment/transId/${TRANS_ID}.json`)
      .reply(400, { code: 1400, message: 'Payment cannot be cancelled' })
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'CANCELLED' }), FORM);
    await expect(testAdapter({ retry: 1 }).cancelPayment(TRANS_ID)).resolves.toMatchObject({
      status: 'canceled',
    });
    expect(scope.isDone()).toBe(true);
  });

  it('cancels a pre-authorisation with DELETE /v2.0/preauth', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'AUTHORIZED' }), FORM)
      .delete(`/v2.0/preauth/transId/${TRANS_ID}.json`)
      .reply(200, { code: 0, message: 'OK' })
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'CANCELLED' }), FORM);
    await expect(testAdapter().cancelPayment(TRANS_ID)).resolves.toMatchObject({ status: 'canceled' });
    expect(scope.isDone()).toBe(true);
  });

  it('refuses to cancel a PAID payment and points to refunds', async () => {
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PAID' }), FORM);
    const error = await rejectionOf(testAdapter().cancelPayment(TRANS_ID));
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('refunds.create');
  });

  it('returns an already cancelled payment without another call', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'CANCELLED' }), FORM);
    await expect(testAdapter().cancelPayment(TRANS_ID)).resolves.toMatchObject({ status: 'canceled' });
    expect(scope.isDone()).toBe(true);
  });
});

describe('refunds.create', () => {
  it('reads the payment, then refunds the amount given in its currency', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status', statusRequest())
      .reply(200, statusReply({ curr: 'EUR' }), FORM)
      .post('/v2.0/refund.json', { transId: TRANS_ID, amount: 2500, curr: 'EUR', refId: 'RF-1', test: true })
      .matchHeader('authorization', BASIC)
      .reply(200, { code: 0, message: 'OK' });
    const refund = await createPay(testAdapter()).refunds.create({
      payment_id: TRANS_ID,
      amount: 25,
      reason: 'damaged',
      provider_metadata: { refId: 'RF-1' },
    });
    expect(refund).toEqual({
      provider: 'providerR',
      id: 'RF-1',
      payment_id: TRANS_ID,
      amount: 25,
      currency: 'EUR',
      status: 'succeeded',
      reason: 'damaged',
      metadata: {},
      livemode: false,
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      raw: { code: 0, message: 'OK' },
    });
    expect(scope.isDone()).toBe(true);
  });

  it('refunds the full price when no amount is given, under a generated reference', async () => {
    let sent: Record<string, unknown> = {};
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply(), FORM)
      .post('/v2.0/refund.json', (body) => {
        sent = body;
        return true;
      })
      .reply(200, { code: 0, message: 'OK' });
    const refund = await testAdapter().createRefund({ payment_id: TRANS_ID });
    expect(sent).toMatchObject({ transId: TRANS_ID, amount: 10000, curr: 'CZK', test: true });
    expect(refund.id).toBe(sent.refId);
    expect(refund.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a currency other than the payment’s after the read and before the refund', async () => {
    const scope = nock(BASE_URL).post('/v1.0/status').reply(200, statusReply(), FORM);
    const error = await rejectionOf(
      testAdapter().createRefund({ payment_id: TRANS_ID, amount: 1, currency: 'EUR' }),
    );
    expect((error as ValidationError).issues).toEqual([
      { path: 'currency', message: 'must be CZK, the currency of the payment' },
    ]);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    [1401, 'Refund of a cancelled payment'],
    [1402, 'Refund amount too high'],
  ])('passes provider code %i through as a ProviderApiError', async (code, message) => {
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply(), FORM)
      .post('/v2.0/refund.json')
      .reply(400, { code, message });
    const error = await rejectionOf(
      testAdapter({ retry: 2 }).createRefund({
        payment_id: TRANS_ID,
        amount: 1,
        provider_metadata: { refId: 'RF-9' },
      }),
    );
    expect(error).toMatchObject({
      status: 400,
      providerCode: String(code),
      providerMessage: message,
      retryable: false,
      context: { transId: TRANS_ID, refId: 'RF-9' },
    });
  });

  it('refuses a refund amount finer than a hundredth before any call', async () => {
    const error = await rejectionOf(testAdapter().createRefund({ payment_id: TRANS_ID, amount: 10.555 }));
    expect((error as ValidationError).issues).toEqual([
      { path: 'amount', message: 'has more than 2 decimal digit(s), the minor unit of the currency' },
    ]);
  });
});

describe('unsupported operations', () => {
  it('throw ProviderNotSupportedError with the reason', async () => {
    // Not in the types of `pay.checkouts` (a compile error, test/types.test-d.ts); at run time through the adapter.
    const error = await rejectionOf(createPay(testAdapter()).adapter.retrieveCheckout(TRANS_ID));
    expect(ProviderNotSupportedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ provider: 'providerR', operation: 'checkouts.retrieve' });
    expect((error as ProviderNotSupportedError).reason).toContain('payments.retrieve');
    expect(createPay(testAdapter()).supports('refunds.create')).toBe(true);
    expect(createPay(testAdapter()).supports('customers.create')).toBe(false);
  });
});

describe('rotating the merchant secret (docs/providers/provider-r.md#authentication)', () => {
  const ROTATED = 'r0tated-Secret+Value/2';
  const basicOf = (secret: string) => `Basic ${Buffer.from(`${MERCHANT}:${secret}`).toString('base64')}`;

  /**
   * Status reads, each recording the Basic header and the form's `secret` it carried; `first` answers the first
   * one instead of the PAID reply.
   */
  function recordStatusReads(times: number, first?: () => [number, string]) {
    const sent: { authorization: string; secret: string | null }[] = [];
    nock(BASE_URL)
      .post('/v1.0/status')
      .times(times)
      .reply(function (_uri, body) {
        sent.push({
          authorization: String(this.req.headers.authorization),
          secret: new URLSearchParams(String(body)).get('secret'),
        });
        return sent.length === 1 && first ? first() : [200, statusReply({ secret: ROTATED }), FORM];
      });
    return sent;
  }

  it('authenticates the next call with the new secret, in the Basic header and the status form alike', async () => {
    const sent = recordStatusReads(1);
    const adapter = testAdapter();
    adapter.updateCredentials({ secret: ROTATED });
    expect(await adapter.retrievePayment(TRANS_ID)).toMatchObject({ id: TRANS_ID, status: 'succeeded' });
    expect(sent).toEqual([{ authorization: basicOf(ROTATED), secret: ROTATED }]);
  });

  it('retries a read held while the secret changes with the secret it started with, never a mix', async () => {
    const adapter = testAdapter({ retry: 1 });
    const sent = recordStatusReads(2, () => {
      // The read is at the provider when the secret changes; the provider then answers retryably.
      adapter.updateCredentials({ secret: ROTATED });
      return [503, 'busy'];
    });
    await adapter.retrievePayment(TRANS_ID);
    expect(sent).toEqual([
      { authorization: BASIC, secret: SECRET },
      { authorization: BASIC, secret: SECRET },
    ]);
  });

  it('refuses an empty secret with a ConfigurationError naming it, and keeps the old one', () => {
    const adapter = testAdapter();
    expect(() => adapter.updateCredentials({ secret: '' })).toThrow(/secret/);
  });

  it('refuses a blank secret with a ConfigurationError naming it, and the next call still sends the working one', async () => {
    const adapter = testAdapter();
    for (const secret of ['   ', '\t\n']) {
      let refusal: unknown;
      try {
        adapter.updateCredentials({ secret });
      } catch (error) {
        refusal = error;
      }
      expect(ConfigurationError.isInstance(refusal)).toBe(true);
      expect(refusal).toMatchObject({ missing: ['secret'] });
    }
    const sent = recordStatusReads(1);
    await adapter.retrievePayment(TRANS_ID);
    expect(sent).toEqual([{ authorization: BASIC, secret: SECRET }]);
  });

  it('sends the new secret trimmed, as it was checked', async () => {
    const sent = recordStatusReads(1);
    const adapter = testAdapter();
    adapter.updateCredentials({ secret: ` ${ROTATED}\n` });
    await adapter.retrievePayment(TRANS_ID);
    expect(sent).toEqual([{ authorization: basicOf(ROTATED), secret: ROTATED }]);
  });
});
