import {
  createMemoryDeduplicationStore,
  createMemoryIdempotencyStore,
  createMemoryReconciliationStore,
  createMemoryTokenStore,
} from '@pay/core';
import pg from 'pg';
import { afterAll, describe, inject } from 'vitest';
import { createPostgresStores } from '../src/index.js';
import { runReconciliationContract, runStoreContract } from './contract.js';

describe('PostgreSQL stores keep the store contracts', () => {
  // Ten connections, so concurrent calls on one key really race on different sessions.
  const pool = new pg.Pool({ connectionString: inject('postgresUrl'), max: 10 });
  afterAll(() => pool.end());
  const stores = createPostgresStores({ client: pool, tablePrefix: 'contract_' });
  let migrated: Promise<typeof stores> | undefined;
  const migratedStores = () => {
    migrated ??= stores.migrate().then(() => stores);
    return migrated;
  };
  runStoreContract(migratedStores);
  runReconciliationContract(migratedStores);
});

// The same suite on core's in-memory stores, the reference implementation: the suite asks for the contract,
// not for this package's behaviour.
describe('core in-memory stores keep the same contracts (reference)', () => {
  runStoreContract(() => ({
    deduplication: createMemoryDeduplicationStore(),
    idempotency: createMemoryIdempotencyStore(),
    tokens: createMemoryTokenStore(),
  }));
  runReconciliationContract(() => ({
    reconciliation: createMemoryReconciliationStore(),
    idempotency: createMemoryIdempotencyStore(),
  }));
});
