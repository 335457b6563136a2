import { inspect } from 'node:util';
import { PayError, StoreError } from '@pay/core';
import { type PostgresServer, startPostgres } from '@pay/tooling/servers/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
