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
// The checks themselves are the ones `pay check` runs on an adapter package anywhere
// (packages/cli/src/adapter-rules.js); this script finds the workspace's adapters and reports.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { exportedNames, adapterIssues as issuesOf } from '../../packages/cli/src/adapter-rules.js';

const ROOT = new URL('../..', import.meta.url).pathname;

export { exportedNames };

/** Every departure of one adapter package (its folder) from the shape and names, as lines for a reader. */
export function adapterIssues(packageDir, base = ROOT) {
  return issuesOf(packageDir, base);
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
