/**
 * The operation context (docs/architecture.md#operation-context): what one operation carries from the caller to the
 * wire, built once by {@link runOperation} and handed on as an argument to the adapter's implementation, the
 * provider client and the HTTP client.
 */
import { markOperation, withIdempotencyKey } from './error-marks.js';
import { ValidationError, type ValidationIssue } from './errors.js';
import type { IdempotencyContext, IdempotencyLedger } from './idempotency.js';
import { idempotencyKeyIssue } from './idempotency-keys.js';
import { movesMoney, type Operation } from './operations.js';

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call; an aborted call that may have reached the provider says `outcome: 'unknown'`. */
  signal?: AbortSignal;
  /**
   * Caller's idempotency key for a money-moving call: the same key for every attempt of one intent, carried on
   * every error (`error.context.idempotencyKey`). Through `createPay` a repeated call returns the recorded result
   * or resumes where the earlier attempt stopped. 1–255 printable characters.
   */
  idempotencyKey?: string;
  /** Timeout of one attempt of this call in milliseconds, overriding the adapter's `timeoutMs` (1 ms – 10 min). */
  timeoutMs?: number;
  /** Retries after the first attempt, overriding the adapter's `retry` (0–10); a money-moving call is never retried. */
  retry?: number;
}

/** Per-call overrides of the adapter's transport settings. */
export type CallSettings = Pick<CallOptions, 'timeoutMs' | 'retry'>;

/** The longest per-call attempt timeout accepted: 10 minutes. */
export const MAX_CALL_TIMEOUT_MS = 600_000;
/** The most retries one call may ask for. */
export const MAX_CALL_RETRY = 10;

/** The last argument of an operation's implementation, for the provider client: options, operation, ledger. */
export interface OperationContext extends CallOptions {
  /** The operation being performed (`'payments.create'`). */
  readonly operation: Operation;
  /** The ledger's context, under `createPay` with an `idempotencyKey` (docs/architecture.md#idempotency). */
  readonly idempotency?: IdempotencyContext;
}

/** The issues of a call's `timeoutMs` / `retry`, for a `ValidationError` before any I/O. */
export function callSettingsIssues(settings: CallSettings): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const { timeoutMs, retry } = settings;
  if (
    timeoutMs !== undefined &&
    !(Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= MAX_CALL_TIMEOUT_MS)
  )
    issues.push({
      path: 'options.timeoutMs',
      message: `must be a whole number of milliseconds from 1 to ${MAX_CALL_TIMEOUT_MS}`,
    });
  if (retry !== undefined && !(Number.isInteger(retry) && retry >= 0 && retry <= MAX_CALL_RETRY))
    issues.push({ path: 'options.retry', message: `must be a whole number from 0 to ${MAX_CALL_RETRY}` });
  return issues;
}

/** Throws `ValidationError` when a call's settings are out of bounds. */
export function assertCallSettings(settings: CallSettings): void {
  const issues = callSettingsIssues(settings);
  if (issues.length > 0) throw new ValidationError(issues);
}

/**
 * The caller's options, checked (a `ValidationError` before any I/O); an `idempotency` or `operation` the caller
 * passed is dropped, so only the ledger provides a ledger context.
 */
export function checkedCallOptions(given: CallOptions, operation: Operation): CallOptions {
  const issues = callSettingsIssues(given);
  const keyIssue = idempotencyKeyIssue(given.idempotencyKey);
  if (keyIssue) issues.unshift({ path: 'options.idempotencyKey', message: keyIssue });
  if (issues.length > 0) throw new ValidationError(issues, { operation });
  const { idempotency: _ledgers, operation: _ours, ...options } = given as Partial<OperationContext>;
  return options;
}

/**
 * Runs one operation (docs/architecture.md#operation-context): `prepare` checks the arguments and options first
 * and returns the input the ledger fingerprints; with a `ledger`, a money-moving operation given an
 * `idempotencyKey` runs under it. What it throws carries the key, and for a money-moving operation the operation
 * (for `pay.resolve(error)`).
 */
export async function runOperation<R>(
  operation: Operation,
  given: unknown,
  ledger: IdempotencyLedger | undefined,
  prepare: () => { input: readonly unknown[]; options: CallOptions },
  invoke: (input: readonly unknown[], context: OperationContext) => Promise<R>,
): Promise<R> {
  const asked = (given as CallOptions | null | undefined)?.idempotencyKey;
  const key = typeof asked === 'string' ? asked : undefined;
  try {
    const { input, options } = prepare();
    const contextWith = (idempotency?: IdempotencyContext): OperationContext =>
      idempotency ? { ...options, operation, idempotency } : { ...options, operation };
    if (ledger && key !== undefined && movesMoney(operation))
      return (await ledger.run(operation, input, key, (idempotency) =>
        invoke(input, contextWith(idempotency)),
      )) as R;
    return await invoke(input, contextWith());
  } catch (error) {
    if (movesMoney(operation)) markOperation(error, operation);
    throw key === undefined ? error : withIdempotencyKey(error, key);
  }
}
