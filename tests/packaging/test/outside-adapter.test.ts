/**
 * An adapter from outside the repository, as a contributor makes one (CONTRIBUTING.md#start-from-the-skeleton):
 * `pay new adapter` from the packed `@pay/cli` writes the skeleton into a folder outside the workspace, which
 * depends only on the packed tarballs (and registry packages); the skeleton compiles and its conformance test names
 * what is left to fill in; the fill-in of a small provider (`fixtures/acme-pay.patch`: three operations and HMAC
 * webhooks) passes the conformance suite, builds, is served by `pay dev <its package name>` with its event log,
 * and passes its own `npm run lint` (Biome, then the packed CLI's `pay check`). Nothing in the repository changes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startPayDev } from '@pay/tooling/testing/pay-dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packRelease, root, run } from './release.js';

/**
 * The fill-in: the provider's own code, as a patch of the generated package (`diff -ruN skeleton filled`), so its
 * added lines are exactly what the contributor wrote beyond the skeleton.
 */
const FILL_IN = new URL('../fixtures/acme-pay.patch', import.meta.url).pathname;
const PACKAGE = '@acme/pay-provider-acme';
/** Registry packages the scratch folders install as a contributor would (no cache of the workspace's). */
const NPM_INSTALL = ['install', '--no-audit', '--no-fund', '--prefer-offline'];

let scratch: string;
let adapter: string;
let statusBefore: string;
const tarballs = new Map<string, string>();
const children: ChildProcess[] = [];

/** Every file under `folder`, as paths relative to it. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)));
}

/** The non-blank lines a patch adds. */
function linesAdded(patch: string): number {
  return readFileSync(patch, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('+') && !line.startsWith('+++') && line.slice(1).trim() !== '').length;
}

beforeAll(() => {
  statusBefore = run('git', ['status', '--porcelain'], root).output;
  scratch = mkdtempSync(join(tmpdir(), 'pay-outside-'));
  for (const packed of packRelease(join(scratch, 'tarballs'))) tarballs.set(packed.name, packed.tarball);
  // The contributor's own `pay`, from the packed CLI and the core it runs with.
  const tools = join(scratch, 'tools');
  mkdirSync(tools);
  writeFileSync(
    join(tools, 'package.json'),
    JSON.stringify({
      name: 'tools',
      private: true,
      devDependencies: {
        '@pay/cli': `file:${tarballs.get('@pay/cli')}`,
        '@pay/core': `file:${tarballs.get('@pay/core')}`,
      },
    }),
  );
  const installed = run('npm', NPM_INSTALL, tools);
  if (installed.status !== 0) throw new Error(`npm install of the packed CLI failed:\n${installed.output}`);
  adapter = join(scratch, 'acme-pay');
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('an adapter package made outside the repository from the skeleton', () => {
  it('is written by pay new adapter, and installs with the packed @pay tarballs', () => {
    const pay = join(scratch, 'tools', 'node_modules', '.bin', 'pay');
    const made = run(pay, ['new', 'adapter', adapter, '--name', PACKAGE, '--provider', 'acmePay'], scratch);
    expect(made.status, made.output).toBe(0);
    const files = filesUnder(adapter).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        '.changeset/first-release.md',
        '.gitignore',
        'README.md',
        'package.json',
        'src/adapter.ts',
        'src/testing/descriptor.ts',
        'test/contract.test.ts',
      ]),
    );
    // The packed core and CLI in place of the versions the skeleton pins (not on the registry before a release).
    const installed = run(
      'npm',
      [...NPM_INSTALL, '--save-dev', `file:${tarballs.get('@pay/core')}`, `file:${tarballs.get('@pay/cli')}`],
      adapter,
    );
    expect(installed.output).not.toContain('ERESOLVE');
    expect(installed.status, installed.output).toBe(0);
  });

  it('compiles as generated, and its conformance test names what is left to fill in instead of passing', () => {
    const typecheck = run('npm', ['run', 'typecheck'], adapter);
    expect(typecheck.status, typecheck.output).toBe(0);
    const test = run('npm', ['test'], adapter);
    expect(test.status, test.output).not.toBe(0);
    expect(test.output).toContain('still TODO');
    for (const missing of [
      'operation checkouts.create',
      'operation payments.retrieve',
      'operation refunds.create',
      'PAYMENT_STATUS (src/mapping.ts)',
      'EVENT_TYPES (src/webhooks.ts)',
    ])
      expect(test.output).toContain(missing);
  }, 120_000);

  it('takes a small provider (three operations, HMAC webhooks) in at most 600 lines beyond the skeleton, then passes the conformance suite', () => {
    const added = linesAdded(FILL_IN);
    expect(added).toBeGreaterThan(50);
    expect(added).toBeLessThanOrEqual(600);
    // The patch applies to the skeleton exactly as generated (a hunk that no longer matches fails here).
    const patched = run('patch', ['-p1', '--forward', '--no-backup-if-mismatch', '-i', FILL_IN], adapter);
    expect(patched.status, patched.output).toBe(0);
    expect(patched.output).not.toMatch(/offset|fuzz/i);
    const typecheck = run('npm', ['run', 'typecheck'], adapter);
    expect(typecheck.status, typecheck.output).toBe(0);
    const test = run('npm', ['test', '--', '--reporter=verbose'], adapter);
    expect(test.status, test.output).toBe(0);
    expect(test.output).toContain('has no TODO left');
    expect(test.output).toContain(
      'refunds.create under a reply lost after the provider acted at each upstream step: moves money at most once',
    );
    expect(test.output).toContain('never reads a failure, pending or unknown status as paid');
    const build = run('npm', ['run', 'build'], adapter);
    expect(build.status, build.output).toBe(0);
  }, 120_000);

  it('is served by pay dev by its package name from its own folder, takes a checkout there, serves its payment page and lists it with its read in the event log', async () => {
    const bin = join(adapter, 'node_modules', '.bin', 'pay');
    const { child, output: printed, exited } = await startPayDev(bin, [PACKAGE, '--port', '0'], adapter);
    children.push(child);
    const env = Object.fromEntries(
      [...printed().matchAll(/^ {2}(ACME_PAY_\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]),
    );
    // An app of the contributor's: the built package by its own name, configured from what pay dev printed.
    writeFileSync(
      join(adapter, 'checkout.mjs'),
      `import { createPay } from '@pay/core';
import { acmePay } from '${PACKAGE}';
const pay = createPay(acmePay());
const checkout = await pay.checkouts.create({ amount: 19.99, currency: 'USD', provider_metadata: { email: 'ada@example.com' } });
const payment = await pay.payments.retrieve(checkout.id);
console.log(JSON.stringify({ url: checkout.payment_url, status: payment?.status, amount: payment?.amount }));
`,
    );
    const checkout = run('node', ['checkout.mjs'], adapter);
    const app = spawn('node', ['checkout.mjs'], { cwd: adapter, env: { ...process.env, ...env } });
    let answer = '';
    app.stdout.on('data', (chunk) => (answer += chunk));
    app.stderr.on('data', (chunk) => (answer += chunk));
    const appExit = await new Promise<number | null>((resolve) => app.on('exit', (code) => resolve(code)));
    // The payer's page the checkout points at, served by the skeleton's simulator as ours serve theirs.
    const pageUrl = (JSON.parse(answer.trim() || '{}') as { url?: string }).url ?? '';
    const page = await fetch(pageUrl).then(async (reply) => ({
      status: reply.status,
      html: await reply.text(),
    }));
    // pay dev's event log, attached by the kit's simulator builder: the payment, and the app's read of it.
    const eventLog = await fetch(`${env.ACME_PAY_BASE_URL}/_simulator/events`).then((reply) => reply.text());
    child.kill('SIGINT');
    const status = await exited;
    const output = printed();
    expect(status, output).toBe(0);
    expect(output).toContain('Acme Pay simulator listening on http://127.0.0.1:');
    expect(env.ACME_PAY_BASE_URL, output).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Without the variables the default factory names what is missing.
    expect(checkout.output).toContain('ACME_PAY_SECRET_KEY');
    expect(appExit, answer).toBe(0);
    expect(JSON.parse(answer.trim())).toEqual({
      url: expect.stringMatching(new RegExp(`^${env.ACME_PAY_BASE_URL}/pay/`)),
      status: 'pending',
      amount: 19.99,
    });
    expect(output).toMatch(/request {2}POST \/v1\/checkouts/);
    expect(page.status, page.html).toBe(200);
    expect(page.html).toContain('Pay USD 19.99');
    expect(page.html).toContain('<button type="submit" class="pay">');
    expect(output).toContain(
      `Event log (objects, reads, webhook deliveries, send again): ${env.ACME_PAY_BASE_URL}/_simulator/events`,
    );
    const paymentId = /\/pay\/([\w-]+)"/.exec(answer)?.[1];
    expect(eventLog, eventLog).toMatch(
      new RegExp(
        `<tr><td>payment</td><td><code>${paymentId}</code></td><td>pending</td><td><ul><li><time datetime="[^"]+">[\\d:]+</time> GET /v1/payments/${paymentId}: HTTP 200</li></ul></td></tr>`,
      ),
    );
  }, 60_000);

  it('lints with what npm installed: Biome at the workspace rules, then pay check, which refuses a node: import in src/', () => {
    // Biome orders the imports of the names pay new wrote (and of the fill-in) once; from then on the lint passes.
    const format = run('npm', ['run', 'format'], adapter);
    expect(format.status, format.output).toBe(0);
    const lint = run('npm', ['run', 'lint'], adapter);
    expect(lint.status, lint.output).toBe(0);
    expect(lint.output).toContain(
      [
        'pay check: @acme/pay-provider-acme keeps the @pay adapter rules:',
        '  runtime sources use no node: built-in and no Buffer, which only src/testing/ may use',
        "  src/ has the files and names of CONTRIBUTING.md's table",
      ].join('\n'),
    );
    // A contributor signing with Node's crypto in the adapter itself: valid code Biome passes, refused by pay check.
    const client = join(adapter, 'src', 'client.ts');
    const source = readFileSync(client, 'utf8');
    writeFileSync(
      client,
      `import { createHmac } from 'node:crypto';\n${source}\nexport const hmacOf = createHmac;\n`,
    );
    const refused = run('npm', ['run', 'lint'], adapter);
    writeFileSync(client, source);
    expect(refused.status, refused.output).not.toBe(0);
    expect(refused.output).toContain(
      [
        'pay check: @acme/pay-provider-acme departs from the @pay adapter rules in 1 place:',
        '  src/client.ts:1 uses a node: built-in',
      ].join('\n'),
    );
  }, 60_000);

  it('changed no file of the repository', () => {
    expect(run('git', ['status', '--porcelain'], root).output).toBe(statusBefore);
  });
});
