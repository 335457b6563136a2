import type { DeduplicationStore, IdempotencyStore, ReconciliationStore, TokenStore } from '@pay/core';
import { statementRunner } from './client.js';
import { createPostgresDeduplicationStore } from './deduplication.js';
import { createPostgresIdempotencyStore } from './idempotency.js';
import { createPostgresReconciliationStore } from './reconciliation.js';
import { migrate, type PostgresStoreOptions, storeTables } from './schema.js';
import { createPostgresTokenStore } from './tokens.js';

/** How many expired rows {@link PostgresStores.sweep} deleted from each table. */
export interface SweepResult {
  deliveries: number;
  idempotencyKeys: number;
  tokens: number;
  /** Watched objects past their `expiresAt`. */
  watchedObjects: number;
  /** Read budgets of minutes that ended. */
  readBudgets: number;
}

/** The four stores on one PostgreSQL database, with the schema migration and the sweeper of expired rows. */
export interface PostgresStores {
  /** Webhook deliveries: one lease per delivery key, shared by every instance. */
  deduplication: DeduplicationStore;
  /** The idempotency ledger of money-moving calls. */
  idempotency: IdempotencyStore;
  /** The shared cache of provider access tokens. */
  tokens: TokenStore;
  /** The reconciler's watch list and read budget, shared by every instance (docs/architecture.md#reconciliation). */
  reconciliation: ReconciliationStore;
  /** Creates the tables when they are missing (idempotent; see {@link migrate}). */
  migrate(): Promise<void>;
  /**
   * Deletes the rows whose time is up: delivery keys past their lease or done mark, ledger entries past their
   * retention, expired tokens, watched objects past their expiry and the read budgets of past minutes. Expired
   * rows are already treated as absent (and reclaimed in place by the next call on their key); sweeping only
   * keeps the tables small. Run it now and then (every few minutes).
   */
  sweep(): Promise<SweepResult>;
}

/**
 * The PostgreSQL deduplication store, idempotency ledger, token cache and reconciliation store over `client`, on
 * the tables named by `tablePrefix` (default `pay_`) in `schema`. Does no I/O: call `migrate()` once at start-up
 * (or apply `sql/schema.sql` with your migration tool) before the first store call.
 */
export function createPostgresStores(options: PostgresStoreOptions): PostgresStores {
  const tables = storeTables(options);
  const runStatement = statementRunner(options);
  /** Deletes the expired rows of one table in one statement and counts them. */
  const sweepTable = async (table: string, expired = 'expires_at <= now()') =>
    (await runStatement('sweep', `DELETE FROM ${table} WHERE ${expired}`)).rowCount ?? 0;
  // A minute's budget is spent only while that minute runs; the previous minute is kept for instances whose
  // clock runs behind the database's.
  const pastMinutes = `minute < floor(extract(epoch FROM now()) / 60) - 1`;
  return {
    deduplication: createPostgresDeduplicationStore(options),
    idempotency: createPostgresIdempotencyStore(options),
    tokens: createPostgresTokenStore(options),
    reconciliation: createPostgresReconciliationStore(options),
    migrate: () => migrate(options.client, options),
    async sweep() {
      return {
        deliveries: await sweepTable(tables.deliveries),
        idempotencyKeys: await sweepTable(tables.idempotencyKeys),
        tokens: await sweepTable(tables.tokens),
        watchedObjects: await sweepTable(tables.reconciliation),
        readBudgets: await sweepTable(tables.reconciliationReads, pastMinutes),
      };
    },
  };
}
