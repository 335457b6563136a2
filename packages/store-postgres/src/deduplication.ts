import type { DeduplicationStore } from '@pay/core';
import { seconds, statementRunner } from './client.js';
import { type PostgresStoreOptions, storeTables } from './schema.js';

/**
 * The {@link DeduplicationStore} on `<prefix>webhook_deliveries`. Each call is one statement, and the database's
 * clock alone decides when a lease or a done mark expires, so instances with drifting clocks still agree.
 */
export function createPostgresDeduplicationStore(options: PostgresStoreOptions): DeduplicationStore {
  const table = storeTables(options).deliveries;
  const runStatement = statementRunner(options);
  // `begin` always lands on the key's row: a new key is inserted; an existing one is locked and taken over only
  // when it expired (every column keeps its value otherwise). RETURNING shows the row as this statement left it,
  // so the answer and the write are one atomic step, and of any number of concurrent calls exactly one gets
  // back the lease it proposed.
  const beginSql = `INSERT INTO ${table} AS delivery (key, state, lease, expires_at)
VALUES ($1, 'leased', $2, now() + make_interval(secs => $3))
ON CONFLICT (key) DO UPDATE SET
  state = CASE WHEN delivery.expires_at <= now() THEN 'leased' ELSE delivery.state END,
  lease = CASE WHEN delivery.expires_at <= now() THEN excluded.lease ELSE delivery.lease END,
  expires_at = CASE WHEN delivery.expires_at <= now() THEN excluded.expires_at ELSE delivery.expires_at END
RETURNING state, lease`;
  const completeSql = `UPDATE ${table}
SET state = 'done', lease = NULL, expires_at = now() + make_interval(secs => $3)
WHERE key = $1 AND state = 'leased' AND lease = $2`;
  const releaseSql = `DELETE FROM ${table} WHERE key = $1 AND state = 'leased' AND lease = $2`;

  return {
    async begin(key, { leaseSeconds }) {
      const lease = crypto.randomUUID();
      const { rows } = await runStatement('deduplication.begin', beginSql, [
        key,
        lease,
        seconds('leaseSeconds', leaseSeconds),
      ]);
      const row = rows[0];
      if (row?.lease === lease) return { state: 'acquired', lease };
      return row?.state === 'done' ? { state: 'done' } : { state: 'in_progress' };
    },
    async complete(key, lease, ttlSeconds) {
      await runStatement('deduplication.complete', completeSql, [
        key,
        lease,
        seconds('ttlSeconds', ttlSeconds),
      ]);
    },
    async release(key, lease) {
      await runStatement('deduplication.release', releaseSql, [key, lease]);
    },
  };
}
