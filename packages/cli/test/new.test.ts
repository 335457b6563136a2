/**
 * `pay new adapter`: the skeleton it writes (every template file, every template name replaced, the versions
 * pinned, the file set and role names `tooling/scripts/adapter-names.mjs` holds every adapter to), and the
 * arguments it refuses before writing anything. That the skeleton compiles, fails its
 * conformance test until filled in and passes once filled in is proved from outside in tests/packaging.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { capturedIo } from './support.js';

const TEMPLATE = new URL('../templates/adapter', import.meta.url).pathname;
const WORKSPACE = new URL('../../..', import.meta.url).pathname;

let scratch = '';
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'pay-new-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** Every file under `folder`, relative to it, sorted. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .sort();
}

/** Runs `pay new …` in the scratch folder. */
async function payNew(...args: string[]) {
  const { io, out, err } = capturedIo();
  const status = await main(['new', ...args], { ...io, cwd: scratch });
  return { status, out, err };
}

/** The command line of an Acme Pay adapter in the folder `acme`. */
const ACME = ['adapter', 'acme', '--name', '@acme/pay-provider-acme', '--provider', 'acmePay'];

describe('pay new adapter', () => {
  it('writes every template file, with the package, provider, type, environment and simulator names filled in', async () => {
    const made = await payNew(...ACME);
    expect(made.err).toEqual([]);
    expect(made.status).toBe(0);
    const target = join(scratch, 'acme');
    const expected = filesUnder(TEMPLATE).map((file) =>
      file
        .replace(/(^|\/)_gitignore$/, '$1.gitignore')
        .replace(/(^|\/)_package\.json$/, '$1package.json')
        .replace(/(^|\/)_biome\.json$/, '$1biome.json'),
    );
    expect(filesUnder(target)).toEqual(expected.sort());
    expect(made.out[0]).toBe(
      `Wrote the Acme Pay adapter skeleton (@acme/pay-provider-acme) to ${target}: ${expected.length} files.`,
    );
    for (const file of filesUnder(target)) {
      const text = readFileSync(join(target, file), 'utf8');
      expect(text, file).not.toMatch(/xyz|@scope\/|PAY_CORE_|PAY_CLI_/i);
    }
    const read = (file: string) => readFileSync(join(target, file), 'utf8');
    expect(read('src/config.ts')).toContain(
      "{ env: 'ACME_PAY_SECRET_KEY', member: 'secretKey', required: true }",
    );
    expect(read('src/config.ts')).toContain("export const PROVIDER = 'acmePay';");
    expect(read('src/index.ts')).toContain(
      'export function createAcmePay(config: AcmePayConfig): AcmePayAdapter',
    );
    expect(read('src/testing/simulator/index.ts')).toContain("export const SIMULATOR_NAME = 'acme-pay';");
    expect(read('src/testing/descriptor.ts')).toContain("label: 'Acme Pay',");
    expect(read('.changeset/first-release.md')).toMatch(/^---\n"@acme\/pay-provider-acme": minor\n---\n/);
  });

  it('has the file set and the role names CONTRIBUTING.md prescribes, spelt for the provider', async () => {
    const made = await payNew(...ACME);
    expect(made.status).toBe(0);
    const check = spawnSync(
      process.execPath,
      [join(WORKSPACE, 'tooling/scripts/adapter-names.mjs'), '--check', join(scratch, 'acme')],
      { cwd: scratch, encoding: 'utf8' },
    );
    expect(check.stderr).toBe('');
    expect(check.stdout).toBe('adapter-names: 1 adapters use the names CONTRIBUTING.md prescribes.\n');
    expect(check.status).toBe(0);
  });

  it('passes the runtime-import check run on it from outside the workspace, which refuses a node: import in src/', async () => {
    const made = await payNew(...ACME);
    expect(made.status).toBe(0);
    const check = (folder: string) =>
      spawnSync(process.execPath, [join(WORKSPACE, 'tooling/scripts/check-runtime-imports.mjs'), folder], {
        cwd: scratch,
        encoding: 'utf8',
      });
    const clean = check(join(scratch, 'acme'));
    expect(clean.stdout).toBe('runtime sources use no node: built-in and no Buffer\n');
    expect(clean.status).toBe(0);
    writeFileSync(
      join(scratch, 'acme', 'src', 'clock.ts'),
      "import { setTimeout } from 'node:timers/promises';\n",
    );
    const offending = check(join(scratch, 'acme'));
    expect(offending.stderr).toContain('acme/src/clock.ts:1 uses a node: built-in');
    expect(offending.status).toBe(1);
  });

  it('pins @pay/core as a peer on the adapter contract of the core it runs with (^0.minor.0), and the pay that wrote it', async () => {
    await payNew('adapter', 'acme', '--name', 'pay-provider-acme', '--provider', 'acme', '--label', 'ACME');
    const manifest = JSON.parse(readFileSync(join(scratch, 'acme', 'package.json'), 'utf8'));
    const core = JSON.parse(readFileSync(join(WORKSPACE, 'packages/core/package.json'), 'utf8')).version;
    const cli = JSON.parse(readFileSync(join(WORKSPACE, 'packages/cli/package.json'), 'utf8')).version;
    expect(manifest).toMatchObject({
      name: 'pay-provider-acme',
      type: 'module',
      peerDependencies: { '@pay/core': `^0.${core.split('.')[1]}.0` },
      devDependencies: { '@pay/core': core, '@pay/cli': cli },
      scripts: { build: expect.any(String), test: 'vitest run', typecheck: expect.any(String) },
    });
    expect(Object.keys(manifest.exports)).toEqual(['.', './testing', './package.json']);
    expect(manifest.exports['./testing']).toEqual({
      types: './dist/testing/index.d.ts',
      default: './dist/testing/index.js',
    });
    expect(readFileSync(join(scratch, 'acme', 'src/testing/descriptor.ts'), 'utf8')).toContain(
      "label: 'ACME',",
    );
  });

  it('pins the tool versions the workspace builds and tests with', () => {
    const manifest = JSON.parse(readFileSync(join(TEMPLATE, '_package.json'), 'utf8'));
    const catalog = readFileSync(join(WORKSPACE, 'pnpm-workspace.yaml'), 'utf8');
    for (const [name, range] of Object.entries<string>(manifest.devDependencies)) {
      const pinned = new RegExp(`^ {2}"?${name.replace('/', '\\/')}"?: (\\S+)$`, 'm').exec(catalog)?.[1];
      if (pinned === undefined) continue;
      // `^a.b.c` holds the catalog's version: same major, not below.
      const [major, ...rest] = range.replace('^', '').split('.').map(Number);
      const [pinnedMajor, ...pinnedRest] = pinned.split('.').map(Number);
      expect(pinnedMajor, name).toBe(major);
      expect(pinnedRest[0]! * 1000 + pinnedRest[1]!, name).toBeGreaterThanOrEqual(rest[0]! * 1000 + rest[1]!);
    }
    expect(Object.keys(manifest.devDependencies)).toEqual(
      expect.arrayContaining(['typescript', 'vitest', '@types/node', '@changesets/cli']),
    );
  });

  it("lints with the workspace's own Biome rules, at the workspace's Biome version, and runs pay check after it", () => {
    const manifest = JSON.parse(readFileSync(join(TEMPLATE, '_package.json'), 'utf8'));
    const template = JSON.parse(readFileSync(join(TEMPLATE, '_biome.json'), 'utf8'));
    const workspace = JSON.parse(readFileSync(join(WORKSPACE, 'biome.json'), 'utf8'));
    for (const rules of ['formatter', 'javascript', 'linter'])
      expect(template[rules], rules).toEqual(workspace[rules]);
    const catalog = readFileSync(join(WORKSPACE, 'pnpm-workspace.yaml'), 'utf8');
    expect(manifest.devDependencies['@biomejs/biome']).toBe(
      /^ {2}"@biomejs\/biome": (\S+)$/m.exec(catalog)?.[1],
    );
    expect(manifest.scripts.lint).toBe('biome check . && pay check');
  });

  it('is shipped: the template folder is in the package files', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(manifest.files).toContain('templates');
  });

  it.each([
    [['adapter', 'x', '--provider', 'acmePay'], '--name <package> is required (e.g. @acme/pay-provider-x)'],
    [
      ['adapter', 'x', '--name', '@Acme/Pay', '--provider', 'acmePay'],
      '--name "@Acme/Pay" is not a valid npm package name',
    ],
    [['adapter', 'x', '--name', '.hidden', '--provider', 'acmePay'], 'is not a valid npm package name'],
    [['adapter', 'x', '--name', '@acme/', '--provider', 'acmePay'], 'is not a valid npm package name'],
    [['adapter', 'x', '--name', 'a'.repeat(215), '--provider', 'acmePay'], 'must be at most 214 characters'],
    [['adapter', 'x', '--name', 'node_modules', '--provider', 'acmePay'], 'is a name npm refuses'],
    [['adapter', 'x', '--name', 'acme'], '--provider <id> is required'],
    [
      ['adapter', 'x', '--name', 'acme', '--provider', 'acme-pay'],
      '"acme-pay" must be a camelCase identifier',
    ],
    [['adapter', 'x', '--name', 'acme', '--provider', 'AcmePay'], 'must be a camelCase identifier'],
    [['adapter', 'x', '--name', 'acme', '--provider', 'providerN'], 'is the name of an @pay adapter'],
    [['adapter', 'x', '--name', 'acme', '--provider', 'acme', '--label', 'a/b'], '--label must be'],
    [['store', 'x', '--name', 'acme', '--provider', 'acme'], 'pay new makes an adapter package'],
    [['adapter', '--name', 'acme', '--provider', 'acme'], 'pay new adapter takes one directory'],
  ])('refuses %j with a usage error, writing nothing', async (args, message) => {
    const refused = await payNew(...args);
    expect(refused.status).toBe(2);
    expect(refused.err[0]).toContain(message);
    expect(refused.err[1]).toBe('Run pay --help for usage.');
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('keeps a package name holding a template name as given, and escapes a quoted label wherever it lands', async () => {
    const made = await payNew(
      'adapter',
      'obrien',
      '--name',
      '@acme/provider-xyz-pay',
      '--provider',
      'obrienPay',
      '--label',
      "O'Brien Pay",
    );
    expect(made.err).toEqual([]);
    expect(made.status).toBe(0);
    const target = join(scratch, 'obrien');
    const read = (file: string) => readFileSync(join(target, file), 'utf8');
    expect(JSON.parse(read('package.json')).name).toBe('@acme/provider-xyz-pay');
    expect(JSON.parse(read('package.json')).description).toContain("adapter for O'Brien Pay:");
    expect(read('README.md')).toContain('npm install @acme/provider-xyz-pay @pay/core');
    expect(read('src/testing/descriptor.ts')).toContain("label: 'O\\'Brien Pay',");
    expect(read('src/testing/simulator/index.ts')).toContain("export const SIMULATOR_NAME = 'obrien-pay';");
    // Every TypeScript file parses: a label's quote never ends a string literal early.
    for (const file of filesUnder(target).filter((name) => name.endsWith('.ts'))) {
      const { diagnostics } = ts.transpileModule(read(file), { reportDiagnostics: true, fileName: file });
      expect(
        diagnostics?.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
        file,
      ).toEqual([]);
    }
  });

  it('names every bad argument at once', async () => {
    const refused = await payNew('adapter', 'x', '--name', 'Bad Name', '--provider', '9lives');
    expect(refused.err[0]).toBe(
      'pay: --name "Bad Name" is not a valid npm package name (lower case letters, digits, - . _ ~, an optional @scope/); ' +
        '--provider "9lives" must be a camelCase identifier of 2–40 letters and digits (e.g. acmePay)',
    );
  });

  it('refuses a directory that is not empty, or a file, and leaves it as it was', async () => {
    mkdirSync(join(scratch, 'taken'));
    writeFileSync(join(scratch, 'taken', 'notes.txt'), 'mine');
    writeFileSync(join(scratch, 'file'), 'mine');
    const args = ['--name', 'acme', '--provider', 'acme'];
    const taken = await payNew('adapter', 'taken', ...args);
    expect(taken.status).toBe(2);
    expect(taken.err[0]).toBe(
      'pay: taken is not empty: name a new or empty directory (nothing was written).',
    );
    expect(readdirSync(join(scratch, 'taken'))).toEqual(['notes.txt']);
    const file = await payNew('adapter', 'file', ...args);
    expect(file.status).toBe(2);
    expect(file.err[0]).toBe('pay: file is a file: name a new or empty directory.');
    expect(readFileSync(join(scratch, 'file'), 'utf8')).toBe('mine');
  });

  it('writes into an empty directory that exists', async () => {
    mkdirSync(join(scratch, 'empty'));
    const made = await payNew('adapter', 'empty', '--name', 'acme', '--provider', 'acme');
    expect(made.status).toBe(0);
    expect(existsSync(join(scratch, 'empty', 'src', 'adapter.ts'))).toBe(true);
  });
});
