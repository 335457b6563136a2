/**
 * Provider N, exact requests (nock): an idempotency key becomes the paymentReference / refundReference
 * on every attempt; a "duplicate reference" answer to a keyed call is read back by reference and resolved to the
 * record the key already opened; `resolve` reads by the key's reference and says `null` only on the provider's
 * documented not-found answers (docs/architecture.md#idempotency).
 */
import { createHash } from 'node:crypto';
import { createMemoryIdempotencyStore, createPay, NetworkError, ProviderApiError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyReference } from '../src/index.js';
import {
  HOST,
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
});

afterEach(() => {
  nock.cleanAll();
});

/** The README's rule, computed independently: `idem-` + the first 31 hex digits of SHA-256(key). */
function referenceFor(key: string): string {
  return `idem-${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 31)}`;
}

const checkoutParams = {
  customer: { email: 'ada@example.com' },
  provider_metadata: { amount: 5000, currency: 'NGN' },
};

const INIT = '/api/v1/merchant/transactions/init-transaction';
const QUERY = '/api/v1/merchant/transactions/query';
const REFUND = '/api/v1/refunds/initiate-refund';
const DUPLICATE_PAYMENT = refused('99', 'Duplicate payment reference');
const DUPLICATE_REFUND = refused('R9', 'Supplied refund reference already exists for the merchant.');
const NO_SUCH_REFUND = refused('R7', 'No refund was initiated with the supplied refund reference.');

/** Intercepts one init-transaction call with the token of `nockLogin()`, recording its body. */
function recordInit(bodies: Record<string, unknown>[]) {
  return nock(HOST)
    .post(INIT, (body) => {
      bodies.push(body);
      return true;
    })
    .matchHeader('authorization', 'Bearer token-1');
}

describe('the reference of a key', () => {
  it('is idem- + 31 hex digits of SHA-256(key): 36 characters of [0-9a-z-], any key representable', async () => {
    for (const key of ['order-1001', 'ключ/日本語 with spaces', 'x'.repeat(255)]) {
      const reference = await idempotencyReference(key);
      expect(reference).toBe(referenceFor(key));
      expect(reference).toMatch(/^idem-[0-9a-f]{31}$/);
    }
    expect(await idempotencyReference('order-1001')).not.toBe(await idempotencyReference('order-1002'));
  });
});

describe('checkouts.create with an idempotency key', () => {
  it('sends the key’s paymentReference on every attempt: after a lost reply, the repeat sends the same one', async () => {
    const bodies: Record<string, unknown>[] = [];
    nockLogin();
    recordInit(bodies).replyWithError({ code: 'ECONNRESET' });
    const adapter = testAdapter();
    const lost = await adapter
      .createCheckout(checkoutParams, { idempotencyKey: 'order-1001' })
      .catch((thrown: unknown) => thrown);
    expect(NetworkError.isInstance(lost) && lost.outcome).toBe('unknown');
    expect(lost).toMatchObject({
      context: { paymentReference: referenceFor('order-1001'), idempotencyKey: 'order-1001' },
    });

    recordInit(bodies).reply(
      200,
      ok({
        transactionReference: TRANSACTION_REFERENCE,
        paymentReference: referenceFor('order-1001'),
        checkoutUrl: 'https://sandbox.provider-n.example/checkout/x',
      }),
    );
    await adapter.createCheckout(checkoutParams, { idempotencyKey: 'order-1001' });
    expect(bodies.map((body) => body.paymentReference)).toEqual([
      referenceFor('order-1001'),
      referenceFor('order-1001'),
    ]);
  });

  it('a duplicate refusal reads the transaction by paymentReference; another amount is a clear error, no outcome', async () => {
    nockLogin();
    nock(HOST).post(INIT).reply(422, DUPLICATE_PAYMENT);
    const read = nock(HOST)
      .get(QUERY)
      .query({ paymentReference: referenceFor('order-1001') })
      .matchHeader('authorization', 'Bearer token-1')
      .reply(200, ok({ ...transactionStatusBody, paymentStatus: 'PENDING', totalPayable: '7000.00' }));
    const error = await testAdapter()
      .createCheckout(checkoutParams, { idempotencyKey: 'order-1001' })
      .catch((thrown: unknown) => thrown);
    expect(read.isDone()).toBe(true);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect((error as ProviderApiError).outcome).toBeUndefined();
    expect(error).toMatchObject({
      providerCode: '99',
      context: {
        paymentReference: referenceFor('order-1001'),
        transactionReference: TRANSACTION_REFERENCE,
        paymentStatus: 'PENDING',
        idempotencyKey: 'order-1001',
      },
    });
    expect((error as Error).message).toContain('NGN 7000; this request asks NGN 5000');
  });

  it('a duplicate refusal whose transaction cannot be read back stays outcome unknown', async () => {
    nockLogin();
    nock(HOST).post(INIT).reply(422, DUPLICATE_PAYMENT);
    nock(HOST)
      .get(QUERY)
      .query({ paymentReference: referenceFor('order-1001') })
      .reply(404, refused('99', 'Transaction not found'));
    const error = await testAdapter()
      .createCheckout(checkoutParams, { idempotencyKey: 'order-1001' })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ outcome: 'unknown', retryable: false });
    expect((error as Error).message).toContain('does not find it');
  });

  it('without a key a duplicate refusal is outcome unknown and nothing is read (unchanged)', async () => {
    nockLogin();
    nock(HOST).post(INIT).reply(422, DUPLICATE_PAYMENT);
    const error = await testAdapter()
      .createCheckout(checkoutParams)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ outcome: 'unknown' });
    expect(nock.pendingMocks()).toEqual([]);
  });
});

describe('refunds.create with an idempotency key', () => {
  const request = { payment_id: TRANSACTION_REFERENCE, amount: 1000, reason: 'Damaged item' };

  it('sends the key’s refundReference, and an R9 answer resolves to the refund read back, exactly', async () => {
    const bodies: Record<string, unknown>[] = [];
    nockLogin();
    nock(HOST)
      .post(REFUND, (body) => {
        bodies.push(body);
        return true;
      })
      .reply(400, DUPLICATE_REFUND);
    const existing = { ...refundBody, refundReference: referenceFor('refund-1001') };
    const read = nock(HOST)
      .get(`/api/v1/refunds/${referenceFor('refund-1001')}`)
      .matchHeader('authorization', 'Bearer token-1')
      .reply(200, ok(existing), { 'x-request-id': 'pn-req-refund-read-4' });

    const refund = await testAdapter().createRefund(request, { idempotencyKey: 'refund-1001' });

    expect(bodies).toEqual([
      {
        transactionReference: TRANSACTION_REFERENCE,
        refundReference: referenceFor('refund-1001'),
        refundAmount: 1000,
        refundReason: 'Damaged item',
      },
    ]);
    expect(read.isDone()).toBe(true);
    expect(refund).toEqual({
      provider: 'providerN',
      id: referenceFor('refund-1001'),
      payment_id: TRANSACTION_REFERENCE,
      amount: 1000,
      currency: 'NGN',
      status: 'pending',
      reason: 'Damaged item',
      metadata: {},
      livemode: false,
      // The read produced the record: its request id, not the refused initiate-refund's.
      request_id: 'pn-req-refund-read-4',
      raw: existing,
    });
  });

  it('an R9 answer whose refund is another one (other amount) is a clear error with no outcome', async () => {
    nockLogin();
    nock(HOST).post(REFUND).reply(400, DUPLICATE_REFUND);
    nock(HOST)
      .get(`/api/v1/refunds/${referenceFor('refund-1001')}`)
      .reply(200, ok({ ...refundBody, refundReference: referenceFor('refund-1001'), refundAmount: 2500 }));
    const error = await testAdapter()
      .createRefund(request, { idempotencyKey: 'refund-1001' })
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect((error as ProviderApiError).outcome).toBeUndefined();
    expect(error).toMatchObject({
      providerCode: 'R9',
      context: { refundReference: referenceFor('refund-1001') },
    });
    expect((error as Error).message).toContain('2500 of transaction');
  });

  it('an R9 answer whose refund cannot be read (R7, or a 503) stays outcome unknown', async () => {
    for (const [status, body] of [
      [404, NO_SUCH_REFUND],
      [503, { error: 'unavailable' }],
    ] as const) {
      nockLogin();
      nock(HOST).post(REFUND).reply(400, DUPLICATE_REFUND);
      nock(HOST)
        .get(`/api/v1/refunds/${referenceFor('refund-1001')}`)
        .reply(status, body);
      const error = await testAdapter()
        .createRefund(request, { idempotencyKey: 'refund-1001' })
        .catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ outcome: 'unknown', retryable: false });
      nock.cleanAll();
    }
  });

  it('without a key an R9 answer is outcome unknown (the published duplicate code, not a plain refusal)', async () => {
    nockLogin();
    nock(HOST).post(REFUND).reply(400, DUPLICATE_REFUND);
    const error = await testAdapter()
      .createRefund(request)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ outcome: 'unknown', providerCode: 'R9' });
  });
});

describe('resolve', () => {
  it('checkouts.create: reads by the key’s paymentReference; 404 / 99 is null (proven nothing)', async () => {
    nockLogin();
    nock(HOST)
      .get(QUERY)
      .query({ paymentReference: referenceFor('order-1001') })
      .reply(200, ok(transactionStatusBody));
    nock(HOST)
      .get(QUERY)
      .query({ paymentReference: referenceFor('order-1002') })
      .reply(404, refused('99', 'Transaction not found'));
    const adapter = testAdapter();
    await expect(
      adapter.resolve?.({ operation: 'checkouts.create', idempotencyKey: 'order-1001' }),
    ).resolves.toMatchObject({ id: TRANSACTION_REFERENCE, amount: 5000, currency: 'NGN', payment_url: null });
    await expect(
      adapter.resolve?.({ operation: 'checkouts.create', idempotencyKey: 'order-1002' }),
    ).resolves.toBeNull();
  });

  it('checkouts.create: with the recovery point the adapter checkpointed, the record keeps its checkout URL', async () => {
    nockLogin();
    nock(HOST)
      .get(QUERY)
      .query({ paymentReference: referenceFor('order-1001') })
      .reply(200, ok(transactionStatusBody));
    const url = 'https://sandbox.provider-n.example/checkout/x';
    const resolved = await testAdapter().resolve?.({
      operation: 'checkouts.create',
      idempotencyKey: 'order-1001',
      recoveryPoint: {
        transactionReference: TRANSACTION_REFERENCE,
        checkoutUrl: url,
        expiresAt: '2026-11-22T11:00:00.000Z',
      },
    });
    expect(resolved).toMatchObject({
      id: TRANSACTION_REFERENCE,
      payment_url: url,
      checkoutUrl: url,
      expires_at: '2026-11-22T11:00:00.000Z',
    });
  });

  it('refunds.create: reads GET /v1/refunds/{ref} by the error context; R7 is null, a 404 without R7 is not', async () => {
    nockLogin();
    nock(HOST).get('/api/v1/refunds/r%2F1').reply(404, NO_SUCH_REFUND);
    nock(HOST).get('/api/v1/refunds/r-2').reply(404, '<html>Not Found</html>');
    const adapter = testAdapter();
    await expect(
      adapter.resolve?.({ operation: 'refunds.create', context: { refundReference: 'r/1' } }),
    ).resolves.toBeNull();
    const error = await adapter
      .resolve?.({ operation: 'refunds.create', context: { refundReference: 'r-2' } })
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
  });
});

describe('through createPay’s ledger', () => {
  it('a lost init-transaction reply, then the retry’s "already holds" refusal: the key is kept and resolve(key) answers that checkout', async () => {
    const store = createMemoryIdempotencyStore();
    const pay = createPay(testAdapter(), { idempotency: store });
    const key = 'order-lost-reply';
    nockLogin();
    nock(HOST).post(INIT).replyWithError({ code: 'ECONNRESET' });
    await expect(pay.checkouts.create(checkoutParams, { idempotencyKey: key })).rejects.toMatchObject({
      outcome: 'unknown',
    });

    nock(HOST).post(INIT).reply(422, DUPLICATE_PAYMENT);
    const held = { ...transactionStatusBody, paymentReference: referenceFor(key), paymentStatus: 'PENDING' };
    nock(HOST)
      .get(QUERY)
      .query({ paymentReference: referenceFor(key) })
      .reply(200, ok(held));
    const retry = await pay.checkouts
      .create(checkoutParams, { idempotencyKey: key })
      .catch((e: unknown) => e);
    expect(retry).toMatchObject({
      providerCode: '99',
      outcome: 'unknown',
      context: { transactionReference: TRANSACTION_REFERENCE, idempotencyKey: key },
    });
    expect(await store.read(key)).toMatchObject({ state: 'in_progress' });

    nock(HOST)
      .get(QUERY)
      .query({ paymentReference: referenceFor(key) })
      .reply(200, ok(held));
    expect(await pay.resolve(key)).toMatchObject({
      status: 'found',
      source: 'provider',
      record: { id: TRANSACTION_REFERENCE, amount: 5000, currency: 'NGN' },
    });
  });

  it('provider_metadata.currency ngn and NGN under one key are one request: the retry gets the recorded checkout', async () => {
    const pay = createPay(testAdapter(), { idempotency: createMemoryIdempotencyStore() });
    const key = 'order-currency-case';
    const bodies: Record<string, unknown>[] = [];
    nockLogin();
    recordInit(bodies).reply(
      200,
      ok({
        transactionReference: TRANSACTION_REFERENCE,
        paymentReference: referenceFor(key),
        checkoutUrl: 'https://sandbox.provider-n.example/checkout/x',
      }),
    );
    const lower = { ...checkoutParams, provider_metadata: { amount: 5000, currency: 'ngn' } };
    const first = await pay.checkouts.create(lower, { idempotencyKey: key });
    const again = await pay.checkouts.create(checkoutParams, { idempotencyKey: key });
    expect(again).toEqual(first);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatchObject({ currencyCode: 'NGN', paymentReference: referenceFor(key) });
  });
});

describe('a BigInt in a refund’s forwarded provider_metadata', () => {
  it.each([
    ['without a key', {}],
    ['with a key', { idempotencyKey: 'refund-bigint' }],
  ])('%s is a ValidationError naming it, before any call', async (_, options) => {
    const store = createMemoryIdempotencyStore();
    const pay = createPay(testAdapter(), { idempotency: store });
    const error = await pay.refunds
      .create(
        { payment_id: TRANSACTION_REFERENCE, amount: 10, provider_metadata: { customerRef: 10n } },
        options,
      )
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'validation_error',
      issues: [
        {
          path: 'provider_metadata.customerRef',
          message: 'is a BigInt, which JSON cannot carry: pass a number or a string',
        },
      ],
    });
    expect(await store.read('refund-bigint')).toBeNull();
  });
});
