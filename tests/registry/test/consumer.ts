/**
 * The tests' users: a scratch app that installs `@pay/*` from the local registry with npm or pnpm, as a user's
 * app does (only the `@pay` scope points at the registry, so everything else comes from where a user's would), the
 * releases made from a scratch copy through `tooling/scripts/release-registry.mjs`, and `pay dev` run from an
 * app's installed CLI.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Registry, root, run } from './registry.js';

/** npm's install, as quiet and cache-friendly as a user's CI would run it. */
const NPM_INSTALL = ['install', '--no-audit', '--no-fund', '--prefer-offline'];
/** pnpm's: no lockfile to freeze (CI is set), the store already holds the registry's third-party packages. */
const PNPM_INSTALL = [
  'install',
  '--prefer-offline',
  '--no-frozen-lockfile',
  '--config.confirmModulesPurge=false',
];
const PACKAGE_MANAGER = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager as string;

/** One app folder: where it is, and what its install printed and exited with. */
export interface App {
  dir: string;
  install: { status: number | null; output: string };
}

/**
 * Writes an app depending on `dependencies` (exact versions pin) whose `@pay` scope resolves from `registry`,
 * installs it with `manager` (extra install arguments in `args`), and returns it.
 */
export function installApp(
  dir: string,
  registry: Registry,
  manager: 'npm' | 'pnpm',
  dependencies: Record<string, string>,
  args: string[] = [],
): App {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '.npmrc'), `@pay:registry=${registry.url}\n`);
  const manifest = { name: 'scratch-shop', private: true, type: 'module', dependencies };
  // pnpm through corepack: the version the repository uses, which this machine has already.
  if (manager === 'pnpm') Object.assign(manifest, { packageManager: PACKAGE_MANAGER });
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  const install = run(manager, [...(manager === 'npm' ? NPM_INSTALL : PNPM_INSTALL), ...args], dir);
  return { dir, install };
}

/** The `@pay` packages in an app's `node_modules/@pay`, sorted. */
export function installedPayPackages(dir: string): string[] {
  return readdirSync(join(dir, 'node_modules', '@pay')).sort();
}

/** Every `@pay` package anywhere in pnpm's virtual store of the app (`node_modules/.pnpm`), as `name@version`. */
export function pnpmStorePayPackages(dir: string): string[] {
  return readdirSync(join(dir, 'node_modules', '.pnpm'))
    .filter((entry) => entry.startsWith('@pay+'))
    .map((entry) => entry.replace(/^@pay\+([^@]+)@([^_]+).*$/, '@pay/$1@$2'))
    .sort();
}

/** The version of `name` installed at the top of an app. */
export function installedVersion(dir: string, name: string): string {
  return JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** Writes `source` as `file` in the app and runs it with node; its exit status and output. */
export function runScript(dir: string, file: string, source: string) {
  writeFileSync(join(dir, file), source);
  return run('node', [file], dir);
}

/** The first line of a script's output, parsed as JSON. */
export function firstJsonLine(output: string): unknown {
  return JSON.parse(output.trim().split('\n')[0] ?? '');
}

/**
 * Releases from the scratch copy in `scratch` (made there by the first call) to `registry`: `changeset version`
 * then `changeset publish`, through the release tooling. Resolves to every package's version afterwards.
 */
export function release(scratch: string, registry: Registry): Record<string, string> {
  const result = run(
    'node',
    [
      join(root, 'tooling/scripts/release-registry.mjs'),
      '--registry',
      registry.url,
      '--token',
      registry.token,
      '--scratch',
      scratch,
      '--json',
    ],
    root,
  );
  if (result.status !== 0) throw new Error(`the release failed:\n${result.output}`);
  return firstJsonLine(result.output) as Record<string, string>;
}

/** Adds a changeset to the scratch copy, as a contributor's pull request does. */
export function addChangeset(scratch: string, name: string, bumps: Record<string, string>, summary: string) {
  const frontmatter = Object.entries(bumps).map(([pkg, bump]) => `'${pkg}': ${bump}`);
  writeFileSync(
    join(scratch, '.changeset', `${name}.md`),
    `---\n${frontmatter.join('\n')}\n---\n\n${summary}\n`,
  );
}

/** The versions of `name` the registry holds. */
export async function publishedVersions(registry: Registry, name: string): Promise<string[]> {
  const reply = await fetch(`${registry.url}${name.replace('/', '%2f')}`);
  if (reply.status === 404) return [];
  const body = (await reply.json()) as { versions: Record<string, unknown> };
  return Object.keys(body.versions).sort();
}

/** The manifest of `name@version` as the registry serves it. */
export async function publishedManifest(registry: Registry, name: string, version: string) {
  const reply = await fetch(`${registry.url}${name.replace('/', '%2f')}/${version}`);
  return (await reply.json()) as {
    version: string;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
}

/** The `NAME=value` variables `pay dev` printed for the app. */
export function printedVariables(output: string): Record<string, string> {
  return Object.fromEntries([...output.matchAll(/^ {2}([A-Z][A-Z0-9_]+)=(\S+)$/gm)].map((m) => [m[1], m[2]]));
}
