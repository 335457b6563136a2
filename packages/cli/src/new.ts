/**
 * `pay new adapter <dir> --name <package> --provider <id>`: writes the skeleton of an adapter package
 * (CONTRIBUTING.md#start-from-the-skeleton) from the template this package ships (`templates/adapter`), with the
 * package, provider and environment names filled in. Every argument is checked before the first file is written,
 * so a refused command leaves nothing behind.
 */
import { type CliIo, parseCommandLine, UsageError } from './command-line.js';

/** The names one adapter package is generated with. */
type AdapterNames = ReturnType<typeof adapterNames>;

/**
 * The template's own names, each replaced by the generated package's: distinct spellings of one made-up provider,
 * so the template is a readable adapter and no replacement touches another (longest first).
 */
const TEMPLATE_NAMES: readonly (readonly [string, keyof AdapterNames])[] = [
  ['@scope/pay-provider-xyz', 'packageName'],
  ['PROVIDER_XYZ', 'envPrefix'],
  ['ProviderXyz', 'typePrefix'],
  ['providerXyz', 'provider'],
  ['provider-xyz', 'simulatorName'],
  ['Provider Xyz', 'label'],
];

/**
 * Template files npm would drop or rename in this package's tarball, or that would read as part of this package
 * (a nested package.json with `exports`, which Node ignores and publint refuses; a nested biome.json, which Biome
 * refuses inside the workspace's own), stored under another name and renamed on generation.
 */
const RENAMED: Readonly<Record<string, string>> = {
  _gitignore: '.gitignore',
  '_package.json': 'package.json',
  '_biome.json': 'biome.json',
};

/** The provider names of the `@pay` adapters: taken, an adapter from elsewhere names its own provider. */
const TAKEN_PROVIDERS = new Set(['providerT', 'providerR', 'providerN']);

/** Runs `pay new`; resolves to the exit status. */
export async function newPackage(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(args, {
    name: { type: 'string' },
    provider: { type: 'string' },
    label: { type: 'string' },
  });
  const [kind, dir, ...extra] = positionals;
  if (kind !== 'adapter')
    throw new UsageError(
      `pay new makes an adapter package: pay new adapter <dir> --name <package> --provider <id>.`,
    );
  if (dir === undefined || extra.length > 0)
    throw new UsageError(`pay new adapter takes one directory, got "${positionals.slice(1).join(' ')}".`);
  const names = adapterNames(values);
  const { resolve } = process.getBuiltinModule('node:path');
  const target = resolve(io.cwd ?? process.cwd(), dir);
  refuseUsedDirectory(target, dir);
  const written = writeSkeleton(target, names);
  io.out(`Wrote the ${names.label} adapter skeleton (${names.packageName}) to ${target}: ${written} files.`);
  io.out(
    'Next: npm install, npm run format (Biome orders the imports of the names written), fill in the TODOs',
  );
  io.out(
    '(npm test lists what is missing, npm run lint checks the @pay adapter rules), then npm run build and',
  );
  io.out(`npx pay dev ${names.packageName}. CONTRIBUTING.md of @pay walks you through it.`);
  return 0;
}

/**
 * The names one adapter package is generated with, each derived from `--provider` unless given, or a `UsageError`
 * naming each bad or missing one.
 */
export function adapterNames(values: { name?: string; provider?: string; label?: string }) {
  const problems: string[] = [];
  if (values.name === undefined) problems.push('--name <package> is required (e.g. @acme/pay-provider-x)');
  else problems.push(...packageNameProblems(values.name).map((problem) => `--name ${problem}`));
  if (values.provider === undefined)
    problems.push('--provider <id> is required (a camelCase identifier, e.g. acmePay)');
  else problems.push(...providerProblems(values.provider).map((problem) => `--provider ${problem}`));
  if (values.label !== undefined && !/^[\w .&'-]{1,40}$/.test(values.label))
    problems.push("--label must be 1–40 letters, digits, spaces or . & ' -");
  if (problems.length > 0) throw new UsageError(problems.join('; '));
  const provider = values.provider as string;
  const words = provider.split(/(?=[A-Z])/);
  const capitalised = words.map((word) => word[0]!.toUpperCase() + word.slice(1));
  return {
    packageName: values.name as string, // @acme/pay-provider-x
    provider, // acmePay: the provider name records and raw events carry
    typePrefix: capitalised.join(''), // AcmePay: createAcmePay, AcmePayTypes
    envPrefix: words.map((word) => word.toUpperCase()).join('_'), // ACME_PAY: ACME_PAY_SECRET_KEY
    simulatorName: words.map((word) => word.toLowerCase()).join('-'), // acme-pay, which pay trigger compares
    label: values.label ?? capitalised.join(' '), // Acme Pay: the name people read
  };
}

/**
 * What keeps `name` from being published to npm, in npm's rules for new packages: at most 214 characters, lower
 * case, URL-safe, not starting with `.` or `_`, an optional `@scope/`.
 */
function packageNameProblems(name: string): string[] {
  if (name.length > 214) return ['must be at most 214 characters'];
  if (!/^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/.test(name))
    return [
      `"${name}" is not a valid npm package name (lower case letters, digits, - . _ ~, an optional @scope/)`,
    ];
  const bare = name.replace(/^@[^/]+\//, '');
  if (bare === 'node_modules' || bare === 'favicon.ico') return [`"${name}" is a name npm refuses`];
  return [];
}

/** What keeps `provider` from being a provider name: a camelCase identifier of its own, not an `@pay` one. */
function providerProblems(provider: string): string[] {
  if (!/^[a-z][a-zA-Z0-9]{1,39}$/.test(provider))
    return [`"${provider}" must be a camelCase identifier of 2–40 letters and digits (e.g. acmePay)`];
  if (TAKEN_PROVIDERS.has(provider)) return [`"${provider}" is the name of an @pay adapter: name your own`];
  return [];
}

/** Refuses a directory that exists and is not empty, or a path that is a file. */
function refuseUsedDirectory(target: string, given: string): void {
  const { existsSync, readdirSync, statSync } = process.getBuiltinModule('node:fs');
  if (!existsSync(target)) return;
  if (!statSync(target).isDirectory())
    throw new UsageError(`${given} is a file: name a new or empty directory.`);
  if (readdirSync(target).length > 0)
    throw new UsageError(`${given} is not empty: name a new or empty directory (nothing was written).`);
}

/**
 * The peer range on `@pay/core` an adapter built with `core` declares (CONTRIBUTING.md#versions-and-peer-ranges):
 * every core release of the same adapter contract, which is `^0.M.0` before 1.0 (each core minor is a new contract)
 * and `^M.0.0` after. Not `^${core}`: a patch of that line is one the adapter works with too.
 */
function peerRangeOn(core: string): string {
  const [major, minor] = core.split('.');
  return major === '0' ? `^0.${minor}.0` : `^${major}.0.0`;
}

/**
 * The template's version placeholders (package.json) and their values: the `@pay/core` this `pay` runs with, and
 * this `pay`.
 */
function versions(): Record<string, string> {
  const { createRequire } = process.getBuiltinModule('node:module');
  const { readFileSync } = process.getBuiltinModule('node:fs');
  const require = createRequire(import.meta.url);
  const read = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  const core = read(require.resolve('@pay/core/package.json'));
  return {
    PAY_CORE_RANGE: peerRangeOn(core),
    PAY_CORE_VERSION: core,
    PAY_CLI_VERSION: read(new URL('../package.json', import.meta.url).pathname),
  };
}

/**
 * Writes every template file into `target` (created), with every template name and version placeholder replaced;
 * resolves to the number written.
 */
function writeSkeleton(target: string, names: AdapterNames): number {
  const { mkdirSync, readdirSync, readFileSync, writeFileSync } = process.getBuiltinModule('node:fs');
  const { dirname, join, relative } = process.getBuiltinModule('node:path');
  const { fileURLToPath } = process.getBuiltinModule('node:url');
  // The template folder: `templates/adapter` beside `src/` and `dist/` in this package.
  const source = fileURLToPath(new URL('../templates/adapter/', import.meta.url));
  const pinned = versions();
  const files = readdirSync(source, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(source, join(entry.parentPath, entry.name)));
  for (const file of files) {
    const base = file.split(/[\\/]/).at(-1) ?? file;
    const destination = join(target, dirname(file), RENAMED[base] ?? base);
    mkdirSync(dirname(destination), { recursive: true });
    writeFileSync(destination, filledIn(readFileSync(join(source, file), 'utf8'), base, names, pinned));
  }
  return files.length;
}

/**
 * `text` of template file `base` with every template name and version placeholder replaced in ONE pass, so a
 * value is never searched again: `--name @acme/provider-xyz-pay` stays as given instead of having its
 * `provider-xyz` replaced in turn. A label lands escaped for where it lands: inside the string literals of code
 * (`O\'Brien Pay`), inside JSON strings; as written in comments and prose.
 */
function filledIn(text: string, base: string, names: AdapterNames, pinned: Record<string, string>): string {
  const values = new Map<string, string>([
    ...TEMPLATE_NAMES.map(([placeholder, member]) => [placeholder, names[member]] as const),
    ...Object.entries(pinned),
  ]);
  const pattern = new RegExp(
    [...values.keys()]
      .sort((a, b) => b.length - a.length)
      .map((placeholder) => placeholder.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
      .join('|'),
    'g',
  );
  const writeLabel = labelEscape(base);
  return text
    .split('\n')
    .map((line) =>
      line.replace(pattern, (placeholder) => {
        const value = values.get(placeholder) as string;
        return placeholder === LABEL_PLACEHOLDER ? writeLabel(line, value) : value;
      }),
    )
    .join('\n');
}

/** The template's label placeholder: the one name a user writes freely (`--label`), so escaped where it lands. */
const LABEL_PLACEHOLDER = 'Provider Xyz';

/**
 * How a label is written into one line of template file `base`: JSON-escaped in `.json`; in TypeScript escaped as
 * in a string literal (any quote) except on a comment line; as given elsewhere (Markdown).
 */
function labelEscape(base: string): (line: string, label: string) => string {
  if (base.endsWith('.json')) return (_line, label) => JSON.stringify(label).slice(1, -1);
  if (!base.endsWith('.ts')) return (_line, label) => label;
  return (line, label) =>
    /^\s*(?:\*|\/\*|\/\/)/.test(line) ? label : label.replace(/[\\'"`]|\$\{/g, (c) => `\\${c}`);
}
