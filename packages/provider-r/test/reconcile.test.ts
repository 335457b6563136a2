/** Provider R's checkouts are watched by the reconciler (docs/architecture.md#reconciliation), made either way. */
import {
  createMemoryDeduplicationStore,
  createMemoryIdempotencyStore,
  createMemoryReconciliationStore,
  createPay,
  createReconciler,
  type PayEvent,
} from '@pay/core';
import nock from 'nock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BASE_URL,
  FORM,
  MERCHANT,
  REDIRECT,
  SECRET,
  statusReply,
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
  amount: 100,
  currency: 'czk',
  success_url: 'https://shop.example/paid',
  cancel_url: 'https://shop.example/cancelled',
};

/** The watch list of `pay`'s store, as the reconciler would claim it two minutes on. */
async function watched(reconcile: ReturnType<typeof createMemoryReconciliationStore>) {
  const claimed = await reconcile.claim('providerR', {
    now: Date.now() + 3 * 60_000,
    limit: 10,
    leaseSeconds: 1,
  });
  return claimed.map(({ object }) => ({ kind: object.kind, id: object.id, status: object.status }));
}

function created() {
  return nock(BASE_URL)
    .post(`/v2.0/paymentRedirect/merchant/${MERCHANT}`)
    .reply(200, { code: 0, message: 'OK', transId: TRANS_ID, redirect: REDIRECT });
}

describe('checkouts are watched by their transId', () => {
  it.each([
    ['checkouts.create without a key', {}],
    ['checkouts.create with a key', { idempotencyKey: 'order-1001-checkout' }],
  ])('%s', async (_how, options) => {
    const reconcile = createMemoryReconciliationStore();
    const pay = createPay(testAdapter(), { reconcile, idempotency: createMemoryIdempotencyStore() });
    const scope = created();
    await expect(pay.checkouts.create(checkoutParams, options)).resolves.toBeNull();
    expect(scope.isDone()).toBe(true);
    expect(await watched(reconcile)).toEqual([{ kind: 'checkout', id: TRANS_ID, status: null }]);
  });

  it('createCheckoutRedirect', async () => {
    const reconcile = createMemoryReconciliationStore();
    const pay = createPay(testAdapter(), { reconcile });
    created();
    await expect(pay.adapter.createCheckoutRedirect(checkoutParams)).resolves.toEqual({
      transId: TRANS_ID,
      redirectUrl: REDIRECT,
    });
    expect(await watched(reconcile)).toEqual([{ kind: 'checkout', id: TRANS_ID, status: null }]);
  });
});

describe('statuses never go backwards (docs/architecture.md#reconciliation)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a lagging PENDING read after AUTHORIZED announces nothing; PAID then does', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 10, 26, 9));
    const pay = createPay(testAdapter(), { reconcile: createMemoryReconciliationStore() });
    const seen: string[] = [];
    const handler = pay.webhooks
      .setup({ webhookSecret: SECRET, deduplicate: createMemoryDeduplicationStore() })
      .onAny((event: PayEvent) => {
        if (!event.is_raw) seen.push(`${event.type} ${(event.data as { status: string }).status}`);
      });
    const reconciler = createReconciler(pay, handler);
    await pay.watch('payment', TRANS_ID, null);
    for (const status of ['AUTHORIZED', 'PENDING', 'PAID']) {
      vi.setSystemTime(Date.now() + 60 * 60_000);
      nock(BASE_URL).post('/v1.0/status').reply(200, statusReply({ status }), FORM);
      expect(await reconciler.runOnce()).toMatchObject({ reads: 1 });
    }
    expect(seen).toEqual(['payment.updated requires_capture', 'payment.succeeded succeeded']);
  });
});
