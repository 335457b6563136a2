import { redact, StoreError, storeUnavailable } from '@pay/core/adapter';

/** The store operations that can fail, as the error's `context.operation` names them. */
export type RedisStoreOperation =
  | `deduplication.${'begin' | 'complete' | 'release'}`
  | `idempotency.${'begin' | 'checkpoint' | 'renew' | 'complete' | 'release' | 'abandon' | 'read' | 'stale'}`
  | `reconciliation.${'watch' | 'claim' | 'settle' | 'announce' | 'spend' | 'backlog'}`
  | `tokens.${'get' | 'set' | 'delete'}`;

/**
 * What a store call Redis did not answer rejects with (server down, connection lost, command timed out,
 * authentication or ACL refused, an answer the store cannot read): core's `StoreError` (`code:
 * 'store_unavailable'`), under the name this package has always exported. A store failure fails closed — whatever
 * the call was about to do (dispatch a webhook, move money) must not happen until the store answers again, since
 * the store can no longer prove that it did not already happen elsewhere (docs/architecture.md#idempotency).
 */
export const StoreUnavailableError = StoreError;
/** A store failure (core's `StoreError`). */
export type StoreUnavailableError = StoreError;

/**
 * The error of a failed store call: core's `StoreError` with `context: { store: 'redis', operation }` and a
 * message naming the call and `reason`. The message never holds the server's password or a stored token: `reason`
 * comes from {@link failureReason} and core redacts URL credentials; the client's error is not attached as `cause`
 * (client errors may carry connection options).
 */
export function storeFailure(operation: RedisStoreOperation, reason: string): StoreError {
  return storeUnavailable(
    `The Redis store could not complete ${operation}: ${reason}. Its outcome is unknown: do not ` +
      'move money or dispatch the webhook until the store answers again (retry later; check the Redis server ' +
      'and the client connection).',
    { store: 'redis', operation },
  );
}

/**
 * The reason of a failed store call, safe to show: the client error's name and message with every argument this
 * call sent (lease tokens, cached access tokens) redacted (core's `StoreError` removes URL credentials).
 */
export function failureReason(error: unknown, sent: readonly string[]): string {
  const text =
    error instanceof Error ? `${error.name}: ${error.message}` : `non-error thrown: ${String(error)}`;
  return redact(text, sent);
}
