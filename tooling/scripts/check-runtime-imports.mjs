#!/usr/bin/env node
// docs/architecture.md#packages: runtime entry points use Web-standard APIs only, so the library also runs on edge runtimes.
// Fails when a runtime source file (not a test, not a `./testing` entry) imports a `node:` built-in or uses Buffer.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const packagesDir = join(root, 'packages');
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
for (const pkg of readdirSync(packagesDir)) {
  const src = join(packagesDir, pkg, 'src');
  try {
    statSync(src);
  } catch {
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
