/** The idempotency ledger's settings, checked once by `createPay` (docs/architecture.md#idempotency). */
import type { PayLogger } from './diagnostics/logger.js';
import { ConfigurationError } from './errors.js';
import type { Operation } from './operations.js';
import type { StoreError, StoreStep } from './store-errors.js';
import type { IdempotencyStore } from './stores.js';

/** Options of the ledger, as `createPay` takes them. */
export interface IdempotencyOptions {
  /** The ledger (default: `createMemoryIdempotencyStore()`, one process only). */
  idempotency?: IdempotencyStore;
  /** How long keys are remembered, in seconds (default and minimum 86 400 = 24 h). */
  idempotencyRetentionSeconds?: number;
  /** How long a crashed attempt keeps its key, in seconds (default 300, minimum 5); renewed while it works. */
  idempotencyLeaseSeconds?: number;
  /**
   * Receives a store failure that did not change the call's answer (recording the result after a success, or
   * releasing a key after a failure). What it throws is ignored. Such failures are also logged as `error` lines;
   * with neither a logger nor this callback, one `console.warn` line.
   * @deprecated Pass `logger` to `createPay` instead; still called when given.
   */
  onStoreError?: (error: StoreError, failure: StoreFailure) => void;
}

/** Which store call failed after the operation ran, and for which key. */
export interface StoreFailure {
  operation: Operation;
  idempotencyKey: string;
  step: StoreStep;
}

/** How long a key is remembered by default, and at least: 24 hours (docs/architecture.md#idempotency). */
const MIN_IDEMPOTENCY_RETENTION_SECONDS = 86_400;
/** How long one attempt holds its key by default (renewed while it works): a crashed one holds it this long. */
const DEFAULT_IDEMPOTENCY_LEASE_SECONDS = 300;
/** The shortest lease accepted: renewed every third of it, a shorter one would leave too little slack. */
const MIN_IDEMPOTENCY_LEASE_SECONDS = 5;

/** Reports a store failure that did not change the call's answer: logger, `onStoreError`, else `console.warn`. */
export function storeFailureReporter(
  logger: PayLogger,
  onStoreError: IdempotencyOptions['onStoreError'],
): (error: StoreError, failure: StoreFailure) => void {
  return (error, failure) => {
    try {
      const logging = logger.enabled('error');
      if (logging)
        logger.error(
          `the idempotency store failed at ${failure.step} for a ${failure.operation} call; the call's answer stands (${error.message}).`,
          () => ({ ...failure, error }),
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
export function checkedLedgerOptions(
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
