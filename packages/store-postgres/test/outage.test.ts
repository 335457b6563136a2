import { inspect } from 'node:util';
import { PayError, StoreError } from '@pay/core';
import { type PostgresServer, startPostgres } from '@pay/tooling/servers/postgres';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStores, type PostgresClient, StoreUnavailableError } from '../src/index.js';

const PASSWORD = 'S3cret-Db-Passw0rd';
const LONG = { leaseSeconds: 60, retentionSeconds: 86_400 };

/** Every way an error reaches a log: none may show the password or the connection string. */
function expectNoCredentials(error: unknown, connectionString: string): void {
  for (const view of [String(error), JSON.stringify(error), inspect(error, { depth: 5 })]) {
    expect(view).not.toContain(PASSWORD);
    expect(view).not.toContain(connectionString);
  }
}

// This file stops its own server, so it starts one for itself instead of the shared one.
describe('when the database goes away mid-test', () => {
  let server: PostgresServer;
  let pool: pg.Pool;
  let holderPool: pg.Pool;
  let connectionString: string;
  beforeAll(async () => {
    server = await startPostgres({ database: 'pay_store_test' });
    connectionString = server.url({ user: 'postgres', password: PASSWORD });
    pool = new pg.Pool({ connectionString, max: 4, connectionTimeoutMillis: 2_000 });
    holderPool = new pg.Pool({ connectionString, max: 1 });
    // pg reports a lost idle connection as an 'error' event on the pool; an application listens for it too.
    pool.on('error', () => {});
    holderPool.on('error', () => {});
    // initdb on a busy machine can take several seconds.
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await pool?.end();
    await holderPool?.end();
  });

  it('rejects every store call, the one in flight included, with a StoreUnavailableError holding no password', async () => {
    const stores = createPostgresStores({ client: pool });
    await stores.migrate();
    const delivery = 'provider-t:T-1001:SETTLED';
    const lease = await stores.deduplication.begin(delivery, { leaseSeconds: 60 });
    if (lease.state !== 'acquired') throw new Error('expected the lease');
    const payment = await stores.idempotency.begin('order-17', 'fingerprint-a', LONG);
    if (payment.state !== 'acquired') throw new Error('expected the lease');

    // A call waiting on a row lock when the server shuts down: it is in flight, not refused up front.
    const holder = await holderPool.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT key FROM pay_idempotency_keys WHERE key = $1 FOR UPDATE', ['order-17']);
    const inFlight = stores.idempotency.begin('order-17', 'fingerprint-a', LONG).catch((e) => e);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // 'immediate' ends every backend at once: a 'fast' stop ends the lock holder first, and on a loaded machine the
    // waiting call could take the freed lock and answer before its own backend was ended.
    await server.stop('immediate');
    holder.release(true);

    const failures = [
      ['idempotency.begin', await inFlight],
      [
        'deduplication.begin',
        await stores.deduplication.begin('another', { leaseSeconds: 60 }).catch((e) => e),
      ],
      [
        'deduplication.complete',
        await stores.deduplication.complete(delivery, lease.lease, 3600).catch((e) => e),
      ],
      ['deduplication.release', await stores.deduplication.release(delivery, lease.lease).catch((e) => e)],
      [
        'idempotency.checkpoint',
        await stores.idempotency.checkpoint('order-17', payment.lease, 'x').catch((e) => e),
      ],
      [
        'idempotency.complete',
        await stores.idempotency.complete('order-17', payment.lease, 'x').catch((e) => e),
      ],
      ['idempotency.read', await stores.idempotency.read('order-17').catch((e) => e)],
      ['tokens.get', await stores.tokens.get('provider-n').catch((e) => e)],
      ['tokens.set', await stores.tokens.set('provider-n', { token: 't', expiresAt: 1 }).catch((e) => e)],
      ['sweep', await stores.sweep().catch((e) => e)],
      ['migrate', await stores.migrate().catch((e) => e)],
    ] as const;
    for (const [operation, failure] of failures) {
      expect(failure, operation).toBeInstanceOf(StoreUnavailableError);
      expect(PayError.isInstance(failure), operation).toBe(true);
      expect(failure, operation).toBeInstanceOf(StoreError);
      expect(failure, operation).toMatchObject({
        name: 'StoreError',
        code: 'store_unavailable',
        context: { store: 'postgres', operation },
      });
      expect(failure.message, operation).toContain('do not move money');
      expectNoCredentials(failure, connectionString);
    }
    // The in-flight call lost its connection; the later ones could not connect.
    expect(failures[1][1].context.driverCode).toBe('ECONNREFUSED');
  });
});

describe('a client adapter whose driver puts the connection string in its error', () => {
  it('reports the failure without the connection string or the password', async () => {
    const connectionString = `postgres://pay_app:${PASSWORD}@db.internal:5432/payments`;
    const leakyClient: PostgresClient = {
      async query() {
        throw Object.assign(
          new Error(`could not connect to ${connectionString} (host=db.internal password=${PASSWORD})`),
          { code: 'ECONNRESET' },
        );
      },
    };
    const stores = createPostgresStores({ client: leakyClient });
    const failure = await stores.tokens.get('provider-n').catch((e) => e);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(failure.context).toEqual({ store: 'postgres', operation: 'tokens.get', driverCode: 'ECONNRESET' });
    expect(failure.message).toContain('could not connect to postgres://[REDACTED]@db.internal:5432/payments');
    expectNoCredentials(failure, connectionString);
  });
});

describe('a database that hangs (SIGSTOP), with the pool configured as the README says', () => {
  let server: PostgresServer;
  let pool: pg.Pool;
  beforeAll(async () => {
    server = await startPostgres({ database: 'pay_store_hang' });
    // Exactly the README's setup: the server-side statement_timeout cannot fire on a frozen server.
    pool = new pg.Pool({
      connectionString: server.url(),
      connectionTimeoutMillis: 5_000,
      statement_timeout: 5_000,
    });
    pool.on('error', () => {});
  }, 60_000);
  afterEach(() => server?.thaw());
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  it('fails every store call with StoreError within the default 5 s deadline, and works again once it answers', async () => {
    const stores = createPostgresStores({ client: pool });
    await stores.migrate();
    const lease = await stores.deduplication.begin('provider-t:T-2001:SETTLED', { leaseSeconds: 60 });
    const payment = await stores.idempotency.begin('order-2001', 'fingerprint-a', LONG);
    if (lease.state !== 'acquired' || payment.state !== 'acquired') throw new Error('expected the leases');

    server.freeze();
    const started = Date.now();
    const calls = {
      'deduplication.begin': stores.deduplication.begin('provider-t:T-2002:SETTLED', { leaseSeconds: 60 }),
      'deduplication.complete': stores.deduplication.complete('provider-t:T-2001:SETTLED', lease.lease, 60),
      'idempotency.begin': stores.idempotency.begin('order-2002', 'fingerprint-b', LONG),
      'idempotency.checkpoint': stores.idempotency.checkpoint('order-2001', payment.lease, {
        step: 'quoted',
      }),
      'idempotency.read': stores.idempotency.read('order-2001'),
      'tokens.get': stores.tokens.get('provider-n'),
      'idempotency.stale': stores.idempotency.stale?.({ now: Date.now(), limit: 10 }) ?? Promise.resolve(),
      'reconciliation.claim': stores.reconciliation.claim('provider-t', {
        now: Date.now(),
        limit: 10,
        leaseSeconds: 30,
      }),
      'reconciliation.spend': stores.reconciliation.spend('provider-t', {
        now: Date.now(),
        reads: 1,
        perMinute: 60,
      }),
      sweep: stores.sweep(),
    };
    const failures = await Promise.all(
      Object.entries(calls).map(
        async ([operation, call]) => [operation, await call.catch((e) => e)] as const,
      ),
    );
    const waited = Date.now() - started;

    for (const [operation, failure] of failures) {
      expect(failure, operation).toBeInstanceOf(StoreError);
      expect(failure, operation).toMatchObject({
        name: 'StoreError',
        code: 'store_unavailable',
        context: { store: 'postgres', operation, driverCode: undefined },
      });
      expect(failure.message, operation).toContain('no answer within 5000 ms');
      expect(failure.message, operation).toContain('do not move money');
    }
    expect(waited).toBeGreaterThanOrEqual(4_900);
    expect(waited).toBeLessThan(8_000);

    server.thaw();
    expect(await stores.idempotency.begin('order-2003', 'fingerprint-c', LONG)).toMatchObject({
      state: 'acquired',
    });
  }, 30_000);
});

describe('queryTimeoutMs: the deadline of every store call', () => {
  const silent: PostgresClient = { query: () => new Promise(() => {}) };

  it('fails a call the client never answers with StoreError after queryTimeoutMs, migrate() included', async () => {
    const stores = createPostgresStores({ client: silent, queryTimeoutMs: 50 });
    const failures = [
      ['tokens.set', await stores.tokens.set('provider-n', { token: 't', expiresAt: 1 }).catch((e) => e)],
      ['migrate', await stores.migrate().catch((e) => e)],
    ] as const;
    for (const [operation, failure] of failures) {
      expect(failure, operation).toBeInstanceOf(StoreError);
      expect(failure.context, operation).toEqual({ store: 'postgres', operation, driverCode: undefined });
      expect(failure.message, operation).toContain(
        `could not complete ${operation} (no code: no answer within 50 ms (is the server up and reachable?))`,
      );
    }
  });

  it('refuses a deadline that is not a positive number of milliseconds when the store is created', () => {
    for (const queryTimeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5000' as unknown as number]) {
      expect(() => createPostgresStores({ client: silent, queryTimeoutMs }), String(queryTimeoutMs)).toThrow(
        RangeError,
      );
    }
    expect(() => createPostgresStores({ client: silent, queryTimeoutMs: 0 })).toThrow(
      'queryTimeoutMs must be a positive number of milliseconds, got 0.',
    );
  });
});
