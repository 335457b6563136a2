#!/usr/bin/env node
// Holds every adapter package to the shape and the names CONTRIBUTING.md prescribes ("The source, one file per
// role"), so a newcomer finds any behaviour in two hops and the three adapters cannot drift apart again: the files
// of `src/`, the factory and config-loader pattern, and one name per role.
//
//   node tooling/scripts/adapter-names.mjs --check         exit 1 and list every departure (pnpm lint, the test command)
//   node tooling/scripts/adapter-names.mjs --check <dir>…  the same for the adapter packages in the folders given,
//                                                          wherever they are (a skeleton `pay new adapter` wrote)
//
// An adapter package of the workspace is a folder of packages/ with `@pay/core` as a peer dependency and a
// src/adapter.ts. The names it must use are spelt from its provider name, the `PROVIDER` of its src/config.ts
// (`acmePay` → `AcmePay`, `ACME_PAY`), else from its folder (`provider-n` → `ProviderN`, `PROVIDER_N`).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;

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
  const config = join(packageDir, 'src', 'config.ts');
  const declared = existsSync(config)
    ? /^export const PROVIDER = '([a-z][A-Za-z0-9]*)'/m.exec(readFileSync(config, 'utf8'))?.[1]
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

/** Every departure of one adapter package (its folder) from the shape and names, as lines for a reader. */
export function adapterIssues(packageDir, base = ROOT) {
  const src = join(packageDir, 'src');
  const provider = providerNames(packageDir);
  const where = (file) => relative(base, join(src, file));
  const issues = [];
  const entries = readdirSync(src);
  for (const entry of entries) {
    const isFolder = statSync(join(src, entry)).isDirectory();
    if (isFolder ? !FOLDERS.has(entry) : !Object.hasOwn(FILES, entry))
      issues.push(
        `${where(entry)}: not a role of CONTRIBUTING.md's table (move it into the file of its role)`,
      );
  }
  for (const [file, need] of Object.entries(FILES))
    if (need === 'required' && !entries.includes(file)) issues.push(`${where(file)}: missing`);
  for (const [file, names] of Object.entries(REQUIRED_EXPORTS)) {
    if (!entries.includes(file)) continue;
    const exported = exportedNames(readFileSync(join(src, file), 'utf8'));
    for (const name of names.map((role) => spelt(role, provider)))
      if (!exported.has(name)) issues.push(`${where(file)}: does not export ${name}`);
  }
  for (const file of entries.filter((entry) => entry.endsWith('.ts'))) {
    for (const name of exportedNames(readFileSync(join(src, file), 'utf8'))) {
      const retired = RETIRED.find(([pattern]) => pattern.test(name));
      if (retired)
        issues.push(`${where(file)}: ${name} is named ${spelt(retired[1], provider)} in every adapter`);
    }
  }
  return issues;
}

/** The adapter packages of the workspace: folders of packages/ built on `@pay/core` (a peer) with a src/adapter.ts. */
export function adapterPackages(root = ROOT) {
  const packages = join(root, 'packages');
  return readdirSync(packages)
    .map((folder) => join(packages, folder))
    .filter((dir) => {
      const manifest = join(dir, 'package.json');
      if (!existsSync(manifest) || !existsSync(join(dir, 'src', 'adapter.ts'))) return false;
      return Boolean(JSON.parse(readFileSync(manifest, 'utf8')).peerDependencies?.['@pay/core']);
    });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // The folders after the flags; none: every adapter package of the workspace.
  const given = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  for (const dir of given)
    if (!existsSync(join(resolve(dir), 'src', 'adapter.ts'))) {
      console.error(`adapter-names: ${dir} is not an adapter package (no src/adapter.ts).`);
      process.exit(2);
    }
  const dirs = given.length > 0 ? given.map((dir) => resolve(dir)) : adapterPackages();
  const base = given.length > 0 ? process.cwd() : ROOT;
  const issues = dirs.flatMap((dir) => adapterIssues(dir, base));
  if (issues.length > 0) {
    console.error(`adapter-names: ${issues.length} departure(s) from CONTRIBUTING.md's names:`);
    for (const issue of issues) console.error(`  ${issue}`);
    process.exit(1);
  }
  console.log(`adapter-names: ${dirs.length} adapters use the names CONTRIBUTING.md prescribes.`);
}
