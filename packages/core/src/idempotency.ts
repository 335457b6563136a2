/**
 * The idempotency ledger around money-moving operations (docs/architecture.md#idempotency): the same key with the
 * same request returns the recorded result or resumes where an earlier attempt stopped; with another request it is
 * refused. Fail-closed: when the store cannot be asked before the operation, nothing is sent.
 */
import { type PayLogger, SILENT_LOGGER } from './diagnostics/logger.js';
import { provesNothingMoved } from './error-marks.js';
import { requestFingerprint } from './idempotency-fingerprint.js';
import { whileHeld } from './idempotency-lease.js';
import {
  checkedLedgerOptions,
  type IdempotencyOptions,
  type StoreFailure,
  storeFailureReporter,
} from './idempotency-options.js';
import type { MoneyMovingOperation, Operation } from './operations.js';
import {
  describeStoreFailure,
  IdempotencyInProgressError,
  IdempotencyKeyMismatchError,
  StoreError,
  type StoreStep,
} from './store-errors.js';
import type { IdempotencyBegin, IdempotencyStore, JsonValue } from './stores.js';

export type { IdempotencyOptions, StoreFailure } from './idempotency-options.js';

/** What an implementation receives when the caller passed an idempotency key through `createPay`. */
export interface IdempotencyContext {
  /** The caller's key. */
  readonly key: string;
  /**
   * Where an earlier attempt with this key got to (`null` for a new key): resume from here, never start over when
   * money may already have moved. Adapter-defined JSON.
   */
  readonly recoveryPoint: JsonValue | null;
  /**
   * Records progress durably BEFORE the next step; rejects with `StoreError` when the store fails or the lease was
   * lost: the adapter must then stop before moving money (fail closed) and say how far it got.
   */
  checkpoint(point: JsonValue): Promise<void>;
}

/** The ledger as `createPay` configures it. */
export interface IdempotencyLedger {
  readonly store: IdempotencyStore;
  readonly retentionSeconds: number;
  readonly leaseSeconds: number;
  /**
   * Runs a money-moving operation under `key`: the recorded result when the key completed, a typed error when it is
   * in progress or was used with another request, otherwise the operation with an {@link IdempotencyContext}.
   */
  run(
    operation: MoneyMovingOperation,
    input: readonly unknown[],
    key: string,
    invoke: (idempotency: IdempotencyContext) => Promise<unknown>,
  ): Promise<unknown>;
  /** Reports a store failure that did not change the call's answer (see `onStoreError`). */
  report(error: StoreError, failure: StoreFailure): void;
}

/** Validates the options and builds the ledger `createPay` uses. */
export function createIdempotencyLedger(
  store: IdempotencyStore,
  options: Omit<IdempotencyOptions, 'idempotency'> = {},
  logger: PayLogger = SILENT_LOGGER,
): IdempotencyLedger {
  const { retentionSeconds, leaseSeconds, onStoreError } = checkedLedgerOptions(store, options);
  const ledger: IdempotencyLedger = {
    store,
    retentionSeconds,
    leaseSeconds,
    report: storeFailureReporter(logger, onStoreError),
    async run(operation, input, key, invoke) {
      const fingerprint = await requestFingerprint(operation, input);
      const context = { idempotencyKey: key };
      const begun = await beginAttempt(store, operation, key, fingerprint, {
        leaseSeconds,
        retentionSeconds,
      });
      if (begun.state === 'completed') return begun.result;
      const { lease } = begun;
      // Progress exists once an earlier attempt recorded a point or this one tried to: from then on a failure
      // never releases the key, so the next call resumes instead of starting over.
      let progressed = begun.recoveryPoint !== null;
      const idempotency: IdempotencyContext = {
        key,
        recoveryPoint: begun.recoveryPoint,
        async checkpoint(point) {
          progressed = true;
          let kept: boolean;
          try {
            kept = await store.checkpoint(key, lease, toJson(point));
          } catch (error) {
            throw new StoreError(
              `${operation}: the idempotency store could not record progress (${describeStoreFailure(error)}). Stop before the next step: it was not sent.`,
              { step: 'checkpoint', cause: error, context },
            );
          }
          if (!kept)
            throw new StoreError(
              `${operation}: this attempt lost its lease on the idempotency key (it ran longer than idempotencyLeaseSeconds and another attempt took over). Stop before the next step: it was not sent.`,
              { step: 'checkpoint', reason: 'lease_lost', context },
            );
        },
      };
      let result: unknown;
      try {
        result = await whileHeld(store, key, lease, leaseSeconds, () => invoke(idempotency));
      } catch (error) {
        const release = provesNothingMoved(error) && !progressed;
        await settle(ledger, operation, key, release ? 'release' : 'abandon', () =>
          release ? store.release(key, lease) : store.abandon(key, lease),
        );
        throw error;
      }
      let recorded: JsonValue;
      try {
        recorded = toJson(result ?? null);
      } catch (error) {
        ledger.report(
          new StoreError(
            `${operation}: the result cannot be recorded as JSON (${describeStoreFailure(error)}); a retry with the key resumes from the recovery point.`,
            { step: 'complete', cause: error, context },
          ),
          { operation, idempotencyKey: key, step: 'complete' },
        );
        await settle(ledger, operation, key, 'abandon', () => store.abandon(key, lease));
        return result;
      }
      await settle(ledger, operation, key, 'complete', () => store.complete(key, lease, recorded));
      return result;
    },
  };
  return ledger;
}

/** Asks the store for the key before anything is sent: the lease or the recorded result, else a typed error. */
async function beginAttempt(
  store: IdempotencyStore,
  operation: Operation,
  key: string,
  fingerprint: string,
  terms: { leaseSeconds: number; retentionSeconds: number },
): Promise<Extract<IdempotencyBegin, { state: 'acquired' | 'completed' }>> {
  const context = { idempotencyKey: key };
  let begun: IdempotencyBegin;
  try {
    begun = await store.begin(key, fingerprint, terms);
  } catch (error) {
    throw new StoreError(
      `${operation}: the idempotency store could not be asked before the call (${describeStoreFailure(error)}). Nothing was sent: it is safe to call again with the same key once the store answers.`,
      { step: 'begin', cause: error, context },
    );
  }
  if (begun.state === 'mismatch') throw new IdempotencyKeyMismatchError({ idempotencyKey: key, operation });
  if (begun.state === 'in_progress') throw new IdempotencyInProgressError({ idempotencyKey: key, operation });
  if (begun.state !== 'acquired' && begun.state !== 'completed')
    throw new StoreError(
      `${operation}: the idempotency store answered begin with an unknown state. Nothing was sent.`,
      { step: 'begin', context },
    );
  return begun;
}

/** Ends the lease; a failure is reported, never thrown: the call's own answer stands. */
async function settle(
  ledger: IdempotencyLedger,
  operation: Operation,
  key: string,
  step: StoreStep,
  write: () => Promise<boolean>,
): Promise<void> {
  const context = { idempotencyKey: key };
  let failure: StoreError;
  try {
    if (await write()) return;
    failure = new StoreError(
      `${operation}: the lease on the idempotency key was lost before ${step} (the call ran longer than idempotencyLeaseSeconds); a retry with the key resumes and reconciles.`,
      { step, reason: 'lease_lost', context },
    );
  } catch (error) {
    failure = new StoreError(
      `${operation}: the idempotency store failed at ${step} (${describeStoreFailure(error)}); ${
        step === 'complete'
          ? 'the call succeeded and its result was returned; a retry with the key resumes and reconciles'
          : 'the call’s own error was thrown; the key frees itself when its lease runs out'
      }.`,
      { step, cause: error, context },
    );
  }
  ledger.report(failure, { operation, idempotencyKey: key, step });
}

/** A JSON copy of `value` (what the store keeps); throws on what JSON cannot hold (cycles, BigInt). */
function toJson(value: unknown): JsonValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}
