/**
 * `pay.resolve` (docs/architecture.md#outcomes): what the provider holds for a money-moving call whose outcome is
 * unknown, from the ledger when the call completed, else asked of the adapter under the key's lease, so no attempt
 * moves money meanwhile (docs/architecture.md#idempotency).
 */
import type { AnyAdapter, CallOptions, ResolvedRecord } from './adapter.js';
import { type PayLogger, withinLogger } from './diagnostics/logger.js';
import { operationOfError, withIdempotencyKey } from './error-marks.js';
import { PayError, ValidationError } from './errors.js';
import type { IdempotencyLedger } from './idempotency.js';
import { operationOfFingerprint } from './idempotency-fingerprint.js';
import { idempotencyKeyIssue } from './idempotency-keys.js';
import { whileHeld } from './idempotency-lease.js';
import type { MoneyMovingOperation, Operation } from './operations.js';
import type { Checkout, Payment, Refund } from './records.js';
import { StoreError } from './store-errors.js';
import type { IdempotencyEntry, JsonValue } from './stores.js';

/** What `pay.resolve` found out about a money-moving call. */
export type ResolveResult =
  /** The provider holds this record (or the ledger recorded it as the call's result). */
  | { status: 'found'; record: Payment | Refund | Checkout; source: 'ledger' | 'provider' }
  /** The provider proved it holds nothing for this call: it is safe to send again (with the same key). */
  | { status: 'not_found' }
  /**
   * Nothing proves either way (yet): do not send with a new key (the same key is safe: it resumes); `askAgainAt`
   * (ISO 8601), when known, is when asking again can tell more.
   */
  | { status: 'unknown'; reason: string; askAgainAt?: string };

/** Options of `pay.resolve`. */
export interface ResolveOptions {
  /** The operation the key was used for, when the ledger no longer has the key: the adapter looks it up. */
  operation?: MoneyMovingOperation;
  signal?: AbortSignal;
  /** Retries of the provider read, overriding the adapter's `retry` (the reconciler passes 0: its budget counts requests). */
  retry?: number;
}

/** Asks the adapter's `resolve` about `operation` under the caller's logger. */
type AskProvider = (
  operation: Operation,
  extra: { recoveryPoint?: JsonValue | null },
) => Promise<ResolvedRecord>;

/** `pay.resolve` on `adapter` and its ledger (see `Pay.resolve`). */
export async function resolveCall(
  adapter: AnyAdapter,
  ledger: IdempotencyLedger,
  logger: PayLogger,
  keyOrError: string | unknown,
  options: ResolveOptions,
): Promise<ResolveResult> {
  const lookup = lookupOf(keyOrError, options);
  const callOptions: CallOptions = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
  };
  const ask: AskProvider = async (operation, extra) =>
    withinLogger(logger, () =>
      adapter.resolve?.(
        {
          operation,
          ...(lookup.key === undefined ? {} : { idempotencyKey: lookup.key }),
          ...extra,
          ...(lookup.context ? { context: lookup.context } : {}),
        },
        callOptions,
      ),
    );
  if (lookup.key === undefined) {
    if (!lookup.operation)
      return { status: 'unknown', reason: 'the error names no operation and no idempotency key' };
    return answerOf(await ask(lookup.operation, {}), 'the adapter cannot look this call up');
  }
  const key = lookup.key;
  try {
    const entry = await storeCall('read', key, () => ledger.store.read(key));
    if (entry?.state === 'completed') return await fromCompletedEntry(adapter, entry, ask);
    if (!entry) {
      if (!lookup.operation)
        return {
          status: 'unknown',
          reason:
            'the ledger has no entry for this key (never used, released, expired, or kept in another store); pass { operation } to ask the provider',
        };
      return answerOf(await ask(lookup.operation, {}), 'the adapter cannot look this key up');
    }
    const operation = operationOfFingerprint(entry.fingerprint) ?? lookup.operation;
    if (!operation)
      return { status: 'unknown', reason: 'the ledger entry does not say which operation it belongs to' };
    return await askUnderLease(ledger, key, entry.fingerprint, operation, ask);
  } catch (error) {
    throw withIdempotencyKey(error, key);
  }
}

/**
 * A completed entry. A call that resolves to nothing (Provider R's redirect checkout) recorded `null`: the adapter
 * reads what the key made from the recovery point, and nothing can move money any more.
 */
async function fromCompletedEntry(
  adapter: AnyAdapter,
  entry: IdempotencyEntry,
  ask: AskProvider,
): Promise<ResolveResult> {
  const operation = operationOfFingerprint(entry.fingerprint);
  if (entry.result !== null || !operation || !adapter.resolve) return foundInLedger(entry.result);
  const answer = await ask(operation, { recoveryPoint: entry.recoveryPoint });
  return isRecordAnswer(answer) ? { status: 'found', record: answer, source: 'ledger' } : foundInLedger(null);
}

/**
 * An entry in progress or abandoned, asked under the key's lease; then records the answer (a record), frees the
 * key (`null`: nothing can land) or leaves it to resume.
 */
async function askUnderLease(
  ledger: IdempotencyLedger,
  key: string,
  fingerprint: string,
  operation: Operation,
  ask: AskProvider,
): Promise<ResolveResult> {
  const store = ledger.store;
  const begun = await storeCall('begin', key, () =>
    store.begin(key, fingerprint, {
      leaseSeconds: ledger.leaseSeconds,
      retentionSeconds: ledger.retentionSeconds,
    }),
  );
  if (begun.state === 'completed') return foundInLedger(begun.result);
  if (begun.state !== 'acquired')
    return {
      status: 'unknown',
      reason: 'an attempt with this key is in progress (it renews its lease while it works); ask again later',
      askAgainAt: new Date(Date.now() + ledger.leaseSeconds * 1000).toISOString(),
    };
  const { lease } = begun;
  let answer: ResolvedRecord;
  try {
    answer = await whileHeld(store, key, lease, ledger.leaseSeconds, () =>
      ask(operation, { recoveryPoint: begun.recoveryPoint }),
    );
  } catch (error) {
    await settleResolve(ledger, operation, key, lease, 'abandon');
    throw error;
  }
  // A checkout's create reply carries what no read gives back (Provider N's `checkoutUrl`): a checkout found here
  // is returned but never recorded as the key's result, so a later `checkouts.create` with the key resumes
  // instead.
  const step =
    answer === null
      ? 'release'
      : isRecordAnswer(answer) && operation !== 'checkouts.create'
        ? 'complete'
        : 'abandon';
  await settleResolve(ledger, operation, key, lease, step, answer);
  return answerOf(answer, 'the provider cannot tell what happened to this key');
}

/** Writes the outcome of a resolve to the ledger; a failure is reported, the provider's answer stands. */
async function settleResolve(
  ledger: IdempotencyLedger,
  operation: Operation,
  key: string,
  lease: string,
  step: 'complete' | 'release' | 'abandon',
  answer?: ResolvedRecord,
): Promise<void> {
  const { store } = ledger;
  try {
    await (step === 'complete'
      ? store.complete(key, lease, JSON.parse(JSON.stringify(answer)))
      : store[step](key, lease));
  } catch (error) {
    ledger.report(
      new StoreError(
        `pay.resolve: the idempotency store failed at ${step}; the provider's answer was returned.`,
        { step, cause: error, context: { idempotencyKey: key } },
      ),
      { operation, idempotencyKey: key, step },
    );
  }
}

/** The key, operation and error context `pay.resolve` was given. */
function lookupOf(
  keyOrError: unknown,
  options: ResolveOptions,
): { key?: string; operation?: Operation; context?: Record<string, unknown> } {
  if (typeof keyOrError === 'string') {
    const issue = idempotencyKeyIssue(keyOrError);
    if (issue) throw new ValidationError([{ path: 'key', message: issue }], { operation: 'resolve' });
    return { key: keyOrError, ...(options.operation ? { operation: options.operation } : {}) };
  }
  if (!PayError.isInstance(keyOrError))
    throw new ValidationError(
      [{ path: 'keyOrError', message: 'must be an idempotency key or an error thrown by a @pay call' }],
      { operation: 'resolve' },
    );
  const context = keyOrError.context;
  const key = typeof context?.idempotencyKey === 'string' ? context.idempotencyKey : undefined;
  const operation = operationOfError(keyOrError) ?? options.operation;
  return {
    ...(key === undefined ? {} : { key }),
    ...(operation ? { operation } : {}),
    ...(context ? { context } : {}),
  };
}

/** Runs a store call for `resolve`, wrapping what the store throws in `StoreError`. */
async function storeCall<T>(step: 'read' | 'begin', key: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new StoreError(
      'pay.resolve: the idempotency store could not be asked. Nothing was sent; ask again once the store answers.',
      { step, cause: error, context: { idempotencyKey: key } },
    );
  }
}

function foundInLedger(result: unknown): ResolveResult {
  return { status: 'found', record: result as Payment, source: 'ledger' };
}

/** Whether an adapter's answer is a record (not `null`, `undefined` or {@link MayStillLand}). */
function isRecordAnswer(answer: ResolvedRecord): answer is Payment | Refund | Checkout {
  return answer !== null && answer !== undefined && !('mayStillLand' in answer);
}

function answerOf(answer: ResolvedRecord, reasonWhenUnknown: string): ResolveResult {
  if (answer === null) return { status: 'not_found' };
  if (answer === undefined) return { status: 'unknown', reason: reasonWhenUnknown };
  if ('mayStillLand' in answer)
    return {
      status: 'unknown',
      reason: answer.reason,
      ...(answer.askAgainAt === null ? {} : { askAgainAt: new Date(answer.askAgainAt).toISOString() }),
    };
  return { status: 'found', record: answer, source: 'provider' };
}
