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
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { linkWorkspaceRanges, run, scratchRelease, versionRelease } from './release-scratch.mjs';

/**
 * Versions the copy with changesets, packs every published package into `out` and returns what each tarball holds.
 * @param {{ out?: string }} [options]
 */
export function releaseDryRun(options = {}) {
  const out = resolve(options.out ?? mkdtempSync(join(tmpdir(), 'pay-release-tarballs-')));
  mkdirSync(out, { recursive: true });
  const release = scratchRelease();
  const { scratch, published } = release;
  try {
    versionRelease(scratch);
    linkWorkspaceRanges(release);
    return published.map((folder) => {
      const dir = join(scratch, folder);
      // Packed alone into a folder of its own, then moved: a tarball of an earlier run in `out` is replaced.
      const packed = mkdtempSync(join(scratch, 'packed-'));
      run('pnpm', ['pack', '--pack-destination', packed], dir, { npm_config_offline: 'true' });
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
