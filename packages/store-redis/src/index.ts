/**
 * `@pay/store-redis`: the shared stores of `@pay` (webhook deduplication, the idempotency ledger, the token cache)
 * on Redis or Valkey, over a client the application already manages (docs/architecture.md#stores).
 */

export {
  fromIoredis,
  type IoredisLikeClient,
  type RedisScriptClient,
} from './client.js';
export { createRedisDeduplicationStore } from './deduplication.js';
export { type RedisStoreOperation, StoreUnavailableError } from './errors.js';
export { createRedisIdempotencyStore } from './idempotency.js';
export { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_KEY_PREFIX, type RedisStoreOptions } from './options.js';
export { createRedisReconciliationStore } from './reconciliation.js';
export { createRedisStores, type RedisStores } from './stores.js';
export { createRedisTokenStore } from './tokens.js';
