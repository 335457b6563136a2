#!/usr/bin/env node
// docs/architecture.md#packages: runtime entry points use Web-standard APIs only, so the library also runs on edge runtimes.
// Fails when a runtime source file (not a test, not a `./testing` entry) imports a `node:` built-in or uses Buffer.
// With package folders as arguments (`check-runtime-imports.mjs ../pay-provider-acme`) it checks those instead of
// the workspace's, so an adapter package made outside this repository is held to the same rule (CONTRIBUTING.md).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const workspace = new URL('../..', import.meta.url).pathname;
const given = process.argv.slice(2).map((folder) => resolve(folder));
const root = given.length > 0 ? process.cwd() : workspace;
const packagesDir = join(workspace, 'packages');
const packages = given.length > 0 ? given : readdirSync(packagesDir).map((pkg) => join(packagesDir, pkg));
const forbidden = [
  {
    pattern: /\bfrom\s+['"]node:|\bimport\s*\(\s*['"]node:|\brequire\s*\(\s*['"]node:/,
    what: 'a node: built-in',
  },
  { pattern: /\bBuffer\s*\.|\bnew\s+Buffer\b|\bBuffer\s*\(/, what: 'Buffer' },
];

function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'testing') yield* sourceFiles(path);
    } else if (/\.(ts|mts|js|mjs)$/.test(name) && !/\.test(-d)?\.ts$/.test(name)) {
      yield path;
    }
  }
}

const offences = [];
for (const pkg of packages) {
  const src = join(pkg, 'src');
  try {
    statSync(src);
  } catch {
    if (given.length > 0) offences.push(`${relative(root, pkg) || '.'} has no src/ folder`);
    continue;
  }
  for (const file of sourceFiles(src)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      if (/^\s*(\/\/|\*)/.test(line)) return;
      for (const { pattern, what } of forbidden) {
        if (pattern.test(line)) offences.push(`${relative(root, file)}:${index + 1} uses ${what}`);
      }
    });
  }
}

if (offences.length > 0) {
  console.error(
    `Runtime sources must use Web-standard APIs only (docs/architecture.md#packages):\n  ${offences.join('\n  ')}`,
  );
  process.exit(1);
}
console.log('runtime sources use no node: built-in and no Buffer');
