/** What every step of a reconciler run works with (docs/architecture.md#reconciliation). */
import type { AnyAdapter } from '../adapter.js';
import type { ReconcileTrace } from '../diagnostics/channels.js';
import type { Pay, PayInternals } from '../pay.js';
import { StoreError, type StoreStep } from '../store-errors.js';
import type { HandlerInternals } from '../webhooks/handler.js';
import type { ReconcilerOptions } from './reconciler.js';
import type { ReconciliationStore } from './store.js';

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
  /**
   * Stale keys not to ask about before a time (epoch ms): an `unknown` answer's `askAgainAt`, or a found
   * checkout's (its key is left for the caller's retry).
   */
  askAgain: Map<string, number>;
  summary: ReconcileRun;
}

/** Runs a reconciliation store call; whatever it throws becomes a `StoreError` that pauses the run. */
export async function storeCall<T>(step: StoreStep, call: () => Promise<T>): Promise<T> {
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

/** Spends up to `wanted` reads from the budget shared by every instance; counts what it refused. */
export async function spendReads(context: RunContext, now: number, wanted: number): Promise<number> {
  const { store, provider, settings, summary } = context;
  const granted = await storeCall('spend', () =>
    store.spend(provider, { now, reads: wanted, perMinute: settings.readsPerMinute }),
  );
  summary.budgetRefused += wanted - granted;
  return granted;
}
