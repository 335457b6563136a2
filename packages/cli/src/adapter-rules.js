/**
 * The rules every adapter package keeps, as checks that list each departure: its runtime sources use Web-standard
 * APIs only (docs/architecture.md#packages), and its `src/` has the files and role names of CONTRIBUTING.md's table
 * ("The source, one file per role"). One implementation for both places they run: `pay check` (src/check.ts), on
 * an adapter package anywhere, and the workspace's lint scripts (`tooling/scripts/check-runtime-imports.mjs`,
 * `tooling/scripts/adapter-names.mjs`). Plain JavaScript, typed in adapter-rules.d.ts, so those scripts run it from
 * the source before anything is built; Node's modules are asked of the runtime, as the rest of `src/` does.
 */

/** What a runtime source may not use, by the line it is on (a comment line is skipped). */
const FORBIDDEN = [
  {
    pattern: /\bfrom\s+['"]node:|\bimport\s*\(\s*['"]node:|\brequire\s*\(\s*['"]node:/,
    what: 'a node: built-in',
  },
  { pattern: /\bBuffer\s*\.|\bnew\s+Buffer\b|\bBuffer\s*\(/, what: 'Buffer' },
];

/** Node's file and path modules, asked of the runtime (Node ≥ 20.16 has `process.getBuiltinModule`). */
function node() {
  return { fs: process.getBuiltinModule('node:fs'), path: process.getBuiltinModule('node:path') };
}

/** The runtime sources under `dir`: code files, not tests, not under a `testing/` folder. */
function* runtimeSources(dir) {
  const { fs, path } = node();
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    if (fs.statSync(file).isDirectory()) {
      if (name !== 'testing') yield* runtimeSources(file);
    } else if (/\.(ts|mts|js|mjs)$/.test(name) && !/\.test(-d)?\.ts$/.test(name)) {
      yield file;
    }
  }
}

/**
 * Every use of a `node:` built-in or of `Buffer` in the runtime sources of the package in `packageDir` (its
 * `src/`, but `src/testing/` and tests), as `<file>:<line> uses a node: built-in`, the file relative to `base`.
 */
export function runtimeImportOffences(packageDir, base) {
  const { fs, path } = node();
  const offences = [];
  for (const file of runtimeSources(path.join(packageDir, 'src'))) {
    fs.readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (/^\s*(\/\/|\*)/.test(line)) return;
        for (const { pattern, what } of FORBIDDEN)
          if (pattern.test(line)) offences.push(`${path.relative(base, file)}:${index + 1} uses ${what}`);
      });
  }
  return offences;
}

/** The top-level files `src/` may hold (CONTRIBUTING.md's table), the optional ones marked. */
const FILES = {
  'index.ts': 'required',
  'types.ts': 'required',
  'config.ts': 'required',
  'client.ts': 'required',
  'envelope.ts': 'required',
  'metadata.ts': 'required',
  'requests.ts': 'required',
  'adapter.ts': 'required',
  'wire.ts': 'required',
  'mapping.ts': 'required',
  'webhooks.ts': 'required',
  'checks.ts': 'optional',
  'wire-events.ts': 'optional',
  'record-metadata.ts': 'optional',
  'events.ts': 'optional',
};

/** The folders `src/` may hold. */
const FOLDERS = new Set(['flows', 'testing']);

/** file → the names it must export, `X` standing for the provider (`N`), `Provider` + X for its Pascal name. */
const REQUIRED_EXPORTS = {
  'index.ts': ['providerX', 'createProviderX'],
  'config.ts': ['resolveConfig', 'checkConfig', 'checkCredentials', 'PROVIDER_X_ENV'],
  'client.ts': ['createClient', 'PROVIDER_X_ERRORS'],
  'envelope.ts': ['readEnvelope'],
  'adapter.ts': ['createProviderXAdapter'],
  'mapping.ts': ['toPayment'],
  'webhooks.ts': ['createWebhooks'],
};

/**
 * Names that say the same role another way (the spellings the adapters used before they were unified): the
 * one name to use instead.
 */
const RETIRED = [
  [/^build\w*Adapter$/, 'createProviderXAdapter'],
  [/^configFromEnvironment$/, 'resolveConfig'],
  [/^(\w+)From(Status|Create|Reply)$/, 'to<Record> (toPayment, toCheckout, toRefund, toInvoice)'],
  [/^provider\w*Webhooks$|^createWebhookDefinition$/, 'createWebhooks'],
];

/** Every name a module exports (functions, constants, classes, types and re-exports), by reading its text. */
export function exportedNames(text) {
  const names = new Set();
  const declaration =
    /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;
  for (const match of text.matchAll(declaration)) names.add(match[1]);
  for (const match of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const item of match[1].split(',')) {
      const name = item
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop();
      if (name) names.add(name);
    }
  }
  return names;
}

/**
 * The spellings of a package's provider name: `acmePay` (its config's `PROVIDER`) or, without one, the folder
 * `provider-n` → `{ camel: 'providerN', pascal: 'ProviderN', upper: 'PROVIDER_N' }`.
 */
function providerNames(packageDir) {
  const { fs, path } = node();
  const config = path.join(packageDir, 'src', 'config.ts');
  const declared = fs.existsSync(config)
    ? /^export const PROVIDER = '([a-z][A-Za-z0-9]*)'/m.exec(fs.readFileSync(config, 'utf8'))?.[1]
    : undefined;
  const folder = packageDir.split(/[\\/]/).filter(Boolean).pop() ?? '';
  const words = declared
    ? declared.split(/(?=[A-Z])/)
    : ['provider', ...folder.replace(/^.*provider-/, '').split('-')];
  const pascal = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
  return {
    camel: pascal.charAt(0).toLowerCase() + pascal.slice(1),
    pascal,
    upper: words.map((word) => word.toUpperCase()).join('_'),
  };
}

/** The names of a role spelt for one provider. */
function spelt(name, provider) {
  return name
    .replace('PROVIDER_X', provider.upper)
    .replace('createProviderX', `create${provider.pascal}`)
    .replace('providerX', provider.camel);
}

/**
 * Every departure of the adapter package in `packageDir` from the file set and role names of CONTRIBUTING.md's
 * table, as lines for a reader, each file relative to `base`.
 */
export function adapterIssues(packageDir, base) {
  const { fs, path } = node();
  const src = path.join(packageDir, 'src');
  const provider = providerNames(packageDir);
  const where = (file) => path.relative(base, path.join(src, file));
  const read = (file) => fs.readFileSync(path.join(src, file), 'utf8');
  const issues = [];
  const entries = fs.readdirSync(src);
  for (const entry of entries) {
    const isFolder = fs.statSync(path.join(src, entry)).isDirectory();
    if (isFolder ? !FOLDERS.has(entry) : !Object.hasOwn(FILES, entry))
      issues.push(
        `${where(entry)}: not a role of CONTRIBUTING.md's table (move it into the file of its role)`,
      );
  }
  for (const [file, need] of Object.entries(FILES))
    if (need === 'required' && !entries.includes(file)) issues.push(`${where(file)}: missing`);
  for (const [file, names] of Object.entries(REQUIRED_EXPORTS)) {
    if (!entries.includes(file)) continue;
    const exported = exportedNames(read(file));
    for (const name of names.map((role) => spelt(role, provider)))
      if (!exported.has(name)) issues.push(`${where(file)}: does not export ${name}`);
  }
  for (const file of entries.filter((entry) => entry.endsWith('.ts'))) {
    for (const name of exportedNames(read(file))) {
      const retired = RETIRED.find(([pattern]) => pattern.test(name));
      if (retired)
        issues.push(`${where(file)}: ${name} is named ${spelt(retired[1], provider)} in every adapter`);
    }
  }
  return issues;
}
