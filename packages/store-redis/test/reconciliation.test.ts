import { afterAll, describe, expect, it } from 'vitest';
import { runReconciliationContract } from '../../store-postgres/test/contract.js';
import { createRedisStores } from '../src/index.js';
import { CLIENT_KINDS, connect, type TestClient, useRedisServer } from './clients.js';

const server = useRedisServer();

// The contract suite every implementation of core's ReconciliationStore (and IdempotencyStore.stale) runs: the
// same tests as core's in-memory store and @pay/store-postgres, once per client library.
describe.each(CLIENT_KINDS)('reconciliation store and stale ledger entries over %s', (kind) => {
  let client: TestClient | undefined;
  afterAll(() => client?.close());
  runReconciliationContract(async () => {
    client = await connect(kind, server().url);
    return createRedisStores({ client: client.store, keyPrefix: `contract-${kind}:` });
  });
});

describe('reconciliation keys', () => {
  it('keeps every key of a provider under one hash tag, and the ledger index under the prefix', async () => {
    const client = await connect('node-redis', server().url);
    try {
      const stores = createRedisStores({ client: client.store, keyPrefix: 'layout:' });
      const now = Date.now();
      await stores.reconciliation.watch({
        provider: 'provider-t',
        kind: 'payment',
        id: 'T-1:2',
        status: null,
        reads: 0,
        dueAt: now - 1_000,
        expiresAt: now + 60_000,
      });
      await stores.reconciliation.claim('provider-t', { now, limit: 1, leaseSeconds: 30 });
      await stores.reconciliation.spend('provider-t', { now, reads: 2, perMinute: 10 });
      await stores.idempotency.begin('order-1', 'sha256:a', { leaseSeconds: 30, retentionSeconds: 60 });
      const keys = ((await client.command(['KEYS', 'layout:*'])) as string[]).sort();
      expect(keys).toEqual([
        'layout:idempotency-in-progress',
        'layout:idempotency:order-1',
        'layout:reconcile:{provider-t}:due',
        'layout:reconcile:{provider-t}:expiry',
        'layout:reconcile:{provider-t}:leases',
        'layout:reconcile:{provider-t}:object:payment:T-1:2',
        `layout:reconcile:{provider-t}:reads:${Math.floor(now / 60_000)}`,
      ]);
      expect(await client.hgetall('layout:reconcile:{provider-t}:object:payment:T-1:2')).toEqual({
        status: 'null',
        reads: '0',
        dueAt: String(now - 1_000),
        expiresAt: String(now + 60_000),
        lease: expect.stringMatching(/^[0-9a-f-]{36}:1$/),
      });
      const ttl = await client.pttl('layout:reconcile:{provider-t}:object:payment:T-1:2');
      expect(ttl).toBeGreaterThan(86_400_000);
      expect(ttl).toBeLessThanOrEqual(86_400_000 + 60_000);
      expect(
        await client.pttl(`layout:reconcile:{provider-t}:reads:${Math.floor(now / 60_000)}`),
      ).toBeGreaterThan(60_000);
    } finally {
      await client.close();
    }
  });
});
