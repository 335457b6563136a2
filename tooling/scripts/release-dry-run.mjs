#!/usr/bin/env node
// The release dry run: what npm users would get from the next release, without touching the repository or the
// network. It copies what a release reads (the workspace manifests, `.changeset/`, and each published package as
// built) into a scratch folder, runs `changeset version` there (versions and CHANGELOG.md from whatever changesets
// exist), then packs each published package with `pnpm pack` (which writes real versions for `workspace:` and
// `catalog:` ranges, as `changeset publish` does through pnpm). Build first (`pnpm build`): the tarballs hold
// `dist/` as it is.
//
//   node tooling/scripts/release-dry-run.mjs                  print each tarball: name@version, files, changelog
//   node tooling/scripts/release-dry-run.mjs --out <dir>      keep the tarballs in <dir> (default: a temp folder)
//   node tooling/scripts/release-dry-run.mjs --json           print the summary as JSON (tests/packaging reads it)
//
// The summary of each package: `name`, `version`, `tarball` (path), `files` (paths in the tarball), `changelog`
// (the CHANGELOG.md it ships, or null) and its `manifest` as packed. The scratch copy is deleted afterwards.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
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

/**
 * Runs `command` in `cwd`, offline; throws with its output when it fails.
 * @param {string} command
 * @param {string[]} args
 * @param {string} cwd
 */
function run(command, args, cwd) {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', npm_config_offline: 'true' },
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd} (${result.status}):\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

/** Every workspace package folder, relative to the root. */
function workspaceFolders() {
  return WORKSPACE.flatMap(({ group, each }) =>
    each
      ? readdirSync(join(ROOT, group), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${group}/${entry.name}`)
      : [group],
  ).filter((folder) => existsSync(join(ROOT, folder, 'package.json')));
}

/**
 * Versions the copy with changesets, packs every published package into `out` and returns what each tarball holds.
 * @param {{ out?: string }} [options]
 */
export function releaseDryRun(options = {}) {
  const out = resolve(options.out ?? mkdtempSync(join(tmpdir(), 'pay-release-tarballs-')));
  mkdirSync(out, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'pay-release-'));
  try {
    for (const file of ['package.json', 'pnpm-workspace.yaml', 'LICENSE'])
      cpSync(join(ROOT, file), join(scratch, file));
    cpSync(join(ROOT, '.changeset'), join(scratch, '.changeset'), { recursive: true });
    const published = [];
    /** Where each workspace package lives, by name. */
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
    // changesets reads the base branch and commits from git; an empty repository answers both offline.
    run('git', ['init', '-q'], scratch);
    const changeset = createRequire(join(ROOT, 'package.json')).resolve('@changesets/cli/bin.js');
    run('node', [changeset, 'version'], scratch);
    // `pnpm pack` reads the version a `workspace:` range stands for from the installed dependency: each one is
    // linked to its versioned copy, as `pnpm install` would link it.
    for (const folder of published) {
      const manifest = JSON.parse(readFileSync(join(scratch, folder, 'package.json'), 'utf8'));
      const fields = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];
      for (const [name, range] of fields.flatMap((field) => Object.entries(manifest[field] ?? {}))) {
        const link = join(scratch, folder, 'node_modules', name);
        if (!String(range).startsWith('workspace:') || existsSync(link)) continue;
        const target = folders.get(name);
        if (target === undefined)
          throw new Error(`${manifest.name}: ${name}@${range} is no workspace package`);
        mkdirSync(dirname(link), { recursive: true });
        symlinkSync(join(scratch, target), link, 'dir');
      }
    }
    return published.map((folder) => {
      const dir = join(scratch, folder);
      // Packed alone into a folder of its own, then moved: a tarball of an earlier run in `out` is replaced.
      const packed = mkdtempSync(join(scratch, 'packed-'));
      run('pnpm', ['pack', '--pack-destination', packed], dir);
      const tarball = readdirSync(packed).find((name) => name.endsWith('.tgz'));
      if (!tarball) throw new Error(`pnpm pack wrote no tarball for ${folder}`);
      const path = join(out, tarball);
      cpSync(join(packed, tarball), path);
      const files = run('tar', ['-tzf', path], out)
        .split('\n')
        .filter(Boolean)
        .map((file) => file.replace(/^package\//, ''));
      const read = (file) => run('tar', ['-xzOf', path, `package/${file}`], out);
      const manifest = JSON.parse(read('package.json'));
      return {
        name: manifest.name,
        version: manifest.version,
        tarball: path,
        files,
        changelog: files.includes('CHANGELOG.md') ? read('CHANGELOG.md') : null,
        manifest,
      };
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The human-readable summary: one block per tarball. */
function describe(summary) {
  return summary
    .map(({ name, version, tarball, files, changelog }) => {
      const release = changelog?.split(/\n(?=## )/)[1]?.trim() ?? '(no CHANGELOG.md)';
      return `${name}@${version}  ${tarball}\n  ${files.length} files: ${files.filter((file) => !file.includes('/')).join(', ')}\n\n${release.replace(/^/gm, '  ')}\n`;
    })
    .join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outIndex = args.indexOf('--out');
  const summary = releaseDryRun(outIndex === -1 ? {} : { out: args[outIndex + 1] });
  process.stdout.write(args.includes('--json') ? `${JSON.stringify(summary)}\n` : describe(summary));
}
