/**
 * What the packaging tests share: running a command as a user would (CI set, output kept), and the tarballs of the
 * next release as the release dry run packs them (`tooling/scripts/release-dry-run.mjs`).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The repository's root folder. */
export const root = new URL('../../..', import.meta.url).pathname;

/** Runs `command` in `cwd`; resolves to its exit status and its output (stdout then stderr). */
export function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

/** One tarball of the release dry run, as its `--json` summary describes it. */
export interface Packed {
  name: string;
  version: string;
  tarball: string;
  files: string[];
  changelog: string | null;
  manifest: Record<string, unknown> & {
    peerDependencies?: Record<string, string>;
    repository?: unknown;
    homepage?: unknown;
    bugs?: unknown;
  };
}

/** Packs every published package as the next release would, into `out`; throws with the output when it fails. */
export function packRelease(out: string): Packed[] {
  const dryRun = run(
    'node',
    [join(root, 'tooling/scripts/release-dry-run.mjs'), '--json', '--out', out],
    root,
  );
  if (dryRun.status !== 0) throw new Error(`the release dry run failed:\n${dryRun.output}`);
  return JSON.parse(dryRun.output.trim().split('\n')[0] ?? '') as Packed[];
}
