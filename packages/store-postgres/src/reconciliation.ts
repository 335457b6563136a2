import type { ClaimedObject, ReconciliationStore, WatchedObject } from '@pay/core';
import { checked, count, epoch, seconds, statementRunner } from './client.js';
import { type PostgresStoreOptions, storeTables } from './schema.js';

/** A parameter holding epoch milliseconds, as a `timestamptz`. */
const at = (parameter: number) => `to_timestamp($${parameter}::float8 / 1000)`;
/** A `timestamptz` column read back as epoch milliseconds (a number every client parses the same way). */
const epochMs = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;
/** The largest read budget a minute's counter holds (an `integer` column). */
const MAX_READS = 2_147_483_647;

/**
 * The reconciler's {@link ReconciliationStore} on `<prefix>reconciliation` (the watch list) and
 * `<prefix>reconciliation_reads` (the read budget per provider and minute). Each call is one statement. Times are
 * the epoch milliseconds the reconciler passes (`now`, `dueAt`, `expiresAt`), so the watch list follows the
 * reconciler's clock; `watch` judges expiry by this process's clock, as core's in-memory store does.
 *
 * `claim` leases due rows with `FOR UPDATE SKIP LOCKED`: concurrent claims on any number of instances skip the
 * rows another claim is taking instead of waiting for them, so no object is leased twice and no claim blocks.
 * Expired rows are never claimed nor counted; `sweep()` deletes them (docs/architecture.md#reconciliation).
 */
export function createPostgresReconciliationStore(options: PostgresStoreOptions): ReconciliationStore {
  const tables = storeTables(options);
  const runStatement = statementRunner(options);
  const table = tables.reconciliation;
  const columns = `watched.provider, watched.kind, watched.id, watched.status, watched.reads,
  ${epochMs('watched.due_at')} AS due_at_ms, ${epochMs('watched.expires_at')} AS expires_at_ms`;
  // A row already watched is left as it is (the object's backoff and last status survive a second watch), unless
  // it expired: then the object is watched afresh, as if the expired row had already been swept.
  const watchSql = `INSERT INTO ${table} AS watched (provider, kind, id, status, reads, due_at, expires_at)
VALUES ($1, $2, $3, $4, $5, ${at(6)}, ${at(7)})
ON CONFLICT (provider, kind, id) DO UPDATE SET
  status = excluded.status, reads = excluded.reads, due_at = excluded.due_at, expires_at = excluded.expires_at,
  lease = NULL, lease_until = NULL
WHERE watched.expires_at <= ${at(8)}`;
  // SKIP LOCKED: a row another claim has selected is skipped, not waited for. A row another claim leased and
  // committed after this statement's snapshot is re-checked under its lock (its lease_until is then in the
  // future), so it is left out too.
  const claimSql = `WITH due AS (
  SELECT provider, kind, id FROM ${table}
  WHERE provider = $1 AND due_at <= ${at(2)} AND expires_at > ${at(2)}
    AND (lease_until IS NULL OR lease_until <= ${at(2)})
  ORDER BY due_at
  LIMIT $3
  FOR UPDATE SKIP LOCKED
)
UPDATE ${table} AS watched SET lease = $4, lease_until = ${at(5)}
FROM due WHERE watched.provider = due.provider AND watched.kind = due.kind AND watched.id = due.id
RETURNING ${columns}`;
  const ownedBy = 'provider = $1 AND kind = $2 AND id = $3 AND lease = $4';
  const settleSql = `UPDATE ${table}
SET status = $5, reads = $6, due_at = ${at(7)}, lease = NULL, lease_until = NULL WHERE ${ownedBy}`;
  const finalSql = `DELETE FROM ${table} WHERE ${ownedBy}`;
  // Whoever holds the lease: a webhook's status is recorded at once; the lease holder's settle may follow it.
  const announceSql = `UPDATE ${table} SET status = $4 WHERE provider = $1 AND kind = ANY($2::text[]) AND id = $3`;
  // Every SET expression reads the row as it was before this statement, and the row lock orders concurrent
  // spenders: each grant is taken from what the previous one left.
  const spendSql = `INSERT INTO ${tables.reconciliationReads} AS budget (provider, minute, reads, granted)
VALUES ($1, $2, LEAST($3::integer, $4::integer), LEAST($3::integer, $4::integer))
ON CONFLICT (provider, minute) DO UPDATE SET
  granted = GREATEST(0, LEAST($3::integer, $4::integer - budget.reads)),
  reads = budget.reads + GREATEST(0, LEAST($3::integer, $4::integer - budget.reads))
RETURNING granted`;
  const backlogSql = `SELECT count(*)::integer AS watched,
  (count(*) FILTER (WHERE due_at <= ${at(2)}))::integer AS due,
  ${epochMs(`min(due_at) FILTER (WHERE due_at <= ${at(2)})`)} AS oldest_due_at_ms
FROM ${table} WHERE provider = $1 AND expires_at > ${at(2)}`;

  return {
    async watch(object) {
      await runStatement('reconciliation.watch', watchSql, [
        object.provider,
        object.kind,
        object.id,
        object.status,
        count('reads', object.reads),
        epoch('dueAt', object.dueAt),
        epoch('expiresAt', object.expiresAt),
        Date.now(),
      ]);
    },
    async claim(provider, { now, limit, leaseSeconds }) {
      const leaseMs = seconds('leaseSeconds', leaseSeconds) * 1000;
      if (count('limit', limit) === 0) return [];
      const lease = crypto.randomUUID();
      const { rows } = await runStatement('reconciliation.claim', claimSql, [
        provider,
        epoch('now', now),
        limit,
        lease,
        now + leaseMs,
      ]);
      const claimed: ClaimedObject[] = rows.map((row) => ({
        object: {
          provider: String(row.provider),
          kind: String(row.kind) as WatchedObject['kind'],
          id: String(row.id),
          status: row.status === null || row.status === undefined ? null : String(row.status),
          reads: Number(row.reads),
          dueAt: Math.round(Number(row.due_at_ms)),
          expiresAt: Math.round(Number(row.expires_at_ms)),
        },
        lease,
      }));
      // RETURNING has no order of its own.
      return claimed.sort((a, b) => a.object.dueAt - b.object.dueAt);
    },
    async settle({ provider, kind, id }, lease, next) {
      const owner = [provider, kind, id, lease];
      const { rowCount } =
        next === 'final'
          ? await runStatement('reconciliation.settle', finalSql, owner)
          : await runStatement('reconciliation.settle', settleSql, [
              ...owner,
              next.status,
              count('reads', next.reads),
              epoch('dueAt', next.dueAt),
            ]);
      return rowCount === 1;
    },
    async announce(provider, kinds, id, status) {
      await runStatement('reconciliation.announce', announceSql, [provider, [...kinds], id, status]);
    },
    async spend(provider, { now, reads, perMinute }) {
      if (count('reads', reads) === 0) return 0;
      checked('perMinute', perMinute, !Number.isNaN(perMinute), 'a number of reads');
      const budget = Math.min(MAX_READS, Math.max(0, Math.floor(perMinute)));
      const { rows } = await runStatement('reconciliation.spend', spendSql, [
        provider,
        Math.floor(epoch('now', now) / 60_000),
        Math.min(reads, MAX_READS),
        budget,
      ]);
      return Number(rows[0]?.granted ?? 0);
    },
    async backlog(provider, now) {
      const { rows } = await runStatement('reconciliation.backlog', backlogSql, [
        provider,
        epoch('now', now),
      ]);
      const row = rows[0] ?? {};
      const oldest = row.oldest_due_at_ms;
      return {
        watched: Number(row.watched ?? 0),
        due: Number(row.due ?? 0),
        oldestDueAt: oldest === null || oldest === undefined ? null : Math.round(Number(oldest)),
      };
    },
  };
}
