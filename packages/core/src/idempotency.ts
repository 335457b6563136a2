/**
 * The idempotency ledger around money-moving operations (docs/architecture.md#idempotency). A caller's key maps to
 * one ledger entry holding a fingerprint of the request, the recovery point a multi-step call reached and its
 * final result, so that the same key with the same request returns the recorded result (no second call to the
 * provider) or resumes where an earlier attempt stopped, the same key with another request is refused, and a
 * concurrent attempt is told to come back. The store is fail-closed: when it cannot be asked before the operation,
 * nothing is sent. Runtime code: Web APIs only (Web Crypto for the fingerprint).
 */

import { sha256Hex } from './crypto.js';
import { type PayLogger, SILENT_LOGGER } from './diagnostics/logger.js';
import {
  ConfigurationError,
  NetworkError,
  PayError,
  ProviderApiError,
  ProviderNotSupportedError,
  ValidationError,
} from './errors.js';
import { isOperation, type MoneyMovingOperation, type Operation } from './operations.js';
import {
  describeStoreFailure,
  IdempotencyInProgressError,
  IdempotencyKeyMismatchError,
  StoreError,
  type StoreStep,
} from './store-errors.js';
import type { IdempotencyStore, JsonValue } from './stores.js';
import { unserialisableIssues } from './validation.js';

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
/** The longest idempotency key accepted. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

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

  const ledger: IdempotencyLedger = {
    store,
    retentionSeconds,
    leaseSeconds,
    report(error, failure) {
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
    },
    async run(operation, input, key, invoke) {
      const fingerprint = await requestFingerprint(operation, input);
      const context = { idempotencyKey: key };
      let begun: Awaited<ReturnType<IdempotencyStore['begin']>>;
      try {
        begun = await store.begin(key, fingerprint, { leaseSeconds, retentionSeconds });
      } catch (error) {
        throw new StoreError(
          `${operation}: the idempotency store could not be asked before the call (${describeStoreFailure(error)}). Nothing was sent: it is safe to call again with the same key once the store answers.`,
          { step: 'begin', cause: error, context },
        );
      }
      if (begun.state === 'completed') return begun.result;
      if (begun.state === 'mismatch')
        throw new IdempotencyKeyMismatchError({ idempotencyKey: key, operation });
      if (begun.state === 'in_progress')
        throw new IdempotencyInProgressError({ idempotencyKey: key, operation });
      if (begun.state !== 'acquired')
        throw new StoreError(
          `${operation}: the idempotency store answered begin with an unknown state. Nothing was sent.`,
          { step: 'begin', context },
        );
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
        await settle(release ? 'release' : 'abandon', () =>
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
        await settle('abandon', () => store.abandon(key, lease));
        return result;
      }
      await settle('complete', () => store.complete(key, lease, recorded));
      return result;

      /** Ends the lease; a failure is reported, never thrown: the call's own answer stands. */
      async function settle(step: StoreStep, write: () => Promise<boolean>): Promise<void> {
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
    },
  };
  return ledger;
}

/**
 * Runs `work` while renewing `lease` on `key` every third of the lease (when the store can renew), so an attempt
 * that is still working never loses its key to another one: another process's `pay.resolve(key)` then answers
 * `unknown` (in progress) instead of asking the provider about a step that may still land, and a retry is told
 * to come back (docs/architecture.md#idempotency). A crashed process stops renewing, so its key is free again one
 * lease later. A renewal the store refuses (the lease was lost) ends the renewals; one that fails is tried again at
 * the next tick, and when the lease runs out meanwhile, the next `checkpoint` stops the operation before its next
 * step.
 */
export async function whileHeld<T>(
  store: IdempotencyStore,
  key: string,
  lease: string,
  leaseSeconds: number,
  work: () => Promise<T>,
): Promise<T> {
  if (typeof store.renew !== 'function') return work();
  let held = true;
  const timer = setInterval(
    () => {
      if (!held) return;
      store.renew?.(key, lease, leaseSeconds).then(
        (kept) => {
          if (!kept) held = false;
        },
        () => undefined,
      );
    },
    (leaseSeconds * 1000) / 3,
  );
  // A pending renewal must not keep a process alive that has nothing else to do.
  (timer as { unref?: () => void }).unref?.();
  try {
    return await work();
  } finally {
    held = false;
    clearInterval(timer);
  }
}

/**
 * True when `error` proves the provider did nothing: refused before anything was sent (validation, not
 * supported, configuration, `not_sent`), or a provider refusal that says nothing about an earlier attempt
 * (no `outcome`). Anything else (a lost reply, an unreadable answer, a bug) may have moved money.
 */
export function provesNothingMoved(error: unknown): boolean {
  if (
    ValidationError.isInstance(error) ||
    ProviderNotSupportedError.isInstance(error) ||
    ConfigurationError.isInstance(error)
  )
    return true;
  if (NetworkError.isInstance(error)) return error.outcome === 'not_sent';
  if (ProviderApiError.isInstance(error)) return error.outcome !== 'unknown';
  return false;
}

/**
 * The fingerprint of a money-moving request: `v1:<operation>:<SHA-256 hex of the canonical JSON of the
 * operation and its validated input>`. The operation is spelled out so `pay.resolve(key)` knows what to ask the
 * provider about.
 */
export async function fingerprintOf(operation: Operation, input: readonly unknown[]): Promise<string> {
  return `v1:${operation}:${await sha256Hex(canonicalJson([operation, input]))}`;
}

/**
 * {@link fingerprintOf} for the ledger: a request JSON cannot hold (a `BigInt` in `provider_metadata`, a cycle)
 * is the `ValidationError` it is without a key, never the `TypeError` of the canonical JSON.
 */
async function requestFingerprint(operation: Operation, input: readonly unknown[]): Promise<string> {
  try {
    return await fingerprintOf(operation, input);
  } catch (error) {
    // The last argument is the parameters object; an id before it is a validated string.
    const issues = unserialisableIssues(input[input.length - 1]);
    throw new ValidationError(
      issues.length > 0
        ? issues
        : [
            {
              path: '',
              message: `cannot be read as JSON (${error instanceof Error ? error.message : String(error)})`,
            },
          ],
      { operation },
    );
  }
}

/** The operation a fingerprint made by {@link fingerprintOf} names, if it names one. */
export function operationOfFingerprint(fingerprint: string): Operation | undefined {
  const operation = /^v1:([a-z]+\.[a-z]+):[0-9a-f]{64}$/.exec(fingerprint)?.[1];
  return isOperation(operation) ? operation : undefined;
}

/**
 * JSON with object keys sorted at every level and `undefined` members left out, so two requests that mean the
 * same thing have the same text whatever order their fields were written in.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

/** A JSON copy of `value` (what the store keeps); throws on what JSON cannot hold (cycles, BigInt). */
function toJson(value: unknown): JsonValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

/**
 * Checks a caller's idempotency key: 1–255 characters of well-formed text, no control characters. A lone
 * surrogate (`'a\uD800'`) has no UTF-8 form: hashed, it becomes U+FFFD, so two different keys would derive the
 * same provider reference (`keyedReference`); control characters are C0, DEL and C1 (`\p{Cc}`).
 */
export function idempotencyKeyIssue(key: unknown): string | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== 'string') return 'must be a string';
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    return `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters long`;
  if (/\p{Surrogate}/u.test(key))
    return 'must be well-formed text (it holds a lone UTF-16 surrogate, which has no UTF-8 form)';
  if (/\p{Cc}/u.test(key)) return 'must not contain control characters';
  return undefined;
}

/**
 * Adds the caller's key to a `PayError`'s context (every error of a keyed call carries it,
 * docs/architecture.md#idempotency).
 */
export function withIdempotencyKey(error: unknown, key: string): unknown {
  if (!PayError.isInstance(error)) return error;
  if (error.context?.idempotencyKey === key) return error;
  Object.defineProperty(error, 'context', {
    value: { ...error.context, idempotencyKey: key },
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return error;
}

/**
 * The operation each thrown error came out of, for `pay.resolve(error)`: kept beside the error, never on it (so
 * never in its `toJSON()`).
 */
const operationsOfErrors = new WeakMap<object, Operation>();

/** Remembers the operation an error came out of (the innermost one, when operations nest). */
export function markOperation(error: unknown, operation: Operation): void {
  if (PayError.isInstance(error) && !operationsOfErrors.has(error)) operationsOfErrors.set(error, operation);
}

/** The operation an error came out of, when {@link markOperation} recorded one. */
export function operationOfError(error: object): Operation | undefined {
  return operationsOfErrors.get(error);
}
