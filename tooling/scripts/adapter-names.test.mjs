// Tests of adapter-names.mjs (`node --test`): the workspace's adapters pass, and a scratch adapter package that
// departs from CONTRIBUTING.md's names is told each departure.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { adapterIssues, adapterPackages, exportedNames } from './adapter-names.mjs';

const SCRIPT = fileURLToPath(new URL('./adapter-names.mjs', import.meta.url));
const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const scratch = [];
after(() => {
  for (const folder of scratch) rmSync(folder, { recursive: true, force: true });
});

/** A copy of Provider N's source in a scratch folder `folder`, and a way to replace one of its files. */
function scratchAdapter(folder) {
  const root = mkdtempSync(join(tmpdir(), 'adapter-names-'));
  scratch.push(root);
  const dir = join(root, folder);
  cpSync(join(REPOSITORY, 'packages/provider-n/src'), join(dir, 'src'), { recursive: true });
  return { root, dir, write: (file, text) => writeFileSync(join(dir, 'src', file), text) };
}

test('every adapter of the workspace uses the names CONTRIBUTING.md prescribes', () => {
  const packages = adapterPackages().map((dir) => dir.slice(REPOSITORY.length));
  assert.deepEqual(packages.sort(), ['packages/provider-n', 'packages/provider-r', 'packages/provider-t']);
  const run = spawnSync(process.execPath, [SCRIPT, '--check'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
});

test('reads functions, constants, types and re-exports, renamed ones by their exported name', () => {
  const names = exportedNames(
    [
      'export async function createClient() {}',
      'export const PROVIDER_X_ERRORS = {};',
      'export type Refusal = never;',
      "export { a as readEnvelope, type B } from './x.js';",
    ].join('\n'),
  );
  assert.deepEqual([...names].sort(), ['B', 'PROVIDER_X_ERRORS', 'Refusal', 'createClient', 'readEnvelope']);
});

test('names every departure of an adapter from the files and names of its roles', () => {
  // Provider N's source as the start, then the departures the three adapters had before they were unified.
  const { dir, write } = scratchAdapter('provider-q');
  write('index.ts', 'export function providerQ() {}\nexport function createProviderQ() {}\n');
  write(
    'config.ts',
    'export const PROVIDER_Q_ENV = [];\nexport function configFromEnvironment() {}\nexport function checkConfig() {}\nexport function checkCredentials() {}\n',
  );
  write('client.ts', 'export function createClient() {}\nexport const PROVIDER_Q_ERRORS = {};\n');
  write('adapter.ts', 'export function buildAdapter() {}\n');
  write('mapping.ts', 'export function paymentFromStatus() {}\n');
  write('webhooks.ts', 'export function providerQWebhooks() {}\n');
  write('envelope.ts', 'export function readEnvelope() {}\n');
  write('helpers.ts', 'export const x = 1;\n');
  mkdirSync(join(dir, 'src', 'utils'));
  const where = (file) => relative(REPOSITORY, join(dir, 'src', file));
  assert.deepEqual(
    adapterIssues(dir).sort(),
    [
      `${where('adapter.ts')}: buildAdapter is named createProviderQAdapter in every adapter`,
      `${where('adapter.ts')}: does not export createProviderQAdapter`,
      `${where('config.ts')}: configFromEnvironment is named resolveConfig in every adapter`,
      `${where('config.ts')}: does not export resolveConfig`,
      `${where('helpers.ts')}: not a role of CONTRIBUTING.md's table (move it into the file of its role)`,
      `${where('mapping.ts')}: does not export toPayment`,
      `${where('mapping.ts')}: paymentFromStatus is named to<Record> (toPayment, toCheckout, toRefund, toInvoice) in every adapter`,
      `${where('utils')}: not a role of CONTRIBUTING.md's table (move it into the file of its role)`,
      `${where('webhooks.ts')}: does not export createWebhooks`,
      `${where('webhooks.ts')}: providerQWebhooks is named createWebhooks in every adapter`,
    ].sort(),
  );
});

test('--check <dir> checks the package in that folder, wherever it is, with the names of its own PROVIDER', () => {
  const { root, dir, write } = scratchAdapter('pay-acme');
  write('index.ts', 'export function acmePay() {}\nexport function createAcmePay() {}\n');
  write(
    'config.ts',
    "export const PROVIDER = 'acmePay';\nexport const ACME_PAY_ENV = [];\nexport function resolveConfig() {}\nexport function checkConfig() {}\nexport function checkCredentials() {}\n",
  );
  write('client.ts', 'export function createClient() {}\nexport const ACME_PAY_ERRORS = {};\n');
  write('adapter.ts', 'export function createAcmePayAdapter() {}\n');
  const check = () => spawnSync(process.execPath, [SCRIPT, '--check', dir], { cwd: root, encoding: 'utf8' });
  const passing = check();
  assert.equal(passing.stderr, '');
  assert.equal(passing.stdout, 'adapter-names: 1 adapters use the names CONTRIBUTING.md prescribes.\n');
  assert.equal(passing.status, 0);
  // Spelt for another provider, the names are departures.
  write('client.ts', 'export function createClient() {}\nexport const PROVIDER_N_ERRORS = {};\n');
  const failing = check();
  assert.equal(failing.status, 1);
  assert.equal(
    failing.stderr,
    "adapter-names: 1 departure(s) from CONTRIBUTING.md's names:\n  pay-acme/src/client.ts: does not export ACME_PAY_ERRORS\n",
  );
  const notAnAdapter = spawnSync(process.execPath, [SCRIPT, '--check', root], { encoding: 'utf8' });
  assert.equal(notAnAdapter.status, 2);
  assert.match(notAnAdapter.stderr, /is not an adapter package \(no src\/adapter\.ts\)/);
});
