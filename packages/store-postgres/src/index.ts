export {
  type PostgresClient,
  type StoreFailureContext,
  StoreUnavailableError,
} from './client.js';
export { createPostgresDeduplicationStore } from './deduplication.js';
export { createPostgresIdempotencyStore } from './idempotency.js';
export { createPostgresReconciliationStore } from './reconciliation.js';
export {
  migrate,
  type PostgresStoreOptions,
  postgresSchema,
  SCHEMA_VERSION,
  type TableOptions,
} from './schema.js';
export { createPostgresStores, type PostgresStores, type SweepResult } from './stores.js';
export { createPostgresTokenStore } from './tokens.js';
