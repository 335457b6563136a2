import type { DeduplicationStore, IdempotencyStore, ReconciliationStore, TokenStore } from '@pay/core';
import { createRedisDeduplicationStore } from './deduplication.js';
import { createRedisIdempotencyStore } from './idempotency.js';
import type { RedisStoreOptions } from './options.js';
import { createRedisReconciliationStore } from './reconciliation.js';
import { createRedisTokenStore } from './tokens.js';

/** The four shared stores of `@pay` on one Redis client. */
export interface RedisStores {
  /** Webhook delivery leases (pass to the webhook handler). */
  deduplication: DeduplicationStore;
  /** The idempotency ledger of money-moving calls. */
  idempotency: IdempotencyStore;
  /** The shared provider login cache. */
  tokens: TokenStore;
  /** The reconciler's watch list and read budget (docs/architecture.md#reconciliation). */
  reconciliation: ReconciliationStore;
}

/**
 * Creates the deduplication store, the idempotency ledger, the token cache and the reconciliation store over one
 * Redis client the application manages (connect it before the first call; close it on shutdown). No I/O happens
 * here: a wrong `client` or option throws `ConfigurationError` now, an unreachable server fails the first call with
 * core's `StoreError` (`store_unavailable`).
 */
export function createRedisStores(options: RedisStoreOptions): RedisStores {
  return {
    deduplication: createRedisDeduplicationStore(options),
    idempotency: createRedisIdempotencyStore(options),
    tokens: createRedisTokenStore(options),
    reconciliation: createRedisReconciliationStore(options),
  };
}
