import { NetworkError, ProviderApiError, ProviderNotSupportedError, ValidationError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UNSUPPORTED_REASONS } from '../src/index.js';
import {
  errorBody,
  HOST,
  IDENTITY,
  nockLogin,
  statusReply,
  TRANSACTION_ID,
  testAdapter,
} from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

afterEach(() => {
  nock.cleanAll();
});

const STATUS_PATH = `/status/v1/transactions/${TRANSACTION_ID}`;
const AMEND_PATH = `/amend/v1/transactions/${TRANSACTION_ID}`;
const REFUND_PATH = `/refund/v2/transactions/${TRANSACTION_ID}`;

describe('payments.retrieve / checkouts.retrieve', () => {
  it('reads the status with the identity fields in the query and maps it', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(IDENTITY).reply(200, statusReply('IN TRANSIT'));
    const payment = await testAdapter().retrievePayment(TRANSACTION_ID);
    expect(payment).toMatchObject({
      provider: 'providerT',
      id: TRANSACTION_ID,
      amount: 100,
      currency: 'USD',
      status: 'succeeded',
      customer: null,
      requires_action: false,
      payment_url: null,
      metadata: {
        orderId: 'A-1001',
        transactionStatus: 'IN TRANSIT',
        referenceNumber: '48213907',
        destinationCountryCode: 'MEX',
        fees: '4.99',
      },
    });
  });

  it('accepts IN_TRANSIT for IN TRANSIT', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('IN_TRANSIT'));
    expect((await testAdapter().retrievePayment(TRANSACTION_ID))?.status).toBe('succeeded');
  });

  it('reads amounts sent as decimal strings exactly', async () => {
    nockLogin();
    nock(HOST)
      .get(STATUS_PATH)
      .query(true)
      .reply(
        200,
        statusReply('UNFUNDED', { sendAmount: { amount: { value: '250.10', currencyCode: 'usd' } } }),
      );
    expect(await testAdapter().retrievePayment(TRANSACTION_ID)).toMatchObject({
      amount: 250.1,
      currency: 'USD',
      status: 'requires_action',
      requires_action: true,
    });
  });

  it('returns null for an unknown transaction', async () => {
    nockLogin();
    nock(HOST)
      .get('/status/v1/transactions/nope')
      .query(true)
      .reply(404, errorBody('TRANSACTION_NOT_FOUND', 'Not found'));
    expect(await testAdapter().retrievePayment('nope')).toBeNull();
  });

  it("throws a 404 without Provider T's envelope (a proxy's error page), never reading it as an unknown transaction", async () => {
    nockLogin();
    nock(HOST)
      .get(STATUS_PATH)
      .query(true)
      .reply(404, '<html><body><h1>404 Not Found</h1></body></html>', { 'content-type': 'text/html' });
    const error = await testAdapter()
      .retrievePayment(TRANSACTION_ID)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderApiError);
    expect(error).toMatchObject({ status: 404, providerCode: undefined, kind: 'not_found' });
  });

  it('throws a gateway failure that carries the unknown-transaction code (a 5xx proves no absence)', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).times(2).reply(503, errorBody('697', 'Invalid Transaction ID'));
    const error = await testAdapter()
      .retrievePayment(TRANSACTION_ID)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderApiError);
    expect(error).toMatchObject({ status: 503, providerCode: '697' });
  });

  it('maps retrieveCheckout onto a Checkout of the same transaction', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('SENT'));
    expect(await testAdapter().retrieveCheckout(TRANSACTION_ID)).toMatchObject({
      id: TRANSACTION_ID,
      payment_url: null,
      amount: 100,
      currency: 'USD',
      session_type: 'one_time',
      expires_at: null,
    });
  });

  it('encodes the id as one path segment', async () => {
    nockLogin();
    nock(HOST).get('/status/v1/transactions/a%2Fb').query(true).reply(404, errorBody('NOT_FOUND', 'x'));
    expect(await testAdapter().retrievePayment('a/b')).toBeNull();
  });

  it('maps a status it does not know to processing, keeping the provider word in metadata (never an error)', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('ON_HOLD'));
    const payment = await testAdapter().retrievePayment(TRANSACTION_ID);
    expect(payment).toMatchObject({
      status: 'processing',
      amount_paid: null,
      requires_action: false,
      metadata: { transactionStatus: 'ON_HOLD' },
    });
  });

  it('maps status names like Object.prototype members to processing, never a crash', async () => {
    for (const odd of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      nockLogin();
      nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply(odd));
      const payment = await testAdapter().retrievePayment(TRANSACTION_ID);
      expect(payment).toMatchObject({ status: 'processing', metadata: { transactionStatus: odd } });
      nock.cleanAll();
    }
  });

  it('returns null for an unknown transaction answered 400 with code 697, as the sandbox does', async () => {
    nockLogin();
    nock(HOST)
      .get(STATUS_PATH)
      .query(true)
      .reply(400, { errors: [{ category: 'IP-20000', code: '697', message: 'Invalid Transaction ID' }] });
    expect(await testAdapter().retrievePayment(TRANSACTION_ID)).toBeNull();
  });

  it('still throws for a 400 with another code', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(400, errorBody('INVALID_REQUEST', 'bad'));
    const error = await testAdapter()
      .retrievePayment(TRANSACTION_ID)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'provider_api_error', status: 400, providerCode: 'INVALID_REQUEST' });
  });

  it('throws ProviderApiError for other failures', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).times(2).reply(500, errorBody('INTERNAL', 'boom'));
    const error = await testAdapter()
      .retrievePayment(TRANSACTION_ID)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'provider_api_error', status: 500, retryable: true });
  });
});

describe('payments.update / checkouts.update: receiver-name amendment', () => {
  it('amends the first name, keeps the current last name, then re-reads the transfer', async () => {
    let patched: unknown;
    nockLogin();
    nock(HOST)
      .get(AMEND_PATH)
      .query(IDENTITY)
      .reply(200, {
        amendId: 'amd-9921',
        transactionId: TRANSACTION_ID,
        amendable: true,
        receiver: { name: { firstName: 'Jose', middleName: 'Luis', lastName: 'Lopez' } },
      });
    nock(HOST)
      .patch(`${AMEND_PATH}/receiver/name`, (body) => {
        patched = body;
        return true;
      })
      .reply(200, { amendSuccess: true });
    nock(HOST)
      .get(STATUS_PATH)
      .query(IDENTITY)
      .reply(200, statusReply('SENT', { receiver: { name: { firstName: 'José', lastName: 'Lopez' } } }));

    const payment = await testAdapter().updatePayment(TRANSACTION_ID, {
      provider_metadata: { receiverFirstName: 'José' },
    });

    expect(patched).toEqual({
      ...IDENTITY,
      amendId: 'amd-9921',
      name: { firstName: 'José', middleName: 'Luis', lastName: 'Lopez' },
    });
    expect(payment).toMatchObject({ id: TRANSACTION_ID, status: 'succeeded' });
    expect((payment.raw as { receiver: unknown }).receiver).toEqual({
      name: { firstName: 'José', lastName: 'Lopez' },
    });
  });

  it('only re-reads when no name is given', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('SENT'));
    const checkout = await testAdapter().updateCheckout(TRANSACTION_ID, {});
    expect(checkout).toMatchObject({ id: TRANSACTION_ID, session_type: 'one_time' });
  });

  it('refuses a misspelt name member and a metadata change before any call', async () => {
    const error = await testAdapter()
      .updatePayment(TRANSACTION_ID, {
        metadata: { a: 'b' },
        provider_metadata: { receiverFirstname: 'Jo' },
      } as never)
      .catch((thrown: unknown) => thrown);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([
      'provider_metadata.receiverFirstname',
      'metadata',
    ]);
  });

  it('refuses to amend a transfer the provider marks as not amendable', async () => {
    nockLogin();
    nock(HOST)
      .get(AMEND_PATH)
      .query(true)
      .reply(200, {
        amendId: 'amd-1',
        amendable: false,
        receiver: { name: { firstName: 'Jose', lastName: 'Lopez' } },
      });
    const error = await testAdapter()
      .updatePayment(TRANSACTION_ID, { provider_metadata: { receiverLastName: 'López' } })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      providerCode: 'NOT_AMENDABLE',
      context: { transactionId: TRANSACTION_ID },
    });
  });

  it('reports an unconfirmed amendment', async () => {
    nockLogin();
    nock(HOST)
      .get(AMEND_PATH)
      .query(true)
      .reply(200, {
        amendId: 'amd-1',
        amendable: true,
        receiver: { name: { firstName: 'Jose', lastName: 'Lopez' } },
      });
    nock(HOST).patch(`${AMEND_PATH}/receiver/name`).reply(200, { amendSuccess: false });
    const error = await testAdapter()
      .updatePayment(TRANSACTION_ID, { provider_metadata: { receiverLastName: 'López' } })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      providerCode: 'AMEND_FAILED',
      context: { transactionId: TRANSACTION_ID, step: 'amend' },
    });
  });

  it('reports an unknown transaction as a ProviderApiError 404', async () => {
    nockLogin();
    nock(HOST)
      .get(AMEND_PATH)
      .query(true)
      .reply(404, errorBody('TRANSACTION_NOT_FOUND', 'Unknown transaction'));
    const error = await testAdapter()
      .updatePayment(TRANSACTION_ID, { provider_metadata: { receiverLastName: 'López' } })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      status: 404,
      providerCode: 'TRANSACTION_NOT_FOUND',
      context: { step: 'amend_read' },
    });
  });
});

function refundRead(overrides: Record<string, unknown> = {}) {
  return {
    transactionId: TRANSACTION_ID,
    refundId: 'rfd-5512',
    transactionStatus: 'SENT',
    availableForRefund: true,
    sendAmount: { amount: { value: 100, currencyCode: 'USD' } },
    refundAmount: {
      amount: { value: 100, currencyCode: 'USD' },
      fees: { value: 0, currencyCode: 'USD' },
      total: { value: 100, currencyCode: 'USD' },
    },
    ...overrides,
  };
}

describe('refunds.create', () => {
  it('reads with the default reason code, commits with the refund id, and returns the Refund', async () => {
    let committed: unknown;
    nockLogin();
    nock(HOST)
      .get(REFUND_PATH)
      .query({ ...IDENTITY, refundReasonCode: 'CUSTOMER_REQUEST' })
      .reply(200, refundRead());
    nock(HOST)
      .put(`${REFUND_PATH}/commit`, (body) => {
        committed = body;
        return true;
      })
      .reply(200, { referenceNumber: '48213907', expectedPayoutDate: '2026-11-24' });

    const refund = await testAdapter().createRefund({
      payment_id: TRANSACTION_ID,
      reason: 'customer changed mind',
    });

    expect(committed).toEqual({ ...IDENTITY, refundId: 'rfd-5512' });
    expect(refund).toMatchObject({
      provider: 'providerT',
      id: 'rfd-5512',
      payment_id: TRANSACTION_ID,
      amount: 100,
      currency: 'USD',
      status: 'succeeded',
      reason: 'customer changed mind',
      metadata: {
        refundReasonCode: 'CUSTOMER_REQUEST',
        referenceNumber: '48213907',
        expectedPayoutDate: '2026-11-24',
      },
    });
  });

  it('sends the reason code and fee flag from provider_metadata', async () => {
    nockLogin();
    nock(HOST)
      .get(REFUND_PATH)
      .query({ ...IDENTITY, refundReasonCode: 'WRONG_RECEIVER', refundFee: 'true' })
      .reply(200, refundRead());
    nock(HOST).put(`${REFUND_PATH}/commit`).reply(200, { referenceNumber: '48213907' });
    await testAdapter().createRefund({
      payment_id: TRANSACTION_ID,
      amount: 100,
      currency: 'usd',
      provider_metadata: { refundReasonCode: 'WRONG_RECEIVER', refundFee: true },
    });
  });

  it('refuses a transfer that is not available for refund, without committing', async () => {
    nockLogin();
    nock(HOST)
      .get(REFUND_PATH)
      .query(true)
      .reply(200, refundRead({ availableForRefund: false }));
    const error = await testAdapter()
      .createRefund({ payment_id: TRANSACTION_ID })
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'NOT_AVAILABLE_FOR_REFUND', retryable: false });
  });

  it('refuses a partial amount after the read and before the commit', async () => {
    nockLogin();
    const read = nock(HOST).get(REFUND_PATH).query(true).reply(200, refundRead());
    const error = await testAdapter()
      .createRefund({ payment_id: TRANSACTION_ID, amount: 40 })
      .catch((thrown: unknown) => thrown);
    expect(read.isDone()).toBe(true);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      issues: [{ path: 'amount', message: expect.stringContaining('must be 100 USD') }],
      context: { transactionId: TRANSACTION_ID, step: 'refund_read' },
    });
  });

  it('refuses a bad reason code before any call', async () => {
    const error = await testAdapter()
      .createRefund({ payment_id: TRANSACTION_ID, provider_metadata: { refundReasonCode: 'because' } })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      code: 'validation_error',
      issues: [{ path: 'provider_metadata.refundReasonCode' }],
    });
  });

  it('says the outcome is unknown when the refund commit gets no answer', async () => {
    nockLogin();
    nock(HOST).get(REFUND_PATH).query(true).reply(200, refundRead());
    nock(HOST).put(`${REFUND_PATH}/commit`).times(2).reply(503, errorBody('UNAVAILABLE', 'busy'));
    const error = await testAdapter()
      .createRefund({ payment_id: TRANSACTION_ID })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      status: 503,
      retryable: false,
      context: { transactionId: TRANSACTION_ID, step: 'refund_commit', outcome: 'unknown' },
    });
    expect((error as Error).message).toContain('Do not refund again');
  });

  it('does not report a refund as succeeded when the commit reply carries no reference number', async () => {
    nockLogin();
    nock(HOST).get(REFUND_PATH).query(true).reply(200, refundRead());
    nock(HOST).put(`${REFUND_PATH}/commit`).reply(200, { unexpected: true });
    const error = await testAdapter()
      .createRefund({ payment_id: TRANSACTION_ID })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      code: 'invalid_response',
      context: { transactionId: TRANSACTION_ID, step: 'refund_commit', outcome: 'unknown' },
    });
  });

  it('says the outcome is unknown when the refund commit connection drops', async () => {
    nockLogin();
    nock(HOST).get(REFUND_PATH).query(true).reply(200, refundRead());
    const dropping: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith('/commit'))
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
        });
      return globalThis.fetch(input, init);
    };
    const error = await testAdapter({ retry: 0, fetch: dropping })
      .createRefund({ payment_id: TRANSACTION_ID })
      .catch((thrown: unknown) => thrown);
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      outcome: 'unknown',
      context: { step: 'refund_commit', outcome: 'unknown' },
    });
  });

  it('reports an unknown transaction', async () => {
    nockLogin();
    nock(HOST)
      .get(REFUND_PATH)
      .query(true)
      .reply(404, errorBody('TRANSACTION_NOT_FOUND', 'Unknown transaction'));
    const error = await testAdapter()
      .createRefund({ payment_id: TRANSACTION_ID })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 404, providerCode: 'TRANSACTION_NOT_FOUND' });
  });
});

describe('unsupported operations', () => {
  it.each([
    ['createCustomer', 'customers.create', 'no customer storage'],
    ['createSubscription', 'subscriptions.create', 'no recurring transfers'],
    ['capturePayment', 'payments.capture', 'no manual capture'],
    ['cancelPayment', 'payments.cancel', 'cannot be deleted or voided'],
    ['deleteCheckout', 'checkouts.delete', 'cannot be deleted or voided'],
    ['deletePayment', 'payments.delete', 'cannot be deleted or voided'],
  ] as const)(
    '%s throws ProviderNotSupportedError with the spec reason',
    async (method, operation, reason) => {
      const adapter = testAdapter();
      const error = await (adapter[method] as (...args: unknown[]) => Promise<unknown>)('x', {}).catch(
        (thrown: unknown) => thrown,
      );
      expect(ProviderNotSupportedError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ provider: 'providerT', operation });
      expect((error as ProviderNotSupportedError).reason).toContain(reason);
      expect(UNSUPPORTED_REASONS[operation]).toContain(reason);
    },
  );

  it('declares exactly the supported operations', () => {
    expect([...testAdapter().capabilities].sort()).toEqual([
      'checkouts.create',
      'checkouts.retrieve',
      'checkouts.update',
      'payments.create',
      'payments.retrieve',
      'payments.update',
      'refunds.create',
    ]);
  });
});

describe('refunds.create validation before the read', () => {
  it('refuses a zero or too fine amount without calling the provider', async () => {
    const error = await testAdapter()
      .createRefund({ payment_id: TRANSACTION_ID, amount: 0.001, currency: 'USD' })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'validation_error', issues: [{ path: 'amount' }] });
    expect(nock.pendingMocks()).toEqual([]);
  });
});
