// Tests of api-report.mjs (`node --test`), each on a scratch workspace with one published package: the report it
// writes, and the whole-module re-exports (`export *`) it refuses (docs/architecture.md#public-surface).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./api-report.mjs', import.meta.url));
const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const scratch = [];
after(() => {
  for (const folder of scratch) rmSync(folder, { recursive: true, force: true });
});

/** A scratch workspace whose `packages/core` publishes `src/index.ts` as `.`, plus `files` (path → text). */
function workspace(files) {
  const root = mkdtempSync(join(tmpdir(), 'api-report-'));
  scratch.push(root);
  mkdirSync(join(root, 'tooling/scripts'), { recursive: true });
  cpSync(SCRIPT, join(root, 'tooling/scripts/api-report.mjs'));
  // TypeScript for the script; valibot (a re-exported dependency) for the entry.
  symlinkSync(join(REPOSITORY, 'node_modules'), join(root, 'node_modules'));
  mkdirSync(join(root, 'packages/core'), { recursive: true });
  symlinkSync(join(REPOSITORY, 'packages/core/node_modules'), join(root, 'packages/core/node_modules'));
  const all = {
    'packages/core/package.json': JSON.stringify({
      name: '@pay/core',
      exports: { '.': { '@pay/source': './src/index.ts' } },
    }),
    'packages/core/tsconfig.json': JSON.stringify({
      compilerOptions: {
        module: 'ESNext',
        moduleResolution: 'Bundler',
        strict: true,
        noEmit: true,
        types: [],
      },
      include: ['src'],
    }),
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function report(root, mode) {
  const result = spawnSync(process.execPath, [join(root, 'tooling/scripts/api-report.mjs'), mode], {
    encoding: 'utf8',
  });
  return { status: result.status, output: result.stdout + result.stderr };
}

const MODULES = {
  'packages/core/src/money.ts': 'export const toMinorUnits = 1;\nexport type Currency = string;\n',
  'packages/core/src/types.ts': 'export interface Payment {\n  id: string;\n}\n',
};

test('writes the names an entry lists, with their kind', () => {
  const root = workspace({
    ...MODULES,
    'packages/core/src/index.ts':
      "export { type Currency, toMinorUnits } from './money.js';\nexport type { Payment } from './types.js';\n",
  });
  assert.equal(report(root, '--write').status, 0);
  const written = readFileSync(join(root, 'packages/core/api/index.api.md'), 'utf8');
  assert.match(written, /^3 names\.$/m);
  assert.match(written, /^\| `Currency` \| type \|$/m);
  assert.match(written, /^\| `Payment` \| interface \|$/m);
  assert.match(written, /^\| `toMinorUnits` \| const \|$/m);
  assert.equal(report(root, '--check').status, 0);
});

test('refuses export * and export type * of our own modules, in the entry and in a module it re-exports from', () => {
  const root = workspace({
    ...MODULES,
    'packages/core/src/index.ts': "export * from './money.js';\nexport { Payment } from './barrel.js';\n",
    'packages/core/src/barrel.ts': "export type * from './types.js';\n",
  });
  for (const mode of ['--check', '--write']) {
    const { status, output } = report(root, mode);
    assert.equal(status, 1, output);
    assert.match(output, /packages\/core\/src\/index\.ts: export \* from '\.\/money\.js';/);
    assert.match(output, /packages\/core\/src\/barrel\.ts: export type \* from '\.\/types\.js';/);
  }
  assert.equal(existsSync(join(root, 'packages/core/api/index.api.md')), false);
});

test('counts a third-party package re-exported whole instead of listing it', () => {
  const root = workspace({
    'packages/core/src/index.ts': "export * from 'valibot';\n",
  });
  assert.equal(report(root, '--write').status, 0);
  const written = readFileSync(join(root, 'packages/core/api/index.api.md'), 'utf8');
  assert.match(written, /^0 names\.$/m);
  assert.match(written, /^Re-exported from `valibot` \(its own list, pinned by its version\): \d+ names\.$/m);
});
