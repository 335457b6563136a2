import { runScript } from './client.js';
import type { RedisStoreOperation } from './errors.js';
import { type RedisStoreOptions, resolveOptions } from './options.js';

/**
 * The script runner of one store: its options checked once, each call naming the store call, the script, the
 * caller's key (stored as `<keyPrefix><area>:<key>`), the arguments and which of them are secrets. `indexes` are
 * keys of the whole store (stored as `<keyPrefix><index>`) every call passes after the caller's key.
 */
export function storeScripts(
  options: RedisStoreOptions,
  area: 'dedupe' | 'idempotency' | 'token',
  indexes: string[] = [],
) {
  const { client, keyPrefix, commandTimeoutMs } = resolveOptions(options);
  const indexKeys = indexes.map((index) => `${keyPrefix}${index}`);
  return (
    operation: RedisStoreOperation,
    script: string,
    key: string,
    values: string[] = [],
    secrets: string[] = [],
  ): Promise<unknown> =>
    runScript(client, commandTimeoutMs, {
      operation,
      script,
      keys: [`${keyPrefix}${area}:${key}`, ...indexKeys],
      arguments: values,
      secrets,
    });
}
