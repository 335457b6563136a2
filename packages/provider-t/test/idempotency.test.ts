/**
 * Idempotency keys on Provider T (docs/architecture.md#idempotency): request ids derived from the caller's key,
 * recovery points written before each step, resumption from them, and `resolve`. nock: exact requests and request
 * ids at the boundary.
 */
import { createHash } from 'node:crypto';
import {
  createMemoryIdempotencyStore,
  createPay,
  type IdempotencyStore,
  InvalidResponseError,
  type JsonValue,
  ProviderApiError,
  StoreError,
} from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT_PARTNER_ID,
  commitReply,
  errorBody,
  HOST,
  IDENTITY,
  nockLogin,
  quoteReply,
  RECEIPT_URL,
  statusReply,
  TRANSACTION_ID,
  testAdapter,
  transferMetadata,
  updateReply,
} from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

afterEach(() => {
  nock.cleanAll();
});

const KEY = 'order-A-1001';
const TRANSFER_PATH = `/transfer/v1/transactions/${TRANSACTION_ID}`;
const REFUND_PATH = `/refund/v2/transactions/${TRANSACTION_ID}`;
const STATUS_PATH = `/status/v1/transactions/${TRANSACTION_ID}`;

const paymentParams = {
  amount: 100,
  currency: 'USD',
  metadata: { orderId: 'A-1001' },
  provider_metadata: transferMetadata,
};

/**
 * The request id the README documents, computed independently of the adapter: a name-based UUID (version 5,
 * RFC 9562) in the adapter's namespace over `[agentPartnerId, key, step]` as JSON.
 */
function expectedRequestId(key: string, step: string, agentPartnerId = AGENT_PARTNER_ID): string {
  const namespace = Buffer.from('5f1c0a3e7b2d4c8e9a6f0b1d2e3c4a5b', 'hex');
  const hash = createHash('sha1')
    .update(namespace)
    .update(JSON.stringify([agentPartnerId, key, step]))
    .digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * An idempotency store scripted for one call through `createPay`: `begin` hands out the key with
 * `recoveryPoint` (an earlier attempt's progress), every checkpoint is logged into `log`, and `fail` may make one
 * fail as a store that is down.
 */
function ledger(log: string[], recoveryPoint: JsonValue | null = null, fail?: (point: JsonValue) => boolean) {
  const points: JsonValue[] = [];
  const store: IdempotencyStore = {
    async begin() {
      return { state: 'acquired', lease: 'lease-1', recoveryPoint };
    },
    async checkpoint(_key, _lease, point) {
      log.push(`checkpoint ${(point as { step?: string }).step}`);
      if (fail?.(point))
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      points.push(point);
      return true;
    },
    complete: async () => true,
    release: async () => true,
    abandon: async () => true,
    read: async () => null,
  };
  return {
    points,
    pay: createPay(testAdapter(), { idempotency: store }),
    options: { idempotencyKey: KEY },
  };
}

/** Records each upstream call as `METHOD path id` into `log`. */
function logged(log: string[], status: number, reply: unknown) {
  return function (this: { req: { method: string; path: string; headers: Record<string, string> } }) {
    log.push(`${this.req.method} ${this.req.path.split('?')[0]} ${this.req.headers['x-client-request-id']}`);
    return [status, reply] as [number, unknown];
  };
}

const storeDown = () => true;

describe('Provider T request ids from an idempotency key', () => {
  it('sends the id derived from the key on every step, and the same id on each attempt of a step', async () => {
    const log: string[] = [];
    nockLogin();
    nock(HOST)
      .post('/transfer/v1/transactions/quote')
      .reply(logged(log, 200, quoteReply()));
    nock(HOST)
      .put(TRANSFER_PATH)
      .reply(logged(log, 503, errorBody('BUSY', 'Try again')));
    nock(HOST)
      .put(TRANSFER_PATH)
      .reply(logged(log, 200, updateReply()));
    nock(HOST)
      .put(`${TRANSFER_PATH}/commit`)
      .reply(logged(log, 200, commitReply));

    await testAdapter().createPayment(paymentParams, { idempotencyKey: KEY });

    expect(log).toEqual([
      `POST /transfer/v1/transactions/quote ${expectedRequestId(KEY, 'quote')}`,
      `PUT ${TRANSFER_PATH} ${expectedRequestId(KEY, 'update')}`,
      `PUT ${TRANSFER_PATH} ${expectedRequestId(KEY, 'update')}`,
      `PUT ${TRANSFER_PATH}/commit ${expectedRequestId(KEY, 'commit')}`,
    ]);
  });

  it('sends the same ids when the same key is used again, and other ids for another key or partner', async () => {
    const log: string[] = [];
    nockLogin();
    nock(HOST)
      .post('/transfer/v1/transactions/quote')
      .times(3)
      .reply(logged(log, 200, quoteReply()));
    nock(HOST)
      .put(TRANSFER_PATH)
      .times(3)
      .reply(logged(log, 200, updateReply()));
    nock(HOST)
      .put(`${TRANSFER_PATH}/commit`)
      .times(3)
      .reply(logged(log, 200, commitReply));
    const adapter = testAdapter();

    await adapter.createPayment(paymentParams, { idempotencyKey: KEY });
    await adapter.createPayment(paymentParams, { idempotencyKey: KEY });
    await adapter.createPayment(paymentParams, { idempotencyKey: 'order-A-1002' });

    const ids = log.map((line) => line.split(' ')[2]);
    expect(ids.slice(0, 3)).toEqual(ids.slice(3, 6));
    expect(ids.slice(6)).toEqual([
      expectedRequestId('order-A-1002', 'quote'),
      expectedRequestId('order-A-1002', 'update'),
      expectedRequestId('order-A-1002', 'commit'),
    ]);
    expect(new Set(ids.slice(3)).size).toBe(6);
    // The id is scoped to the agent partner: another partner's key "order-A-1001" is another request.
    expect(expectedRequestId(KEY, 'quote', '99999999')).not.toBe(ids[0]);
  });
});

describe('Provider T recovery points', () => {
  it('checkpoints quoted after the quote, updated after the update and commit_sent before the commit', async () => {
    const log: string[] = [];
    nockLogin();
    nock(HOST)
      .post('/transfer/v1/transactions/quote')
      .reply(logged(log, 200, quoteReply()));
    nock(HOST)
      .put(TRANSFER_PATH)
      .reply(logged(log, 200, updateReply()));
    nock(HOST)
      .put(`${TRANSFER_PATH}/commit`)
      .reply(logged(log, 200, commitReply));
    const { points, pay, options } = ledger(log);

    await pay.payments.create(paymentParams, options);

    expect(log.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
      'POST /transfer/v1/transactions/quote',
      'checkpoint quoted',
      `PUT ${TRANSFER_PATH}`,
      'checkpoint updated',
      'checkpoint commit_sent',
      `PUT ${TRANSFER_PATH}/commit`,
    ]);
    expect(points).toEqual([
      { transactionId: TRANSACTION_ID, step: 'quoted', serviceOptionCode: 'WILL_CALL' },
      { transactionId: TRANSACTION_ID, step: 'updated', serviceOptionCode: 'WILL_CALL' },
      {
        transactionId: TRANSACTION_ID,
        step: 'commit_sent',
        serviceOptionCode: 'WILL_CALL',
        commitSentAt: expect.any(Number),
      },
    ]);
  });

  it('does not commit when the commit_sent checkpoint fails, and says the transfer was updated, not committed', async () => {
    const log: string[] = [];
    nockLogin();
    nock(HOST)
      .post('/transfer/v1/transactions/quote')
      .reply(logged(log, 200, quoteReply()));
    nock(HOST)
      .put(TRANSFER_PATH)
      .reply(logged(log, 200, updateReply()));
    const commit = nock(HOST)
      .put(`${TRANSFER_PATH}/commit`)
      .reply(logged(log, 200, commitReply));
    const { pay, options } = ledger(log, null, (point) => (point as { step: string }).step === 'commit_sent');

    const error = await pay.payments.create(paymentParams, options).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({
      code: 'store_unavailable',
      context: { transactionId: TRANSACTION_ID, step: 'commit', outcome: 'not_sent' },
    });
    expect((error as Error).message).toContain(
      `Transfer ${TRANSACTION_ID} was quoted and updated but NOT committed`,
    );
    expect((error as Error).message).toContain('no money moved');
    expect(commit.isDone()).toBe(false);
    expect(log.at(-1)).toBe('checkpoint commit_sent');
  });

  it('does not update when the quoted checkpoint fails', async () => {
    const log: string[] = [];
    nockLogin();
    nock(HOST)
      .post('/transfer/v1/transactions/quote')
      .reply(logged(log, 200, quoteReply()));
    const update = nock(HOST)
      .put(TRANSFER_PATH)
      .reply(logged(log, 200, updateReply()));
    const { pay, options } = ledger(log, null, storeDown);

    const error = await pay.payments.create(paymentParams, options).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({
      context: { transactionId: TRANSACTION_ID, step: 'update', outcome: 'not_sent' },
    });
    expect((error as Error).message).toContain('was quoted but NOT committed');
    expect(update.isDone()).toBe(false);
  });
});

describe('Provider T resumes from a recovery point instead of quoting again', () => {
  it('from commit_sent: reads the status and returns the committed transfer without a second commit', async () => {
    const log: string[] = [];
    nockLogin();
    nock(HOST)
      .get(STATUS_PATH)
      .query(IDENTITY)
      .reply(logged(log, 200, statusReply('SENT')));
    const { points, pay, options } = ledger(log, {
      transactionId: TRANSACTION_ID,
      step: 'commit_sent',
      serviceOptionCode: 'WILL_CALL',
    });

    const payment = await pay.payments.create(paymentParams, options);

    expect(log.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([`GET ${STATUS_PATH}`]);
    expect(points).toEqual([]);
    expect(payment).toMatchObject({
      id: TRANSACTION_ID,
      status: 'succeeded',
      amount: 100,
      currency: 'USD',
      metadata: { orderId: 'A-1001', referenceNumber: '48213907', transactionStatus: 'SENT' },
    });
  });

  it('from commit_sent with nothing committed: replays the update and commits with the same request ids', async () => {
    const log: string[] = [];
    nockLogin();
    nock(HOST)
      .get(STATUS_PATH)
      .query(true)
      .reply(logged(log, 400, errorBody('697', 'Invalid Transaction ID')));
    nock(HOST)
      .put(TRANSFER_PATH)
      .reply(logged(log, 200, updateReply()));
    nock(HOST)
      .put(`${TRANSFER_PATH}/commit`)
      .reply(logged(log, 200, commitReply));
    const { points, pay, options } = ledger(log, {
      transactionId: TRANSACTION_ID,
      step: 'commit_sent',
      serviceOptionCode: 'WILL_CALL',
    });

    const payment = await pay.payments.create(paymentParams, options);

    expect(log.slice(1)).toEqual([
      `PUT ${TRANSFER_PATH} ${expectedRequestId(KEY, 'update')}`,
      'checkpoint commit_sent',
      `PUT ${TRANSFER_PATH}/commit ${expectedRequestId(KEY, 'commit')}`,
    ]);
    // commit_sent again, with the time of this commit: until when it may land (docs/providers/provider-t.md#commit).
    expect(points).toEqual([
      {
        transactionId: TRANSACTION_ID,
        step: 'commit_sent',
        serviceOptionCode: 'WILL_CALL',
        commitSentAt: expect.any(Number),
      },
    ]);
    expect(payment).toMatchObject({
      id: TRANSACTION_ID,
      status: 'succeeded',
      metadata: { receiptUrl: RECEIPT_URL },
    });
  });

  it('from quoted: updates, checkpoints and commits, never quoting again', async () => {
    const log: string[] = [];
    nockLogin();
    const quote = nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply());
    nock(HOST)
      .put(TRANSFER_PATH)
      .reply(logged(log, 200, updateReply()));
    nock(HOST)
      .put(`${TRANSFER_PATH}/commit`)
      .reply(logged(log, 200, commitReply));
    const { pay, options } = ledger(log, {
      transactionId: TRANSACTION_ID,
      step: 'quoted',
      serviceOptionCode: 'WILL_CALL',
    });

    const payment = await pay.payments.create(paymentParams, options);

    expect(quote.isDone()).toBe(false);
    expect(log).toEqual([
      `PUT ${TRANSFER_PATH} ${expectedRequestId(KEY, 'update')}`,
      'checkpoint updated',
      'checkpoint commit_sent',
      `PUT ${TRANSFER_PATH}/commit ${expectedRequestId(KEY, 'commit')}`,
    ]);
    expect(payment.id).toBe(TRANSACTION_ID);
  });

  it('from quoted with an expired quote: a clear error with the recovery context, and no new quote', async () => {
    nockLogin();
    const quote = nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply());
    nock(HOST).put(TRANSFER_PATH).reply(400, errorBody('QUOTE_EXPIRED', 'The quote has expired'));
    const { pay, options } = ledger([], {
      transactionId: TRANSACTION_ID,
      step: 'quoted',
      serviceOptionCode: 'WILL_CALL',
    });

    const error = await pay.payments.create(paymentParams, options).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ProviderApiError);
    expect(error).toMatchObject({
      providerCode: 'QUOTE_EXPIRED',
      context: { transactionId: TRANSACTION_ID, step: 'update', resumedFrom: 'quoted' },
    });
    expect((error as Error).message).toContain('was not committed and no money moved');
    expect(quote.isDone()).toBe(false);
  });

  it('from commit_sent with a rejected transfer: a clear error naming the transfer, no commit', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('REJECTED'));
    const commit = nock(HOST).put(`${TRANSFER_PATH}/commit`).reply(200, commitReply);
    const { pay, options } = ledger([], { transactionId: TRANSACTION_ID, step: 'commit_sent' });

    const error = await pay.payments.create(paymentParams, options).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ProviderApiError);
    expect(error).toMatchObject({
      providerCode: 'TRANSACTION_REJECTED',
      context: {
        transactionId: TRANSACTION_ID,
        step: 'commit',
        resumedFrom: 'commit_sent',
        transactionStatus: 'REJECTED',
      },
    });
    expect(commit.isDone()).toBe(false);
  });

  it('refuses a recovery point it did not write, without calling the provider', async () => {
    const quote = nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply());
    const { pay, options } = ledger([], { step: 'somewhere' });

    const error = await pay.payments.create(paymentParams, options).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ context: { outcome: 'unknown' } });
    expect(quote.isDone()).toBe(false);
  });
});

describe('Provider T refunds with an idempotency key', () => {
  const refundRead = {
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
  };

  it('reads, checkpoints commit_sent with the refund id, then commits with the id derived from the key', async () => {
    const log: string[] = [];
    nockLogin();
    nock(HOST)
      .get(REFUND_PATH)
      .query(true)
      .reply(logged(log, 200, refundRead));
    nock(HOST)
      .put(`${REFUND_PATH}/commit`)
      .reply(logged(log, 200, { referenceNumber: '48213907', expectedPayoutDate: '2026-11-24' }));
    const { points, pay, options } = ledger(log);

    const refund = await pay.refunds.create({ payment_id: TRANSACTION_ID }, options);

    expect(log.slice(1)).toEqual([
      'checkpoint commit_sent',
      `PUT ${REFUND_PATH}/commit ${expectedRequestId(KEY, 'refund_commit')}`,
    ]);
    expect(points).toEqual([
      {
        transactionId: TRANSACTION_ID,
        step: 'commit_sent',
        refundId: 'rfd-5512',
        amount: { value: 100, currencyCode: 'USD' },
      },
    ]);
    expect(refund).toMatchObject({ id: 'rfd-5512', payment_id: TRANSACTION_ID, amount: 100 });
  });

  it('does not commit the refund when the checkpoint fails', async () => {
    nockLogin();
    nock(HOST).get(REFUND_PATH).query(true).reply(200, refundRead);
    const commit = nock(HOST).put(`${REFUND_PATH}/commit`).reply(200, {});
    const { pay, options } = ledger([], null, storeDown);

    const error = await pay.refunds
      .create({ payment_id: TRANSACTION_ID }, options)
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({
      context: { transactionId: TRANSACTION_ID, step: 'refund_commit', outcome: 'not_sent' },
    });
    expect((error as Error).message).toContain('NOT refunded');
    expect(commit.isDone()).toBe(false);
  });

  it('resumes from commit_sent by reading the status: refunded ⇒ the Refund, no second commit', async () => {
    nockLogin();
    const read = nock(HOST).get(REFUND_PATH).query(true).reply(200, refundRead);
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('REFUNDED'));
    const commit = nock(HOST).put(`${REFUND_PATH}/commit`).reply(200, {});
    const { pay, options } = ledger([], {
      transactionId: TRANSACTION_ID,
      step: 'commit_sent',
      refundId: 'rfd-5512',
      amount: { value: 100, currencyCode: 'USD' },
    });

    const refund = await pay.refunds.create({ payment_id: TRANSACTION_ID }, options);

    expect(read.isDone()).toBe(false);
    expect(commit.isDone()).toBe(false);
    expect(refund).toMatchObject({
      id: 'rfd-5512',
      payment_id: TRANSACTION_ID,
      amount: 100,
      currency: 'USD',
      status: 'succeeded',
    });
  });

  it('resumes from commit_sent when not refunded yet: commits the same refund id with the same request id', async () => {
    const log: string[] = [];
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('SENT'));
    let body: unknown;
    nock(HOST)
      .put(`${REFUND_PATH}/commit`, (sent) => {
        body = sent;
        return true;
      })
      .reply(logged(log, 200, { referenceNumber: '48213907' }));
    const { pay, options } = ledger(log, {
      transactionId: TRANSACTION_ID,
      step: 'commit_sent',
      refundId: 'rfd-5512',
      amount: { value: 100, currencyCode: 'USD' },
    });

    const refund = await pay.refunds.create({ payment_id: TRANSACTION_ID }, options);

    expect(log).toEqual([`PUT ${REFUND_PATH}/commit ${expectedRequestId(KEY, 'refund_commit')}`]);
    expect(body).toEqual({ ...IDENTITY, refundId: 'rfd-5512' });
    expect(refund.id).toBe('rfd-5512');
  });
});

describe('Provider T resolve', () => {
  it('answers the Payment the provider holds for an error context or a recovery point', async () => {
    nockLogin();
    const readIds: string[] = [];
    nock(HOST)
      .get(STATUS_PATH)
      .query(IDENTITY)
      .times(2)
      .reply(function () {
        readIds.push(String(this.req.headers['x-client-request-id']));
        return [200, statusReply('SENT')];
      });
    const adapter = testAdapter();

    const fromError = await adapter.resolve?.({
      operation: 'payments.create',
      context: { transactionId: TRANSACTION_ID, step: 'commit', outcome: 'unknown' },
    });
    const fromLedger = await adapter.resolve?.({
      operation: 'payments.create',
      idempotencyKey: KEY,
      recoveryPoint: { transactionId: TRANSACTION_ID, step: 'commit_sent' },
    });

    expect(fromError).toMatchObject({ id: TRANSACTION_ID, status: 'succeeded', amount: 100 });
    // Each record carries the request id of the status read it was built from.
    expect(fromError).toMatchObject({ request_id: readIds[0] });
    expect(fromLedger).toEqual({ ...fromError, request_id: readIds[1] });
  });

  it('answers a Checkout for checkouts.create', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('SENT'));

    const checkout = await testAdapter().resolve?.({
      operation: 'checkouts.create',
      context: { transactionId: TRANSACTION_ID },
    });

    expect(checkout).toMatchObject({ id: TRANSACTION_ID, session_type: 'one_time', amount: 100 });
  });

  const MINUTE = 60_000;
  it.each([
    ['the update (no commit sent)', { step: 'updated' }, undefined, null],
    ['an error of the update', undefined, { step: 'update' }, null],
    ['a commit sent 31 minutes ago', { step: 'commit_sent', commitSentAt: -31 * MINUTE }, undefined, null],
    [
      'a commit sent a minute ago',
      { step: 'commit_sent', commitSentAt: -MINUTE },
      undefined,
      { mayStillLand: true, askAgainAt: 29 * MINUTE },
    ],
    [
      'an error of the commit, with no recovery point',
      undefined,
      { step: 'commit', outcome: 'unknown' },
      { mayStillLand: true, askAgainAt: null },
    ],
  ] as const)(
    'for a transaction Provider T does not know (400/697) after %s',
    async (_, point, context, expected) => {
      nockLogin();
      nock(HOST).get(STATUS_PATH).query(true).reply(400, errorBody('697', 'Invalid Transaction ID'));
      const now = Date.now();
      const answer = await testAdapter().resolve?.({
        operation: 'payments.create',
        ...(point
          ? {
              recoveryPoint: {
                transactionId: TRANSACTION_ID,
                ...point,
                ...('commitSentAt' in point ? { commitSentAt: now + point.commitSentAt } : {}),
              },
            }
          : {}),
        context: { transactionId: TRANSACTION_ID, ...context },
      });
      if (expected === null) expect(answer).toBeNull();
      else
        expect(answer).toEqual({
          mayStillLand: true,
          reason: expect.stringContaining('Do not send it with a new key'),
          askAgainAt: expected.askAgainAt === null ? null : now + expected.askAgainAt,
        });
    },
  );

  it('resolve(key) after a commit whose reply was lost and that Provider T does not show yet: unknown until the commit window closes, key kept', async () => {
    const store = createMemoryIdempotencyStore();
    const pay = createPay(testAdapter(), { idempotency: store });
    nockLogin();
    nock(HOST).post('/transfer/v1/transactions/quote').reply(200, quoteReply());
    nock(HOST).put(TRANSFER_PATH).reply(200, updateReply());
    nock(HOST).put(`${TRANSFER_PATH}/commit`).replyWithError({ code: 'ECONNRESET' });
    const before = Date.now();
    await expect(pay.payments.create(paymentParams, { idempotencyKey: KEY })).rejects.toMatchObject({
      outcome: 'unknown',
    });
    nock(HOST).get(STATUS_PATH).query(true).reply(400, errorBody('697', 'Invalid Transaction ID'));

    const answer = await pay.resolve(KEY);

    expect(answer).toEqual({
      status: 'unknown',
      reason: expect.stringContaining('its commit may still be processed'),
      askAgainAt: expect.any(String),
    });
    const askAgainAt = Date.parse((answer as { askAgainAt: string }).askAgainAt);
    expect(askAgainAt).toBeGreaterThanOrEqual(before + 30 * MINUTE);
    expect(askAgainAt).toBeLessThanOrEqual(Date.now() + 30 * MINUTE);
    expect(await store.read(KEY)).toMatchObject({
      state: 'in_progress',
      recoveryPoint: { transactionId: TRANSACTION_ID, step: 'commit_sent' },
    });
  });

  it('answers undefined with only a key: Provider T offers no lookup by request id', async () => {
    const anyCall = nock(HOST).get(/.*/).reply(200, {});

    await expect(
      testAdapter().resolve?.({ operation: 'payments.create', idempotencyKey: KEY, recoveryPoint: null }),
    ).resolves.toBeUndefined();
    expect(anyCall.isDone()).toBe(false);
  });

  it('answers a refund: the Refund once REFUNDED, null while the transfer is not refunded', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('REFUNDED'));
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('SENT'));
    const adapter = testAdapter();
    const lookup = {
      operation: 'refunds.create' as const,
      recoveryPoint: {
        transactionId: TRANSACTION_ID,
        step: 'commit_sent',
        refundId: 'rfd-5512',
        amount: { value: 100, currencyCode: 'USD' },
      },
    };

    await expect(adapter.resolve?.(lookup)).resolves.toMatchObject({
      id: 'rfd-5512',
      payment_id: TRANSACTION_ID,
      amount: 100,
      status: 'succeeded',
    });
    await expect(adapter.resolve?.(lookup)).resolves.toBeNull();
  });
});

describe('Provider T checks before the ledger', () => {
  it('fingerprints a checkout’s provider_metadata.currency as sent: usd then USD under one key is one transfer', async () => {
    const pay = createPay(testAdapter(), { idempotency: createMemoryIdempotencyStore() });
    nockLogin();
    const quote = nock(HOST).post('/transfer/v1/transactions/quote').once().reply(200, quoteReply());
    nock(HOST).put(TRANSFER_PATH).reply(200, updateReply());
    nock(HOST).put(`${TRANSFER_PATH}/commit`).reply(200, commitReply);
    const checkout = (currency: string) => ({
      provider_metadata: { ...transferMetadata, amount: 100, currency },
    });
    const first = await pay.checkouts.create(checkout('usd'), { idempotencyKey: 'checkout-case' });
    const again = await pay.checkouts.create(checkout('USD'), { idempotencyKey: 'checkout-case' });
    expect(again).toEqual(first);
    expect(quote.isDone()).toBe(true);
  });

  it('refuses what only the adapter checks with its ValidationError while the store is down, touching nothing', async () => {
    // The ledger's first call is begin: with the store down it fails, so a ValidationError proves it was not made.
    const store: IdempotencyStore = {
      ...createMemoryIdempotencyStore(),
      begin: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')),
    };
    const pay = createPay(testAdapter(), { idempotency: store, onStoreError: () => {} });
    const error = await pay.payments
      .create(
        // A caller without types can leave the sender out.
        { ...paymentParams, provider_metadata: { ...transferMetadata, sender: undefined } as never },
        { idempotencyKey: 'no-sender' },
      )
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'validation_error',
      issues: [expect.objectContaining({ path: 'provider_metadata.sender' })],
      context: { idempotencyKey: 'no-sender' },
    });
  });
});
