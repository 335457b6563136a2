import { type StoreError, withinStoreDeadline } from '@pay/core/adapter';
import { failureReason, type RedisStoreOperation, storeFailure } from './errors.js';

/**
 * The one command the stores need from a Redis client: `EVAL` with keys and arguments, in node-redis's shape
 * (`client.eval(script, { keys, arguments })`). A connected node-redis client (`createClient()` from `redis`,
 * v4 to v6) is one as it is; ioredis is one through {@link fromIoredis}; any other client (or a Valkey server,
 * which speaks the same protocol) needs only this method.
 *
 * Every store call is one script, so each call is atomic on the server, one round trip, and touches one key
 * (Redis Cluster routes it by that key).
 */
export interface RedisScriptClient {
  /** Runs `script` with `keys` as `KEYS` and `arguments` as `ARGV`; resolves to the script's reply. */
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

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

/** How one store call runs a script: which call it is, and the values its error must never show. */
export interface ScriptCall {
  operation: RedisStoreOperation;
  script: string;
  keys: string[];
  arguments: string[];
  /** Lease tokens and cached credentials among `arguments`, redacted from any error. */
  secrets: string[];
}

/**
 * Runs one store script and turns every failure into core's `StoreError` (`store_unavailable`). The call is bounded by
 * `timeoutMs` on the client (core's `withinStoreDeadline`): clients queue commands while they reconnect
 * (node-redis's offline queue, ioredis's retries) and a hung server answers nothing, so a stopped server would
 * otherwise leave the caller waiting with money or a webhook on hold.
 */
export async function runScript(
  client: RedisScriptClient,
  timeoutMs: number,
  call: ScriptCall,
): Promise<unknown> {
  try {
    return await withinStoreDeadline(timeoutMs, () =>
      client.eval(call.script, { keys: call.keys, arguments: call.arguments }),
    );
  } catch (error) {
    throw storeFailure(call.operation, failureReason(error, call.secrets));
  }
}

/** A reply the script cannot have given: the server is not running these scripts (or a proxy changed them). */
export function unexpectedReply(operation: RedisStoreOperation, reply: unknown): StoreError {
  const shape = Array.isArray(reply) ? `an array of ${reply.length}` : typeof reply;
  return storeFailure(operation, `unexpected reply from the server (${shape})`);
}
