/**
 * The reconciler under hostile callbacks, stores and provider answers (docs/architecture.md#reconciliation): a
 * callback or store that never answers, answers of the wrong shape, reads that lag behind a webhook.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createMemoryDeduplicationStore,
  createMemoryIdempotencyStore,
  createMemoryReconciliationStore,
  createPay,
  createReconciler,
  type DeduplicationStore,
  NetworkError,
  type PayEvent,
  type ReconciliationStore,
} from '../src/index.js';
import { advances, STATUS_ORDER } from '../src/reconcile/transitions.js';
import { STORE_DEADLINE_MS } from '../src/reconcile/watch.js';
import { BOOK_SECRET, createBook } from './reconcile-fixtures.js';

const T0 = Date.UTC(2026, 10, 26, 9, 0, 0);
const MINUTE = 60_000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

const advance = (ms: number) => vi.setSystemTime(Date.now() + ms);
type ReconcilerOptions = NonNullable<Parameters<typeof createReconciler>[2]>;

function stores(): { reconcile: ReconciliationStore; deduplicate: DeduplicationStore } {
  return { reconcile: createMemoryReconciliationStore(), deduplicate: createMemoryDeduplicationStore() };
}

/** One application instance over the book, its callbacks recorded in `seen`. */
function instance(
  book: ReturnType<typeof createBook>,
  shared: ReturnType<typeof stores>,
  options: ReconcilerOptions & { logger?: Record<string, (...args: unknown[]) => void> } = {},
) {
  const { logger, ...reconcilerOptions } = options;
  const seen: string[] = [];
  const pay = createPay(book.adapter, { reconcile: shared.reconcile, ...(logger ? { logger } : {}) });
  const handler = pay.webhooks
    .setup({ webhookSecret: BOOK_SECRET, deduplicate: shared.deduplicate })
    .onAny((event: PayEvent) => {
      const data = event.data as { id: string; status: string };
      seen.push(`${event.type} ${data.id} ${data.status}`);
    });
  const reconciler = createReconciler(pay, handler, reconcilerOptions);
  return { pay, handler, reconciler, seen };
}

describe('statuses never go backwards', () => {
  it('a read lagging behind a webhook that announced succeeded announces nothing and ends the watch', async () => {
    const book = createBook();
    const shared = stores();
    const app = instance(book, shared);
    await app.pay.payments.create({ amount: 10, currency: 'EUR' });
    book.payments.set('p1', 'succeeded');
    await app.handler.handle(await book.webhook('p1', 'succeeded', 'payment.succeeded'));
    // The provider's read side lags: it still says the payer is part-way.
    book.payments.set('p1', 'processing');
    advance(2 * MINUTE);
    await app.reconciler.runOnce();
    expect(app.seen).toEqual(['payment.succeeded p1 succeeded']);
    expect(await shared.reconcile.backlog('providerT', Date.now())).toMatchObject({ watched: 0 });
  });

  it('a read of an earlier status than the last one a read announced is not announced', async () => {
    const book = createBook();
    const app = instance(book, stores());
    await app.pay.payments.create({ amount: 10, currency: 'EUR' });
    book.payments.set('p1', 'requires_capture');
    advance(2 * MINUTE);
    await app.reconciler.runOnce();
    book.payments.set('p1', 'processing');
    advance(4 * MINUTE);
    expect(await app.reconciler.runOnce()).toMatchObject({ reads: 1, transitions: 0 });
    book.payments.set('p1', 'succeeded');
    advance(8 * MINUTE);
    await app.reconciler.runOnce();
    expect(app.seen).toEqual(['payment.updated p1 requires_capture', 'payment.succeeded p1 succeeded']);
  });

  it('a webhook of a refund records its status too: a lagging refund read announces nothing', async () => {
    const book = createBook();
    const shared = stores();
    const app = instance(book, shared);
    await app.pay.refunds.create({ payment_id: 'p0', amount: 5 });
    book.refunds.set('r1', 'succeeded');
    await app.handler.handle(await book.webhook('r1', 'succeeded', 'refund.created'));
    book.refunds.set('r1', 'pending');
    advance(2 * MINUTE);
    expect(await app.reconciler.runOnce()).toMatchObject({ reads: 0, transitions: 0 });
    expect(app.seen).toEqual(['refund.created r1 succeeded']);
  });

  it.each([
    ['payment', 'processing', 'pending', true],
    ['payment', 'pending', 'processing', false],
    ['payment', 'processing', 'processing', false],
    ['payment', 'requires_capture', 'processing', true],
    ['payment', 'succeeded', 'requires_capture', true],
    ['payment', 'failed', 'succeeded', false],
    ['payment', 'processing', 'canceled', false],
    ['checkout', 'requires_action', 'pending', true],
    ['checkout', 'pending', null, true],
    ['refund', 'succeeded', 'pending', true],
    ['refund', 'pending', 'succeeded', false],
    ['refund', 'failed', 'succeeded', false],
  ] as const)('a %s read %s after %s advances: %s', (kind, status, announced, expected) => {
    expect(advances(kind, status, announced)).toBe(expected);
  });

  it('orders every payment and refund status, the final ones last', () => {
    expect(STATUS_ORDER).toEqual({
      payment: {
        pending: 0,
        requires_action: 1,
        processing: 2,
        requires_capture: 3,
        succeeded: 4,
        failed: 4,
        canceled: 4,
      },
      refund: { pending: 0, succeeded: 1, failed: 1 },
    });
  });
});

describe('a callback that never settles', () => {
  it('holds neither the run nor the other objects; its transition is delivered after its lease', async () => {
    const book = createBook();
    const shared = stores();
    const warn = vi.fn();
    const app = instance(book, shared, { callbackTimeoutMs: 20, logger: { warn } });
    await app.pay.payments.create({ amount: 10, currency: 'EUR' });
    await app.pay.payments.create({ amount: 20, currency: 'EUR' });
    book.payments.set('p1', 'succeeded');
    book.payments.set('p2', 'succeeded');
    let hang = true;
    app.handler.on('payment.succeeded', (event) =>
      event.data.id === 'p1' && hang ? new Promise<void>(() => undefined) : undefined,
    );
    advance(2 * MINUTE);
    expect(await app.reconciler.runOnce()).toMatchObject({ reads: 2, transitions: 1, errors: 1 });
    expect(app.seen).toEqual(['payment.succeeded p2 succeeded']);
    expect(warn).toHaveBeenCalledWith(
      '@pay: The callbacks of payment.succeeded of payment p1 did not finish within 20 ms; the run goes on, and the transition is delivered again once its lease ends.',
      expect.objectContaining({ provider: 'providerT', id: 'p1' }),
    );
    // Within the transition lease (60 s), the next read finds it in progress; after it, it is delivered.
    hang = false;
    advance(2 * MINUTE);
    await app.reconciler.runOnce();
    expect(app.seen).toEqual(['payment.succeeded p2 succeeded', 'payment.succeeded p1 succeeded']);
  });

  it('stop() resolves within its bound while a run hangs', async () => {
    const book = createBook();
    const app = instance(book, stores(), { callbackTimeoutMs: 10, storeTimeoutMs: 10 });
    await app.pay.payments.create({ amount: 10, currency: 'EUR' });
    // A provider read that never answers (no HTTP deadline in this adapter): the run hangs past any callback.
    Object.assign(app.pay.payments, { retrieve: () => new Promise<never>(() => undefined) });
    advance(2 * MINUTE);
    app.reconciler.start();
    await expect(app.reconciler.stop()).resolves.toBeUndefined();
  });
});

describe('a store that hangs or answers nonsense', () => {
  const broken = (calls: Partial<ReconciliationStore>) => {
    const shared = stores();
    return { ...shared, reconcile: Object.assign(shared.reconcile, calls) };
  };

  it.each([
    ['backlog', { backlog: () => new Promise<never>(() => undefined) }],
    ['spend', { spend: () => new Promise<never>(() => undefined) }],
    ['claim', { claim: () => new Promise<never>(() => undefined) }],
    ['settle', { settle: () => new Promise<never>(() => undefined) }],
  ] as const)('a %s that never answers pauses the run', async (step, calls) => {
    const book = createBook();
    const error = vi.fn();
    const shared = broken(calls as Partial<ReconciliationStore>);
    const app = instance(book, shared, { storeTimeoutMs: 10, logger: { error } });
    await app.pay.payments.create({ amount: 10, currency: 'EUR' });
    book.payments.set('p1', 'succeeded');
    advance(2 * MINUTE);
    expect(await app.reconciler.runOnce()).toMatchObject({ paused: true });
    expect(error).toHaveBeenCalledWith(
      '@pay: The reconciler could not reach its store; this run is paused and the next one catches up (nothing was lost).',
      expect.objectContaining({ error: expect.objectContaining({ code: 'store_unavailable', step }) }),
    );
  });

  it.each([
    ['claim', { claim: async () => undefined }],
    ['claim', { claim: async () => [{ lease: 'l' }] }],
    ['backlog', { backlog: async () => null }],
    ['backlog', { backlog: async () => ({ watched: '1', due: 1, oldestDueAt: null }) }],
    ['spend', { spend: async () => Number.NaN }],
    ['spend', { spend: async () => 1_000 }],
    ['settle', { settle: async () => undefined }],
  ])('a %s answered with the wrong shape is a StoreError and a paused run', async (step, calls) => {
    const book = createBook();
    const error = vi.fn();
    const shared = broken(calls as unknown as Partial<ReconciliationStore>);
    const app = instance(book, shared, { logger: { error } });
    await app.pay.payments.create({ amount: 10, currency: 'EUR' });
    advance(2 * MINUTE);
    expect(await app.reconciler.runOnce()).toMatchObject({ paused: true });
    expect(error).toHaveBeenCalledWith(
      '@pay: The reconciler could not reach its store; this run is paused and the next one catches up (nothing was lost).',
      expect.objectContaining({ error: expect.objectContaining({ name: 'StoreError', step }) }),
    );
  });

  it('a watch that never answers does not hold payments.create: the payment is returned, unwatched, logged', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const book = createBook();
    const reconcile = createMemoryReconciliationStore();
    reconcile.watch = () => new Promise<never>(() => undefined);
    const error = vi.fn();
    const pay = createPay(book.adapter, { reconcile, logger: { error } });
    const created = pay.payments.create({ amount: 10, currency: 'EUR' });
    await vi.advanceTimersByTimeAsync(STORE_DEADLINE_MS);
    await expect(created).resolves.toMatchObject({ id: 'p1' });
    expect(error).toHaveBeenCalledWith(
      '@pay: The payment p1 was created but could not be registered with the reconciliation store; it is not watched until pay.watch registers it.',
      expect.objectContaining({ provider: 'providerT', kind: 'payment', id: 'p1' }),
    );
  });

  it('an announce that never answers does not hold the webhook answer', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const book = createBook();
    const shared = stores();
    shared.reconcile.announce = () => new Promise<never>(() => undefined);
    const warn = vi.fn();
    const app = instance(book, shared, { logger: { warn } });
    const handled = app.handler.handle(await book.webhook('p1', 'succeeded', 'payment.succeeded'));
    await vi.advanceTimersByTimeAsync(STORE_DEADLINE_MS);
    await expect(handled).resolves.toMatchObject({ duplicates: [] });
    expect(warn).toHaveBeenCalledWith(
      '@pay: The reconciliation store did not record that payment.succeeded of p1 was announced; a later read may announce an earlier status.',
      expect.objectContaining({ provider: 'providerT', id: 'p1', status: 'succeeded' }),
    );
  });
});

describe('stale keys nobody can resolve', () => {
  it('are asked with backoff, then reported unresolved with what is known, and never asked again', async () => {
    const book = createBook({ crashAfterCreate: true, noLookupByKey: true });
    const idempotency = createMemoryIdempotencyStore();
    const error = vi.fn();
    const pay = createPay(book.adapter, {
      reconcile: createMemoryReconciliationStore(),
      idempotency,
      logger: { error },
    });
    const handler = pay.webhooks.setup({
      webhookSecret: BOOK_SECRET,
      deduplicate: createMemoryDeduplicationStore(),
    });
    const reconciler = createReconciler(pay, handler);
    await expect(
      pay.payments.create({ amount: 10, currency: 'EUR' }, { idempotencyKey: 'order-1' }),
    ).rejects.toBeInstanceOf(NetworkError);
    const runs = [];
    // Three hours of runs every 30 s: 360 runs.
    for (let run = 0; run < 360; run += 1) {
      runs.push(await reconciler.runOnce());
      advance(30_000);
    }
    expect(runs.filter((run) => run.staleKeys === 1)).toHaveLength(6);
    expect(book.counters.reads).toBe(6);
    expect(runs.at(-1)).toMatchObject({ unresolved: 1, staleKeys: 0, reads: 0 });
    expect(reconciler.unresolved()).toEqual([
      {
        idempotencyKey: 'order-1',
        provider: 'providerT',
        operation: 'payments.create',
        recoveryPoint: null,
        reason: expect.any(String),
        firstSeenAt: new Date(T0).toISOString(),
        asks: 6,
      },
    ]);
    expect(error).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenCalledWith(
      '@pay: The outcome of payments.create under idempotency key order-1 cannot be resolved: providerT cannot be asked about it. A person must settle it (docs/architecture.md#reconciliation); the reconciler no longer asks.',
      expect.objectContaining({ idempotencyKey: 'order-1', provider: 'providerT', asks: 6 }),
    );
  });
});
