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
});
