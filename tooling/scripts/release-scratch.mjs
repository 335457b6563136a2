// What a release reads, copied into a scratch folder so that `changeset version` and `changeset publish` can run
// there without touching the repository: the workspace manifests, `.changeset/`, and each published package as
// built (its `dist/`). Used by the release dry run (`release-dry-run.mjs`, tarballs) and the registry release
// (`release-registry.mjs`, a real `changeset publish`). Build first (`pnpm build`).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** The folders holding workspace packages (pnpm-workspace.yaml): `group/*`, or the folder itself. */
const WORKSPACE = [
  { group: 'packages', each: true },
  { group: 'tests', each: true },
  { group: 'examples', each: true },
  { group: 'tooling', each: false },
  { group: 'tooling/bench', each: false },
];
/** What a published package's copy leaves out: nothing of it is packed, and node_modules is large. */
const NOT_COPIED = new Set(['node_modules', 'reports', '.turbo', 'CHANGELOG.md']);
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];

/**
 * Runs `command` in `cwd` with `env` added (CI set); throws with its output when it fails, returns its stdout.
 * @param {string} command
 * @param {string[]} args
 * @param {string} cwd
 * @param {Record<string, string>} [env]
 */
export function run(command, args, cwd, env = {}) {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', ...env },
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd} (${result.status}):\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

/** Every workspace package folder under `root` (the repository's by default), relative to it. */
function workspaceFolders(root = ROOT) {
  return WORKSPACE.flatMap(({ group, each }) =>
    each
      ? readdirSync(join(root, group), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${group}/${entry.name}`)
      : [group],
  ).filter((folder) => existsSync(join(root, folder, 'package.json')));
}

/**
 * Copies what a release reads into a new scratch folder, initialised as an empty git repository (changesets reads
 * the base branch and commits from git; an empty one answers both offline). Returns the folder, the published
 * package folders (relative) and where each workspace package lives by name.
 * @param {{ into?: string }} [options] `into`: the (new or empty) folder to copy into; a temporary one by default
 */
export function scratchRelease(options = {}) {
  const scratch = options.into ?? mkdtempSync(join(tmpdir(), 'pay-release-'));
  mkdirSync(scratch, { recursive: true });
  for (const file of ['package.json', 'pnpm-workspace.yaml', 'LICENSE'])
    cpSync(join(ROOT, file), join(scratch, file));
  cpSync(join(ROOT, '.changeset'), join(scratch, '.changeset'), { recursive: true });
  const published = [];
  /** @type {Map<string, string>} */
  const folders = new Map();
  for (const folder of workspaceFolders()) {
    const manifest = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8'));
    folders.set(manifest.name, folder);
    mkdirSync(join(scratch, folder), { recursive: true });
    if (manifest.private === true) {
      cpSync(join(ROOT, folder, 'package.json'), join(scratch, folder, 'package.json'));
      continue;
    }
    if (!existsSync(join(ROOT, folder, 'dist'))) {
      throw new Error(`${manifest.name} has no dist/: build it first (pnpm build).`);
    }
    // A CHANGELOG.md in the working tree would be one changesets did not write for this release: left out.
    cpSync(join(ROOT, folder), join(scratch, folder), {
      recursive: true,
      filter: (source) => !NOT_COPIED.has(source.slice(source.lastIndexOf('/') + 1)),
    });
    published.push(folder);
  }
  run('git', ['init', '-q'], scratch);
  return { scratch, published, folders };
}

/**
 * A scratch copy made earlier by {@link scratchRelease} (and maybe released from since), described the same way.
 * @param {string} scratch
 */
export function existingScratch(scratch) {
  const published = [];
  /** @type {Map<string, string>} */
  const folders = new Map();
  for (const folder of workspaceFolders(scratch)) {
    const manifest = JSON.parse(readFileSync(join(scratch, folder, 'package.json'), 'utf8'));
    folders.set(manifest.name, folder);
    if (manifest.private !== true) published.push(folder);
  }
  return { scratch, published, folders };
}

/**
 * `changeset version` in the scratch folder: versions and CHANGELOG.md from the changesets it holds, which are
 * then deleted, as in a release commit.
 * @param {string} scratch
 */
export function versionRelease(scratch) {
  const changeset = createRequire(join(ROOT, 'package.json')).resolve('@changesets/cli/bin.js');
  run('node', [changeset, 'version'], scratch, { npm_config_offline: 'true' });
}

/**
 * Links each `workspace:` dependency of the published packages to its versioned copy, as `pnpm install` would:
 * `pnpm pack` and `pnpm publish` read the version a `workspace:` range stands for from the installed dependency.
 * @param {{ scratch: string, published: string[], folders: Map<string, string> }} release
 */
export function linkWorkspaceRanges({ scratch, published, folders }) {
  for (const folder of published) {
    const manifest = JSON.parse(readFileSync(join(scratch, folder, 'package.json'), 'utf8'));
    for (const [name, range] of DEPENDENCY_FIELDS.flatMap((field) => Object.entries(manifest[field] ?? {}))) {
      const link = join(scratch, folder, 'node_modules', name);
      if (!String(range).startsWith('workspace:') || existsSync(link)) continue;
      const target = folders.get(name);
      if (target === undefined) throw new Error(`${manifest.name}: ${name}@${range} is no workspace package`);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(join(scratch, target), link, 'dir');
    }
  }
}
