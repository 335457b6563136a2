#!/usr/bin/env node
// A release to a registry from a scratch copy, the way `pnpm release` publishes from the repository: the scratch
// copy (`release-scratch.mjs`: manifests, `.changeset/`, each package's built `dist/`), `changeset version`, then
// `changeset publish` (pnpm publish per package whose version the registry lacks) to the registry given. The
// repository is left as it is. Rehearse a release against a local registry (Verdaccio) with it; tests/registry
// publishes its releases through it. Build first (`pnpm build`).
//
//   node tooling/scripts/release-registry.mjs --registry http://127.0.0.1:4873/ [--token <token>] [--json]
//       [--scratch <dir>]
//
// It prints each package's version after the release (`--json`: `{ "@pay/core": "0.1.0", ... }`). `--scratch <dir>`
// keeps the scratch copy in <dir>, and releases again from it when it is there already: the next release is the
// changesets added to `<dir>/.changeset/` since (the repository's own were used up by the first).
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  existingScratch,
  linkWorkspaceRanges,
  ROOT,
  run,
  scratchRelease,
  versionRelease,
} from './release-scratch.mjs';

/**
 * Points the scratch copy's npm and pnpm at `registry` (with `token`, when the registry wants one to publish).
 * @param {string} scratch
 * @param {string} registry
 * @param {string} [token]
 */
function useRegistry(scratch, registry, token) {
  const host = registry.replace(/^https?:/, '').replace(/\/?$/, '/');
  const lines = [`registry=${registry}`, ...(token ? [`${host}:_authToken=${token}`] : [])];
  writeFileSync(join(scratch, '.npmrc'), `${lines.join('\n')}\n`);
}

/**
 * `changeset publish` in a scratch copy already versioned: every published package whose version `registry` does
 * not have yet goes there (the others are skipped, as in a release).
 * @param {{ scratch: string, published: string[], folders: Map<string, string> }} release
 * @param {string} registry
 * @param {string} [token]
 */
export function publishRelease(release, registry, token) {
  useRegistry(release.scratch, registry, token);
  linkWorkspaceRanges(release);
  const changeset = createRequire(join(ROOT, 'package.json')).resolve('@changesets/cli/bin.js');
  return run('node', [changeset, 'publish'], release.scratch, { npm_config_registry: registry });
}

/** The version of each published package in the scratch copy, by name. */
export function releasedVersions({ scratch, published }) {
  const require = createRequire(join(scratch, 'package.json'));
  return Object.fromEntries(
    published.map((folder) => {
      const { name, version } = require(join(scratch, folder, 'package.json'));
      return [name, version];
    }),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const registry = option('--registry');
  if (!registry) throw new Error('name the registry: --registry <url>');
  const kept = option('--scratch');
  const release =
    kept && existsSync(join(kept, 'package.json')) ? existingScratch(kept) : scratchRelease({ into: kept });
  try {
    versionRelease(release.scratch);
    publishRelease(release, registry, option('--token'));
    const versions = releasedVersions(release);
    const lines = Object.entries(versions).map(([name, version]) => `${name}@${version}`);
    process.stdout.write(args.includes('--json') ? `${JSON.stringify(versions)}\n` : `${lines.join('\n')}\n`);
  } finally {
    if (!kept) rmSync(release.scratch, { recursive: true, force: true });
  }
}
