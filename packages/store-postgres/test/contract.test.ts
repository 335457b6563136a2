import {
  createMemoryDeduplicationStore,
  createMemoryIdempotencyStore,
  createMemoryTokenStore,
} from '@pay/core';
import pg from 'pg';
import { afterAll, describe, inject } from 'vitest';
import { createPostgresStores } from '../src/index.js';
import { runStoreContract } from './contract.js';

describe('PostgreSQL stores keep the store contracts', () => {
  // Ten connections, so concurrent calls on one key really race on different sessions.
  const pool = new pg.Pool({ connectionString: inject('postgresUrl'), max: 10 });
  afterAll(() => pool.end());
  runStoreContract(async () => {
    const stores = createPostgresStores({ client: pool, tablePrefix: 'contract_' });
    await stores.migrate();
    return stores;
  });
});

// The same suite on core's in-memory stores, the reference implementation: the suite asks for the contract,
// not for this package's behaviour.
describe('core in-memory stores keep the same contracts (reference)', () => {
  runStoreContract(() => ({
    deduplication: createMemoryDeduplicationStore(),
    idempotency: createMemoryIdempotencyStore(),
    tokens: createMemoryTokenStore(),
  }));
});
