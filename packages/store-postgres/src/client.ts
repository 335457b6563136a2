import {
  type StoreFailureContext as CoreStoreFailureContext,
  StoreError,
  storeUnavailable,
  withinStoreDeadline,
} from '@pay/core/adapter';

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

/** The context of a store failure: which store call failed, and the driver's error code. */
export interface StoreFailureContext extends CoreStoreFailureContext {
  store: 'postgres';
  /** The store call that failed, for example `idempotency.begin`. */
  operation: string;
  /** The driver's code: a SQLSTATE (`57P01`, `42P01`) or a socket error (`ECONNREFUSED`), when it gave one. */
  driverCode: string | undefined;
}

/**
 * What a store call the database did not answer rejects with (server down, connection lost, timeout, missing
 * tables, refused statement): core's `StoreError` (`code: 'store_unavailable'`), under the name this package has
 * always exported. Whether the call took effect is unknown, so a caller must fail closed: never move money, and
 * never treat a webhook as processed, on a store call that threw this. The message holds the driver's error code
 * and message with any connection-string credentials and password removed (core's redaction); the driver's
 * error object itself is not kept, as drivers may attach connection parameters to it.
 */
export const StoreUnavailableError = StoreError;
/** A store failure (core's `StoreError`). */
export type StoreUnavailableError = StoreError;

/** The typed store error for a driver failure of `operation`. */
export function storeFailure(operation: string, failure: unknown): StoreError {
  const driverCode = (failure as { code?: unknown } | null)?.code;
  const code = typeof driverCode === 'string' ? driverCode : undefined;
  const detail = failure instanceof Error ? failure.message : String(failure);
  const advice =
    code === '42P01'
      ? 'The store tables are missing: run `migrate()` (or sql/schema.sql) first.'
      : 'Whether it took effect is unknown: do not move money or mark a webhook done on this answer, and try again once the database answers.';
  return storeUnavailable(
    `The PostgreSQL store could not complete ${operation} (${code ?? 'no code'}: ${detail}). ${advice}`,
    { store: 'postgres', operation, driverCode: code } satisfies StoreFailureContext,
  );
}

/** The client and how long one of its calls may take: what every statement of the stores runs on. */
export interface ClientOptions {
  /** The client the application already manages: a `pg` `Pool`, or any {@link PostgresClient}. */
  client: PostgresClient;
  /**
   * How long one store call may take, in milliseconds, before it fails with core's `StoreError`
   * (`store_unavailable`). Default 5000. The deadline is kept here, on the client: a frozen server answers
   * nothing, so its own `statement_timeout` never fires and the call would otherwise wait forever with a payment
   * or a webhook on hold (docs/architecture.md#stores).
   */
  queryTimeoutMs?: number;
}

/** The default {@link ClientOptions.queryTimeoutMs}. */
export const DEFAULT_QUERY_TIMEOUT_MS = 5000;

/**
 * The statement runner of one store: checks `queryTimeoutMs` once, when the store is created (no I/O), then runs
 * each statement for its `operation` under that deadline, turning any driver failure, or no answer in time,
 * into core's `StoreError`.
 */
export function statementRunner({ client, queryTimeoutMs = DEFAULT_QUERY_TIMEOUT_MS }: ClientOptions) {
  const valid = Number.isFinite(queryTimeoutMs) && queryTimeoutMs > 0;
  checked('queryTimeoutMs', queryTimeoutMs, valid, 'a positive number of milliseconds');
  return async (operation: string, text: string, values?: unknown[]) => {
    try {
      return await withinStoreDeadline(queryTimeoutMs, () =>
        values === undefined ? client.query(text) : client.query(text, values),
      );
    } catch (failure) {
      throw storeFailure(operation, failure);
    }
  };
}

/** `value` when `valid`, else a RangeError naming it: every number is checked before it reaches SQL. */
export function checked(name: string, value: number, valid: boolean, expected: string): number {
  if (!valid) throw new RangeError(`${name} must be ${expected}, got ${String(value)}.`);
  return value;
}

/** A lifetime in seconds: a store call with a zero or negative lease is a bug. */
export const seconds = (name: string, value: number) =>
  checked(name, value, Number.isFinite(value) && value > 0, 'a positive number of seconds');

/** A count (reads, a limit). */
export const count = (name: string, value: number) =>
  checked(name, value, Number.isSafeInteger(value) && value >= 0, 'a whole number of at least 0');

/** Epoch milliseconds. */
export const epoch = (name: string, value: number) =>
  checked(name, value, Number.isFinite(value), 'epoch milliseconds');
