import { InvalidResponseError, NetworkError, ProviderApiError, ValidationError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  commitReply,
  errorBody,
  HOST,
  IDENTITY,
  nockLogin,
  quoteReply,
  RECEIPT_URL,
  receiver,
  sender,
  statusReply,
  TRANSACTION_ID,
  TRANSFER_IDENTITY,
  testAdapter,
  transactionInformation,
  transferMetadata,
  updateReply,
} from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

afterEach(() => {
  nock.cleanAll();
  vi.useRealTimers();
});

const paymentParams = {
  amount: 100,
  currency: 'usd',
  item_id: 'remittance',
  customer: { id: 'cust-42' },
  metadata: { orderId: 'A-1001' },
  provider_metadata: transferMetadata,
};

const TRANSFER_PATH = `/transfer/v1/transactions/${TRANSACTION_ID}`;

/** A fetch whose requests to a path ending in `pathEnd` fail with the given errors, one per attempt. */
function fetchFailing(pathEnd: string, errors: Error[]): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const error = new URL(url).pathname.endsWith(pathEnd) ? errors.shift() : undefined;
    if (error) throw error;
    return globalThis.fetch(input, init);
  };
}

/** What undici throws when a connection fails with `code`. */
function connectionError(code: string): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ${code}`), { code }) });
}

/** Records each call's body and headers. */
function recorder() {
  const calls: { path: string; body: unknown; headers: Record<string, string> }[] = [];
  const record = (reply: unknown, status = 200) =>
    function (this: { req: { headers: Record<string, string> } }, path: string, body: unknown) {
      calls.push({ path, body, headers: this.req.headers });
      return [status, reply] as [number, unknown];
    };
  return { calls, record };
}

describe('payments.create: quote → update → commit', () => {
  it('quotes, updates and commits with the exact bodies, Bearer auth and one request id per call', async () => {
    const { calls, record } = recorder();
    nockLogin('tok-1');
    nock(HOST).post('/transfer/v1/transactions/quote').reply(record(quoteReply()));
    nock(HOST).put(TRANSFER_PATH).reply(record(updateReply()));
    nock(HOST).put(`${TRANSFER_PATH}/commit`).reply(record(commitReply));

    const payment = await testAdapter().createPayment(paymentParams);

    expect(calls.map((call) => call.path)).toEqual([
      '/transfer/v1/transactions/quote',
      TRANSFER_PATH,
      `${TRANSFER_PATH}/commit`,
    ]);
    expect(calls[0]?.body).toEqual({
      ...TRANSFER_IDENTITY,
      destinationCountryCode: 'MEX',
      sendAmount: { value: 100, currencyCode: 'USD' },
    });
    expect(calls[1]?.body).toEqual({
      ...TRANSFER_IDENTITY,
      destinationCountryCode: 'MEX',
      serviceOptionCode: 'WILL_CALL',
      sendAmount: { value: 100, currencyCode: 'USD' },
      sender,
      receiver,
      transactionInformation,
      additionalDetails: { orderId: 'A-1001' },
    });
    expect(calls[2]?.body).toEqual(TRANSFER_IDENTITY);
    for (const call of calls) expect(call.headers.authorization).toBe('Bearer tok-1');
    const ids = calls.map((call) => call.headers['x-client-request-id']);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);

    expect(payment).toEqual({
      provider: 'providerT',
      id: TRANSACTION_ID,
      amount: 100,
      amount_paid: 100,
      currency: 'USD',
      status: 'succeeded',
      livemode: false,
      customer: { id: 'cust-42' },
      item_id: 'remittance',
      metadata: {
        orderId: 'A-1001',
        referenceNumber: '48213907',
        expectedPayoutDate: '2026-11-23',
        serviceOptionCode: 'WILL_CALL',
        serviceOptionName: '10 Minute Service',
        receiptUrl: RECEIPT_URL,
        fees: '4.99',
        total: '104.99',
        receiveAmount: '1725',
        receiveCurrency: 'MXN',
        fxRate: '17.25',
      },
      requires_action: false,
      payment_url: null,
      // The request id of the commit, the call whose reply the record is built from
      // (docs/architecture.md#records).
      request_id: ids[2],
      raw: { update: updateReply(), commit: commitReply },
    });
  });

  it('takes the identity fields, service option and destination from provider_metadata when given', async () => {
    const { calls, record } = recorder();
    nockLogin();
    nock(HOST)
      .post('/transfer/v1/transactions/quote')
      .reply(record(quoteReply(TRANSACTION_ID, 'BANK_DEPOSIT')));
    nock(HOST)
      .put(TRANSFER_PATH)
      .reply(record(updateReply({ serviceOptionCode: 'BANK_DEPOSIT' })));
    nock(HOST).put(`${TRANSFER_PATH}/commit`).reply(record(commitReply));

    await testAdapter().createPayment({
      amount: 100,
      currency: 'USD',
      provider_metadata: {
        ...transferMetadata,
        destinationCountryCode: 'phl',
        serviceOptionCode: 'BANK_DEPOSIT',
        receiveCurrencyCode: 'php',
        agentPartnerId: '30099999',
        posId: '07',
        userLanguage: 'es-MX',
      },
    });

    const overridden = {
      ...TRANSFER_IDENTITY,
      agentPartnerId: '30099999',
      posId: '07',
      userLanguage: 'es-MX',
    };
    expect(calls[0]?.body).toEqual({
      ...overridden,
      destinationCountryCode: 'PHL',
      serviceOptionCode: 'BANK_DEPOSIT',
      sendAmount: { value: 100, currencyCode: 'USD' },
      receiveCurrencyCode: 'PHP',
    });
    expect(calls[1]?.body).toMatchObject({
      ...overridden,
      serviceOptionCode: 'BANK_DEPOSIT',
      receiveCurrencyCode: 'PHP',
    });
    expect(calls[2]?.body).toEqual(overridden);
  });

  it('refuses a quote that does not offer the requested service option, and commits nothing', async () => {
    nockLogin();
    nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply(TRANSACTION_ID, 'WILL_CALL'));
    const error = await testAdapter()
      .createPayment({
        ...paymentParams,
        provider_metadata: { ...transferMetadata, serviceOptionCode: 'BANK_DEPOSIT' },
      })
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'SERVICE_OPTION_UNAVAILABLE', context: { step: 'quote' } });
  });
});

describe('checkouts.create', () => {
  it('returns the commit receipt as payment_url, valid for 5 minutes', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-22T10:15:30.000Z') });
    nockLogin();
    nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply());
    nock(HOST).put(TRANSFER_PATH).reply(200, updateReply());
    nock(HOST).put(`${TRANSFER_PATH}/commit`).reply(200, commitReply);

    const checkout = await testAdapter().createCheckout({
      item_id: 'remittance',
      quantity: 1,
      session_type: 'one_time',
      provider_metadata: { ...transferMetadata, amount: 100, currency: 'usd' },
    });

    expect(checkout).toMatchObject({
      provider: 'providerT',
      id: TRANSACTION_ID,
      payment_url: RECEIPT_URL,
      amount: 100,
      currency: 'USD',
      session_type: 'one_time',
      products: [{ id: 'remittance', quantity: 1 }],
      expires_at: '2026-11-22T10:20:30.000Z',
    });
  });
});

describe('validation before the quote', () => {
  it('lists every issue in one ValidationError and calls nothing', async () => {
    const error = await testAdapter()
      .createPayment({
        amount: 10.005,
        provider_metadata: { receiver: { name: { firstName: 'Jose' } } },
      } as never)
      .catch((thrown: unknown) => thrown);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues).toEqual(
      expect.arrayContaining([
        { path: 'provider_metadata.sender', message: 'is required' },
        { path: 'provider_metadata.receiver.name.lastName', message: 'is required' },
        { path: 'currency', message: expect.stringContaining('is required') },
      ]),
    );
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('names every missing member of the sender', async () => {
    const error = await testAdapter()
      .createPayment({
        amount: 100,
        currency: 'USD',
        provider_metadata: { sender: { name: { firstName: 'Maria' } }, receiver },
      } as never)
      .catch((thrown: unknown) => thrown);
    expect((error as ValidationError).issues.map((issue) => issue.path).sort()).toEqual([
      'provider_metadata.sender.address',
      'provider_metadata.sender.mobilePhone',
      'provider_metadata.sender.name.lastName',
      'provider_metadata.sender.personalDetails',
      'provider_metadata.sender.primaryIdentification',
    ]);
  });

  it('refuses amounts finer than the currency minor unit, and a missing destination country', async () => {
    const error = await testAdapter()
      .createPayment({
        amount: 1500.5,
        currency: 'JPY',
        provider_metadata: { sender, receiver: { name: receiver.name } },
      })
      .catch((thrown: unknown) => thrown);
    expect((error as ValidationError).issues).toEqual([
      { path: 'amount', message: expect.stringContaining('more than 0 decimal digit') },
      { path: 'provider_metadata.destinationCountryCode', message: expect.stringContaining('is required') },
    ]);
  });

  it('refuses a misspelt provider_metadata member instead of dropping it', async () => {
    const error = await testAdapter()
      .createPayment({
        ...paymentParams,
        provider_metadata: { ...transferMetadata, transactionInfo: {} },
      } as never)
      .catch((thrown: unknown) => thrown);
    expect((error as ValidationError).issues).toEqual([
      { path: 'provider_metadata.transactionInfo', message: 'is not a known field' },
    ]);
  });

  it('refuses additionalDetails that contradict metadata, before any call (the record would show another value than the provider stores)', async () => {
    const error = await testAdapter()
      .createPayment({
        ...paymentParams,
        metadata: { orderId: 'A-1001' },
        provider_metadata: { ...transferMetadata, additionalDetails: { orderId: 'B-2002' } },
      })
      .catch((thrown: unknown) => thrown);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues).toEqual([
      {
        path: 'provider_metadata.additionalDetails.orderId',
        message: expect.stringContaining('differs from metadata.orderId'),
      },
    ]);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('refuses metadata keys the record fills with the provider facts', async () => {
    const error = await testAdapter()
      .createPayment({ ...paymentParams, metadata: { referenceNumber: 'mine', fees: '0' } })
      .catch((thrown: unknown) => thrown);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([
      'metadata.referenceNumber',
      'metadata.fees',
    ]);
  });

  it('sends metadata and additionalDetails together, and the record shows exactly what was sent', async () => {
    const { calls, record } = recorder();
    nockLogin();
    nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply());
    nock(HOST).put(TRANSFER_PATH).reply(record(updateReply()));
    nock(HOST).put(`${TRANSFER_PATH}/commit`).reply(200, commitReply);
    const payment = await testAdapter().createPayment({
      ...paymentParams,
      metadata: { orderId: 'A-1001' },
      provider_metadata: { ...transferMetadata, additionalDetails: { orderId: 'A-1001', channel: 'web' } },
    });
    expect(calls[0]?.body).toMatchObject({ additionalDetails: { orderId: 'A-1001', channel: 'web' } });
    expect(payment.metadata).toMatchObject({ orderId: 'A-1001', channel: 'web' });
  });

  it('takes a checkout amount only from provider_metadata', async () => {
    const error = await testAdapter()
      .createCheckout({ amount: 100, currency: 'USD', provider_metadata: transferMetadata } as never)
      .catch((thrown: unknown) => thrown);
    expect((error as ValidationError).issues).toEqual([
      { path: 'provider_metadata.currency', message: expect.stringContaining('is required') },
      { path: 'provider_metadata.amount', message: 'is required' },
      { path: 'amount', message: 'is not used by Provider T checkouts: put it in provider_metadata.amount' },
      {
        path: 'currency',
        message: 'is not used by Provider T checkouts: put it in provider_metadata.currency',
      },
    ]);
  });
});

describe('quote failures', () => {
  it('never retries the quote, even on a 503', async () => {
    nockLogin();
    const quote = nock(HOST)
      .post('/transfer/v1/transactions/quote')
      .reply(503, errorBody('SERVICE_UNAVAILABLE', 'try later'));
    const error = await testAdapter({ retry: 2 })
      .createPayment(paymentParams)
      .catch((thrown: unknown) => thrown);
    expect(quote.isDone()).toBe(true);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 503,
      providerCode: 'SERVICE_UNAVAILABLE',
      context: { step: 'quote' },
    });
    expect((error as Error).message).toContain('No money moved');
  });
});

describe('update failures', () => {
  it('turns 400 offendingFields into a ProviderApiError with the transaction and step, and never commits', async () => {
    nockLogin();
    nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply());
    nock(HOST)
      .put(TRANSFER_PATH)
      .reply(
        400,
        errorBody('INVALID_REQUEST', 'Compliance data missing', [
          'transactionInformation.sourceOfFundsCode',
          'sender.personalDetails.occupationCode',
        ]),
      );
    const error = await testAdapter()
      .createPayment(paymentParams)
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 400,
      providerCode: 'INVALID_REQUEST',
      providerMessage: 'Compliance data missing',
      context: {
        transactionId: TRANSACTION_ID,
        step: 'update',
        offendingFields: [
          'transactionInformation.sourceOfFundsCode',
          'sender.personalDetails.occupationCode',
        ],
      },
    });
    expect((error as Error).message).toContain('transactionInformation.sourceOfFundsCode');
    expect((error as Error).message).toContain('not committed');
  });

  it.each([
    ['false', { readyForCommit: false }],
    ['absent', { readyForCommit: undefined }],
    ['the string "true"', { readyForCommit: 'true' }],
  ])('does not commit when readyForCommit is %s', async (_name, overrides) => {
    nockLogin();
    nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply());
    nock(HOST).put(TRANSFER_PATH).reply(200, updateReply(overrides));
    const error = await testAdapter()
      .createPayment(paymentParams)
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      providerCode: 'NOT_READY_FOR_COMMIT',
      retryable: false,
      context: { transactionId: TRANSACTION_ID, step: 'update' },
    });
  });

  it('does not commit when the update shows another send amount than requested', async () => {
    nockLogin();
    nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply());
    nock(HOST)
      .put(TRANSFER_PATH)
      .reply(200, updateReply({ sendAmount: { amount: { value: 1000, currencyCode: 'USD' } } }));
    const error = await testAdapter()
      .createPayment(paymentParams)
      .catch((thrown: unknown) => thrown);
    expect(InvalidResponseError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ context: { transactionId: TRANSACTION_ID, step: 'update' } });
  });

  it('retries the update with the same request id', async () => {
    const { calls, record } = recorder();
    nockLogin();
    nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply());
    nock(HOST)
      .put(TRANSFER_PATH)
      .reply(record(errorBody('UNAVAILABLE', 'busy'), 503));
    nock(HOST).put(TRANSFER_PATH).reply(record(updateReply()));
    nock(HOST).put(`${TRANSFER_PATH}/commit`).reply(200, commitReply);
    await testAdapter().createPayment(paymentParams);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.headers['x-client-request-id']).toBe(calls[1]?.headers['x-client-request-id']);
  });

  it('gives a dropped update connection the transaction and step', async () => {
    nockLogin();
    nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply());
    const error = await testAdapter({
      retry: 0,
      fetch: fetchFailing(TRANSFER_PATH, [connectionError('ECONNRESET')]),
    })
      .createPayment(paymentParams)
      .catch((thrown: unknown) => thrown);
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ context: { transactionId: TRANSACTION_ID, step: 'update' } });
    expect((error as Error).message).toContain('no money moved');
  });
});

describe('commit failures', () => {
  function quotedAndUpdated() {
    nockLogin();
    nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply());
    nock(HOST).put(TRANSFER_PATH).reply(200, updateReply());
  }

  it('retries a commit answered 503 with the same request id, and succeeds once', async () => {
    const { calls, record } = recorder();
    quotedAndUpdated();
    nock(HOST)
      .put(`${TRANSFER_PATH}/commit`)
      .reply(record(errorBody('UNAVAILABLE', 'busy'), 503));
    nock(HOST).put(`${TRANSFER_PATH}/commit`).reply(record(commitReply));
    const payment = await testAdapter().createPayment(paymentParams);
    expect(payment.status).toBe('succeeded');
    expect(calls).toHaveLength(2);
    expect(calls[0]?.headers['x-client-request-id']).toBe(calls[1]?.headers['x-client-request-id']);
  });

  it('says the outcome is unknown, and how to reconcile, when 5xx outlasts the retries', async () => {
    quotedAndUpdated();
    nock(HOST).put(`${TRANSFER_PATH}/commit`).times(2).reply(502, errorBody('BAD_GATEWAY', 'upstream'));
    const error = await testAdapter()
      .createPayment(paymentParams)
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 502,
      retryable: false,
      context: { transactionId: TRANSACTION_ID, step: 'commit', outcome: 'unknown' },
    });
    expect((error as Error).message).toContain(`retrievePayment('${TRANSACTION_ID}')`);
    expect((error as Error).message).toContain('Do not send it again');
  });

  it('says the outcome is unknown when the connection drops during the commit', async () => {
    quotedAndUpdated();
    const error = await testAdapter({
      retry: 0,
      fetch: fetchFailing('/commit', [connectionError('ECONNRESET')]),
    })
      .createPayment(paymentParams)
      .catch((thrown: unknown) => thrown);
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      outcome: 'unknown',
      context: { transactionId: TRANSACTION_ID, step: 'commit', outcome: 'unknown' },
    });
    expect((error as Error).message).toContain(`retrievePayment('${TRANSACTION_ID}')`);
  });

  it('says the outcome is unknown when a retried commit finally fails to connect (an earlier attempt may have landed)', async () => {
    quotedAndUpdated();
    const errors = [connectionError('ECONNRESET'), connectionError('ECONNREFUSED')];
    const error = await testAdapter({ retry: 1, fetch: fetchFailing('/commit', errors) })
      .createPayment(paymentParams)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ outcome: 'unknown', context: { step: 'commit', outcome: 'unknown' } });
  });

  it('says not_sent when a single commit attempt was refused before it left', async () => {
    quotedAndUpdated();
    const error = await testAdapter({
      retry: 0,
      fetch: fetchFailing('/commit', [connectionError('ECONNREFUSED')]),
    })
      .createPayment(paymentParams)
      .catch((thrown: unknown) => thrown);
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      outcome: 'not_sent',
      context: { transactionId: TRANSACTION_ID, step: 'commit', outcome: 'not_sent' },
    });
  });

  it('says the outcome is unknown when a 200 commit reply cannot be read', async () => {
    quotedAndUpdated();
    nock(HOST).put(`${TRANSFER_PATH}/commit`).reply(200, '{"referenceNum');
    const error = await testAdapter()
      .createPayment(paymentParams)
      .catch((thrown: unknown) => thrown);
    expect(InvalidResponseError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      context: { transactionId: TRANSACTION_ID, step: 'commit', outcome: 'unknown' },
    });
  });

  it('returns the payment the provider holds when the commit is answered "already committed" (an earlier attempt went through)', async () => {
    quotedAndUpdated();
    nock(HOST)
      .put(`${TRANSFER_PATH}/commit`)
      .reply(400, errorBody('TRANSACTION_ALREADY_COMMITTED', 'Transaction already committed'));
    nock(HOST)
      .get(`/status/v1/transactions/${TRANSACTION_ID}`)
      .query(IDENTITY)
      .reply(200, statusReply('SENT', { additionalDetails: { orderId: 'A-1001' } }));
    const payment = await testAdapter().createPayment(paymentParams);
    expect(payment).toMatchObject({
      id: TRANSACTION_ID,
      status: 'succeeded',
      amount: 100,
      amount_paid: 100,
      currency: 'USD',
      customer: { id: 'cust-42' },
      item_id: 'remittance',
      metadata: { orderId: 'A-1001', transactionStatus: 'SENT', referenceNumber: '48213907' },
    });
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('says the outcome is unknown when "already committed" cannot be confirmed by the status read', async () => {
    quotedAndUpdated();
    nock(HOST)
      .put(`${TRANSFER_PATH}/commit`)
      .reply(400, errorBody('TRANSACTION_ALREADY_COMMITTED', 'Transaction already committed'));
    nock(HOST)
      .get(`/status/v1/transactions/${TRANSACTION_ID}`)
      .query(true)
      .reply(400, errorBody('697', 'Invalid Transaction ID'));
    const error = await testAdapter()
      .createPayment(paymentParams)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      outcome: 'unknown',
      retryable: false,
      context: { transactionId: TRANSACTION_ID, step: 'commit', outcome: 'unknown' },
    });
    expect((error as Error).message).not.toContain('No money moved');
  });

  for (const [status, code] of [
    [409, 'REQUEST_IN_PROGRESS'],
    [400, 'QUOTE_EXPIRED'],
  ] as const) {
    it(`never says "no money moved" when the retry of a commit whose reply was lost is refused with ${status} ${code}`, async () => {
      const { calls, record } = recorder();
      nockLogin();
      nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply());
      nock(HOST).put(TRANSFER_PATH).reply(200, updateReply());
      // Attempt 1 is processed but its reply is lost; the retry (same request id) is refused.
      nock(HOST)
        .put(`${TRANSFER_PATH}/commit`)
        .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      nock(HOST)
        .put(`${TRANSFER_PATH}/commit`)
        .reply(record(errorBody(code, 'refused on retry'), status));
      const error = await testAdapter()
        .createPayment(paymentParams)
        .catch((thrown: unknown) => thrown);
      expect(ProviderApiError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        status,
        providerCode: code,
        outcome: 'unknown',
        retryable: false,
        context: { transactionId: TRANSACTION_ID, step: 'commit', outcome: 'unknown' },
      });
      expect((error as Error).message).not.toContain('No money moved');
      expect((error as Error).message).not.toContain('call create again');
      expect((error as Error).message).toContain(`retrievePayment('${TRANSACTION_ID}')`);
      expect(calls).toHaveLength(1);
    });
  }

  it('gives a commit refused with 400 the transaction and step, and says no money moved', async () => {
    quotedAndUpdated();
    nock(HOST).put(`${TRANSFER_PATH}/commit`).reply(400, errorBody('QUOTE_EXPIRED', 'The quote has expired'));
    const error = await testAdapter()
      .createPayment(paymentParams)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      providerCode: 'QUOTE_EXPIRED',
      retryable: false,
      context: { transactionId: TRANSACTION_ID, step: 'commit' },
    });
    expect((error as Error).message).toContain('No money moved');
  });
});
