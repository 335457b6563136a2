#!/usr/bin/env node
// docs/architecture.md#packages: runtime entry points use Web-standard APIs only, so the library also runs on edge runtimes.
// Fails when a runtime source file (not a test, not a `./testing` entry) imports a `node:` built-in or uses Buffer.
// With package folders as arguments (`check-runtime-imports.mjs ../pay-provider-acme`) it checks those instead of
// the workspace's, so an adapter package made outside this repository is held to the same rule (CONTRIBUTING.md).
// The check itself is the one `pay check` runs on an adapter package anywhere (packages/cli/src/adapter-rules.js).
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { runtimeImportOffences } from '../../packages/cli/src/adapter-rules.js';

const workspace = new URL('../..', import.meta.url).pathname;
const given = process.argv.slice(2).map((folder) => resolve(folder));
const root = given.length > 0 ? process.cwd() : workspace;
const packagesDir = join(workspace, 'packages');
const packages = given.length > 0 ? given : readdirSync(packagesDir).map((pkg) => join(packagesDir, pkg));

const offences = [];
for (const pkg of packages) {
  if (existsSync(join(pkg, 'src'))) offences.push(...runtimeImportOffences(pkg, root));
  else if (given.length > 0) offences.push(`${relative(root, pkg) || '.'} has no src/ folder`);
}

if (offences.length > 0) {
  console.error(
    `Runtime sources must use Web-standard APIs only (docs/architecture.md#packages):\n  ${offences.join('\n  ')}`,
  );
  process.exit(1);
}
console.log('runtime sources use no node: built-in and no Buffer');
