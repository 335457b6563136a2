import { readFileSync } from 'node:fs';
import { PayError } from '@pay/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPostgresStores, migrate, postgresSchema, StoreUnavailableError } from '../src/index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const freshKey = (what: string) => `${what}:${crypto.randomUUID()}`;
const suffix = () => crypto.randomUUID().slice(0, 8);
const LONG = { leaseSeconds: 60, retentionSeconds: 86_400 };

const pool = new pg.Pool({ connectionString: inject('postgresUrl'), max: 10 });
afterAll(() => pool.end());

describe('schema and migration', () => {
  it('ships sql/schema.sql as exactly the schema migrate() applies with the default names', () => {
    const shipped = readFileSync(new URL('../sql/schema.sql', import.meta.url), 'utf8');
    expect(shipped).toBe(postgresSchema());
  });

  it('creates every table once, records schema version 1, and lets many instances migrate at once', async () => {
    const schema = `migrate_${suffix()}`;
    const instances = Array.from(
      { length: 8 },
      () => new pg.Pool({ connectionString: inject('postgresUrl'), max: 1 }),
    );
    try {
      await Promise.all(instances.map((instance) => migrate(instance, { schema })));
      await migrate(pool, { schema });
      const { rows: tables } = await pool.query(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
        [schema],
      );
      expect(tables.map((row) => row.table_name)).toEqual([
        'pay_idempotency_keys',
        'pay_reconciliation',
        'pay_reconciliation_reads',
        'pay_schema_version',
        'pay_tokens',
        'pay_webhook_deliveries',
      ]);
      const { rows: versions } = await pool.query(
        `SELECT version FROM "${schema}".pay_schema_version ORDER BY version`,
      );
      expect(versions).toEqual([{ version: 1 }, { version: 2 }]);
    } finally {
      await Promise.all(instances.map((instance) => instance.end()));
    }
  });

  it('keeps stores with another table prefix or schema apart', async () => {
    const tenantA = createPostgresStores({ client: pool, tablePrefix: `tenant_${suffix()}_` });
    const tenantB = createPostgresStores({ client: pool, schema: `tenant_${suffix()}` });
    await tenantA.migrate();
    await tenantB.migrate();
    const key = freshKey('delivery');
    expect((await tenantA.deduplication.begin(key, { leaseSeconds: 60 })).state).toBe('acquired');
    expect((await tenantB.deduplication.begin(key, { leaseSeconds: 60 })).state).toBe('acquired');
    await tenantA.tokens.set('provider-n', { token: 'tenant-a-token', expiresAt: Date.now() + 60_000 });
    expect(await tenantB.tokens.get('provider-n')).toBeNull();
  });

  it('refuses a table prefix or schema that is not a plain lower-case identifier, before any query', () => {
    for (const tablePrefix of ['pay; DROP TABLE pay_tokens; --', 'Pay_', '1pay_', 'pay-', 'p'.repeat(37)]) {
      expect(() => createPostgresStores({ client: pool, tablePrefix })).toThrow(RangeError);
    }
    for (const schema of ['"public"', 'Billing', '', 'a.b']) {
      expect(() => createPostgresStores({ client: pool, schema })).toThrow(RangeError);
    }
    expect(() => createPostgresStores({ client: pool, tablePrefix: '', schema: 'billing' })).not.toThrow();
  });
});

describe('PostgreSQL stores', () => {
  const prefix = `store_${suffix()}_`;
  const stores = createPostgresStores({ client: pool, tablePrefix: prefix });
  beforeAll(() => stores.migrate());

  it('leases a key to exactly one of two instances racing on it with their own connection pools', async () => {
    const other = new pg.Pool({ connectionString: inject('postgresUrl'), max: 5 });
    try {
      const otherInstance = createPostgresStores({ client: other, tablePrefix: prefix });
      const delivery = freshKey('delivery');
      const payment = freshKey('payment');
      const instances = Array.from({ length: 25 }, (_, index) => (index % 2 === 0 ? stores : otherInstance));
      const deliveries = await Promise.all(
        instances.map((instance) => instance.deduplication.begin(delivery, { leaseSeconds: 60 })),
      );
      const payments = await Promise.all(
        instances.map((instance) => instance.idempotency.begin(payment, 'fingerprint-a', LONG)),
      );
      expect(deliveries.filter((answer) => answer.state === 'acquired')).toHaveLength(1);
      expect(payments.filter((answer) => answer.state === 'acquired')).toHaveLength(1);
    } finally {
      await other.end();
    }
  });

  it('refuses a lease or retention that is not a positive number of seconds', async () => {
    await expect(stores.deduplication.begin(freshKey('delivery'), { leaseSeconds: 0 })).rejects.toThrow(
      RangeError,
    );
    await expect(
      stores.idempotency.begin(freshKey('payment'), 'fingerprint-a', {
        leaseSeconds: 60,
        retentionSeconds: -1,
      }),
    ).rejects.toThrow(RangeError);
    await expect(
      stores.idempotency.begin(freshKey('payment'), 'fingerprint-a', {
        leaseSeconds: Number.NaN,
        retentionSeconds: 60,
      }),
    ).rejects.toThrow(RangeError);
  });

  it('keeps a token’s expiry to the millisecond', async () => {
    const name = freshKey('provider-t');
    const expiresAt = Date.UTC(2030, 0, 2, 3, 4, 5, 678);
    await stores.tokens.set(name, { token: 'token-ms', expiresAt });
    expect(await stores.tokens.get(name)).toEqual({ token: 'token-ms', expiresAt });
  });
});

describe('sweep', () => {
  const prefix = `sweep_${suffix()}_`;
  const stores = createPostgresStores({ client: pool, tablePrefix: prefix });
  beforeAll(() => stores.migrate());

  async function rowCount(table: string): Promise<number> {
    const { rows } = await pool.query(`SELECT count(*)::int AS count FROM ${prefix}${table}`);
    return rows[0].count;
  }

  it('deletes only the rows whose time is up, and says how many from each table', async () => {
    const done = freshKey('delivery');
    const doneLease = await stores.deduplication.begin(done, { leaseSeconds: 60 });
    if (doneLease.state !== 'acquired') throw new Error('expected the lease');
    await stores.deduplication.complete(done, doneLease.lease, 0.2);
    await stores.deduplication.begin(freshKey('crashed-delivery'), { leaseSeconds: 0.2 });
    await stores.deduplication.begin(freshKey('running-delivery'), { leaseSeconds: 60 });
    await stores.idempotency.begin(freshKey('payment'), 'fingerprint-a', {
      leaseSeconds: 0.2,
      retentionSeconds: 0.2,
    });
    await stores.idempotency.begin(freshKey('payment'), 'fingerprint-a', {
      leaseSeconds: 0.2,
      retentionSeconds: 60,
    });
    await stores.tokens.set(freshKey('provider-n'), { token: 'expired', expiresAt: Date.now() + 200 });
    await stores.tokens.set(freshKey('provider-n'), { token: 'live', expiresAt: Date.now() + 60_000 });
    const watched = { provider: 'provider-t', kind: 'payment' as const, status: null, reads: 0, dueAt: 0 };
    await stores.reconciliation.watch({ ...watched, id: 'T-1', expiresAt: Date.now() + 200 });
    await stores.reconciliation.watch({ ...watched, id: 'T-2', expiresAt: Date.now() + 60_000 });
    for (const now of [Date.now() - 600_000, Date.now()]) {
      await stores.reconciliation.spend('provider-t', { now, reads: 1, perMinute: 10 });
    }
    await sleep(400);

    expect(await stores.sweep()).toEqual({
      deliveries: 2,
      idempotencyKeys: 1,
      tokens: 1,
      watchedObjects: 1,
      readBudgets: 1,
    });
    expect(await rowCount('webhook_deliveries')).toBe(1);
    // A ledger entry whose lease ran out is kept for its retention: its recovery point is still needed.
    expect(await rowCount('idempotency_keys')).toBe(1);
    expect(await rowCount('tokens')).toBe(1);
    expect(await rowCount('reconciliation')).toBe(1);
    // This minute's budget stays (and the previous minute's: an instance whose clock runs behind may spend it).
    expect(await rowCount('reconciliation_reads')).toBe(1);
    expect(await stores.sweep()).toEqual({
      deliveries: 0,
      idempotencyKeys: 0,
      tokens: 0,
      watchedObjects: 0,
      readBudgets: 0,
    });
  });
});

describe('store failures are typed', () => {
  it('says to run migrate() when the tables are missing', async () => {
    const stores = createPostgresStores({ client: pool, tablePrefix: `never_migrated_${suffix()}_` });
    const failure = await stores.idempotency
      .begin(freshKey('payment'), 'fingerprint-a', LONG)
      .catch((e) => e);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(PayError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({
      code: 'store_unavailable',
      context: { store: 'postgres', operation: 'idempotency.begin', driverCode: '42P01' },
    });
    expect(failure.message).toContain('run `migrate()`');
  });

  it('turns a statement timeout (a key locked too long) into a StoreUnavailableError', async () => {
    const prefix = `timeout_${suffix()}_`;
    const stores = createPostgresStores({ client: pool, tablePrefix: prefix });
    await stores.migrate();
    const key = freshKey('delivery');
    await stores.deduplication.begin(key, { leaseSeconds: 60 });
    const impatient = new pg.Pool({
      connectionString: inject('postgresUrl'),
      max: 1,
      statement_timeout: 300,
    });
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT key FROM ${prefix}webhook_deliveries WHERE key = $1 FOR UPDATE`, [key]);
      const impatientStores = createPostgresStores({ client: impatient, tablePrefix: prefix });
      const failure = await impatientStores.deduplication.begin(key, { leaseSeconds: 60 }).catch((e) => e);
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect(failure.context).toEqual({
        store: 'postgres',
        operation: 'deduplication.begin',
        driverCode: '57014',
      });
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
      await impatient.end();
    }
  });
});
