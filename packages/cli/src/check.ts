/**
 * `pay check [<dir>]`: holds an adapter package, wherever it was made, to the rules the `@pay` adapters keep
 * (CONTRIBUTING.md#start-from-the-skeleton): its runtime sources use Web-standard APIs only
 * (docs/architecture.md#packages), and its `src/` has the files and role names of CONTRIBUTING.md's table. The
 * checks are the workspace's own (adapter-rules.js), so a package outside this repository is checked exactly as
 * ours are. The skeleton's `npm run lint` runs it after Biome.
 */
import { adapterIssues, runtimeImportOffences } from './adapter-rules.js';
import { type CliIo, parseCommandLine, UsageError } from './command-line.js';

/** Where the rules are written, for a reader who has only the published packages. */
const RULES_URL =
  'https://github.com/pay-sdk/pay/blob/main/CONTRIBUTING.md#2-the-source-one-file-per-role-no-other-top-level-file-in-src';

/** Runs `pay check`; resolves to the exit status: 0 when the package keeps every rule, 1 listing each departure. */
export async function check(args: readonly string[], io: CliIo): Promise<number> {
  const { positionals } = parseCommandLine(args, {});
  if (positionals.length > 1)
    throw new UsageError(`pay check takes one adapter package folder, got "${positionals.join(' ')}".`);
  const given = positionals[0] ?? '.';
  const { existsSync } = process.getBuiltinModule('node:fs');
  const { join, resolve } = process.getBuiltinModule('node:path');
  const folder = resolve(io.cwd ?? process.cwd(), given);
  if (!existsSync(join(folder, 'src', 'adapter.ts')))
    throw new UsageError(
      `${given} is not an adapter package (no src/adapter.ts): name the folder pay new wrote.`,
    );
  const departures = [...runtimeImportOffences(folder, folder), ...adapterIssues(folder, folder)];
  const name = packageName(folder);
  if (departures.length === 0) {
    io.out(`pay check: ${name} keeps the @pay adapter rules:`);
    io.out('  runtime sources use no node: built-in and no Buffer, which only src/testing/ may use');
    io.out("  src/ has the files and names of CONTRIBUTING.md's table");
    return 0;
  }
  const places = departures.length === 1 ? '1 place' : `${departures.length} places`;
  io.err(`pay check: ${name} departs from the @pay adapter rules in ${places}:`);
  for (const departure of departures) io.err(`  ${departure}`);
  io.err(
    'Runtime sources use Web-standard APIs only, so the adapter runs on edge runtimes: Node built-ins and',
  );
  io.err(`Buffer only in src/testing/. src/ holds one file per role, named as in ${RULES_URL}`);
  return 1;
}

/** The package's name from its `package.json`, else its folder as given. */
function packageName(folder: string): string {
  const { readFileSync } = process.getBuiltinModule('node:fs');
  const { basename, join } = process.getBuiltinModule('node:path');
  try {
    const { name } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: unknown };
    if (typeof name === 'string' && name !== '') return name;
  } catch {
    // No readable package.json: the folder names it.
  }
  return basename(folder);
}
