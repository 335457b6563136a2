import {
  InvalidResponseError,
  ProviderApiError,
  ProviderNotSupportedError,
  ValidationError,
} from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  API_KEY,
  BASIC,
  CONTRACT_CODE,
  HOST,
  initTransactionBody,
  nockLogin,
  ok,
  refundBody,
  refused,
  TRANSACTION_REFERENCE,
  testAdapter,
  transactionStatusBody,
} from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

afterEach(() => {
  nock.cleanAll();
  vi.useRealTimers();
});

const checkoutParams = {
  customer: { email: 'ada@example.com' },
  item_id: 'blue-mug',
  quantity: 2,
  session_type: 'one_time' as const,
  success_url: 'https://shop.example/thanks',
  cancel_url: 'https://shop.example/cart',
  metadata: { orderId: '1001' },
  provider_metadata: { amount: 5000.5, currency: 'ngn' },
};

/** A fetch that records the URL of every request before nock answers it. */
function recordingFetch() {
  const urls: string[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    urls.push(input instanceof Request ? input.url : String(input));
    return globalThis.fetch(input, init);
  };
  return { urls, fetch };
}

describe('checkouts.create', () => {
  it('logs in, then posts init-transaction with Bearer auth and the exact body', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-22T10:15:30.000Z') });
    let sent: Record<string, unknown> | undefined;
    const login = nockLogin('tok-abc');
    const init = nock(HOST)
      .post('/api/v1/merchant/transactions/init-transaction', (body) => {
        sent = body;
        return true;
      })
      .matchHeader('authorization', 'Bearer tok-abc')
      .matchHeader('content-type', 'application/json')
      .reply(200, ok(initTransactionBody), { 'X-Request-Id': 'pn-req-init-7f3a' });

    const checkout = await testAdapter({ contractCode: CONTRACT_CODE }).createCheckout(checkoutParams);

    expect(login.isDone() && init.isDone()).toBe(true);
    expect(sent).toEqual({
      amount: 5000.5,
      currencyCode: 'NGN',
      contractCode: CONTRACT_CODE,
      customerEmail: 'ada@example.com',
      paymentReference: expect.stringMatching(/^[0-9a-f-]{36}$/),
      paymentDescription: 'blue-mug',
      redirectUrl: 'https://shop.example/thanks',
      paymentMethods: ['CARD', 'ACCOUNT_TRANSFER'],
      metaData: { orderId: '1001' },
    });
    const { apiKey: _apiKey, ...rawWithoutKey } = initTransactionBody;
    expect(checkout).toEqual({
      provider: 'providerN',
      id: TRANSACTION_REFERENCE,
      checkoutUrl: initTransactionBody.checkoutUrl,
      payment_url: initTransactionBody.checkoutUrl,
      amount: 5000.5,
      currency: 'NGN',
      customer: { email: 'ada@example.com' },
      session_type: 'one_time',
      products: [{ id: 'blue-mug', quantity: 2 }],
      metadata: { orderId: '1001' },
      expires_at: '2026-11-22T10:55:30.000Z',
      livemode: false,
      request_id: 'pn-req-init-7f3a',
      raw: rawWithoutKey,
    });
    expect(JSON.stringify(checkout)).not.toContain(API_KEY);
  });

  it('uses a new paymentReference on every call and sends no contractCode when none is configured', async () => {
    const bodies: Record<string, unknown>[] = [];
    nockLogin();
    nock(HOST)
      .post('/api/v1/merchant/transactions/init-transaction', (body) => {
        bodies.push(body);
        return true;
      })
      .times(2)
      .reply(200, ok(initTransactionBody));
    const adapter = testAdapter();
    await adapter.createCheckout(checkoutParams);
    await adapter.createCheckout(checkoutParams);
    expect(bodies).toHaveLength(2);
    expect(bodies[0]?.paymentReference).not.toBe(bodies[1]?.paymentReference);
    expect(bodies[0]).not.toHaveProperty('contractCode');
  });

  it('forwards customerName, paymentDescription and paymentMethods from provider_metadata', async () => {
    let sent: Record<string, unknown> | undefined;
    nockLogin();
    nock(HOST)
      .post('/api/v1/merchant/transactions/init-transaction', (body) => {
        sent = body;
        return true;
      })
      .reply(200, ok(initTransactionBody));
    await testAdapter().createCheckout({
      customer: { email: 'ada@example.com' },
      provider_metadata: {
        amount: 100,
        currency: 'NGN',
        customerName: 'Ada Obi',
        paymentDescription: 'Order 1001',
        paymentMethods: ['CARD'],
      },
    });
    expect(sent).toMatchObject({
      customerName: 'Ada Obi',
      paymentDescription: 'Order 1001',
      paymentMethods: ['CARD'],
    });
    expect(sent).not.toHaveProperty('redirectUrl');
  });

  it('names both amount and currency in one ValidationError when provider_metadata lacks them, before any I/O', async () => {
    const error = await testAdapter()
      .createCheckout({ customer: { email: 'ada@example.com' } } as never)
      .catch((thrown: unknown) => thrown);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([
      'provider_metadata.amount',
      'provider_metadata.currency',
    ]);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('refuses an amount finer than the currency, a missing e-mail and top-level amount together', async () => {
    const error = await testAdapter()
      .createCheckout({
        customer: { id: 'cus_1' },
        amount: 10,
        provider_metadata: { amount: 10.005, currency: 'NGN' },
      })
      .catch((thrown: unknown) => thrown);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([
      'customer.email',
      'amount',
      'provider_metadata.amount',
    ]);
  });

  it('refuses a zero or negative amount and an unknown provider_metadata member', async () => {
    const error = await testAdapter()
      .createCheckout({
        customer: { email: 'ada@example.com' },
        provider_metadata: { amount: 0, currency: 'NGN', colour: 'blue' } as never,
      })
      .catch((thrown: unknown) => thrown);
    expect((error as ValidationError).issues).toEqual([
      { path: 'provider_metadata.colour', message: 'is not a known field' },
    ]);
    const zero = await testAdapter()
      .createCheckout({
        customer: { email: 'ada@example.com' },
        provider_metadata: { amount: 0, currency: 'NGN' },
      })
      .catch((thrown: unknown) => thrown);
    expect((zero as ValidationError).issues).toEqual([
      { path: 'provider_metadata.amount', message: 'must be greater than zero' },
    ]);
  });

  it('turns an error envelope into a ProviderApiError even under HTTP 200, and never retries the POST', async () => {
    nockLogin();
    const init = nock(HOST)
      .post('/api/v1/merchant/transactions/init-transaction')
      .reply(200, refused('99', 'Duplicate payment reference'));
    const error = await testAdapter({ retry: 2 })
      .createCheckout(checkoutParams)
      .catch((thrown: unknown) => thrown);
    expect(init.isDone()).toBe(true);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 200,
      providerCode: '99',
      providerMessage: 'Duplicate payment reference',
      retryable: false,
    });
  });

  it('does not retry init-transaction on a 503, and does not call it safe to repeat', async () => {
    nockLogin();
    nock(HOST)
      .post('/api/v1/merchant/transactions/init-transaction')
      .once()
      .reply(503, refused('503', 'Service unavailable'));
    const error = await testAdapter({ retry: 2 })
      .createCheckout(checkoutParams)
      .catch((thrown: unknown) => thrown);
    // A 5xx to a call that opens a checkout does not prove nothing was opened (docs/architecture.md#outcomes).
    expect(error).toMatchObject({
      code: 'provider_api_error',
      status: 503,
      retryable: false,
      outcome: 'unknown',
    });
  });

  it('reports a success reply without checkoutUrl as InvalidResponseError', async () => {
    nockLogin();
    nock(HOST)
      .post('/api/v1/merchant/transactions/init-transaction')
      .reply(200, ok({ transactionReference: TRANSACTION_REFERENCE }));
    const error = await testAdapter()
      .createCheckout(checkoutParams)
      .catch((thrown: unknown) => thrown);
    expect(InvalidResponseError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('checkoutUrl');
  });
});

describe('payments.retrieve and checkouts.retrieve', () => {
  it('reads the v1 status query with the reference encoded and converts string amounts', async () => {
    const { urls, fetch } = recordingFetch();
    nockLogin('tok-q');
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query({ transactionReference: TRANSACTION_REFERENCE })
      .matchHeader('authorization', 'Bearer tok-q')
      .reply(200, function () {
        sentRequestId = String(this.req.headers['x-request-id']);
        return ok(transactionStatusBody);
      });
    let sentRequestId: string | undefined;
    const payment = await testAdapter({ fetch }).retrievePayment(TRANSACTION_REFERENCE);
    expect(urls[1]).toBe(
      `${HOST}/api/v1/merchant/transactions/query?transactionReference=PN%7C20261122101530%7C000123`,
    );
    expect(payment).toEqual({
      provider: 'providerN',
      id: TRANSACTION_REFERENCE,
      amount: 5000,
      amount_paid: 5000,
      currency: 'NGN',
      status: 'succeeded',
      customer: { email: 'ada@example.com' },
      item_id: null,
      metadata: {
        orderId: '1001',
        paymentStatus: 'PAID',
        paymentReference: 'order-1001',
        settlementAmount: '4925',
      },
      requires_action: false,
      payment_url: null,
      livemode: false,
      // No request id in the reply: the one sent with the call, so a support ticket can still quote it.
      request_id: sentRequestId,
      raw: transactionStatusBody,
    });
    expect(sentRequestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('maps the same read onto a Checkout', async () => {
    nockLogin();
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query({ transactionReference: TRANSACTION_REFERENCE })
      .reply(200, ok({ ...transactionStatusBody, paymentStatus: 'PENDING', amountPaid: '0.00' }), {
        'x-request-id': 'pn-req-query-2',
      });
    const checkout = await testAdapter().retrieveCheckout(TRANSACTION_REFERENCE);
    expect(checkout).toEqual({
      provider: 'providerN',
      id: TRANSACTION_REFERENCE,
      payment_url: null,
      amount: 5000,
      currency: 'NGN',
      customer: { email: 'ada@example.com' },
      session_type: 'one_time',
      products: [],
      metadata: {
        orderId: '1001',
        paymentStatus: 'PENDING',
        paymentReference: 'order-1001',
        settlementAmount: '4925',
        amountPaid: '0',
      },
      expires_at: null,
      livemode: false,
      request_id: 'pn-req-query-2',
      raw: { ...transactionStatusBody, paymentStatus: 'PENDING', amountPaid: '0.00' },
    });
  });

  it('resolves to null for an unknown reference (404, code 99)', async () => {
    nockLogin();
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .reply(404, refused('99', 'Transaction not found'));
    expect(await testAdapter().retrievePayment('PN|nope')).toBeNull();
  });

  it("throws a proxy's HTML 404 on the status read: it does not prove the transaction is unknown", async () => {
    nockLogin();
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .reply(404, '<html><body>404 Not Found</body></html>', { 'content-type': 'text/html' });
    const error = await testAdapter()
      .retrievePayment(TRANSACTION_REFERENCE)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderApiError);
    expect(error).toMatchObject({ status: 404, providerCode: undefined, kind: 'not_found' });
  });

  it('throws the catch-all code 99 with any status but 404 on the status read (only 404 + 99 is unknown)', async () => {
    nockLogin();
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .reply(400, refused('99', 'Transaction not found'));
    const error = await testAdapter()
      .retrievePayment(TRANSACTION_REFERENCE)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderApiError);
    expect(error).toMatchObject({ status: 400, providerCode: '99', kind: 'invalid_request' });
  });

  it('throws for any other refusal of the status read', async () => {
    nockLogin();
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .reply(400, refused('99', 'Bad request'));
    await expect(testAdapter().retrievePayment('PN|x')).rejects.toMatchObject({
      code: 'provider_api_error',
      status: 400,
      providerCode: '99',
    });
  });

  it('retries the read on a 502 (it is safe to repeat), with the same X-Request-Id', async () => {
    nockLogin();
    const ids: string[] = [];
    const record = function (this: { req: { headers: Record<string, string> } }) {
      ids.push(this.req.headers['x-request-id'] ?? '');
    };
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .reply(function () {
        record.call(this);
        return [502, 'Bad gateway'];
      });
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .reply(function () {
        record.call(this);
        return [200, ok(transactionStatusBody)];
      });
    const payment = await testAdapter({ retry: 1 }).retrievePayment(TRANSACTION_REFERENCE);
    expect(payment?.status).toBe('succeeded');
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[1]).toBe(ids[0]);
  });

  it.each([
    ['fully paid', '5000.00', 'processing'],
    ['paid more than asked', '5200.00', 'processing'],
    ['partly paid', '1.00', 'processing'],
    ['not paid', '0.00', 'pending'],
  ])(
    'reads a status it does not know as neither paid nor final (%s → %s), never an error or a guess of success',
    async (_what, amountPaid, status) => {
      nockLogin();
      nock(HOST)
        .get('/api/v1/merchant/transactions/query')
        .query(true)
        .reply(200, ok({ ...transactionStatusBody, paymentStatus: 'TELEPORTED', amountPaid }));
      const payment = await testAdapter().retrievePayment(TRANSACTION_REFERENCE);
      expect(payment).toMatchObject({ status, metadata: { paymentStatus: 'TELEPORTED' } });
    },
  );

  it.each(['CHARGEBACK', 'REFUNDED', 'PARTIALLY_REFUNDED', 'DISPUTED'])(
    'an undocumented %s paid in full is processing, not succeeded (docs/providers/provider-n.md#payment-statuses)',
    async (paymentStatus) => {
      nockLogin();
      nock(HOST)
        .get('/api/v1/merchant/transactions/query')
        .query(true)
        .reply(200, ok({ ...transactionStatusBody, paymentStatus, amountPaid: '5000.00' }));
      const payment = await testAdapter().retrievePayment(TRANSACTION_REFERENCE);
      expect(payment).toMatchObject({ status: 'processing', amount_paid: 5000, metadata: { paymentStatus } });
    },
  );

  it.each([
    ['PAID', 'succeeded'],
    ['OVERPAID', 'succeeded'],
    ['PARTIALLY_PAID', 'processing'],
    ['PENDING', 'pending'],
    ['ABANDONED', 'canceled'],
    ['CANCELLED', 'canceled'],
    ['REVERSED', 'canceled'],
    ['FAILED', 'failed'],
    ['EXPIRED', 'failed'],
  ])('reads the documented %s as %s, whatever the amounts', async (paymentStatus, status) => {
    nockLogin();
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .reply(200, ok({ ...transactionStatusBody, paymentStatus, amountPaid: '5000.00' }));
    const payment = await testAdapter().retrievePayment(TRANSACTION_REFERENCE);
    expect(payment).toMatchObject({ status, metadata: { paymentStatus } });
  });

  it.each(['constructor', '__proto__', 'toString'])(
    'reads a paymentStatus named %s as an unknown status, not a crash',
    async (paymentStatus) => {
      nockLogin();
      nock(HOST)
        .get('/api/v1/merchant/transactions/query')
        .query(true)
        .reply(200, ok({ ...transactionStatusBody, paymentStatus, amountPaid: '0.00' }));
      expect(await testAdapter().retrievePayment(TRANSACTION_REFERENCE)).toMatchObject({
        status: 'pending',
      });
    },
  );
});

describe('refunds.create', () => {
  it('posts initiate-refund with a unique refundReference and forwards extra provider_metadata', async () => {
    let sent: Record<string, unknown> | undefined;
    nockLogin('tok-r');
    nock(HOST)
      .post('/api/v1/refunds/initiate-refund', (body) => {
        sent = body;
        return true;
      })
      .matchHeader('authorization', 'Bearer tok-r')
      .reply(
        200,
        (_uri, body) =>
          ok({ ...refundBody, refundReference: (body as { refundReference: string }).refundReference }),
        { 'x-request-id': 'pn-req-refund-9' },
      );
    const refund = await testAdapter().createRefund({
      payment_id: TRANSACTION_REFERENCE,
      amount: 1000,
      reason: 'Damaged item',
      provider_metadata: { customerNote: 'Sorry', destinationAccountNumber: '0123456789', currency: 'ngn' },
    });
    expect(sent).toEqual({
      transactionReference: TRANSACTION_REFERENCE,
      refundReference: expect.stringMatching(/^[0-9a-f-]{36}$/),
      refundAmount: 1000,
      refundReason: 'Damaged item',
      customerNote: 'Sorry',
      destinationAccountNumber: '0123456789',
    });
    expect(refund).toEqual({
      provider: 'providerN',
      id: sent?.refundReference,
      payment_id: TRANSACTION_REFERENCE,
      amount: 1000,
      currency: 'NGN',
      status: 'pending',
      reason: 'Damaged item',
      metadata: {},
      livemode: false,
      request_id: 'pn-req-refund-9',
      raw: { ...refundBody, refundReference: sent?.refundReference },
    });
  });

  it('maps COMPLETED and FAILED refund statuses', async () => {
    nockLogin();
    nock(HOST)
      .post('/api/v1/refunds/initiate-refund')
      .reply(200, ok({ ...refundBody, refundStatus: 'COMPLETED' }));
    nock(HOST)
      .post('/api/v1/refunds/initiate-refund')
      .reply(200, ok({ ...refundBody, refundStatus: 'FAILED' }));
    const adapter = testAdapter();
    const params = { payment_id: TRANSACTION_REFERENCE, amount: 1000 };
    expect((await adapter.createRefund(params)).status).toBe('succeeded');
    expect((await adapter.createRefund(params)).status).toBe('failed');
  });

  it('refuses provider_metadata that would replace the adapter-set members, all in one error, before I/O', async () => {
    const error = await testAdapter()
      .createRefund({
        payment_id: TRANSACTION_REFERENCE,
        amount: 1000,
        provider_metadata: { transactionReference: 'x', refundReference: 'y', refundAmount: 1 } as never,
      })
      .catch((thrown: unknown) => thrown);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([
      'provider_metadata.transactionReference',
      'provider_metadata.refundReference',
      'provider_metadata.refundAmount',
    ]);
  });

  it('requires an amount in major units, a short reason and note, and no metadata', async () => {
    const error = await testAdapter()
      .createRefund({
        payment_id: TRANSACTION_REFERENCE,
        reason: 'x'.repeat(65),
        metadata: { a: 'b' },
        provider_metadata: { customerNote: 'seventeen chars!!' },
      })
      .catch((thrown: unknown) => thrown);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([
      'amount',
      'metadata',
      'reason',
      'provider_metadata.customerNote',
    ]);
    const fine = await testAdapter()
      .createRefund({ payment_id: TRANSACTION_REFERENCE, amount: 10.001 })
      .catch((thrown: unknown) => thrown);
    expect((fine as ValidationError).issues).toEqual([
      { path: 'amount', message: 'has more than 2 decimal digit(s), the minor unit of NGN' },
    ]);
  });

  it.each([
    ['R1', 'not found', 'not_found'],
    ['R2', 'cannot be refunded', 'invalid_request'],
    ['R3', 'above what remains', 'invalid_request'],
    ['R4', 'below the minimum', 'invalid_request'],
    ['R5', 'balance is too low', 'invalid_request'],
  ])('turns code %s into a ProviderApiError whose message says what to do', async (code, advice, kind) => {
    nockLogin();
    nock(HOST)
      .post('/api/v1/refunds/initiate-refund')
      .reply(400, refused(code, `Refund error ${code}`));
    const error = await testAdapter()
      .createRefund({ payment_id: TRANSACTION_REFERENCE, amount: 1000 })
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 400,
      providerCode: code,
      providerMessage: `Refund error ${code}`,
      retryable: false,
      kind,
      context: { transactionReference: TRANSACTION_REFERENCE, refundReference: expect.any(String) },
    });
    expect((error as Error).message).toContain(advice);
  });

  it.each([
    [
      'a duplicate refund reference (R9)',
      400,
      'R9',
      'Supplied refund reference already exists for the merchant.',
      'conflict',
    ],
    ['a refusal the table does not list, by its HTTP status', 409, 'R8', 'Refund locked', 'conflict'],
    ['a rate limit', 429, '99', 'Too many requests', 'rate_limited'],
  ])(
    'gives %s a portable kind (docs/architecture.md#provider-client)',
    async (_what, status, code, message, kind) => {
      nockLogin();
      nock(HOST).post('/api/v1/refunds/initiate-refund').reply(status, refused(code, message));
      const error = await testAdapter()
        .createRefund({ payment_id: TRANSACTION_REFERENCE, amount: 1000 })
        .catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ providerCode: code, kind });
    },
  );

  it('never retries the refund POST', async () => {
    nockLogin();
    nock(HOST).post('/api/v1/refunds/initiate-refund').once().reply(500, refused('500', 'Internal error'));
    await expect(
      testAdapter({ retry: 2 }).createRefund({ payment_id: TRANSACTION_REFERENCE, amount: 1000 }),
    ).rejects.toMatchObject({ status: 500, retryable: false, outcome: 'unknown' });
  });
});

describe('unsupported operations', () => {
  it.each([
    'createPayment',
    'updatePayment',
    'capturePayment',
    'cancelPayment',
    'deletePayment',
    'updateCheckout',
    'deleteCheckout',
    'createCustomer',
    'createSubscription',
  ] as const)('%s throws ProviderNotSupportedError before any I/O', async (method) => {
    const call = (testAdapter()[method] as (...args: unknown[]) => Promise<unknown>)({ amount: 1 });
    const error = await call.catch((thrown: unknown) => thrown);
    expect(ProviderNotSupportedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ provider: 'providerN' });
  });

  it('says payments go through the hosted checkout', async () => {
    await expect(testAdapter().createPayment({ amount: 1 })).rejects.toThrow(/checkouts\.create/);
  });

  it('declares exactly the four operations it performs', () => {
    expect([...testAdapter().capabilities].sort()).toEqual([
      'checkouts.create',
      'checkouts.retrieve',
      'payments.retrieve',
      'refunds.create',
    ]);
  });
});

describe('login credentials on the wire', () => {
  it('sends Basic apiKey:secretKey to the login and nothing in the body', async () => {
    let loginBody: unknown = 'unset';
    nock(HOST)
      .post('/api/v1/auth/login', (body) => {
        loginBody = body;
        return true;
      })
      .matchHeader('authorization', BASIC)
      .reply(200, ok({ accessToken: 't', expiresIn: 3599 }));
    nock(HOST).get('/api/v1/merchant/transactions/query').query(true).reply(200, ok(transactionStatusBody));
    await testAdapter().retrievePayment(TRANSACTION_REFERENCE);
    expect(loginBody).toBe('');
  });
});
