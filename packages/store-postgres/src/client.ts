import { PayError, type PayErrorOptions } from '@pay/core';

/**
 * What the stores need from a PostgreSQL client: one method that runs a statement. A `pg` `Pool` (or `Client`)
 * fits as it is. Another client fits through a small adapter that maps `$1, $2, …` placeholders and `values`
 * onto its own call and resolves to the rows and the affected row count (see the README).
 *
 * A call without `values` carries several statements separated by `;` (only {@link migrate} makes one) and must
 * run them as one simple query, which PostgreSQL executes in one implicit transaction.
 */
export interface PostgresClient {
  query(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

/** The context of a {@link StoreUnavailableError}: which store call failed, and the driver's error code. */
export interface StoreFailureContext extends Record<string, unknown> {
  store: 'postgres';
  /** The store call that failed, for example `idempotency.begin`. */
  operation: string;
  /** The driver's code: a SQLSTATE (`57P01`, `42P01`) or a socket error (`ECONNREFUSED`), when it gave one. */
  driverCode: string | undefined;
}

/**
 * The database did not answer a store call (server down, connection lost, timeout, missing tables, refused
 * statement). Whether the call took effect is unknown, so a caller must fail closed: never move money, and never
 * treat a webhook as processed, on a store call that threw this. The message and fields hold the driver's error
 * code and its message with any connection string or password removed; the driver's error object itself is not
 * kept, as drivers may attach connection parameters to it.
 */
export class StoreUnavailableError extends PayError {
  static override readonly kind: string = 'StoreUnavailableError';
  override readonly code = 'store_unavailable';
  declare readonly context: StoreFailureContext;

  constructor(message: string, options: PayErrorOptions & { context: StoreFailureContext }) {
    super(message, options);
  }
}

/** SQLSTATE of a missing table: the schema was never applied. */
const UNDEFINED_TABLE = '42P01';

/** Removes what may carry a credential from a driver message: URLs (connection strings) and `password=` pairs. */
function withoutCredentials(message: string): string {
  return message
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '[connection string]')
    .replace(/\b(password|passwd|pwd)\s*[=:]\s*\S+/gi, '$1=[redacted]');
}

/** The typed store error for a driver failure of `operation`. */
export function storeUnavailable(operation: string, failure: unknown): StoreUnavailableError {
  const driverCode = (failure as { code?: unknown } | null)?.code;
  const code = typeof driverCode === 'string' ? driverCode : undefined;
  const detail = withoutCredentials(failure instanceof Error ? failure.message : String(failure));
  const advice =
    code === UNDEFINED_TABLE
      ? 'The store tables are missing: run `migrate()` (or sql/schema.sql) first.'
      : 'Whether it took effect is unknown: do not move money or mark a webhook done on this answer, and try again once the database answers.';
  return new StoreUnavailableError(
    `The PostgreSQL store could not complete ${operation} (${code ?? 'no code'}: ${detail}). ${advice}`,
    { context: { store: 'postgres', operation, driverCode: code } },
  );
}

/** Runs one statement for `operation`, turning any driver failure into a {@link StoreUnavailableError}. */
export async function runStatement(
  client: PostgresClient,
  operation: string,
  text: string,
  values?: unknown[],
): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }> {
  try {
    return values === undefined ? await client.query(text) : await client.query(text, values);
  } catch (failure) {
    throw storeUnavailable(operation, failure);
  }
}

/** A lifetime in seconds, checked before it reaches SQL: a store call with a zero or negative lease is a bug. */
export function seconds(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive number of seconds, got ${String(value)}.`);
  }
  return value;
}
