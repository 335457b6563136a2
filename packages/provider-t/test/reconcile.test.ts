/** The reconciler over Provider T: statuses never go backwards (docs/architecture.md#reconciliation). */
import {
  createMemoryDeduplicationStore,
  createMemoryReconciliationStore,
  createPay,
  createReconciler,
  type PayEvent,
} from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { HOST, nockLogin, statusReply, TRANSACTION_ID, testAdapter } from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
  vi.useRealTimers();
});

describe('the reconciler over Provider T', () => {
  it('a lagging UNFUNDED read after PROCESSING announces nothing; SENT then does', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 10, 26, 9));
    const pay = createPay(testAdapter({ retry: 0 }), { reconcile: createMemoryReconciliationStore() });
    const seen: string[] = [];
    const handler = pay.webhooks
      .setup({ webhookSecret: null, deduplicate: createMemoryDeduplicationStore() })
      .onAny((event: PayEvent) => {
        if (!event.is_raw) seen.push(`${event.type} ${(event.data as { status: string }).status}`);
      });
    const reconciler = createReconciler(pay, handler);
    await pay.watch('payment', TRANSACTION_ID, null);
    // A token lasts an hour, as long as the wait between two reads here: one login per read.
    nockLogin('tok-1', 3);
    for (const status of ['PROCESSING', 'UNFUNDED', 'SENT']) {
      vi.setSystemTime(Date.now() + 60 * 60_000);
      nock(HOST).get(`/status/v1/transactions/${TRANSACTION_ID}`).query(true).reply(200, statusReply(status));
      expect(await reconciler.runOnce()).toMatchObject({ reads: 1 });
    }
    expect(seen).toEqual(['payment.updated processing', 'payment.succeeded succeeded']);
  });
});
