import { ConfigurationError, StoreError } from '@pay/core';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { failureReason, storeFailure } from '../src/errors.js';
import {
  createRedisDeduplicationStore,
  createRedisIdempotencyStore,
  createRedisStores,
  createRedisTokenStore,
  type RedisScriptClient,
  StoreUnavailableError,
} from '../src/index.js';
import { connect, useClients, useRedisServer } from './clients.js';

describe('store options', () => {
  it('refuses a client without eval and names each invalid option, before any I/O', () => {
    const attempt = () =>
      createRedisStores({
        client: {} as RedisScriptClient,
        keyPrefix: 42 as unknown as string,
        commandTimeoutMs: 0,
      });
    expect(attempt).toThrow(ConfigurationError);
    expect(attempt).toThrow(/Invalid Redis store options: client, keyPrefix, commandTimeoutMs/);
    try {
      attempt();
    } catch (error) {
      expect(error).toMatchObject({ missing: ['client', 'keyPrefix', 'commandTimeoutMs'] });
    }
  });

  it('creates the stores without touching the server (an unconnected client is fine until the first call)', () => {
    const client = createClient({ url: 'redis://127.0.0.1:1' });
    const stores = createRedisStores({ client });
    expect(Object.keys(stores)).toEqual(['deduplication', 'idempotency', 'tokens', 'reconciliation']);
    expect(client.isOpen).toBe(false);
  });
});

describe('error reasons', () => {
  it('removes credentials of a URL a client error quotes, and the values the call sent', () => {
    const error = new Error(
      'connect failed for redis://app:hunter2-secret@cache.internal:6380/0 while sending tok-9f8e7d',
    );
    const failure = storeFailure('tokens.get', failureReason(error, ['tok-9f8e7d']));
    expect(failure).toBeInstanceOf(StoreError);
    expect(failure.message).toContain(
      'tokens.get: Error: connect failed for redis://[REDACTED]@cache.internal:6380/0 while sending [REDACTED].',
    );
    expect(failure.message).not.toContain('hunter2-secret');
    expect(
      storeFailure('tokens.set', failureReason(new Error('rediss://:only-password@host failed'), [])).message,
    ).toContain('Error: rediss://[REDACTED]@host failed');
  });
});

describe('keys the stores do not recognise', () => {
  const server = useRedisServer();
  const open = useClients('node-redis', server);

  it('fails closed with store_unavailable when another application wrote a different type under a store key', async () => {
    const client = await open();
    await client.command(['SET', 'pay:idempotency:order-1', 'not a ledger entry']);
    const store = createRedisIdempotencyStore({ client: client.store });
    const error = await store
      .begin('order-1', 'sha256:a', { leaseSeconds: 30, retentionSeconds: 86_400 })
      .catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({
      code: 'store_unavailable',
      context: { store: 'redis', operation: 'idempotency.begin' },
      message: expect.stringContaining('WRONGTYPE'),
    });
  });

  it('fails closed when a ledger entry holds a state the store never writes', async () => {
    const client = await open();
    await client.command(
      ['HSET', 'pay:idempotency:order-2', 'fingerprint', 'sha256:a', 'state', 'paid'].concat([
        'recoveryPoint',
        'null',
        'result',
        'null',
        'expiresAt',
        '1',
      ]),
    );
    const error = await createRedisIdempotencyStore({ client: client.store })
      .read('order-2')
      .catch((failure: unknown) => failure);
    expect(error).toMatchObject({
      code: 'store_unavailable',
      context: { store: 'redis', operation: 'idempotency.read' },
      message: expect.stringContaining('idempotency.read: unexpected reply from the server (an array of 5).'),
    });
  });

  it('never shows a cached token in the error about an unreadable token entry', async () => {
    const client = await open();
    await client.command(['HSET', 'pay:token:provider-n', 'token', 'secret-token-123', 'expiresAt', 'soon']);
    const error = await createRedisTokenStore({ client: client.store })
      .get('provider-n')
      .catch((failure: unknown) => failure);
    expect(error).toMatchObject({
      code: 'store_unavailable',
      context: { store: 'redis', operation: 'tokens.get' },
    });
    expect(JSON.stringify(error)).not.toContain('secret-token-123');
  });

  it('treats a delivery key holding a value it did not write as in progress, never as free', async () => {
    const client = await open();
    await client.command(['SET', 'pay:dedupe:delivery-9', 'something else']);
    const store = createRedisDeduplicationStore({ client: client.store });
    expect(await store.begin('delivery-9', { leaseSeconds: 30 })).toEqual({ state: 'in_progress' });
  });

  it('works under the least-privilege ACL user the README documents, limited to the key prefix', async () => {
    const admin = await open();
    await admin.command(
      ['ACL', 'SETUSER', 'payapp', 'on', '>app-password', '~pay:*', '+eval'].concat(
        [
          ...['get', 'set', 'del', 'incrby', 'hget', 'hmget', 'hset', 'hdel', 'pexpire', 'pexpireat', 'time'],
          ...['zadd', 'zrem', 'zscore', 'zcard', 'zcount', 'zrangebyscore'],
        ].map((c) => `+${c}`),
      ),
    );
    const restricted = await connect('node-redis', `redis://payapp:app-password@127.0.0.1:${server().port}`);
    try {
      const stores = createRedisStores({ client: restricted.store });
      const delivery = await stores.deduplication.begin('acl-delivery', { leaseSeconds: 30 });
      if (delivery.state !== 'acquired') throw new Error('expected a lease');
      await stores.deduplication.complete('acl-delivery', delivery.lease, 60);
      const first = await stores.idempotency.begin('acl-key', 'sha256:a', {
        leaseSeconds: 30,
        retentionSeconds: 60,
      });
      if (first.state !== 'acquired') throw new Error('expected a lease');
      expect(await stores.idempotency.checkpoint('acl-key', first.lease, { step: 'quoted' })).toBe(true);
      expect(await stores.idempotency.abandon('acl-key', first.lease)).toBe(true);
      const second = await stores.idempotency.begin('acl-key', 'sha256:a', {
        leaseSeconds: 30,
        retentionSeconds: 60,
      });
      if (second.state !== 'acquired') throw new Error('expected a lease');
      expect(await stores.idempotency.complete('acl-key', second.lease, { id: 'pay_1' })).toBe(true);
      expect((await stores.idempotency.read('acl-key'))?.result).toEqual({ id: 'pay_1' });
      expect(await stores.idempotency.stale?.({ now: Date.now(), limit: 10 })).toEqual([]);
      const now = Date.now();
      const watched = { provider: 'provider-t', kind: 'payment', id: 'T-1' } as const;
      await stores.reconciliation.watch({
        ...watched,
        status: null,
        reads: 0,
        dueAt: now,
        expiresAt: now + 60_000,
      });
      const [claimed] = await stores.reconciliation.claim('provider-t', { now, limit: 1, leaseSeconds: 30 });
      expect(claimed?.object.id).toBe('T-1');
      expect(await stores.reconciliation.spend('provider-t', { now, reads: 1, perMinute: 10 })).toBe(1);
      expect(await stores.reconciliation.settle(watched, claimed?.lease ?? '', 'final')).toBe(true);
      expect(await stores.reconciliation.backlog('provider-t', now)).toEqual({
        watched: 0,
        due: 0,
        oldestDueAt: null,
      });
      await stores.tokens.set('acl-login', { token: 'acl-token', expiresAt: Date.now() + 60_000 });
      expect((await stores.tokens.get('acl-login'))?.token).toBe('acl-token');
      await stores.tokens.delete('acl-login', 'acl-token');
      const outside = await createRedisStores({ client: restricted.store, keyPrefix: 'other:' })
        .tokens.get('acl-login')
        .catch((failure: unknown) => failure);
      expect(outside).toMatchObject({
        code: 'store_unavailable',
        message: expect.stringContaining('NOPERM'),
      });
    } finally {
      await restricted.close();
    }
  });
});
