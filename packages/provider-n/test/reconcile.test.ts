import {
  createMemoryDeduplicationStore,
  createMemoryReconciliationStore,
  createPay,
  createReconciler,
  type PayEvent,
} from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { providerNWebhookRequest } from '../src/testing/index.js';
import {
  HOST,
  nockLogin,
  ok,
  refundBody,
  TRANSACTION_REFERENCE,
  testAdapter,
  transactionEventData,
  transactionStatusBody,
  WEBHOOK_SECRET,
} from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
  vi.useRealTimers();
});

describe('the reconciler over Provider N', () => {
  it('delivers a received payment as payment.created, as SUCCESSFUL_TRANSACTION does, and the late webhook runs no callback again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 10, 26, 9));
    const reconcile = createMemoryReconciliationStore();
    const pay = createPay(testAdapter(), { reconcile });
    const seen: PayEvent[] = [];
    const handler = pay.webhooks
      .setup({ webhookSecret: WEBHOOK_SECRET, deduplicate: createMemoryDeduplicationStore() })
      .onAny((event) => void (event.is_raw ? undefined : seen.push(event)));
    await pay.watch('checkout', TRANSACTION_REFERENCE, null);
    vi.setSystemTime(Date.now() + 2 * 60_000);
    nockLogin();
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query({ transactionReference: TRANSACTION_REFERENCE })
      .reply(200, ok(transactionStatusBody));
    expect(await createReconciler(pay, handler).runOnce()).toMatchObject({ reads: 1, transitions: 1 });
    expect(seen.map((event) => [event.type, (event.data as { status: string }).status])).toEqual([
      ['payment.created', 'succeeded'],
    ]);
    const late = await handler.handle(
      await providerNWebhookRequest(
        { eventType: 'SUCCESSFUL_TRANSACTION', eventData: transactionEventData },
        { webhookSecret: WEBHOOK_SECRET },
      ),
    );
    expect(late.duplicates).toEqual([
      `providerN:transition:payment:${TRANSACTION_REFERENCE}:payment.created:succeeded`,
    ]);
    expect(seen).toHaveLength(1);
    expect(await reconcile.backlog('providerN', Date.now())).toMatchObject({ watched: 0 });
  });

  it('reads a watched refund by its reference and delivers refund.created once it completed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 10, 26, 9));
    const pay = createPay(testAdapter(), { reconcile: createMemoryReconciliationStore() });
    const seen: PayEvent[] = [];
    const handler = pay.webhooks
      .setup({ webhookSecret: WEBHOOK_SECRET, deduplicate: createMemoryDeduplicationStore() })
      .onAny((event) => void seen.push(event));
    await pay.watch('refund', 'REF-1', 'pending');
    vi.setSystemTime(Date.now() + 2 * 60_000);
    nockLogin();
    nock(HOST)
      .get('/api/v1/refunds/REF-1')
      .reply(200, ok({ ...refundBody, refundReference: 'REF-1', refundStatus: 'COMPLETED' }));
    expect(await createReconciler(pay, handler).runOnce()).toMatchObject({
      reads: 1,
      transitions: 1,
      errors: 0,
    });
    expect(seen.map((event) => [event.type, event.data])).toEqual([
      ['refund.created', expect.objectContaining({ id: 'REF-1', status: 'succeeded', currency: 'NGN' })],
    ]);
  });

  it('a PARTIALLY_PAID read lagging behind the SUCCESSFUL_TRANSACTION push announces nothing (docs/architecture.md#reconciliation)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 10, 26, 9));
    const reconcile = createMemoryReconciliationStore();
    const pay = createPay(testAdapter(), { reconcile });
    const seen: string[] = [];
    const handler = pay.webhooks
      .setup({ webhookSecret: WEBHOOK_SECRET, deduplicate: createMemoryDeduplicationStore() })
      .onAny((event) => {
        if (!event.is_raw) seen.push(`${event.type} ${(event.data as { status: string }).status}`);
      });
    await pay.watch('checkout', TRANSACTION_REFERENCE, null);
    await handler.handle(
      await providerNWebhookRequest(
        { eventType: 'SUCCESSFUL_TRANSACTION', eventData: transactionEventData },
        { webhookSecret: WEBHOOK_SECRET },
      ),
    );
    vi.setSystemTime(Date.now() + 2 * 60_000);
    nockLogin();
    const lagging = nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .reply(200, ok({ ...transactionStatusBody, paymentStatus: 'PARTIALLY_PAID', amountPaid: '1.00' }));
    expect(await createReconciler(pay, handler).runOnce()).toMatchObject({ transitions: 0 });
    expect(seen).toEqual(['payment.created succeeded']);
    // The push's final status ended the watch: the lagging read was never even sent.
    expect(lagging.isDone()).toBe(false);
    expect(await reconcile.backlog('providerN', Date.now())).toMatchObject({ watched: 0 });
  });

  describe('the read budget counts requests (docs/architecture.md#reconciliation)', () => {
    /** Three watched checkouts, due now, and two reconcilers over one shared store. */
    async function watchedThree() {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.UTC(2026, 10, 26, 9, 0, 5));
      const reconcile = createMemoryReconciliationStore();
      const deduplicate = createMemoryDeduplicationStore();
      const instances = [1, 2].map(() => {
        const pay = createPay(testAdapter({ retry: 3 }), { reconcile });
        const handler = pay.webhooks.setup({ webhookSecret: WEBHOOK_SECRET, deduplicate });
        return { pay, reconciler: createReconciler(pay, handler, { readsPerMinute: 5 }) };
      });
      for (const id of ['N-1', 'N-2', 'N-3']) await instances[0]?.pay.watch('checkout', id, null);
      vi.setSystemTime(Date.now() + 2 * 60_000);
      return { reconcile, instances };
    }

    it('a read answered 503 is one request, not retried: the next run reads again', async () => {
      const { instances } = await watchedThree();
      nockLogin();
      let requests = 0;
      nock(HOST)
        .get('/api/v1/merchant/transactions/query')
        .query(true)
        .times(20)
        .reply(() => {
          requests += 1;
          return [503, { requestSuccessful: false, responseMessage: 'unavailable' }];
        });
      expect(await instances[0]?.reconciler.runOnce()).toMatchObject({ reads: 3, errors: 3 });
      expect(requests).toBe(3);
    });

    it("a 429 pauses the provider's reads on every instance until the next minute", async () => {
      const { reconcile, instances } = await watchedThree();
      nockLogin();
      let requests = 0;
      nock(HOST)
        .get('/api/v1/merchant/transactions/query')
        .query(true)
        .times(20)
        .reply(() => {
          requests += 1;
          return [
            429,
            { requestSuccessful: false, responseMessage: 'too many requests' },
            { 'Retry-After': '30' },
          ];
        });
      expect(await instances[0]?.reconciler.runOnce()).toMatchObject({ reads: 1, errors: 1 });
      // Another instance, with an object due now, finds the minute's shared budget taken: it sends nothing.
      const now = Date.now();
      await reconcile.watch({
        ...{ provider: 'providerN', kind: 'checkout', id: 'N-4', status: null },
        ...{ reads: 0, dueAt: now, expiresAt: now + 3_600_000 },
      });
      expect(await instances[1]?.reconciler.runOnce()).toMatchObject({ reads: 0, due: 1, budgetRefused: 1 });
      expect(requests).toBe(1);
      // None lost its place: the two not read are due once the pause ends (the next minute).
      expect(await reconcile.backlog('providerN', Date.UTC(2026, 10, 26, 9, 3))).toMatchObject({
        watched: 4,
        due: 3,
      });
    });
  });
});
