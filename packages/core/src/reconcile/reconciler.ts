/**
 * The reconciler's runs and their timer (docs/architecture.md#reconciliation): each instance reads the due objects
 * within a shared budget, delivers status changes through the webhook handler, and resolves stale idempotency
 * keys.
 */
import type { AnyAdapter, TypesOf } from '../adapter.js';
import { publishReconcile } from '../diagnostics/tracing.js';
import { ConfigurationError } from '../errors.js';
import { internalsOf, type Pay } from '../pay.js';
import { StoreError } from '../store-errors.js';
import { withinStoreDeadline } from '../stores.js';
import { handlerInternals, type WebhookHandler } from '../webhooks/handler.js';
import { reconcileObject } from './reconcile-object.js';
import {
  ANSWERS,
  type ReconcileRun,
  type ReconcilerOptions,
  type RunContext,
  spendReads,
  storeCall,
} from './run-context.js';
import { resolveStaleKeys } from './stale-keys.js';
import type { UnresolvedKey } from './store.js';
import { STORE_DEADLINE_MS } from './watch.js';

/** A reconciler of one `Pay` (see {@link createReconciler}). */
export interface Reconciler {
  /** Runs now (or once a stopped run under way ends), then every `intervalMs` until `stop()`; never overlaps. */
  start(): void;
  /**
   * Stops the runs; resolves once the run under way (if any) has finished, and at the latest after
   * `callbackTimeoutMs + 2 × storeTimeoutMs` (50 s by default): a run that outlives it goes on in the background,
   * and what it had not settled keeps its lease and is read again after it.
   */
  stop(): Promise<void>;
  /** One run: due objects, then stale keys; a store outage pauses it (`paused: true`) rather than throw. */
  runOnce(): Promise<ReconcileRun>;
  /**
   * The stale idempotency keys this instance gave up asking about: the provider cannot tell what became of the
   * call (Provider R has no lookup by reference). Each needs a person: see docs/architecture.md#reconciliation.
   */
  unresolved(): UnresolvedKey[];
}

/** Each option's least value and default (docs/architecture.md#reconciliation). */
const BOUNDS = {
  intervalMs: [1000, 30_000],
  readsPerMinute: [1, 60],
  leaseSeconds: [1, 120],
  callbackTimeoutMs: [1, 30_000],
  storeTimeoutMs: [1, STORE_DEADLINE_MS],
} as const;
type Bounded = keyof typeof BOUNDS;
/** How far each delay between runs strays from `intervalMs`, both ways, so instances do not run in step. */
const JITTER = 0.2;

/**
 * Creates the reconciler of `pay` (from `createPay(adapter, { reconcile })`), delivering through `handler` (from
 * `pay.webhooks.setup({ …, deduplicate })`). Throws `ConfigurationError` without either store or for options out
 * of bounds. Nothing runs before `start()` or `runOnce()`.
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
  const target = handlerInternals(handler);
  if (target?.dispatcher.deduplication === undefined)
    throw new ConfigurationError(
      'createReconciler needs a webhook handler with a deduplicate store (pay.webhooks.setup({ …, deduplicate })): without it a transition seen by a webhook and by a read would run its callbacks twice.',
      { missing: ['deduplicate'] },
    );
  const settings = checkedOptions(options);
  const context: Omit<RunContext, 'summary'> = {
    ...internals,
    pay: pay as unknown as Pay<AnyAdapter>,
    adapter: pay.adapter,
    provider: pay.adapter.provider,
    store,
    handler: target,
    settings,
    staleKeys: new Map(),
    reads: { pausedUntil: 0 },
  };
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
    const once = runOnce(context).catch((error: unknown) =>
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
      const bound = settings.callbackTimeoutMs + 2 * settings.storeTimeoutMs;
      await withinStoreDeadline(bound, async () => running).catch(() => undefined);
    },
    runOnce: () => runOnce(context),
    unresolved: () =>
      [...context.staleKeys.values()].flatMap((state) => (state.unresolved ? [{ ...state.unresolved }] : [])),
  };
}

/** The options with their defaults; refuses a value out of bounds (`ConfigurationError`). */
function checkedOptions(options: ReconcilerOptions): Required<ReconcilerOptions> {
  const bad = (Object.keys(BOUNDS) as Bounded[]).filter((name) => {
    const value = options[name];
    return value !== undefined && !(Number.isInteger(value) && value >= BOUNDS[name][0]);
  });
  if (bad.length > 0)
    throw new ConfigurationError(
      `createReconciler: ${bad.map((name) => `${name} must be a whole number of at least ${BOUNDS[name][0]}`).join('; ')}.`,
      { missing: bad },
    );
  return {
    intervalMs: options.intervalMs ?? BOUNDS.intervalMs[1],
    readsPerMinute: options.readsPerMinute ?? BOUNDS.readsPerMinute[1],
    leaseSeconds: options.leaseSeconds ?? BOUNDS.leaseSeconds[1],
    callbackTimeoutMs: options.callbackTimeoutMs ?? BOUNDS.callbackTimeoutMs[1],
    storeTimeoutMs: options.storeTimeoutMs ?? BOUNDS.storeTimeoutMs[1],
    now: options.now ?? Date.now,
  };
}

/** One run: due objects, then stale idempotency keys; a store outage pauses it (`paused: true`). */
async function runOnce(shared: Omit<RunContext, 'summary'>): Promise<ReconcileRun> {
  const { provider, settings, logger } = shared;
  const startTime = settings.now();
  const summary: ReconcileRun = {
    watched: 0,
    due: 0,
    lagMs: 0,
    reads: 0,
    budgetRefused: 0,
    transitions: 0,
    duplicates: 0,
    staleKeys: 0,
    unresolved: 0,
    errors: 0,
    paused: false,
  };
  const context = { ...shared, summary };
  try {
    await reconcileDueObjects(context, startTime);
    await resolveStaleKeys(context);
  } catch (error) {
    if (!StoreError.isInstance(error)) throw error;
    summary.paused = true;
    logger.error(
      'The reconciler could not reach its store; this run is paused and the next one catches up (nothing was lost).',
      () => ({ provider, error }),
    );
  }
  const durationMs = settings.now() - startTime;
  publishReconcile({ provider, ...summary, startTime, durationMs });
  logger.debug('Reconciler run finished.', () => ({ provider, ...summary, durationMs }));
  return summary;
}

/** Reads the due objects the budget allows, earliest due first. */
async function reconcileDueObjects(context: RunContext, now: number): Promise<void> {
  const { store, provider, settings, summary } = context;
  const backlog = await storeCall(context, 'backlog', () => store.backlog(provider, now), ANSWERS.backlog);
  summary.watched = backlog.watched;
  summary.due = backlog.due;
  summary.lagMs = backlog.oldestDueAt === null ? 0 : Math.max(0, now - backlog.oldestDueAt);
  const wanted = Math.min(backlog.due, settings.readsPerMinute);
  if (wanted === 0 || now < context.reads.pausedUntil) return;
  const granted = await spendReads(context, now, wanted);
  if (granted === 0) return;
  const claimed = await storeCall(
    context,
    'claim',
    () => store.claim(provider, { now, limit: granted, leaseSeconds: settings.leaseSeconds }),
    ANSWERS.claim,
  );
  for (const object of claimed) await reconcileObject(context, object);
}
