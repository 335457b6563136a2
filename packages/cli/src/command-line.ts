/**
 * What every `pay` command shares: the output it writes to, the usage error, and reading its options. Its own
 * module, so the commands and `main` import it without importing each other.
 */

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
  /**
   * Draws which webhooks `pay dev --drop-webhooks <share>` drops, a number in [0, 1) per webhook (default
   * `Math.random`): a test passes a seeded one to drop the same webhooks on every run.
   */
  random?: () => number;
  /** The app's directory: adapter packages are found in its `package.json` and `node_modules` (default: the working directory). */
  cwd?: string;
}

/** A mistake in the command line: printed with the usage hint, exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
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
export function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
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
