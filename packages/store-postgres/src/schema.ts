import { type ClientOptions, type PostgresClient, statementRunner } from './client.js';

/** Where the tables live: a name prefix and, optionally, a PostgreSQL schema. */
export interface TableOptions {
  /**
   * Prefix of every table and index name (default `pay_`): lower-case letters, digits and underscores, at most
   * 36 characters, so that every name stays within PostgreSQL's 63-byte identifier limit.
   */
  tablePrefix?: string;
  /**
   * The PostgreSQL schema that holds the tables (created by `migrate` when missing). Without it, names resolve
   * through the connection's `search_path` (usually `public`).
   */
  schema?: string;
}

/** Options of every store factory: the client, the deadline of each call, and where the tables live. */
export interface PostgresStoreOptions extends TableOptions, ClientOptions {}

/** The schema version this package writes; `migrate` records it in `<prefix>schema_version`. */
export const SCHEMA_VERSION = 2;

const DEFAULT_PREFIX = 'pay_';
const PREFIX_PATTERN = /^(?:[a-z_][a-z0-9_]{0,35})?$/;
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Checks the table options and returns the qualified table names. Names are spliced into SQL text (PostgreSQL
 * takes no parameters for identifiers), so only plain lower-case identifiers are accepted; the schema is quoted.
 */
export function storeTables(options: TableOptions = {}) {
  const prefix = options.tablePrefix ?? DEFAULT_PREFIX;
  const { schema } = options;
  const refuse = (option: string, value: string, most: number) => {
    throw new RangeError(
      `${option} must be lower-case letters, digits and underscores (not starting with a digit), at most ${most} characters; got ${JSON.stringify(value)}.`,
    );
  };
  if (!PREFIX_PATTERN.test(prefix)) refuse('tablePrefix', prefix, 36);
  if (schema !== undefined && !SCHEMA_PATTERN.test(schema)) refuse('schema', schema, 63);
  const qualify = (name: string) => (schema === undefined ? name : `"${schema}".${name}`);
  return {
    prefix,
    ...(schema === undefined ? {} : { schema }),
    schemaVersion: qualify(`${prefix}schema_version`),
    deliveries: qualify(`${prefix}webhook_deliveries`),
    idempotencyKeys: qualify(`${prefix}idempotency_keys`),
    tokens: qualify(`${prefix}tokens`),
    reconciliation: qualify(`${prefix}reconciliation`),
    reconciliationReads: qualify(`${prefix}reconciliation_reads`),
  };
}

/**
 * The SQL that creates the store tables for `options` (the package ships the default one as `sql/schema.sql`).
 * Every statement is `IF NOT EXISTS` or `ON CONFLICT DO NOTHING`, so running it again changes nothing; the first
 * statement takes a transaction-scoped advisory lock so that instances migrating at once apply it one at a time.
 * Run it yourself with your migration tool, or let {@link migrate} run it.
 */
export function postgresSchema(options: TableOptions = {}): string {
  const tables = storeTables(options);
  const index = (table: string, column = 'expires_at') => `${tables.prefix}${table}_${column}`;
  const lockName = `@pay/store-postgres:${tables.schema === undefined ? '' : `${tables.schema}.`}${tables.prefix}`;
  const createSchema =
    tables.schema === undefined ? '' : `CREATE SCHEMA IF NOT EXISTS "${tables.schema}";\n\n`;
  return `-- @pay/store-postgres schema, version ${SCHEMA_VERSION}. Idempotent: safe to run again.
SELECT pg_advisory_xact_lock(hashtext('${lockName}'));

${createSchema}CREATE TABLE IF NOT EXISTS ${tables.schemaVersion} (
  version integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- Webhook deliveries (DeduplicationStore): 'leased' while one attempt processes the delivery, until expires_at;
-- 'done' once every callback succeeded, remembered until expires_at. A row past expires_at is free.
CREATE TABLE IF NOT EXISTS ${tables.deliveries} (
  key text PRIMARY KEY,
  state text NOT NULL CHECK (state IN ('leased', 'done')),
  lease text,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS ${index('webhook_deliveries')} ON ${tables.deliveries} (expires_at);

-- The idempotency ledger (IdempotencyStore): one row per caller key, kept until expires_at (the retention).
-- An 'in_progress' row is leased until lease_expires_at; after that the next attempt resumes from recovery_point.
CREATE TABLE IF NOT EXISTS ${tables.idempotencyKeys} (
  key text PRIMARY KEY,
  fingerprint text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
  lease text,
  lease_expires_at timestamptz,
  recovery_point jsonb,
  result jsonb,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS ${index('idempotency_keys')} ON ${tables.idempotencyKeys} (expires_at);

-- The shared token cache (TokenStore): provider access tokens are credentials, protect this table accordingly.
CREATE TABLE IF NOT EXISTS ${tables.tokens} (
  name text PRIMARY KEY,
  token text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS ${index('tokens')} ON ${tables.tokens} (expires_at);

INSERT INTO ${tables.schemaVersion} (version) VALUES (1) ON CONFLICT (version) DO NOTHING;

-- Version 2: the reconciler (docs/architecture.md#reconciliation).
-- Ledger entries nobody works on (IdempotencyStore.stale): in progress, their lease ended.
CREATE INDEX IF NOT EXISTS ${index('idempotency_keys', 'stale')} ON ${tables.idempotencyKeys} (lease_expires_at)
  WHERE state = 'in_progress';

-- The watch list (ReconciliationStore): one row per watched object, read again at due_at until a final status or
-- expires_at. While an instance reads it, lease names the instance's claim until lease_until.
CREATE TABLE IF NOT EXISTS ${tables.reconciliation} (
  provider text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('payment', 'checkout', 'refund')),
  id text NOT NULL,
  status text,
  reads integer NOT NULL,
  due_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  lease text,
  lease_until timestamptz,
  PRIMARY KEY (provider, kind, id)
);
CREATE INDEX IF NOT EXISTS ${index('reconciliation', 'due_at')} ON ${tables.reconciliation} (provider, due_at);
CREATE INDEX IF NOT EXISTS ${index('reconciliation')} ON ${tables.reconciliation} (expires_at);

-- The read budget every instance spends from: reads granted per provider and minute (epoch minutes); granted is
-- what the latest spend got, so that one INSERT … ON CONFLICT can both take reads and say how many it took.
CREATE TABLE IF NOT EXISTS ${tables.reconciliationReads} (
  provider text NOT NULL,
  minute bigint NOT NULL,
  reads integer NOT NULL,
  granted integer NOT NULL,
  PRIMARY KEY (provider, minute)
);

INSERT INTO ${tables.schemaVersion} (version) VALUES (2) ON CONFLICT (version) DO NOTHING;
`;
}

/**
 * Applies {@link postgresSchema} through `client` as one simple query, which PostgreSQL runs in one implicit
 * transaction: either every table exists afterwards or nothing changed. Safe to call on every start of every
 * instance; concurrent calls wait for each other on the advisory lock. Bounded by `queryTimeoutMs` like every
 * store call: a hung server fails start-up with `StoreError` instead of hanging it.
 */
export async function migrate(
  client: PostgresClient,
  options: TableOptions & Pick<ClientOptions, 'queryTimeoutMs'> = {},
): Promise<void> {
  await statementRunner({ ...options, client })('migrate', postgresSchema(options));
}
