// Tests of repoint-comments.mjs (`node --test`), each on a scratch tree with the repository's real docs: what
// --write makes of each kind of issue citation, and what --check refuses.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./repoint-comments.mjs', import.meta.url));
const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const scratch = [];
after(() => {
  for (const folder of scratch) rmSync(folder, { recursive: true, force: true });
});

/** A scratch tree: the repository's docs, README, CONTRIBUTING, the bench README and package READMEs they link to, plus `files`. */
function tree(files) {
  const root = mkdtempSync(join(tmpdir(), 'repoint-'));
  scratch.push(root);
  cpSync(join(REPOSITORY, 'docs'), join(root, 'docs'), { recursive: true });
  for (const top of ['README.md', 'CONTRIBUTING.md', 'tooling/bench/README.md'])
    cpSync(join(REPOSITORY, top), join(root, top));
  for (const pkg of readdirSync(join(REPOSITORY, 'packages'))) {
    const readme = join('packages', pkg, 'README.md');
    if (existsSync(join(REPOSITORY, readme))) cpSync(join(REPOSITORY, readme), join(root, readme));
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** The file `packages/core/src/a.ts` holding `source`, after --write: the run and the text. */
function rewritten(source) {
  const root = tree({ 'packages/core/src/a.ts': source });
  const run = repoint(root, '--write');
  return { root, run, text: readFileSync(join(root, 'packages/core/src/a.ts'), 'utf8') };
}

function repoint(root, mode) {
  const run = spawnSync(process.execPath, [SCRIPT, mode], {
    env: { ...process.env, REPOINT_ROOT: root },
    encoding: 'utf8',
  });
  return { status: run.status, output: run.stdout + run.stderr };
}

test('--write turns each kind of issue citation into a docs link that reads well, and --check then passes', () => {
  const source = [
    '/** Refusals of calls that move money (issue 11 §1): a refusal proves nothing. */',
    '/** Bridges to a handler (docs/architecture.md#webhook-bridges, issue 10 §1 and §2). */',
    '/**',
    ' * Issue 14 §3, crashes: an instance is killed at each step. Then another retries.',
    ' */',
    '// A webhook with the two-phase `verify` of issue 10 §3.',
    '// Publishing on the tracing channels (issue 15, Contract C): one helper per channel.',
    "describe('amount bounds and wire text (issue 11 §3)', () => {});",
    '',
  ].join('\n');
  const { root, run, text } = rewritten(source);
  assert.equal(run.status, 0, run.output);
  assert.equal(
    text,
    [
      '/** Refusals of calls that move money (docs/architecture.md#outcomes): a refusal proves nothing. */',
      '/** Bridges to a handler (docs/architecture.md#webhook-bridges). */',
      '/**',
      ' * Crashes: an instance is killed at each step (docs/architecture.md#test-suites). Then another retries.',
      ' */',
      '// A webhook with the two-phase `verify` (docs/architecture.md#webhook-verification).',
      '// Publishing on the tracing channels (docs/architecture.md#tracing-channels): one helper per channel.',
      "describe('amount bounds and wire text (docs/architecture.md#money)', () => {});",
      '',
    ].join('\n'),
  );
  const checked = repoint(root, '--check');
  assert.equal(checked.status, 0, checked.output);
});

test('--write wraps a comment line the link made too long', () => {
  const { run, text } = rewritten(
    '/** What each connection failure code means, in words, for the error message of it (issue 16). */\n',
  );
  assert.equal(run.status, 0, run.output);
  assert.equal(
    text,
    [
      '/**',
      ' * What each connection failure code means, in words, for the error message of it',
      ' * (docs/architecture.md#http-client).',
      ' */',
      '',
    ].join('\n'),
  );
});

test('--check refuses an issue citation, a link to a missing heading and a dead Markdown anchor', () => {
  const root = tree({
    'packages/core/src/a.ts': [
      '// Rounded half-even (issue 9).',
      "export const title = 'see docs/architecture.md#no-such-heading';",
      '// Fine: docs/architecture.md#money.',
      '',
    ].join('\n'),
    'packages/core/README.md': 'See [money](../../docs/architecture.md#nope) and [up](#also-nope).\n',
    '.changeset/a.md': '---\n"@pay/core": patch\n---\n\nRounding fixed (issue 9).\n',
  });
  const { status, output } = repoint(root, '--check');
  assert.equal(status, 1);
  assert.match(output, /packages\/core\/src\/a\.ts:1: issue 9/);
  assert.match(
    output,
    /packages\/core\/src\/a\.ts:2: docs\/architecture\.md#no-such-heading: no such heading/,
  );
  assert.doesNotMatch(output, /#money/);
  assert.match(
    output,
    /packages\/core\/README\.md:1: \.\.\/\.\.\/docs\/architecture\.md#nope: no such heading/,
  );
  assert.match(output, /packages\/core\/README\.md:1: #also-nope: no such heading/);
  assert.match(output, /\.changeset\/a\.md:5: cites issue 9/);
});

test('--write leaves a citation it has no mapping for, and says so', () => {
  const source = '// Rounded half-even (issue 9).\n';
  const { run, text } = rewritten(source);
  assert.equal(run.status, 1);
  assert.match(run.output, /no mapping for:\n {2}packages\/core\/src\/a\.ts:1: issue 9/);
  assert.equal(text, source);
});
