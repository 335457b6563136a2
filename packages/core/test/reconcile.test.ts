import dc from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConfigurationError,
  createMemoryDeduplicationStore,
  createMemoryIdempotencyStore,
  createMemoryReconciliationStore,
  createPay,
  createReconciler,
  type DeduplicationStore,
  NetworkError,
  PAY_CHANNELS,
  type PayEvent,
  type ReconcileTrace,
  type ReconciliationStore,
  ValidationError,
  WebhookVerificationError,
} from '../src/index.js';
import { eventOfStatus } from '../src/reconcile/transitions.js';
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

/** Moves the clock on by `ms`. */
function advance(ms: number): void {
  vi.setSystemTime(Date.now() + ms);
}

/** One application instance over the book: its Pay, its webhook handler (with recorded callbacks), its reconciler. */
function instance(
  book: ReturnType<typeof createBook>,
  shared: {
    reconcile: ReconciliationStore;
    deduplicate: DeduplicationStore;
    idempotency?: ReturnType<typeof createMemoryIdempotencyStore>;
  },
  options: { readsPerMinute?: number; logger?: Record<string, (...args: unknown[]) => void> } = {},
) {
  const seen: PayEvent[] = [];
  const pay = createPay(book.adapter, {
    reconcile: shared.reconcile,
    ...(shared.idempotency ? { idempotency: shared.idempotency } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const handler = pay.webhooks
    .setup({ webhookSecret: BOOK_SECRET, deduplicate: shared.deduplicate })
    .onAny((event) => void seen.push(event));
  const reconciler = createReconciler(pay, handler, {
    ...(options.readsPerMinute ? { readsPerMinute: options.readsPerMinute } : {}),
  });
  return { pay, handler, reconciler, seen };
}

function stores() {
  return { reconcile: createMemoryReconciliationStore(), deduplicate: createMemoryDeduplicationStore() };
}

const summaryOf = (events: PayEvent[]) =>
  events.map(
    (event) =>
      `${event.type} ${(event.data as { id: string }).id} ${(event.data as { status: string }).status}`,
  );

describe('registration on create', () => {
  it('watches every payment, checkout and refund created through pay, with the status the call returned', async () => {
    const book = createBook();
    const reconcile = createMemoryReconciliationStore();
    const pay = createPay(book.adapter, { reconcile });
    await pay.payments.create({ amount: 10, currency: 'EUR' });
    await pay.checkouts.create({
      amount: 10,
      currency: 'EUR',
      success_url: 'https://shop.example/ok',
    } as never);
    await pay.refunds.create({ payment_id: 'p1', amount: 5 } as never);
    expect(await reconcile.backlog('providerT', T0)).toEqual({ watched: 3, due: 0, oldestDueAt: null });
    const claimed = await reconcile.claim('providerT', { now: T0 + 2 * MINUTE, limit: 10, leaseSeconds: 60 });
    const registered = (kind: string, id: string, status: string | null) => ({
      provider: 'providerT',
      kind,
      id,
      status,
      reads: 0,
      dueAt: T0 + 2 * MINUTE,
      expiresAt: T0 + 3 * 24 * 60 * MINUTE,
    });
    expect(claimed.map(({ object }) => object)).toEqual([
      registered('payment', 'p1', 'pending'),
      registered('checkout', 'c2', null),
      registered('refund', 'r3', 'pending'),
    ]);
  });

  it('never fails the money call when the store cannot register it: the record is returned and the failure logged', async () => {
    const book = createBook();
    const reconcile = createMemoryReconciliationStore();
    reconcile.watch = async () => {
      throw new Error('connection refused');
    };
    const error = vi.fn();
    const pay = createPay(book.adapter, { reconcile, logger: { error } });
    await expect(pay.payments.create({ amount: 10, currency: 'EUR' })).resolves.toMatchObject({ id: 'p1' });
    expect(error).toHaveBeenCalledWith(
      '@pay: The payment p1 was created but could not be registered with the reconciliation store; it is not watched until pay.watch registers it.',
      expect.objectContaining({ provider: 'providerT', kind: 'payment', id: 'p1' }),
    );
  });

  it('under an idempotency key, registers the object before the ledger completes the key', async () => {
    // A process killed between the two steps must leave a stale key (which the reconciler resolves), never a
    // completed key whose object nobody watches.
    const book = createBook();
    const steps: string[] = [];
    const reconcile = createMemoryReconciliationStore();
    const watch = reconcile.watch.bind(reconcile);
    reconcile.watch = async (object) => {
      steps.push(`watch ${object.id}`);
      await watch(object);
    };
    const idempotency = createMemoryIdempotencyStore();
    const complete = idempotency.complete.bind(idempotency);
    idempotency.complete = async (key, lease, result) => {
      steps.push(`complete ${key}`);
      return complete(key, lease, result);
    };
    const pay = createPay(book.adapter, { reconcile, idempotency });
    await pay.payments.create({ amount: 10, currency: 'EUR' }, { idempotencyKey: 'order-1' });
    expect(steps).toEqual(['watch p1', 'complete order-1']);
    // The same key again returns the recorded payment; watching it again changes nothing.
    await pay.payments.create({ amount: 10, currency: 'EUR' }, { idempotencyKey: 'order-1' });
    expect((await reconcile.backlog('providerT', T0)).watched).toBe(1);
  });

  it('does not watch refunds of an adapter that cannot read them', async () => {
    const book = createBook({ refunds: false });
    const reconcile = createMemoryReconciliationStore();
    await createPay(book.adapter, { reconcile }).refunds.create({ payment_id: 'p1', amount: 5 } as never);
    expect((await reconcile.backlog('providerT', T0)).watched).toBe(0);
  });

  it('registers an object by id with pay.watch, and refuses one without a store or with a bad kind', async () => {
    const book = createBook();
    const reconcile = createMemoryReconciliationStore();
    await createPay(book.adapter, { reconcile }).watch('payment', 'p9', 'pending');
    expect((await reconcile.backlog('providerT', T0 + 2 * MINUTE)).due).toBe(1);
    await expect(createPay(book.adapter).watch('payment', 'p9')).rejects.toBeInstanceOf(ConfigurationError);
    await expect(
      createPay(book.adapter, { reconcile }).watch('invoice' as never, 'p9'),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('the reconciler', () => {
  it('refuses to start without a deduplicating webhook handler or a reconciliation store', () => {
    const book = createBook();
    const pay = createPay(book.adapter, { reconcile: createMemoryReconciliationStore() });
    const plain = pay.webhooks.setup({ webhookSecret: BOOK_SECRET });
    expect(() => createReconciler(pay, plain)).toThrow(ConfigurationError);
    const deduplicating = pay.webhooks.setup({
      webhookSecret: BOOK_SECRET,
      deduplicate: createMemoryDeduplicationStore(),
    });
    expect(() => createReconciler(createPay(book.adapter), deduplicating)).toThrow(ConfigurationError);
  });

  it('delivers payment.succeeded once for a paid checkout whose webhook never came, then stops watching it', async () => {
    const book = createBook();
    const app = instance(book, stores());
    await app.pay.checkouts.create({
      amount: 10,
      currency: 'EUR',
      success_url: 'https://shop.example/ok',
    } as never);
    book.payments.set('c1', 'succeeded');
    expect((await app.reconciler.runOnce()).reads).toBe(0); // not due before 2 minutes
    advance(2 * MINUTE);
    expect(await app.reconciler.runOnce()).toMatchObject({ reads: 1, transitions: 1, watched: 1, due: 1 });
    expect(summaryOf(app.seen)).toEqual(['payment.succeeded c1 succeeded']);
    advance(60 * MINUTE);
    expect(await app.reconciler.runOnce()).toMatchObject({ reads: 0, watched: 0 });
    expect(book.counters.reads).toBe(1);
    expect(app.seen).toHaveLength(1);
  });

  it('delivers each status change of a refund read with the adapter refund read', async () => {
    const book = createBook();
    const app = instance(book, stores());
    await app.pay.refunds.create({ payment_id: 'p1', amount: 5 } as never);
    advance(2 * MINUTE);
    expect(await app.reconciler.runOnce()).toMatchObject({ reads: 1, transitions: 0 });
    book.refunds.set('r1', 'failed');
    advance(4 * MINUTE);
    await app.reconciler.runOnce();
    expect(summaryOf(app.seen)).toEqual(['refund.created r1 failed']);
  });

  it('reads a pending object with growing waits: 2, 4, 8 minutes', async () => {
    const book = createBook();
    const app = instance(book, stores());
    await app.pay.payments.create({ amount: 10, currency: 'EUR' });
    const readsAt: number[] = [];
    for (let minute = 1; minute <= 15; minute += 1) {
      advance(MINUTE);
      if ((await app.reconciler.runOnce()).reads > 0) readsAt.push(minute);
    }
    expect(readsAt).toEqual([2, 6, 14]);
    expect(app.seen).toEqual([]);
  });

  it('keeps watching an id the provider does not know yet, and delivers once it appears', async () => {
    const book = createBook();
    const app = instance(book, stores());
    await app.pay.watch('payment', 'p7');
    advance(2 * MINUTE);
    expect(await app.reconciler.runOnce()).toMatchObject({ reads: 1, transitions: 0, watched: 1 });
    book.payments.set('p7', 'failed');
    advance(4 * MINUTE);
    await app.reconciler.runOnce();
    expect(summaryOf(app.seen)).toEqual(['payment.failed p7 failed']);
  });

  it('spends one read budget shared by two instances', async () => {
    const book = createBook();
    const shared = stores();
    const one = instance(book, shared, { readsPerMinute: 3 });
    const two = instance(book, shared, { readsPerMinute: 3 });
    for (let index = 0; index < 5; index += 1) await one.pay.payments.create({ amount: 10, currency: 'EUR' });
    advance(2 * MINUTE);
    const first = await one.reconciler.runOnce();
    const second = await two.reconciler.runOnce();
    expect([first.reads, second.reads]).toEqual([3, 0]);
    expect(second.budgetRefused).toBe(2);
    expect(book.counters.reads).toBe(3);
    advance(MINUTE);
    expect((await two.reconciler.runOnce()).reads).toBe(2);
  });

  it('resolves an idempotency key nobody retried: the ledger records the payment and its status is delivered', async () => {
    const book = createBook({ crashAfterCreate: true });
    const shared = { ...stores(), idempotency: createMemoryIdempotencyStore() };
    const app = instance(book, shared);
    await expect(
      app.pay.payments.create({ amount: 10, currency: 'EUR' }, { idempotencyKey: 'order-1' }),
    ).rejects.toBeInstanceOf(NetworkError);
    book.payments.set('p1', 'succeeded');
    expect(await app.reconciler.runOnce()).toMatchObject({ staleKeys: 1 });
    expect(await shared.idempotency.read('order-1')).toMatchObject({
      state: 'completed',
      result: expect.objectContaining({ id: 'p1', status: 'succeeded' }),
    });
    expect(await app.reconciler.runOnce()).toMatchObject({ staleKeys: 0, transitions: 1 });
    expect(summaryOf(app.seen)).toEqual(['payment.succeeded p1 succeeded']);
  });

  it('pauses on a store outage and catches up once the store answers', async () => {
    const book = createBook();
    const shared = stores();
    const error = vi.fn();
    const app = instance(book, shared, { logger: { error } });
    await app.pay.payments.create({ amount: 10, currency: 'EUR' });
    book.payments.set('p1', 'succeeded');
    const claim = shared.reconcile.claim.bind(shared.reconcile);
    shared.reconcile.claim = async () => {
      throw new Error('ECONNREFUSED');
    };
    advance(2 * MINUTE);
    expect(await app.reconciler.runOnce()).toMatchObject({ paused: true, reads: 0 });
    expect(error).toHaveBeenCalledWith(
      '@pay: The reconciler could not reach its store; this run is paused and the next one catches up (nothing was lost).',
      expect.objectContaining({ provider: 'providerT' }),
    );
    shared.reconcile.claim = claim;
    advance(MINUTE);
    expect(await app.reconciler.runOnce()).toMatchObject({ paused: false, transitions: 1 });
    expect(summaryOf(app.seen)).toEqual(['payment.succeeded p1 succeeded']);
  });

  it('pauses when the deduplication store is down, and delivers once it is back', async () => {
    const book = createBook();
    const shared = stores();
    const app = instance(book, shared);
    await app.pay.payments.create({ amount: 10, currency: 'EUR' });
    book.payments.set('p1', 'succeeded');
    const begin = shared.deduplicate.begin.bind(shared.deduplicate);
    shared.deduplicate.begin = async () => {
      throw new Error('ECONNREFUSED');
    };
    advance(2 * MINUTE);
    expect(await app.reconciler.runOnce()).toMatchObject({ paused: true, reads: 1, transitions: 0 });
    shared.deduplicate.begin = begin;
    advance(2 * MINUTE); // the claim's lease (120 s) ended: the object is read again
    expect(await app.reconciler.runOnce()).toMatchObject({ paused: false, transitions: 1 });
    expect(summaryOf(app.seen)).toEqual(['payment.succeeded p1 succeeded']);
  });

  it('publishes each run on pay:reconcile with its lag and backlog', async () => {
    const book = createBook();
    const app = instance(book, stores());
    await app.pay.payments.create({ amount: 10, currency: 'EUR' });
    const messages: ReconcileTrace[] = [];
    const listen = (message: unknown) => void messages.push(message as ReconcileTrace);
    dc.subscribe(PAY_CHANNELS.reconcile, listen);
    try {
      advance(5 * MINUTE);
      await app.reconciler.runOnce();
    } finally {
      dc.unsubscribe(PAY_CHANNELS.reconcile, listen);
    }
    expect(messages).toEqual([
      expect.objectContaining({
        provider: 'providerT',
        watched: 1,
        due: 1,
        lagMs: 3 * MINUTE,
        reads: 1,
        paused: false,
      }),
    ]);
  });

  it('start() runs at once and stop() waits for the run', async () => {
    const book = createBook();
    const app = instance(book, stores());
    await app.pay.payments.create({ amount: 10, currency: 'EUR' });
    advance(2 * MINUTE);
    app.reconciler.start();
    await app.reconciler.stop();
    expect(book.counters.reads).toBe(1);
  });

  it('started again while stopping, it waits for the run under way and keeps one schedule: runs never overlap', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    vi.setSystemTime(T0);
    const shared = stores();
    const backlog = shared.reconcile.backlog.bind(shared.reconcile);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runs = { started: 0, running: 0, most: 0 };
    shared.reconcile.backlog = async (provider, now) => {
      runs.started += 1;
      runs.running += 1;
      runs.most = Math.max(runs.most, runs.running);
      try {
        if (runs.started === 1) await held; // the first run is slow: still under way when start() comes again
        return await backlog(provider, now);
      } finally {
        runs.running -= 1;
      }
    };
    const app = instance(createBook(), shared);
    app.reconciler.start();
    const stopping = app.reconciler.stop();
    app.reconciler.start(); // e.g. a hot reload, or leadership regained, before the stop has finished
    expect(runs).toEqual({ started: 1, running: 1, most: 1 });
    release();
    await stopping;
    // One schedule after the run under way: the next run 30 s ± 20 % later, then one per interval.
    await vi.advanceTimersByTimeAsync(36_000);
    expect(runs).toMatchObject({ started: 2, most: 1 });
    await vi.advanceTimersByTimeAsync(36_000);
    expect(runs).toMatchObject({ started: 3, most: 1 });
    await app.reconciler.stop();
  });
});

describe('exactly once across webhooks and reads', () => {
  it('webhook first: the read finds the transition done and runs no callback', async () => {
    const book = createBook();
    const app = instance(book, stores());
    await app.pay.payments.create({ amount: 10, currency: 'EUR' });
    book.payments.set('p1', 'succeeded');
    await app.handler.handle(await book.webhook('p1', 'succeeded', 'payment.succeeded'));
    advance(2 * MINUTE);
    // The webhook recorded `succeeded` as announced (docs/architecture.md#reconciliation): the watch ends, no read.
    expect(await app.reconciler.runOnce()).toMatchObject({
      reads: 0,
      transitions: 0,
      duplicates: 0,
      watched: 1,
    });
    expect(await app.reconciler.runOnce()).toMatchObject({ watched: 0 });
    expect(summaryOf(app.seen)).toEqual(['payment.succeeded p1 succeeded']);
  });

  it('read first: the late webhook skips the transition and reports it as a duplicate', async () => {
    const book = createBook();
    const app = instance(book, stores());
    await app.pay.payments.create({ amount: 10, currency: 'EUR' });
    book.payments.set('p1', 'succeeded');
    advance(2 * MINUTE);
    await app.reconciler.runOnce();
    const late = await app.handler.handle(await book.webhook('p1', 'succeeded', 'payment.succeeded'));
    expect(late.duplicates).toEqual(['providerT:transition:payment:p1:payment.succeeded:succeeded']);
    expect(summaryOf(app.seen)).toEqual(['payment.succeeded p1 succeeded']);
  });

  it('both at once on two instances: the read waits for the webhook and its callbacks run once', async () => {
    const book = createBook();
    const shared = stores();
    const web = instance(book, shared);
    const poller = instance(book, shared);
    await poller.pay.payments.create({ amount: 10, currency: 'EUR' });
    book.payments.set('p1', 'succeeded');
    let finish!: () => void;
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    advance(2 * MINUTE);
    let started = false;
    web.handler.on('payment.succeeded', () => {
      started = true;
      return held;
    });
    const delivery = web.handler.handle(await book.webhook('p1', 'succeeded', 'payment.succeeded'));
    await vi.waitFor(() => expect(started).toBe(true));
    expect(await poller.reconciler.runOnce()).toMatchObject({ reads: 1, transitions: 0, duplicates: 0 });
    finish();
    await delivery;
    // The read rescheduled the object without announcing the status; the webhook then recorded it as announced,
    // so the next run ends the watch without a read.
    advance(2 * MINUTE);
    expect(await poller.reconciler.runOnce()).toMatchObject({ reads: 0, duplicates: 0 });
    expect(await poller.reconciler.runOnce()).toMatchObject({ watched: 0 });
    expect([...summaryOf(web.seen), ...summaryOf(poller.seen)]).toEqual(['payment.succeeded p1 succeeded']);
  });

  it('a second push of a transition in progress on another instance is answered retryably, no callback run', async () => {
    const book = createBook();
    const shared = stores();
    const one = instance(book, shared);
    const two = instance(book, shared);
    let finish!: () => void;
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let started = false;
    one.handler.on('payment.succeeded', () => {
      started = true;
      return held;
    });
    const first = one.handler.handle(await book.webhook('p1', 'succeeded', 'payment.succeeded', 'push-1'));
    await vi.waitFor(() => expect(started).toBe(true));
    const second = await two.handler
      .handle(await book.webhook('p1', 'succeeded', 'payment.succeeded', 'push-2'))
      .catch((error: unknown) => error);
    expect(second).toBeInstanceOf(WebhookVerificationError);
    expect(second).toMatchObject({ reason: 'delivery_in_progress', retryable: true });
    finish();
    await first;
    expect([...summaryOf(one.seen), ...summaryOf(two.seen)]).toEqual(['payment.succeeded p1 succeeded']);
  });

  it('two webhook deliveries of one transition with different delivery keys run its callbacks once', async () => {
    const book = createBook();
    const app = instance(book, stores());
    await app.handler.handle(await book.webhook('p1', 'succeeded', 'payment.succeeded', 'push-1'));
    const second = await app.handler.handle(
      await book.webhook('p1', 'succeeded', 'payment.succeeded', 'push-2'),
    );
    expect(second.duplicates).toEqual(['providerT:transition:payment:p1:payment.succeeded:succeeded']);
    expect(summaryOf(app.seen)).toEqual(['payment.succeeded p1 succeeded']);
  });
});

describe('the event of a status', () => {
  const all = new Set([
    'payment.created',
    'payment.updated',
    'payment.succeeded',
    'payment.failed',
    'refund.created',
  ]);

  it("follows core's table, the adapter's own entries first, and delivers only events the adapter raises", () => {
    expect(eventOfStatus({}, 'checkout', 'succeeded', all)).toBe('payment.succeeded');
    expect(eventOfStatus({}, 'payment', 'canceled', all)).toBe('payment.failed');
    expect(eventOfStatus({}, 'payment', 'a_new_status', all)).toBe('payment.updated');
    expect(eventOfStatus({}, 'refund', 'pending', all)).toBeNull();
    const own = {
      reconcile: { events: { 'payment.succeeded': 'payment.created', 'payment.pending': null } },
    } as const;
    expect(eventOfStatus(own, 'payment', 'succeeded', all)).toBe('payment.created');
    expect(eventOfStatus(own, 'payment', 'pending', all)).toBeNull();
    expect(eventOfStatus({}, 'payment', 'succeeded', new Set(['payment.created']))).toBeNull();
  });
});
