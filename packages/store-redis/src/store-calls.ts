import { runScript } from './client.js';
import type { RedisStoreOperation } from './errors.js';
import { type RedisStoreOptions, resolveOptions } from './options.js';

/**
 * The script runner of one store: its options checked once, each call naming the store call, the script, the
 * caller's key (stored as `<keyPrefix><area>:<key>`), the arguments and which of them are secrets.
 */
export function storeScripts(options: RedisStoreOptions, area: 'dedupe' | 'idempotency' | 'token') {
  const { client, keyPrefix, commandTimeoutMs } = resolveOptions(options);
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
      keys: [`${keyPrefix}${area}:${key}`],
      arguments: values,
      secrets,
    });
}
