/** A running throwaway PostgreSQL server (see postgres.mjs). */
export interface PostgresServer {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The empty database created for the tests. */
  readonly database: string;
  readonly dataDir: string;
  /** False once `stop()` ran. */
  readonly running: boolean;
  /** A connection string to the test database; `credentials` adds a user and password (ignored by trust auth). */
  url(credentials?: { user: string; password: string }): string;
  /**
   * Suspends every process of the server (SIGSTOP: the postmaster, then each backend and helper): connections stay
   * open but nothing answers, like a hung server; its own `statement_timeout` cannot fire. No-op when stopped.
   */
  freeze(): void;
  /** Resumes a frozen server (SIGCONT). `stop()` thaws it first. */
  thaw(): void;
  /**
   * Stops the server (`immediate` by default; `fast` ends open sessions first) and deletes its folder. Safe to
   * call twice.
   */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
}

/**
 * Starts a PostgreSQL 15 server on a free loopback port in a temporary folder, with an empty database
 * (`database`, default `pay_test`). Fails with the install line when the binaries are missing
 * (`PAY_POSTGRES_BIN` or `bin` overrides `/usr/lib/postgresql/15/bin`).
 */
export function startPostgres(options?: { database?: string; bin?: string }): Promise<PostgresServer>;
