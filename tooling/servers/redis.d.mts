/** A running throwaway redis-server (see redis.mjs). */
export interface RedisServer {
  readonly port: number;
  /** `redis://[:password@]127.0.0.1:<port>` */
  readonly url: string;
  /** False once stopped (or once the process ended). */
  readonly running: boolean;
  /** Suspends the server process (SIGSTOP): connections stay open but nothing answers, like a hung server. */
  freeze(): void;
  /** Resumes a frozen server (SIGCONT). */
  thaw(): void;
  /** Stops the server (waits for it to exit, at most 5 s, then kills it) and deletes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` (or `command`, or the `REDIS_SERVER` binary, e.g. `valkey-server`) on a free loopback port
 * in a temporary directory, without persistence; `password` turns on `--requirepass`. Fails with the install line
 * when the binary is missing.
 */
export function startRedis(options?: { password?: string; command?: string }): Promise<RedisServer>;
