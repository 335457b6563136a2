import { ConfigurationError, type StoreError, withinStoreDeadline } from '@pay/core/adapter';
import { failureReason, type RedisStoreOperation, storeFailure } from './errors.js';
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_KEY_PREFIX,
  type RedisScriptClient,
  type RedisStoreOptions,
} from './options.js';

export type { RedisScriptClient } from './options.js';

/** The part of an ioredis client (`new Redis()` from `ioredis`, v5 or v6) that {@link fromIoredis} uses. */
export interface IoredisLikeClient {
  eval(script: string, numberOfKeys: number, ...keysAndArguments: string[]): Promise<unknown>;
}

/**
 * Adapts an ioredis client to {@link RedisScriptClient}: ioredis takes `EVAL`'s arguments flat
 * (`script, numkeys, ...keys, ...args`) where node-redis takes an options object.
 */
export function fromIoredis(client: IoredisLikeClient): RedisScriptClient {
  return {
    eval: (script, { keys, arguments: args }) => client.eval(script, keys.length, ...keys, ...args),
  };
}

/**
 * The script runner of one store. Its options are checked once, when the store is created (no I/O), so a wrong
 * client fails at start-up and not at the first payment. Each call runs one script (atomic on the server: Redis
 * runs a script alone; one round trip) and turns every failure into core's `StoreError` (`store_unavailable`),
 * with `secrets` (lease tokens, cached credentials among the arguments) redacted. The call is bounded by
 * `commandTimeoutMs` on the client (core's `withinStoreDeadline`): clients queue commands while they reconnect
 * (node-redis's offline queue, ioredis's retries) and a hung server answers nothing, so a stopped server would
 * otherwise leave the caller waiting with money or a webhook on hold.
 *
 * Scripts return only strings, integers and arrays of strings: Lua booleans and nils convert differently under
 * RESP2 and RESP3.
 */
export function scriptRunner(options: RedisStoreOptions) {
  const { client, keyPrefix = DEFAULT_KEY_PREFIX, commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS } = options;
  const invalid: string[] = [];
  if (typeof (client as { eval?: unknown } | undefined)?.eval !== 'function') invalid.push('client');
  if (typeof keyPrefix !== 'string') invalid.push('keyPrefix');
  if (!Number.isFinite(commandTimeoutMs) || commandTimeoutMs <= 0) invalid.push('commandTimeoutMs');
  if (invalid.length > 0) {
    throw new ConfigurationError(
      `Invalid Redis store options: ${invalid.join(', ')}. Pass a connected node-redis client (or fromIoredis(client)) ` +
        'as `client`, a string `keyPrefix` and a positive `commandTimeoutMs`.',
      { missing: invalid },
    );
  }
  const run = async (
    operation: RedisStoreOperation,
    script: string,
    keys: string[],
    values: string[] = [],
    secrets: string[] = [],
  ): Promise<unknown> => {
    try {
      return await withinStoreDeadline(commandTimeoutMs, () =>
        client.eval(script, { keys, arguments: values }),
      );
    } catch (error) {
      throw storeFailure(operation, failureReason(error, secrets));
    }
  };
  return { run, keyPrefix };
}

/** The script of a read: the values of `fields` of the hash `KEYS[1]`, or {} when it has no `fields[0]`. */
export const hashRead = (...fields: string[]) => `
local row = redis.call('HMGET', KEYS[1], ${fields.map((field) => `'${field}'`).join(', ')})
if not row[1] then
  return {}
end
return row
`;

/** A reply the script cannot have given: the server is not running these scripts (or a proxy changed them). */
export function unexpectedReply(operation: RedisStoreOperation, reply: unknown): StoreError {
  const shape = Array.isArray(reply) ? `an array of ${reply.length}` : typeof reply;
  return storeFailure(operation, `unexpected reply from the server (${shape})`);
}

/** A lease-guarded write's reply: `true` when the write applied (1), `false` when the lease was lost (0). */
export function applied(operation: RedisStoreOperation, reply: unknown): boolean {
  if (reply !== 0 && reply !== 1) throw unexpectedReply(operation, reply);
  return reply === 1;
}

/** A script's flat reply of rows of `width` values, each read by `read`; anything else is an unexpected reply. */
export function replyRows<T>(
  operation: RedisStoreOperation,
  reply: unknown,
  width: number,
  read: (row: unknown[]) => T | undefined,
): T[] {
  if (!Array.isArray(reply) || reply.length % width !== 0) throw unexpectedReply(operation, reply);
  const rows: T[] = [];
  for (let index = 0; index < reply.length; index += width) {
    const row = read(reply.slice(index, index + width));
    if (row === undefined) throw unexpectedReply(operation, reply);
    rows.push(row);
  }
  return rows;
}
