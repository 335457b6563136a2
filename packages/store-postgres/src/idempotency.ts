import type { IdempotencyEntry, IdempotencyStore, JsonValue } from '@pay/core';
import { count, epoch, seconds, statementRunner } from './client.js';
import { type PostgresStoreOptions, storeTables } from './schema.js';

/** A jsonb column read as text (so any client returns the same thing), back to its JSON value. */
function jsonColumn(value: unknown): JsonValue | null {
  return value === null || value === undefined ? null : (JSON.parse(String(value)) as JsonValue);
}

/**
 * The {@link IdempotencyStore} on `<prefix>idempotency_keys`. Each call is one statement; the database's clock
 * decides lease and retention expiry. A write after `begin` matches the key's row only while it is in progress,
 * still held under `lease` and the lease has not run out, so it resolves `false` (and changes nothing) for an
 * attempt that lost its lease.
 */
export function createPostgresIdempotencyStore(options: PostgresStoreOptions): IdempotencyStore {
  const table = storeTables(options).idempotencyKeys;
  const runStatement = statementRunner(options);
  // An entry past its retention is forgotten: the key starts afresh with the new request.
  const forgotten = 'entry.expires_at <= now()';
  // The key can be leased: forgotten, or the same request whose earlier lease ran out (a crash, an abandon).
  const free = `(${forgotten} OR (entry.state = 'in_progress' AND entry.fingerprint = excluded.fingerprint AND entry.lease_expires_at <= now()))`;
  // As for deliveries, `begin` always lands on the key's row and RETURNING reports it as this statement left it:
  // the caller acquired the key exactly when the returned lease is the one it proposed.
  const beginSql = `INSERT INTO ${table} AS entry
  (key, fingerprint, state, lease, lease_expires_at, recovery_point, result, expires_at)
VALUES ($1, $2, 'in_progress', $3, now() + make_interval(secs => $4), NULL, NULL, now() + make_interval(secs => $5))
ON CONFLICT (key) DO UPDATE SET
  fingerprint = CASE WHEN ${forgotten} THEN excluded.fingerprint ELSE entry.fingerprint END,
  recovery_point = CASE WHEN ${forgotten} THEN NULL ELSE entry.recovery_point END,
  result = CASE WHEN ${forgotten} THEN NULL ELSE entry.result END,
  expires_at = CASE WHEN ${forgotten} THEN excluded.expires_at ELSE entry.expires_at END,
  state = CASE WHEN ${free} THEN 'in_progress' ELSE entry.state END,
  lease = CASE WHEN ${free} THEN excluded.lease ELSE entry.lease END,
  lease_expires_at = CASE WHEN ${free} THEN excluded.lease_expires_at ELSE entry.lease_expires_at END
RETURNING fingerprint, state, lease, recovery_point::text AS recovery_point, result::text AS result`;
  const held = `key = $1 AND state = 'in_progress' AND lease = $2 AND lease_expires_at > now() AND expires_at > now()`;
  const checkpointSql = `UPDATE ${table} SET recovery_point = $3::jsonb WHERE ${held}`;
  const renewSql = `UPDATE ${table} SET lease_expires_at = now() + make_interval(secs => $3) WHERE ${held}`;
  const completeSql = `UPDATE ${table}
SET state = 'completed', result = $3::jsonb, lease = NULL, lease_expires_at = NULL WHERE ${held}`;
  const releaseSql = `DELETE FROM ${table} WHERE ${held}`;
  // The lease ends now but the row and its recovery point stay: the next `begin` resumes at once.
  const abandonSql = `UPDATE ${table} SET lease = NULL, lease_expires_at = now() WHERE ${held}`;
  const entryColumns = `key, fingerprint, state, recovery_point::text AS recovery_point, result::text AS result,
  (extract(epoch FROM expires_at) * 1000)::float8 AS expires_at_ms`;
  const readSql = `SELECT ${entryColumns} FROM ${table} WHERE key = $1 AND expires_at > now()`;
  // An abandoned entry has no lease (its lease_expires_at is the database's now() at the abandon): listed
  // whatever the skew between the caller's clock and the database's.
  const staleSql = `SELECT ${entryColumns} FROM ${table}
WHERE state = 'in_progress' AND (lease IS NULL OR lease_expires_at <= to_timestamp($1::float8 / 1000))
  AND expires_at > to_timestamp($1::float8 / 1000)
ORDER BY expires_at, key LIMIT $2`;

  /** Runs a lease-guarded write; true when it matched the held row. */
  const write = async (operation: string, sql: string, values: unknown[]) =>
    (await runStatement(operation, sql, values)).rowCount === 1;

  return {
    async begin(key, fingerprint, { leaseSeconds, retentionSeconds }) {
      const lease = crypto.randomUUID();
      const { rows } = await runStatement('idempotency.begin', beginSql, [
        key,
        fingerprint,
        lease,
        seconds('leaseSeconds', leaseSeconds),
        seconds('retentionSeconds', retentionSeconds),
      ]);
      const row = rows[0] ?? {};
      if (row.lease === lease) {
        return { state: 'acquired', lease, recoveryPoint: jsonColumn(row.recovery_point) };
      }
      if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
      if (row.state === 'completed') return { state: 'completed', result: jsonColumn(row.result) };
      return { state: 'in_progress' };
    },
    checkpoint: (key, lease, recoveryPoint) =>
      write('idempotency.checkpoint', checkpointSql, [key, lease, JSON.stringify(recoveryPoint)]),
    renew: (key, lease, leaseSeconds) =>
      write('idempotency.renew', renewSql, [key, lease, seconds('leaseSeconds', leaseSeconds)]),
    complete: (key, lease, result) =>
      write('idempotency.complete', completeSql, [key, lease, JSON.stringify(result)]),
    release: (key, lease) => write('idempotency.release', releaseSql, [key, lease]),
    abandon: (key, lease) => write('idempotency.abandon', abandonSql, [key, lease]),
    async read(key) {
      const { rows } = await runStatement('idempotency.read', readSql, [key]);
      const row = rows[0];
      return row === undefined ? null : ledgerEntry(row);
    },
    async stale({ now, limit }) {
      epoch('now', now);
      if (count('limit', limit) === 0) return [];
      const { rows } = await runStatement('idempotency.stale', staleSql, [now, limit]);
      return rows.map(ledgerEntry);
    },
  };
}

/** A row of {@link createPostgresIdempotencyStore}'s entry columns as the contract's entry. */
function ledgerEntry(row: Record<string, unknown>): IdempotencyEntry {
  return {
    key: String(row.key),
    fingerprint: String(row.fingerprint),
    state: row.state === 'completed' ? 'completed' : 'in_progress',
    recoveryPoint: jsonColumn(row.recovery_point),
    result: jsonColumn(row.result),
    expiresAt: Math.round(Number(row.expires_at_ms)),
  };
}
