/**
 * The idempotency ledger around money-moving operations (docs/architecture.md#idempotency). A caller's key maps to
 * one ledger entry holding a fingerprint of the request, the recovery point a multi-step call reached and its
 * final result, so that the same key with the same request returns the recorded result (no second call to the
 * provider) or resumes where an earlier attempt stopped, the same key with another request is refused, and a
 * concurrent attempt is told to come back. The store is fail-closed: when it cannot be asked before the operation,
 * nothing is sent. Runtime code: Web APIs only (Web Crypto for the fingerprint).
 */

import { type PayLogger, SILENT_LOGGER } from './diagnostics/logger.js';
import { provesNothingMoved } from './error-marks.js';
import { ConfigurationError } from './errors.js';
import { requestFingerprint } from './idempotency-fingerprint.js';
import { whileHeld } from './idempotency-lease.js';
import type { MoneyMovingOperation, Operation } from './operations.js';
import {
  describeStoreFailure,
  IdempotencyInProgressError,
  IdempotencyKeyMismatchError,
  StoreError,
  type StoreStep,
} from './store-errors.js';
import type { IdempotencyBegin, IdempotencyStore, JsonValue } from './stores.js';

/** How long a key is remembered by default, and at least: 24 hours (docs/architecture.md#idempotency). */
export const MIN_IDEMPOTENCY_RETENTION_SECONDS = 86_400;
/**
 * How long one attempt holds its key by default: 5 minutes. The ledger renews the lease every third of it while
 * the attempt works (with a store that can renew: the in-memory, PostgreSQL and Redis stores all can), so a slow
 * call keeps its key; a crashed process stops renewing and holds the key at most this long.
 */
export const DEFAULT_IDEMPOTENCY_LEASE_SECONDS = 300;
/** The shortest lease accepted: renewed every third of it, a shorter one would leave too little slack. */
export const MIN_IDEMPOTENCY_LEASE_SECONDS = 5;

/** What an implementation receives when the caller passed an idempotency key (through `createPay`). */
export interface IdempotencyContext {
  /** The caller's key. */
  readonly key: string;
  /**
   * Where an earlier attempt with this key got to (`null` for a new key): resume from here, never start over
   * when money may already have moved. Adapter-defined JSON, e.g. Provider T
   * `{ transactionId, step: 'quoted' | 'updated' | 'commit_sent' }`.
   */
  readonly recoveryPoint: JsonValue | null;
  /**
   * Records progress durably BEFORE the next step; rejects with core's `StoreError` (code `store_unavailable`)
   * when the store fails or the lease on the key was lost: the adapter must then stop before moving money
   * (fail closed) and say how far it got.
   */
  checkpoint(point: JsonValue): Promise<void>;
}

/** Which store call failed after the operation ran, and for which key. */
export interface StoreFailure {
  operation: Operation;
  idempotencyKey: string;
  step: StoreStep;
}

/** Options of the ledger, as `createPay` takes them. */
export interface IdempotencyOptions {
  /** The ledger (default: `createMemoryIdempotencyStore()`, one process only). */
  idempotency?: IdempotencyStore;
  /** How long keys are remembered, in seconds (default and minimum 86 400 = 24 h). */
  idempotencyRetentionSeconds?: number;
  /**
   * How long one attempt holds its key without renewing it, in seconds (default 300, minimum 5): the ledger renews
   * the lease every third of it while the attempt works, so this is how long a crashed process keeps the key.
   */
  idempotencyLeaseSeconds?: number;
  /**
   * Receives a store failure that did not change the call's answer: recording the result after the provider
   * succeeded (the result is still returned; a retry with the key resumes and reconciles), or releasing /
   * abandoning a key after the operation failed (its own error is still thrown). What this callback throws is
   * ignored. Such failures are also logged as `error` lines to `createPay`'s `logger`; with neither, one
   * `console.warn` line.
   * @deprecated Pass `logger` to `createPay` instead; still called when given.
   */
  onStoreError?: (error: StoreError, failure: StoreFailure) => void;
}

/** The ledger as `createPay` configures it. */
export interface IdempotencyLedger {
  readonly store: IdempotencyStore;
  readonly retentionSeconds: number;
  readonly leaseSeconds: number;
  /**
   * Runs a money-moving operation under `key`: the recorded result when the key completed, a typed error when
   * it is in progress or was used with another request, otherwise the operation with an
   * {@link IdempotencyContext} (the recovery point of an earlier attempt, and `checkpoint`).
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

/**
 * Reports a store failure that did not change the call's answer: to the logger as an `error` line and to
 * `onStoreError`; with neither, one `console.warn` line (docs/architecture.md#idempotency).
 */
function storeFailureReporter(
  logger: PayLogger,
  onStoreError: IdempotencyOptions['onStoreError'],
): IdempotencyLedger['report'] {
  return (error, failure) => {
    try {
      const logging = logger.enabled('error');
      if (logging)
        logger.error(
          `the idempotency store failed at ${failure.step} for a ${failure.operation} call; the call's answer stands (${error.message}).`,
          () => ({
            operation: failure.operation,
            idempotencyKey: failure.idempotencyKey,
            step: failure.step,
            error,
          }),
        );
      if (onStoreError) onStoreError(error, failure);
      else if (!logging)
        console.warn(
          `@pay/core: the idempotency store failed at ${failure.step} for a ${failure.operation} call (${error.message}). Pass onStoreError to createPay to handle store failures.`,
        );
    } catch {
      // A failing reporter must not change the call's answer either.
    }
  };
}

/** Refuses a store or options the ledger cannot work with, before any call (docs/architecture.md#idempotency). */
function checkedLedgerOptions(
  store: IdempotencyStore,
  options: Omit<IdempotencyOptions, 'idempotency'>,
): { retentionSeconds: number; leaseSeconds: number; onStoreError: IdempotencyOptions['onStoreError'] } {
  const missing = (['begin', 'checkpoint', 'complete', 'release', 'abandon', 'read'] as const).filter(
    (method) => typeof (store as unknown as Record<string, unknown> | null)?.[method] !== 'function',
  );
  if (missing.length > 0)
    throw new ConfigurationError(
      `createPay: idempotency must be an IdempotencyStore (createMemoryIdempotencyStore(), @pay/store-postgres or @pay/store-redis); it lacks ${missing.join(', ')}.`,
      { missing: ['idempotency'] },
    );
  const retentionSeconds = options.idempotencyRetentionSeconds ?? MIN_IDEMPOTENCY_RETENTION_SECONDS;
  if (!Number.isInteger(retentionSeconds) || retentionSeconds < MIN_IDEMPOTENCY_RETENTION_SECONDS)
    throw new ConfigurationError(
      `createPay: idempotencyRetentionSeconds must be a whole number of seconds, at least ${MIN_IDEMPOTENCY_RETENTION_SECONDS} (24 h): callers retry for a day, and a key forgotten earlier could move money twice.`,
      { missing: ['idempotencyRetentionSeconds'] },
    );
  const leaseSeconds = options.idempotencyLeaseSeconds ?? DEFAULT_IDEMPOTENCY_LEASE_SECONDS;
  if (
    !Number.isInteger(leaseSeconds) ||
    leaseSeconds < MIN_IDEMPOTENCY_LEASE_SECONDS ||
    leaseSeconds >= retentionSeconds
  )
    throw new ConfigurationError(
      `createPay: idempotencyLeaseSeconds must be a whole number of seconds, at least ${MIN_IDEMPOTENCY_LEASE_SECONDS} and below the retention (it is renewed while a call works; a crashed process holds the key this long).`,
      { missing: ['idempotencyLeaseSeconds'] },
    );
  const onStoreError = options.onStoreError;
  if (onStoreError !== undefined && typeof onStoreError !== 'function')
    throw new ConfigurationError('createPay: onStoreError must be a function.', {
      missing: ['onStoreError'],
    });
  return { retentionSeconds, leaseSeconds, onStoreError };
}

/**
 * Asks the store for the key before anything is sent: the lease, or the recorded result; a mismatch, an attempt in
 * progress or a store that cannot answer is a typed error (docs/architecture.md#idempotency).
 */
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
  try {
    if (await write()) return;
    ledger.report(
      new StoreError(
        `${operation}: the lease on the idempotency key was lost before ${step} (the call ran longer than idempotencyLeaseSeconds); a retry with the key resumes and reconciles.`,
        { step, reason: 'lease_lost', context },
      ),
      { operation, idempotencyKey: key, step },
    );
  } catch (error) {
    ledger.report(
      new StoreError(
        `${operation}: the idempotency store failed at ${step} (${describeStoreFailure(error)}); ${
          step === 'complete'
            ? 'the call succeeded and its result was returned; a retry with the key resumes and reconciles'
            : 'the call’s own error was thrown; the key frees itself when its lease runs out'
        }.`,
        { step, cause: error, context },
      ),
      { operation, idempotencyKey: key, step },
    );
  }
}

/** A JSON copy of `value` (what the store keeps); throws on what JSON cannot hold (cycles, BigInt). */
function toJson(value: unknown): JsonValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}
