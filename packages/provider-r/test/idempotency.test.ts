/**
 * Idempotency keys for Provider R through nock (docs/architecture.md#idempotency): the `refId` a key derives, the
 * ledger checkpoint recorded before each call that moves money (and nothing sent when it fails), and `resolve` by
 * `transId`.
 */
import { createHash } from 'node:crypto';
import {
  createMemoryIdempotencyStore,
  createPay,
  type IdempotencyStore,
  type JsonValue,
  ProviderApiError,
} from '@pay/core';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { idempotencyRefId } from '../src/index.js';
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

/** The in-memory ledger, logging each checkpoint into `events` (shared with the nock replies). */
function loggingStore(events: string[]): IdempotencyStore {
  const store = createMemoryIdempotencyStore();
  return {
    ...store,
    checkpoint: (key: string, lease: string, point: JsonValue) => {
      events.push(`checkpoint ${JSON.stringify(point)}`);
      return store.checkpoint(key, lease, point);
    },
  };
}

/** `idem-` and the first 31 hex digits of SHA-256 of the key, computed independently of the adapter. */
function expectedRefId(key: string): string {
  return `idem-${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 31)}`;
}

describe('the refId of a keyed creation derives from the idempotency key', () => {
  // The recovery point records when the creation was sent (docs/providers/provider-r.md#reconciliation).
  const SENT_AT = '2026-11-26T09:00:00.000Z';
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(SENT_AT));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is idem- and 31 hex digits of SHA-256 of the key: the same for every attempt and process', async () => {
    await expect(idempotencyRefId('order-1001-attempt')).resolves.toBe(expectedRefId('order-1001-attempt'));
    await expect(idempotencyRefId('Žluťoučký kůň')).resolves.toBe(expectedRefId('Žluťoučký kůň'));
    expect(await idempotencyRefId('a')).not.toBe(await idempotencyRefId('b'));
  });

  it('payments.create records create_sent with the refId, then sends that refId (not item_id)', async () => {
    const events: string[] = [];
    const refId = expectedRefId('pay-key-1');
    let sent: Record<string, unknown> | undefined;
    nock(BASE_URL)
      .post('/v2.0/payment', (body) => {
        sent = body;
        return true;
      })
      .reply(() => {
        events.push('POST /v2.0/payment');
        return [200, { code: 0, message: 'OK', transId: TRANS_ID, redirect: REDIRECT }];
      });
    const pay = createPay(testAdapter(), { idempotency: loggingStore(events) });
    const payment = await pay.payments.create(paymentParams, { idempotencyKey: 'pay-key-1' });
    expect(sent).toMatchObject({ refId, payerId: 'cust_42', price: 10000 });
    expect(events).toEqual([
      `checkpoint ${JSON.stringify({ step: 'create_sent', refId, price: 10000, curr: 'CZK', sentAt: SENT_AT })}`,
      'POST /v2.0/payment',
      `checkpoint ${JSON.stringify({ step: 'created', refId, transId: TRANS_ID, result: payment })}`,
    ]);
    expect(payment).toMatchObject({ id: TRANS_ID, item_id: 'order-1001', payment_url: REDIRECT });
  });

  it('a caller refId in provider_metadata wins over the key', async () => {
    const events: string[] = [];
    let sent: Record<string, unknown> | undefined;
    nock(BASE_URL)
      .post(`/v2.0/paymentRedirect/merchant/${MERCHANT}`, (body) => {
        sent = body;
        return true;
      })
      .reply(() => {
        events.push('POST /v2.0/paymentRedirect');
        return [200, { code: 0, message: 'OK', transId: TRANS_ID, redirect: REDIRECT }];
      });
    const pay = createPay(testAdapter(), { idempotency: loggingStore(events) });
    await expect(
      pay.checkouts.create(
        { ...checkoutParams, provider_metadata: { refId: 'R-7' } },
        { idempotencyKey: 'co-key-1' },
      ),
    ).resolves.toBeNull();
    expect(sent).toMatchObject({ refId: 'R-7' });
    expect(events.slice(0, 2)).toEqual([
      `checkpoint ${JSON.stringify({ step: 'create_sent', refId: 'R-7', price: 10000, curr: 'CZK', sentAt: SENT_AT })}`,
      'POST /v2.0/paymentRedirect',
    ]);
  });

  it('a refund records create_sent with its refId and the payment after the status read, before the refund', async () => {
    const events: string[] = [];
    const refId = expectedRefId('rf-key-1');
    let sent: Record<string, unknown> | undefined;
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(() => {
        events.push('POST /v1.0/status');
        return [200, statusReply(), FORM];
      })
      .post('/v2.0/refund.json', (body) => {
        sent = body;
        return true;
      })
      .reply(() => {
        events.push('POST /v2.0/refund.json');
        return [200, { code: 0, message: 'OK' }];
      });
    const pay = createPay(testAdapter(), { idempotency: loggingStore(events) });
    const refund = await pay.refunds.create(
      { payment_id: TRANS_ID, amount: 30 },
      { idempotencyKey: 'rf-key-1' },
    );
    expect(refund).toMatchObject({ id: refId, payment_id: TRANS_ID, amount: 30 });
    expect(sent).toEqual({ transId: TRANS_ID, amount: 3000, curr: 'CZK', refId, test: true });
    expect(events.slice(0, 3)).toEqual([
      'POST /v1.0/status',
      `checkpoint ${JSON.stringify({ step: 'create_sent', refId, transId: TRANS_ID, sentAt: SENT_AT })}`,
      'POST /v2.0/refund.json',
    ]);
  });

  it('without a key nothing changes: refId is item_id, no ledger', async () => {
    let sent: Record<string, unknown> | undefined;
    nock(BASE_URL)
      .post('/v2.0/payment', (body) => {
        sent = body;
        return true;
      })
      .reply(200, { code: 0, message: 'OK', transId: TRANS_ID, redirect: REDIRECT });
    await createPay(testAdapter()).payments.create(paymentParams);
    expect(sent).toMatchObject({ refId: 'order-1001' });
  });

  it('capture and cancel record the transaction before the call that moves money', async () => {
    const events: string[] = [];
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'AUTHORIZED' }), FORM)
      .put(`/v2.0/preauth/transId/${TRANS_ID}.json`)
      .reply(() => {
        events.push('PUT /v2.0/preauth');
        return [200, { code: 0, message: 'OK' }];
      })
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PAID', price: '8000' }), FORM)
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PENDING' }), FORM)
      .delete(`/v2.0/payment/transId/${TRANS_ID}.json`)
      .reply(() => {
        events.push('DELETE /v2.0/payment');
        return [200, { code: 0, message: 'OK' }];
      })
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'CANCELLED' }), FORM);
    const pay = createPay(testAdapter(), { idempotency: loggingStore(events) });
    await pay.payments.capture(TRANS_ID, { amount: 80 }, { idempotencyKey: 'cap-key' });
    await pay.payments.cancel(TRANS_ID, { idempotencyKey: 'cancel-key' });
    expect(events).toEqual([
      `checkpoint ${JSON.stringify({ step: 'capture_sent', transId: TRANS_ID, amount: 8000 })}`,
      'PUT /v2.0/preauth',
      `checkpoint ${JSON.stringify({ step: 'cancel_sent', transId: TRANS_ID })}`,
      'DELETE /v2.0/payment',
    ]);
  });
});

describe('resolve by the transId an error or a recovery point names', () => {
  it('a 500 naming a transId: resolve(error) reads its status and finds the payment', async () => {
    nock(BASE_URL)
      .post('/v2.0/payment')
      .reply(500, { code: 1500, message: 'unexpected error', transId: TRANS_ID })
      .post('/v1.0/status')
      .reply(200, statusReply({ status: 'PENDING' }), FORM);
    const pay = createPay(testAdapter());
    const error = await rejectionOf(pay.payments.create(paymentParams, { idempotencyKey: 'k-500' }));
    expect(error).toMatchObject({ outcome: 'unknown', context: { transId: TRANS_ID } });
    await expect(pay.resolve(error)).resolves.toMatchObject({
      status: 'found',
      source: 'provider',
      record: { id: TRANS_ID, status: 'pending' },
    });
  });

  it('the published "Payment not found" answer is null; an unauthorised 1400 is an error, never "not found"', async () => {
    const adapter = testAdapter();
    nock(BASE_URL)
      .post('/v1.0/status')
      .reply(200, 'error=1400&message=Payment+not+found+(status),+params:+x', FORM)
      .post('/v1.0/status')
      .reply(200, 'code=1400&message=Unauthorized+access', FORM);
    await expect(
      adapter.resolve?.({ operation: 'payments.create', context: { transId: TRANS_ID } }),
    ).resolves.toBeNull();
    const refused = await rejectionOf(
      adapter.resolve!({ operation: 'payments.create', context: { transId: TRANS_ID } }),
    );
    expect(ProviderApiError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ providerCode: '1400' });
  });

  it('with only a key or a refId it cannot tell, and asks the provider nothing', async () => {
    const adapter = testAdapter();
    await expect(
      adapter.resolve?.({ operation: 'payments.create', idempotencyKey: 'k', recoveryPoint: null }),
    ).resolves.toBeUndefined();
    await expect(
      adapter.resolve?.({
        operation: 'checkouts.create',
        idempotencyKey: 'k',
        recoveryPoint: { step: 'create_sent', refId: expectedRefId('k') },
      }),
    ).resolves.toBeUndefined();
  });
});

describe('createCheckoutRedirect, which createPay’s ledger does not cover', () => {
  it('refuses an idempotency key before any call instead of ignoring it', async () => {
    const scope = nock(BASE_URL).post(`/v2.0/paymentRedirect/merchant/${MERCHANT}`).reply(200, {});
    const pay = createPay(testAdapter());
    const error = await rejectionOf(
      pay.adapter.createCheckoutRedirect(checkoutParams, { idempotencyKey: 'co-redirect-1' }),
    );
    expect(error).toMatchObject({
      code: 'validation_error',
      issues: [expect.objectContaining({ path: 'options.idempotencyKey' })],
    });
    expect(scope.isDone()).toBe(false);
  });
});

describe('a keyed checkout has a way to the payer', () => {
  it('checkouts.create resolves null, and pay.resolve(key) answers the Checkout: id the transId, payment_url the redirect', async () => {
    const scope = nock(BASE_URL)
      .post(`/v2.0/paymentRedirect/merchant/${MERCHANT}`)
      .once()
      .reply(200, { code: 0, message: 'OK', transId: TRANS_ID, redirect: REDIRECT });
    const pay = createPay(testAdapter());
    expect(await pay.checkouts.create(checkoutParams, { idempotencyKey: 'co-key-9' })).toBeNull();
    const answer = await pay.resolve('co-key-9');
    expect(answer).toEqual({
      status: 'found',
      source: 'ledger',
      record: {
        provider: 'providerR',
        id: TRANS_ID,
        payment_url: REDIRECT,
        amount: 100,
        currency: 'CZK',
        customer: { email: 'payer@example.com' },
        session_type: 'one_time',
        products: [{ id: 'order-1001', quantity: 1 }],
        expires_at: null,
        metadata: {},
        livemode: false,
        request_id: expect.any(String),
        raw: { code: 0, message: 'OK', transId: TRANS_ID, redirect: REDIRECT },
      },
    });
    // The retry replays null without a second checkout; resolve asked the provider nothing.
    expect(await pay.checkouts.create(checkoutParams, { idempotencyKey: 'co-key-9' })).toBeNull();
    expect(scope.isDone()).toBe(true);
  });
});

describe('input only Provider R checks is refused before the ledger is touched', () => {
  it('a 17-character paymentLabel with the store down is its ValidationError, not a retryable StoreError', async () => {
    const scope = nock(BASE_URL).post('/v2.0/payment').reply(200, {});
    // The ledger's first call is begin: with the store down it fails, so a ValidationError proves it was not made.
    const store: IdempotencyStore = {
      ...createMemoryIdempotencyStore(),
      begin: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')),
    };
    const pay = createPay(testAdapter(), { idempotency: store, onStoreError: () => {} });
    const error = await rejectionOf(
      pay.payments.create(
        {
          ...paymentParams,
          provider_metadata: { ...paymentParams.provider_metadata, paymentLabel: 'x'.repeat(17) },
        },
        { idempotencyKey: 'label-key-1' },
      ),
    );
    expect(error).toMatchObject({
      code: 'validation_error',
      issues: [expect.objectContaining({ path: 'provider_metadata.paymentLabel' })],
      context: { idempotencyKey: 'label-key-1' },
    });
    expect(scope.isDone()).toBe(false);
  });
});
