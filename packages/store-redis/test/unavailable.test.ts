import { inspect } from 'node:util';
import { PayError, StoreError } from '@pay/core';
import { type RedisServer, startRedis } from '@pay/tooling/servers/redis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisStores, StoreUnavailableError } from '../src/index.js';
import { CLIENT_KINDS, connect, type TestClient } from './clients.js';

const DAY = 24 * 60 * 60;

/** Every way an error can reach a log: message, stack, JSON, util.inspect. */
function everyRendering(error: unknown): string {
  return [String(error), (error as Error).stack, JSON.stringify(error), inspect(error, { depth: 10 })].join(
    '\n',
  );
}

describe.each(CLIENT_KINDS)('a Redis store that stops answering, over %s', (kind) => {
  const started: RedisServer[] = [];
  const opened: TestClient[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((client) => client.close()));
    await Promise.all(started.splice(0).map((server) => server.stop()));
  });
  const password = `pw-${crypto.randomUUID()}`;
  async function passwordProtectedStores(
    options: { disableOfflineQueue?: boolean; commandTimeoutMs?: number } = {},
  ) {
    const server = await startRedis({ password });
    started.push(server);
    const client = await connect(kind, server.url, options);
    opened.push(client);
    const commandTimeoutMs = options.commandTimeoutMs ?? 400;
    return { server, stores: createRedisStores({ client: client.store, commandTimeoutMs }) };
  }

  it('fails every call with a typed store_unavailable error once the server is stopped, never showing the password or a token', async () => {
    const { server, stores } = await passwordProtectedStores();
    const lease = await stores.deduplication.begin('delivery-1', { leaseSeconds: 30 });
    expect(lease.state).toBe('acquired');
    const leaseToken = lease.state === 'acquired' ? lease.lease : '';
    const accessToken = `access-${crypto.randomUUID()}`;
    await server.stop();

    const calls = {
      'deduplication.begin': () => stores.deduplication.begin('delivery-2', { leaseSeconds: 30 }),
      'deduplication.complete': () => stores.deduplication.complete('delivery-1', leaseToken, 60),
      'idempotency.begin': () =>
        stores.idempotency.begin('order-1042', 'sha256:abc', { leaseSeconds: 30, retentionSeconds: DAY }),
      'idempotency.read': () => stores.idempotency.read('order-1042'),
      'tokens.set': () =>
        stores.tokens.set('provider-n:login', { token: accessToken, expiresAt: Date.now() + 1e6 }),
      'tokens.delete': () => stores.tokens.delete('provider-n:login', accessToken),
      'idempotency.stale': async () => stores.idempotency.stale?.({ now: Date.now(), limit: 10 }),
      'reconciliation.claim': () =>
        stores.reconciliation.claim('provider-t', { now: Date.now(), limit: 10, leaseSeconds: 30 }),
      'reconciliation.settle': () =>
        stores.reconciliation.settle(
          { provider: 'provider-t', kind: 'payment', id: 'T-1' },
          leaseToken,
          'final',
        ),
      'reconciliation.spend': () =>
        stores.reconciliation.spend('provider-t', { now: Date.now(), reads: 1, perMinute: 60 }),
    };
    for (const [operation, call] of Object.entries(calls)) {
      const error = await call().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error, operation).toBeInstanceOf(StoreUnavailableError);
      expect(PayError.isInstance(error)).toBe(true);
      expect(StoreUnavailableError.isInstance(error)).toBe(true);
      expect(error, operation).toBeInstanceOf(StoreError);
      expect(error, operation).toMatchObject({
        name: 'StoreError',
        code: 'store_unavailable',
        reason: 'unavailable',
        context: { store: 'redis', operation },
        message: expect.stringContaining(`The Redis store could not complete ${operation}:`),
      });
      expect((error as Error).message).toContain('do not move money or dispatch the webhook');
      expect((error as Error).cause).toBeUndefined();
      const shown = everyRendering(error);
      expect(shown).not.toContain(password);
      expect(shown).not.toContain(accessToken);
      expect(shown).not.toContain(leaseToken);
    }
  });

  it('fails a call on a hung server with store_unavailable after the command timeout', async () => {
    const { server, stores } = await passwordProtectedStores();
    expect(
      (await stores.idempotency.begin('order-7', 'sha256:a', { leaseSeconds: 30, retentionSeconds: DAY }))
        .state,
    ).toBe('acquired');
    server.freeze();
    const started = Date.now();
    const error = await stores.idempotency
      .begin('order-8', 'sha256:a', { leaseSeconds: 30, retentionSeconds: DAY })
      .catch((failure: unknown) => failure);
    const waited = Date.now() - started;
    server.thaw();
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({
      code: 'store_unavailable',
      context: { store: 'redis', operation: 'idempotency.begin' },
      message: expect.stringContaining(
        'idempotency.begin: Error: no answer within 400 ms (is the server up and reachable?).',
      ),
    });
    expect(waited).toBeGreaterThanOrEqual(390);
    expect(waited).toBeLessThan(5000);
  });

  it('fails at once, without waiting for the timeout, with a client that does not queue commands while offline', async () => {
    const { server, stores } = await passwordProtectedStores({
      disableOfflineQueue: true,
      commandTimeoutMs: 10_000,
    });
    expect(await stores.tokens.get('provider-t:login')).toBeNull();
    await server.stop();
    // Let the client notice the closed connection.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    const error = await stores.tokens.get('provider-t:login').catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({
      code: 'store_unavailable',
      context: { store: 'redis', operation: 'tokens.get' },
    });
    expect((error as StoreUnavailableError).message).not.toContain('no answer within');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(everyRendering(error)).not.toContain(password);
  });
});
