/**
 * The `pay` command: `pay dev <provider>` runs a provider's simulator as a local server and forwards its signed
 * webhooks to an app; `pay trigger <provider> <event> --to <url>` sends one signed event. `main(argv, io)` is the
 * whole command (the `bin` only wires the process to it), so tests call it directly.
 */
import { dev } from './dev.js';
import { PROVIDERS, type SimulatedProvider } from './providers.js';
import { trigger } from './trigger.js';

/** Where the command writes, and what tells `pay dev` to stop. */
export interface CliIo {
  /** One line of normal output. */
  out(line: string): void;
  /** One line of error output. */
  err(line: string): void;
  /** Aborted on SIGINT/SIGTERM: `pay dev` then closes its simulator and returns. Absent: it runs forever. */
  stop?: AbortSignal;
  /**
   * The environment `pay trigger` reads `PROVIDER_X_BASE_URL` from and `pay dev` the user's cache directory
   * (`XDG_CACHE_HOME`, `HOME`, `LOCALAPPDATA`) (default: the process environment).
   */
  env?: Record<string, string | undefined>;
}

/** A mistake in the command line: printed with the usage hint, exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The help text. */
export const USAGE = `Usage:
  pay dev <provider> [--port 4010] [--forward http://localhost:3000/webhooks] [--state <dir>]
      Runs the provider's simulator on 127.0.0.1, prints the configuration that points your app at it,
      forwards a signed webhook to --forward on every payment change, and logs requests and deliveries.
      Provider T keeps its webhook signing key in --state (default: <user cache directory>/pay).
      Ctrl+C stops it.
  pay trigger <provider> <event> --to <url> [--dev http://127.0.0.1:4010] [--option name=value ...]
      Asks the running pay dev simulator (--dev, else PROVIDER_X_BASE_URL, else http://127.0.0.1:4010) to send
      one correctly signed <event> about a payment in its books to <url>, and prints the HTTP status it got
      (exit status 1 unless 2xx). Provider N falls back to a throwaway simulator when none runs.

Providers: ${[...PROVIDERS.keys()].join(', ')}`;

/** Runs `pay` with `argv` (without `node` and the script): resolves to the exit status. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      io.out(USAGE);
      return command === undefined ? 2 : 0;
    }
    if (command === 'dev') return await dev(rest, io);
    if (command === 'trigger') return await trigger(rest, io);
    throw new UsageError(`Unknown command "${command}": use pay dev or pay trigger.`);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.err(`pay: ${(error as Error).message}`);
      io.err('Run pay --help for usage.');
      return 2;
    }
    io.err(`pay: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

/** A command's options as `util.parseArgs` takes them: every `pay` option carries a text value. */
type OptionTable = Readonly<Record<string, { type: 'string'; short?: string; multiple?: boolean }>>;

/** The values `parseCommandLine` read for an option table. */
type OptionValues<O extends OptionTable> = {
  [K in keyof O]?: O[K]['multiple'] extends true ? string[] : string;
};

/**
 * Reads one command's arguments with Node's `util.parseArgs` (strict: an unknown option or a missing value is a
 * usage error). The module is asked of the runtime, as core asks for `diagnostics_channel`, so no file under `src`
 * imports a `node:` built-in (docs/architecture.md#packages); `pay` runs on Node ≥ 20.19, which has both.
 */
export function parseCommandLine<O extends OptionTable>(
  args: readonly string[],
  options: O,
): { values: OptionValues<O>; positionals: string[] } {
  const { parseArgs } = process.getBuiltinModule('node:util');
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options,
  });
  return { values: values as OptionValues<O>, positionals };
}

/** Whether `error` is one of `parseArgs`' own refusals (unknown option, missing value, …). */
function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/** The provider named on the command line, or a `UsageError` listing the ones there are. */
export function providerNamed(name: string | undefined): SimulatedProvider {
  const choices = [...PROVIDERS.keys()].join(', ');
  if (name === undefined) throw new UsageError(`Name a provider: ${choices}.`);
  const provider = PROVIDERS.get(name);
  if (!provider) throw new UsageError(`Unknown provider "${name}": choose one of ${choices}.`);
  return provider;
}

/** An http(s) URL given to `flag`, or a `UsageError`. */
export function urlOption(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag} must be an absolute http(s) URL, got "${value}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${flag} must be an http(s) URL, got "${value}".`);
  return url.href;
}
