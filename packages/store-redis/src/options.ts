import { ValidationError } from '@pay/core';

/**
 * The one command the stores need from a Redis client: `EVAL` with keys and arguments, in node-redis's shape
 * (`client.eval(script, { keys, arguments })`). A connected node-redis client (`createClient()` from `redis`,
 * v4 to v6) is one as it is; ioredis is one through `fromIoredis`; any other client (or a Valkey server,
 * which speaks the same protocol) needs only this method.
 *
 * Every store call is one script, so each call is atomic on the server, one round trip, and touches one key
 * (Redis Cluster routes it by that key).
 */
export interface RedisScriptClient {
  /** Runs `script` with `keys` as `KEYS` and `arguments` as `ARGV`; resolves to the script's reply. */
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** How every Redis store is set up. */
export interface RedisStoreOptions {
  /**
   * A client the application creates, connects and closes: a node-redis client as it is, an ioredis client
   * through `fromIoredis`, or anything with node-redis's `eval(script, { keys, arguments })`.
   */
  client: RedisScriptClient;
  /**
   * Prepended to every key, so several applications (or environments) can share one Redis database.
   * Default `pay:`. The stores add `dedupe:`, `idempotency:`, `idempotency-in-progress`, `token:` and
   * `reconcile:{<provider>}:` after it. On Redis Cluster, give it a hash tag (`{pay}:`) so that every key of the
   * stores is in one slot.
   */
  keyPrefix?: string;
  /**
   * How long one store call may take before it fails with core's `StoreError` (`store_unavailable`), in
   * milliseconds. Default 5000. Clients queue commands while reconnecting; this bound keeps a dead server from
   * holding a payment or a webhook indefinitely.
   */
  commandTimeoutMs?: number;
}

/** The default {@link RedisStoreOptions.keyPrefix}. */
export const DEFAULT_KEY_PREFIX = 'pay:';
/** The default {@link RedisStoreOptions.commandTimeoutMs}. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 5000;

/**
 * Seconds (fractions allowed) as the whole milliseconds Redis takes, refusing what Redis would refuse
 * (`PX 0`, negative or non-finite values) before anything is sent.
 */
export function milliseconds(seconds: number, field: string, operation: string): number {
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new ValidationError([{ path: field, message: 'must be a positive, finite number of seconds' }], {
      operation,
    });
  }
  return Math.max(1, Math.ceil(seconds * 1000));
}

/**
 * Refuses counts (whole numbers of at least 0) and times (finite epoch milliseconds) Redis cannot take, before
 * anything is sent, with core's `ValidationError`.
 */
export function checkNumbers(
  operation: string,
  counts: Record<string, number>,
  times: Record<string, number>,
): void {
  const issues = [
    ...Object.entries(counts)
      .filter(([, value]) => !Number.isSafeInteger(value) || value < 0)
      .map(([path]) => ({ path, message: 'must be a whole number of at least 0' })),
    ...Object.entries(times)
      .filter(([, value]) => !Number.isFinite(value))
      .map(([path]) => ({ path, message: 'must be epoch milliseconds' })),
  ];
  if (issues.length > 0) throw new ValidationError(issues, { operation });
}
