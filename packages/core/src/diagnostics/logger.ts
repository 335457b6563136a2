/**
 * The `logger` option (docs/architecture.md#logger): where the library reports what it cannot throw.
 * Console-compatible, silent by default, and every line is redacted first: no configured secret or credential a
 * live HTTP client has sent or received reaches a log line.
 */
import { knownCredentials, redact, redactError } from '../redaction.js';
import { type AsyncScope, createAsyncScope } from './channels.js';

/** A console-compatible logger; every method is optional (a missing level is not logged). */
export interface Logger {
  debug?(message: string, details?: Record<string, unknown>): void;
  info?(message: string, details?: Record<string, unknown>): void;
  warn?(message: string, details?: Record<string, unknown>): void;
  error?(message: string, details?: Record<string, unknown>): void;
}

/** The levels of {@link Logger}. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** What core logs through: redacting, never throwing, building nothing for a level nobody listens to. */
export interface PayLogger {
  /** True when the level has a sink: build an expensive line only then. */
  enabled(level: LogLevel): boolean;
  debug(message: string, details?: () => Record<string, unknown>): void;
  info(message: string, details?: () => Record<string, unknown>): void;
  warn(message: string, details?: () => Record<string, unknown>): void;
  error(message: string, details?: () => Record<string, unknown>): void;
  /** Logs `message` the first time `key` is seen by this application logger (e.g. one warning per process). */
  once(key: string, level: LogLevel, message: string, details?: () => Record<string, unknown>): void;
}

/** Keys already logged once, per application logger, so several instances sharing a logger warn once. */
const LOGGED_ONCE = new WeakMap<object, Set<string>>();

/** A logger that does nothing (the default). */
export const SILENT_LOGGER: PayLogger = {
  enabled: () => false,
  debug() {},
  info() {},
  warn() {},
  error() {},
  once() {},
};

/**
 * Wraps an application's logger: each line is redacted with `secrets` (a list, or a function read at log time) and
 * every credential known to core; details are built only when the level has a sink; what the logger throws is
 * ignored. Without a logger it returns {@link SILENT_LOGGER}.
 */
export function createLogger(
  logger: Logger | undefined,
  secrets: readonly string[] | (() => readonly string[]) = [],
): PayLogger {
  if (!logger || (typeof logger !== 'object' && typeof logger !== 'function')) return SILENT_LOGGER;
  const sink = (level: LogLevel) => {
    const method = (logger as Record<string, unknown>)[level];
    return typeof method === 'function'
      ? (method as (message: string, ...rest: unknown[]) => void)
      : undefined;
  };
  const write = (level: LogLevel, message: string, details?: () => Record<string, unknown>) => {
    const method = sink(level);
    if (!method) return;
    try {
      const own = typeof secrets === 'function' ? secrets() : secrets;
      const hidden = [...new Set([...own, ...knownCredentials()])];
      const line = `@pay: ${redact(message, hidden)}`;
      const fields = details?.();
      if (fields === undefined) method.call(logger, line);
      else method.call(logger, line, redactDetails(fields, hidden));
    } catch {
      // A logger that throws must not change what the library does.
    }
  };
  return {
    enabled: (level) => sink(level) !== undefined,
    debug: (message, details) => write('debug', message, details),
    info: (message, details) => write('info', message, details),
    warn: (message, details) => write('warn', message, details),
    error: (message, details) => write('error', message, details),
    once(key, level, message, details) {
      const seen = LOGGED_ONCE.get(logger) ?? new Set<string>();
      LOGGED_ONCE.set(logger, seen);
      if (seen.has(key)) return;
      seen.add(key);
      write(level, message, details);
    },
  };
}

/** Details with every secret removed, errors reduced to their (redacted) JSON view: no cause or own property. */
function redactDetails(
  details: Record<string, unknown>,
  secrets: readonly string[],
): Record<string, unknown> {
  const plain: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(details))
    plain[name] = value instanceof Error ? errorView(value) : value;
  return secrets.length > 0 ? redactError(plain, secrets) : plain;
}

function errorView(error: Error): Record<string, unknown> {
  const json = (error as { toJSON?: () => unknown }).toJSON?.();
  if (json && typeof json === 'object') return { ...(json as Record<string, unknown>) };
  return { name: error.name, message: error.message };
}

let ambient: AsyncScope<PayLogger> | null | undefined;

/** Runs `fn` with `logger` as the logger of everything it calls that has none of its own. */
export function withinLogger<R>(logger: PayLogger, fn: () => R): R {
  if (logger === SILENT_LOGGER) return fn();
  if (ambient === undefined) ambient = createAsyncScope<PayLogger>() ?? null;
  return ambient ? ambient.run(logger, fn) : fn();
}

/** The logger of the enclosing `withinLogger`, else the silent one. Read only when something is to be logged. */
export function ambientLogger(): PayLogger {
  return ambient?.getStore() ?? SILENT_LOGGER;
}
