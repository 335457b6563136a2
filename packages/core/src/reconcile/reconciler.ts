/**
 * The reconciler (docs/architecture.md#reconciliation): on an interval, on every instance, it reads the objects
 * this library created that are due, from a read budget shared by every instance, and delivers each status
 * change as the normalised event the webhook would have delivered, through the same webhook handler and its
 * transition deduplication, so a transition seen by a webhook and by a read runs its callbacks once. It also
 * resolves the idempotency keys nobody is working on (a crashed process, a lost reply no caller retried).
 */
import type { AnyAdapter, TypesOf } from '../adapter.js';
import type { ReconcileTrace } from '../diagnostics/channels.js';
import type { PayLogger } from '../diagnostics/logger.js';
import { publishReconcile } from '../diagnostics/tracing.js';
import { ConfigurationError } from '../errors.js';
import { operationOfFingerprint } from '../idempotency-fingerprint.js';
import { internalsOf, type Pay, type PayInternals } from '../pay.js';
import type { Payment, Refund } from '../records.js';
import { StoreError, type StoreStep } from '../store-errors.js';
import type { IdempotencyEntry } from '../stores.js';
import { WebhookVerificationError } from '../webhooks/errors.js';
import { DEDUPLICATES, DELIVER_READ_EVENT, RAISES, type WebhookHandler } from '../webhooks/handler.js';
import { webhookEvent } from '../webhooks/types.js';
import type { ClaimedObject, ReconciliationStore, WatchedObject } from './store.js';
import { eventOfStatus, isFinal } from './transitions.js';
import { kindOfOperation, nextReadAt, watchObject } from './watch.js';

/** Options of {@link createReconciler}. */
export interface ReconcilerOptions {
  /** Milliseconds between two runs of `start()` (default 30 000), each delay drawn within ±20 % of it. */
  intervalMs?: number;
  /**
   * Provider reads per minute, shared by every instance through the store (default 60): object reads and stale
   * key resolves both spend from it. Keep it below the provider's rate limit, less what the application reads.
   */
  readsPerMinute?: number;
  /** How long a run holds the objects it claimed (default 120 s): another instance takes over after it. */
  leaseSeconds?: number;
  /** The clock, epoch milliseconds (tests). */
  now?: () => number;
}

/** What one {@link Reconciler.runOnce} did, as the `pay:reconcile` diagnostics message says it. */
export type ReconcileRun = Omit<ReconcileTrace, 'provider' | 'startTime' | 'durationMs'>;

/** A reconciler of one `Pay` (see {@link createReconciler}). */
export interface Reconciler {
  /**
   * Runs now (or, when a stopped run is still under way, once it ends), then every `intervalMs` (with jitter) until
   * `stop()`; runs never overlap. Idempotent.
   */
  start(): void;
  /** Stops the runs; resolves once the run under way (if any) has finished. */
  stop(): Promise<void>;
  /** One run: due objects, then stale idempotency keys. A store outage pauses it (`paused: true`); never throws for it. */
  runOnce(): Promise<ReconcileRun>;
}

/** Defaults (docs/architecture.md#reconciliation). */
const DEFAULT_INTERVAL_MS = 30_000;
const DEFAULT_READS_PER_MINUTE = 60;
const DEFAULT_LEASE_SECONDS = 120;
/** Stale idempotency keys looked at per run. */
const STALE_KEYS_PER_RUN = 20;
/** How far each delay between runs strays from `intervalMs`, both ways, so instances do not run in step. */
const JITTER = 0.2;

/**
 * Creates the reconciler of `pay` (made with `createPay(adapter, { reconcile: store })`), delivering through
 * `handler` (from `pay.webhooks.setup({ …, deduplicate })`). Throws `ConfigurationError` when `pay` has no
 * reconciliation store, when the handler has no `deduplicate` store (without it a transition seen by a webhook
 * and by a read would run its callbacks twice) or for options out of bounds. Nothing runs before `start()` or
 * `runOnce()`.
 */
export function createReconciler<A extends AnyAdapter>(
  pay: Pay<A>,
  handler: WebhookHandler<TypesOf<A>>,
  options: ReconcilerOptions = {},
): Reconciler {
  const internals = internalsOf(pay);
  const store = internals?.reconcile;
  if (internals === undefined || store === undefined)
    throw new ConfigurationError(
      'createReconciler needs a Pay made with createPay(adapter, { reconcile: store }) (docs/architecture.md#reconciliation).',
      { missing: ['reconcile'] },
    );
  if (!handler[DEDUPLICATES])
    throw new ConfigurationError(
      'createReconciler needs a webhook handler with a deduplicate store (pay.webhooks.setup({ …, deduplicate })): without it a transition seen by a webhook and by a read would run its callbacks twice.',
      { missing: ['deduplicate'] },
    );
  const settings = checkedOptions(options);
  const run = new Run(
    pay as unknown as Pay<AnyAdapter>,
    internals,
    store,
    handler as unknown as WebhookHandler,
    settings,
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<unknown> | undefined;
  let started = false;
  const schedule = () => {
    const delay = settings.intervalMs * (1 - JITTER + 2 * JITTER * Math.random());
    timer = setTimeout(tick, delay);
    timer.unref?.();
  };
  const tick = () => {
    // A run never rejects for a store outage; anything else is a bug, logged so the timer keeps going.
    const once = run.once().catch((error: unknown) =>
      internals.logger.error('A reconciler run failed unexpectedly; the next run goes on.', () => ({
        error,
      })),
    );
    running = once.finally(() => {
      running = undefined;
      if (started) schedule();
    });
  };
  return {
    start() {
      if (started) return;
      started = true;
      // Started again before a stop() finished: the run under way schedules the next one when it ends. A run
      // started now would overlap it, and both would schedule, doubling every run after (and its store calls).
      if (running === undefined) tick();
    },
    async stop() {
      started = false;
      clearTimeout(timer);
      await running;
    },
    runOnce: () => run.once(),
  };
}

interface Settings {
  intervalMs: number;
  readsPerMinute: number;
  leaseSeconds: number;
  now: () => number;
}

function checkedOptions(options: ReconcilerOptions): Settings {
  const bad = (
    [
      ['intervalMs', options.intervalMs, 1000],
      ['readsPerMinute', options.readsPerMinute, 1],
      ['leaseSeconds', options.leaseSeconds, 1],
    ] as const
  ).filter(([, value, least]) => value !== undefined && !(Number.isInteger(value) && value >= least));
  if (bad.length > 0)
    throw new ConfigurationError(
      `createReconciler: ${bad.map(([name, , least]) => `${name} must be a whole number of at least ${least}`).join('; ')}.`,
      { missing: bad.map(([name]) => name) },
    );
  return {
    intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS,
    readsPerMinute: options.readsPerMinute ?? DEFAULT_READS_PER_MINUTE,
    leaseSeconds: options.leaseSeconds ?? DEFAULT_LEASE_SECONDS,
    now: options.now ?? Date.now,
  };
}

/** Runs a reconciliation store call; whatever it throws becomes a `StoreError` that pauses the run. */
async function storeCall<T>(step: StoreStep, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (StoreError.isInstance(error)) throw error;
    throw new StoreError(
      `The reconciler's store failed at ${step}; this run is paused and the next one catches up (nothing was lost).`,
      { step, cause: error },
    );
  }
}

/** One reconciler's state across runs. */
class Run {
  readonly #pay: Pay<AnyAdapter>;
  readonly #adapter: AnyAdapter;
  readonly #provider: string;
  readonly #internals: PayInternals;
  readonly #store: ReconciliationStore;
  readonly #handler: WebhookHandler;
  readonly #settings: Settings;
  readonly #logger: PayLogger;
  /**
   * Stale keys not to ask about again before a time (epoch ms): an `unknown` answer's `askAgainAt`, and a found
   * checkout, whose key `pay.resolve` leaves for the caller's retry (docs/architecture.md#reconciliation).
   */
  readonly #askAgain = new Map<string, number>();

  constructor(
    pay: Pay<AnyAdapter>,
    internals: PayInternals,
    store: ReconciliationStore,
    handler: WebhookHandler,
    settings: Settings,
  ) {
    this.#pay = pay;
    this.#adapter = pay.adapter;
    this.#provider = pay.adapter.provider;
    this.#internals = internals;
    this.#store = store;
    this.#handler = handler;
    this.#settings = settings;
    this.#logger = internals.logger;
  }

  async once(): Promise<ReconcileRun> {
    const startTime = this.#settings.now();
    const summary: ReconcileRun = {
      watched: 0,
      due: 0,
      lagMs: 0,
      reads: 0,
      budgetRefused: 0,
      transitions: 0,
      duplicates: 0,
      staleKeys: 0,
      errors: 0,
      paused: false,
    };
    try {
      await this.#watched(startTime, summary);
      await this.#staleKeys(summary);
    } catch (error) {
      if (!StoreError.isInstance(error)) throw error;
      summary.paused = true;
      this.#logger.error(
        'The reconciler could not reach its store; this run is paused and the next one catches up (nothing was lost).',
        () => ({ provider: this.#provider, error }),
      );
    }
    const durationMs = this.#settings.now() - startTime;
    publishReconcile({ provider: this.#provider, ...summary, startTime, durationMs });
    this.#logger.debug('Reconciler run finished.', () => ({
      provider: this.#provider,
      ...summary,
      durationMs,
    }));
    return summary;
  }

  /** Reads the due objects the budget allows, earliest due first. */
  async #watched(now: number, summary: ReconcileRun): Promise<void> {
    const backlog = await storeCall('backlog', () => this.#store.backlog(this.#provider, now));
    summary.watched = backlog.watched;
    summary.due = backlog.due;
    summary.lagMs = backlog.oldestDueAt === null ? 0 : Math.max(0, now - backlog.oldestDueAt);
    const wanted = Math.min(backlog.due, this.#settings.readsPerMinute);
    if (wanted === 0) return;
    const granted = await this.#spend(now, wanted, summary);
    if (granted === 0) return;
    const claimed = await storeCall('claim', () =>
      this.#store.claim(this.#provider, { now, limit: granted, leaseSeconds: this.#settings.leaseSeconds }),
    );
    for (const object of claimed) await this.#reconcile(object, summary);
  }

  /** Spends up to `wanted` reads from the shared budget; counts what it refused. */
  async #spend(now: number, wanted: number, summary: ReconcileRun): Promise<number> {
    const granted = await storeCall('spend', () =>
      this.#store.spend(this.#provider, { now, reads: wanted, perMinute: this.#settings.readsPerMinute }),
    );
    summary.budgetRefused += wanted - granted;
    return granted;
  }

  /** One claimed object: read, deliver a changed status, then settle (final) or reschedule with backoff. */
  async #reconcile({ object, lease }: ClaimedObject, summary: ReconcileRun): Promise<void> {
    const reads = object.reads + 1;
    const later = (status: string | null) => ({
      status,
      reads,
      dueAt: nextReadAt(reads, this.#settings.now()),
    });
    const settle = (next: Parameters<ReconciliationStore['settle']>[2]) =>
      storeCall('settle', () => this.#store.settle(object, lease, next));
    if (object.kind === 'refund' && this.#adapter.reconcile?.retrieveRefund === undefined) {
      // Registered by the application (pay.watch) for an adapter that cannot read refunds: nothing to read by.
      this.#logger.once(
        `reconcile-no-refund-read:${this.#provider}`,
        'warn',
        `${this.#provider} cannot read refunds (its adapter has no reconcile.retrieveRefund): watched refunds are dropped.`,
      );
      await settle('final');
      return;
    }
    let record: Payment | Refund | null;
    try {
      summary.reads += 1;
      record = await this.#read(object);
    } catch (error) {
      summary.errors += 1;
      this.#logger.warn(
        `The reconciler could not read ${object.kind} ${object.id}; it reads it again later.`,
        () => ({
          provider: this.#provider,
          kind: object.kind,
          id: object.id,
          error,
        }),
      );
      await settle(later(object.status));
      return;
    }
    // Unknown to the provider (not there yet, or another account's id): read again later, until it expires.
    if (record === null) return void (await settle(later(object.status)));
    const status = record.status;
    if (status !== object.status && !(await this.#deliver(object, record, summary))) {
      // Not delivered (callbacks failed, or another instance is delivering it): the status stays unannounced, so
      // the next read delivers it, soon.
      await settle({ status: object.status, reads, dueAt: nextReadAt(0, this.#settings.now()) });
      return;
    }
    await settle(isFinal(object.kind, status) ? 'final' : later(status));
  }

  /** Reads the object: a payment (also the payment behind a checkout: same id) or a refund. */
  async #read(object: WatchedObject): Promise<Payment | Refund | null> {
    const retrieveRefund = this.#adapter.reconcile?.retrieveRefund;
    if (object.kind === 'refund' && retrieveRefund) return retrieveRefund(object.id);
    const payments = this.#pay.payments as unknown as { retrieve(id: string): Promise<Payment | null> };
    return payments.retrieve(object.id);
  }

  /**
   * Delivers the event of the record's new status through the handler (transition-deduplicated). True when the
   * transition is delivered (now or earlier, by a webhook) or raises no event; false when it must be tried again.
   */
  async #deliver(object: WatchedObject, record: Payment | Refund, summary: ReconcileRun): Promise<boolean> {
    const type = eventOfStatus(this.#adapter, object.kind, record.status, this.#handler[RAISES]);
    if (type === null) return true;
    const event = webhookEvent({
      key: ['reconcile', record.id, record.status],
      type,
      provider: this.#adapter.provider,
      data: record,
      created: this.#settings.now(),
      is_raw: false,
    });
    try {
      const result = await this.#handler[DELIVER_READ_EVENT](event);
      if (result.duplicates.length > 0) summary.duplicates += 1;
      else summary.transitions += 1;
      return true;
    } catch (error) {
      // Another instance (or a webhook) is running this transition right now: it finishes it, or its lease ends.
      if (WebhookVerificationError.isInstance(error) && error.reason === 'delivery_in_progress') return false;
      // The deduplication store is down: like any store outage, the run pauses (the object's lease ends, it is
      // read again).
      if (WebhookVerificationError.isInstance(error) && error.reason === 'deduplication_unavailable')
        throw new StoreError(
          "The reconciler could not reach the webhook handler's deduplication store; this run is paused.",
          { step: 'begin', cause: error },
        );
      summary.errors += 1;
      this.#logger.warn(
        `A callback failed for ${type} of ${object.kind} ${object.id} found by the reconciler; it is delivered again on a later read.`,
        () => ({ provider: this.#provider, kind: object.kind, id: object.id, event: type, error }),
      );
      return false;
    }
  }

  /**
   * Resolves the idempotency keys whose lease ended without completion, through `pay.resolve` (which leases the
   * key and asks the adapter from the recovery point): found → recorded in the ledger (by `resolve`) and
   * watched from the next run; not found → freed (by `resolve`); unknown → asked again at `askAgainAt`.
   */
  async #staleKeys(summary: ReconcileRun): Promise<void> {
    const ledgerStore = this.#internals.ledger.store;
    if (ledgerStore.stale === undefined) return;
    const now = this.#settings.now();
    const entries = await storeCall('stale', () => ledgerStore.stale!({ now, limit: STALE_KEYS_PER_RUN }));
    for (const [key, until] of this.#askAgain) if (until <= now) this.#askAgain.delete(key);
    const todo = entries.filter((entry) => !this.#askAgain.has(entry.key));
    if (todo.length === 0) return;
    const granted = await this.#spend(now, todo.length, summary);
    for (const entry of todo.slice(0, granted)) await this.#resolve(entry, now, summary);
  }

  async #resolve(entry: IdempotencyEntry, now: number, summary: ReconcileRun): Promise<void> {
    summary.staleKeys += 1;
    summary.reads += 1;
    let answer: Awaited<ReturnType<Pay['resolve']>>;
    try {
      answer = await this.#pay.resolve(entry.key);
    } catch (error) {
      if (StoreError.isInstance(error)) throw error;
      summary.errors += 1;
      this.#askAgain.set(entry.key, now + this.#settings.intervalMs);
      this.#logger.warn(
        'The reconciler could not resolve a stale idempotency key; it asks again later.',
        () => ({
          provider: this.#provider,
          idempotencyKey: entry.key,
          error,
        }),
      );
      return;
    }
    if (answer.status === 'unknown') {
      const at = answer.askAgainAt === undefined ? Number.NaN : Date.parse(answer.askAgainAt);
      this.#askAgain.set(entry.key, Number.isNaN(at) ? now + this.#settings.intervalMs : at);
      return;
    }
    if (answer.status === 'not_found') return;
    const operation = operationOfFingerprint(entry.fingerprint);
    const kind = operation === undefined ? undefined : kindOfOperation(operation);
    // A found checkout's key stays for the caller's retry (its create reply cannot be read back): do not ask again.
    if (operation === 'checkouts.create') this.#askAgain.set(entry.key, entry.expiresAt);
    if (kind === undefined) return;
    // The application never learnt this record (the call that made it did not return): status null, read now, so
    // its current status is delivered on the next run.
    const object = { provider: this.#provider, kind, id: answer.record.id, status: null };
    await storeCall('watch', () => watchObject(this.#store, object, now, now));
  }
}
