import { PayError, redact } from '@pay/core';

/** The store operations that can fail, as `StoreUnavailableError.operation` names them. */
export type RedisStoreOperation =
  | 'deduplication.begin'
  | 'deduplication.complete'
  | 'deduplication.release'
  | 'idempotency.begin'
  | 'idempotency.checkpoint'
  | 'idempotency.complete'
  | 'idempotency.release'
  | 'idempotency.abandon'
  | 'idempotency.read'
  | 'tokens.get'
  | 'tokens.set'
  | 'tokens.delete';

/**
 * The Redis store did not answer (server down, connection lost, command timed out, authentication or ACL
 * refused, an answer the store cannot read). Issue 14 §3: a store failure fails closed — whatever the call was
 * about to do (dispatch a webhook, move money) must not happen until the store answers again, since the store
 * can no longer prove that it did not already happen elsewhere.
 *
 * The message and fields never hold the server's password or a stored token: the reason is taken from the
 * client's error with URL credentials and every value this call sent removed, and the client's error itself is
 * not attached as `cause` (client errors may carry connection options).
 */
export class StoreUnavailableError extends PayError {
  // The same kind as `@pay/store-postgres`'s class, so `StoreUnavailableError.isInstance` from either package
  // recognises a store failure from both (core's `isInstance` matches on the kind's name).
  static override readonly kind: string = 'StoreUnavailableError';
  override readonly code = 'store_unavailable';
  declare readonly context: { store: 'redis'; operation: RedisStoreOperation };
  /** Which store call failed. */
  readonly operation: RedisStoreOperation;
  /** Why, from the client's error (its name and message), with credentials removed. */
  readonly reason: string;

  constructor(fields: { operation: RedisStoreOperation; reason: string }) {
    super(
      `The Redis store could not complete ${fields.operation}: ${fields.reason}. Its outcome is unknown: do not ` +
        'move money or dispatch the webhook until the store answers again (retry later; check the Redis server ' +
        'and the client connection).',
      { context: { store: 'redis', operation: fields.operation } },
    );
    this.operation = fields.operation;
    this.reason = fields.reason;
  }
}

/** `scheme://user:password@host` → `scheme://[REDACTED]@host`, wherever a client error quotes a URL. */
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)[^@/\s]*@/gi;

/**
 * The reason of a failed store call, safe to show: the client error's name and message with URL credentials
 * and every argument this call sent (lease tokens, cached access tokens) redacted.
 */
export function failureReason(error: unknown, sent: readonly string[]): string {
  const text =
    error instanceof Error ? `${error.name}: ${error.message}` : `non-error thrown: ${String(error)}`;
  return redact(text.replace(URL_CREDENTIALS, '$1[REDACTED]@'), sent);
}
