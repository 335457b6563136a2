/** What every step of a reconciler run works with (docs/architecture.md#reconciliation). */
import type { AnyAdapter } from '../adapter.js';
import type { ReconcileTrace } from '../diagnostics/channels.js';
import { ProviderApiError } from '../errors.js';
import type { Pay, PayInternals } from '../pay.js';
import { StoreError, type StoreStep } from '../store-errors.js';
import { withinStoreDeadline } from '../stores.js';
import type { HandlerInternals } from '../webhooks/handler.js';
import type { ReconciliationStore, StaleKeyState } from './store.js';

/** Options of `createReconciler` (reconciler.ts); a run reads them with every default filled in. */
export interface ReconcilerOptions {
  /** Milliseconds between two runs of `start()` (default 30 000), each delay drawn within ±20 % of it. */
  intervalMs?: number;
  /** Provider reads per minute shared by every instance (default 60): below the provider's rate limit. */
  readsPerMinute?: number;
  /** How long a run holds the objects it claimed (default 120 s): another instance takes over after it. */
  leaseSeconds?: number;
  /**
   * How long a transition's callbacks may run (default 30 000 ms, below the transition lease's 60 s): past it the run
   * goes on, and the transition stays leased and is delivered again after its lease, as after a crash.
   */
  callbackTimeoutMs?: number;
  /** How long core waits for one reconciliation or ledger store call (default 10 000 ms); past it the run pauses. */
  storeTimeoutMs?: number;
  /** The clock, epoch milliseconds (tests). */
  now?: () => number;
}

/** What one run did, as the `pay:reconcile` diagnostics message says it. */
export type ReconcileRun = Omit<ReconcileTrace, 'provider' | 'startTime' | 'durationMs'>;

/** One reconciler's state across runs (with `Pay`'s ledger and logger), and the summary of the run under way. */
export interface RunContext extends PayInternals {
  pay: Pay<AnyAdapter>;
  adapter: AnyAdapter;
  provider: string;
  /** The watch list and the read budget. */
  store: ReconciliationStore;
  handler: HandlerInternals;
  /** The checked options of `createReconciler`. */
  settings: Required<ReconcilerOptions>;
  /** What this instance knows of the stale keys it asked about: backoff, and those reported unresolved. */
  staleKeys: Map<string, StaleKeyState>;
  /** No provider read before this (epoch ms): the provider answered 429 (see {@link pauseReads}). */
  reads: { pausedUntil: number };
  summary: ReconcileRun;
}

/**
 * Runs a reconciliation store call under the reconciler's deadline (`storeTimeoutMs`); whatever it throws, a call
 * past the deadline and an answer `shape` refuses (`claim` → `undefined`) become a `StoreError` that pauses the run
 * (docs/architecture.md#reconciliation), never a `TypeError` further on.
 */
export async function storeCall<T>(
  context: Pick<RunContext, 'settings'>,
  step: StoreStep,
  call: () => Promise<T>,
  shape: (answer: unknown) => boolean = () => true,
): Promise<T> {
  let answer: T;
  try {
    answer = await withinStoreDeadline(context.settings.storeTimeoutMs, call);
  } catch (error) {
    if (StoreError.isInstance(error)) throw error;
    throw new StoreError(
      `The reconciler's store failed at ${step}; this run is paused and the next one catches up (nothing was lost).`,
      { step, cause: error },
    );
  }
  if (!shape(answer))
    throw new StoreError(
      `The reconciler's store answered ${step} with something that is not a ${step} answer; this run is paused (nothing was lost).`,
      { step },
    );
  return answer;
}

const isCount = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isRecordLike = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/** The shape of each reconciliation store answer the reconciler reads (see {@link storeCall}). */
export const ANSWERS = {
  backlog: (answer: unknown) =>
    isRecordLike(answer) &&
    isCount(answer.watched) &&
    isCount(answer.due) &&
    (answer.oldestDueAt === null || Number.isFinite(answer.oldestDueAt)),
  claim: (answer: unknown) =>
    Array.isArray(answer) &&
    answer.every(
      (claimed) =>
        isRecordLike(claimed) &&
        typeof claimed.lease === 'string' &&
        isRecordLike(claimed.object) &&
        typeof claimed.object.id === 'string' &&
        typeof claimed.object.kind === 'string' &&
        isCount(claimed.object.reads),
    ),
  spend: isCount,
  settle: (answer: unknown) => typeof answer === 'boolean',
  stale: Array.isArray,
} as const;

/** Spends up to `wanted` reads from the budget shared by every instance; counts what it refused. */
export async function spendReads(context: RunContext, now: number, wanted: number): Promise<number> {
  const { store, provider, settings, summary } = context;
  const granted = await storeCall(
    context,
    'spend',
    () => store.spend(provider, { now, reads: wanted, perMinute: settings.readsPerMinute }),
    ANSWERS.spend,
  );
  if (granted > wanted)
    throw new StoreError(`The reconciler's store granted more reads than asked; this run is paused.`, {
      step: 'spend',
    });
  summary.budgetRefused += wanted - granted;
  return granted;
}

/** Whether `error` is the provider saying it is rate limiting us (HTTP 429 or its own code for it). */
export function isRateLimited(error: unknown): boolean {
  return ProviderApiError.isInstance(error) && error.kind === 'rate_limited';
}

/**
 * After a 429, pauses `provider`'s reads on every instance until the next minute: takes what is left of the shared
 * budget's minute (`spend`), and this instance reads nothing more before then (docs/architecture.md#reconciliation).
 * The error carries no `Retry-After`; a longer pause comes from the next 429.
 */
export async function pauseReads(context: RunContext, now: number): Promise<void> {
  const { settings, store, provider } = context;
  context.reads.pausedUntil = (Math.floor(now / 60_000) + 1) * 60_000;
  context.logger.warn(
    `${provider} answered 429 (rate limited) to a reconciler read; its reads pause until the next minute on every instance.`,
    () => ({ provider, pausedUntil: new Date(context.reads.pausedUntil).toISOString() }),
  );
  await storeCall(
    context,
    'spend',
    () => store.spend(provider, { now, reads: settings.readsPerMinute, perMinute: settings.readsPerMinute }),
    ANSWERS.spend,
  );
}
