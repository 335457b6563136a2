/**
 * What a keyed call's errors carry (docs/architecture.md#idempotency), and what an error proves about money
 * (docs/architecture.md#outcomes), which decides whether the ledger frees the key.
 */ import {
  ConfigurationError,
  NetworkError,
  PayError,
  ProviderApiError,
  ProviderNotSupportedError,
  ValidationError,
} from './errors.js';
import type { Operation } from './operations.js';

/** Adds the caller's key to a `PayError`'s context. */
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

/** The operation each thrown error came out of, for `pay.resolve(error)`: beside the error, never in `toJSON()`. */
const operationsOfErrors = new WeakMap<object, Operation>();

/** Remembers the operation an error came out of (the innermost one, when operations nest). */
export function markOperation(error: unknown, operation: Operation): void {
  if (PayError.isInstance(error) && !operationsOfErrors.has(error)) operationsOfErrors.set(error, operation);
}

/** The operation an error came out of, when {@link markOperation} recorded one. */
export function operationOfError(error: object): Operation | undefined {
  return operationsOfErrors.get(error);
}

/**
 * True when `error` proves the provider did nothing: refused before anything was sent (validation, not
 * supported, configuration, `not_sent`), or a provider refusal that says nothing about an earlier attempt
 * (no `outcome`). Anything else (a lost reply, an unreadable answer, a bug) may have moved money.
 */
export function provesNothingMoved(error: unknown): boolean {
  const refusedBeforeSending = [ValidationError, ProviderNotSupportedError, ConfigurationError];
  if (refusedBeforeSending.some((type) => type.isInstance(error))) return true;
  if (NetworkError.isInstance(error)) return error.outcome === 'not_sent';
  if (ProviderApiError.isInstance(error)) return error.outcome !== 'unknown';
  return false;
}
