#!/usr/bin/env node
// The README's test command: lint, the runtime-import check, then build + typecheck + tests + packaging
// checks for every package through turbo, and last the one closing line CI reads, counted from vitest's JSON
// reports. Exits non-zero on any failure or when no test ran.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: process.env.CI ? '0' : '1' };

function run(label, command, args) {
  console.log(`\n> ${label}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  return result.status === 0;
}

// Every workspace package with a test script (pnpm-workspace.yaml: packages/*, examples/*, tests/*).
const testedPackages = ['packages', 'examples', 'tests']
  .flatMap((group) =>
    existsSync(join(root, group))
      ? readdirSync(join(root, group)).map((name) => join(root, group, name))
      : [],
  )
  .filter((dir) => {
    const manifest = join(dir, 'package.json');
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).scripts?.test;
  });

// A report left from an earlier run must never be counted: turbo restores the real one on a cache hit.
for (const dir of testedPackages) rmSync(join(dir, 'reports'), { recursive: true, force: true });

const steps = [
  run('lint', 'pnpm', ['exec', 'biome', 'check', '.']),
  // No module of a package's source imports one that imports it back, types included (docs/architecture.md#packages).
  run('import cycles', 'pnpm', ['run', 'lint:cycles']),
  run('runtime imports', 'node', ['tooling/scripts/check-runtime-imports.mjs']),
  run('docs references', 'node', ['tooling/scripts/repoint-comments.mjs', '--check']),
  run('public surface', 'node', ['tooling/scripts/api-report.mjs', '--check']),
  run('adapter names', 'node', ['tooling/scripts/adapter-names.mjs', '--check']),
  run('build, typecheck, test, package checks', 'pnpm', [
    'exec',
    'turbo',
    'run',
    'build',
    'typecheck',
    'test',
    'lint:package',
    '--continue',
    '--output-logs=new-only',
  ]),
];

let passed = 0;
let failed = 0;
let skipped = 0;
for (const dir of testedPackages) {
  const reportFile = join(dir, 'reports', 'vitest.json');
  if (!existsSync(reportFile)) {
    console.error(`no test report from ${dir.slice(root.length)}: counted as one failure`);
    failed += 1;
    continue;
  }
  // A package with type tests runs them in its typecheck task (`vitest run --typecheck.only`, one type-check of
  // the package instead of two), which reports to reports/types.json.
  const typesFile = join(dir, 'reports', 'types.json');
  for (const file of existsSync(typesFile) ? [reportFile, typesFile] : [reportFile]) count(file);
}

function count(reportPath) {
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  passed += report.numPassedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  // A test file that failed to load has no failed test in it, but it is a failure all the same.
  const brokenFiles = report.testResults.filter(
    (file) => file.status === 'failed' && file.assertionResults.length === 0,
  ).length;
  failed += report.numFailedTests + brokenFiles;
}

const stepFailed = steps.some((ok) => !ok);
if (stepFailed && failed === 0) console.error('a step above failed (see its output): counted as one failure');
if (passed + failed === 0) console.error('no test ran');
console.log(`\n${passed} passed, ${stepFailed && failed === 0 ? 1 : failed} failed, ${skipped} skipped`);
process.exit(stepFailed || failed > 0 || passed === 0 ? 1 : 0);
