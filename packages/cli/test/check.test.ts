/**
 * `pay check`: the rules the `@pay` adapters keep, run on an adapter package wherever it was made (here a skeleton
 * `pay new adapter` wrote to a scratch folder outside the workspace): a fresh skeleton keeps them, and a `node:`
 * import in its runtime sources is refused naming the file and line. That the skeleton's `npm run lint` runs it
 * from the packed `@pay/cli` is proved in tests/packaging.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main, USAGE } from '../src/main.js';
import { capturedIo } from './support.js';

let scratch = '';
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'pay-check-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs `pay …` with `cwd` as its working directory. */
async function pay(cwd: string, ...args: string[]) {
  const { io, out, err } = capturedIo();
  const status = await main(args, { ...io, cwd });
  return { status, out, err };
}

/** A fresh Acme Pay skeleton in `<scratch>/acme`; resolves to its folder. */
async function skeleton(): Promise<string> {
  const made = await pay(
    scratch,
    'new',
    'adapter',
    'acme',
    '--name',
    '@acme/pay-provider-acme',
    '--provider',
    'acmePay',
  );
  expect(made.status, made.err.join('\n')).toBe(0);
  return join(scratch, 'acme');
}

const KEPT = [
  'pay check: @acme/pay-provider-acme keeps the @pay adapter rules:',
  '  runtime sources use no node: built-in and no Buffer, which only src/testing/ may use',
  "  src/ has the files and names of CONTRIBUTING.md's table",
];

describe('pay check', () => {
  it('passes a freshly generated skeleton, named or run in its folder', async () => {
    const folder = await skeleton();
    expect(await pay(scratch, 'check', 'acme')).toEqual({ status: 0, out: KEPT, err: [] });
    expect(await pay(folder, 'check')).toEqual({ status: 0, out: KEPT, err: [] });
  });

  it('refuses a node: built-in in the runtime sources, naming the file and line', async () => {
    const folder = await skeleton();
    const client = join(folder, 'src', 'client.ts');
    writeFileSync(client, `import { createHmac } from 'node:crypto';\n${readFileSync(client, 'utf8')}`);
    expect(await pay(folder, 'check')).toEqual({
      status: 1,
      out: [],
      err: [
        'pay check: @acme/pay-provider-acme departs from the @pay adapter rules in 1 place:',
        '  src/client.ts:1 uses a node: built-in',
        'Runtime sources use Web-standard APIs only, so the adapter runs on edge runtimes: Node built-ins and',
        'Buffer only in src/testing/. src/ holds one file per role, named as in ' +
          'https://github.com/pay-sdk/pay/blob/main/CONTRIBUTING.md#2-the-source-one-file-per-role-no-other-top-level-file-in-src',
      ],
    });
  });

  it('lists every departure: Buffer in a runtime source, a file of no role, a role name missing', async () => {
    const folder = await skeleton();
    writeFileSync(
      join(folder, 'src', 'bytes.ts'),
      "export const toBase64 = (text: string) => Buffer.from(text).toString('base64');\n",
    );
    const envelope = join(folder, 'src', 'envelope.ts');
    writeFileSync(
      envelope,
      readFileSync(envelope, 'utf8').replace('export function readEnvelope', 'export function readReply'),
    );
    // Node's modules stay allowed where the simulator lives.
    writeFileSync(
      join(folder, 'src', 'testing', 'clock.ts'),
      "import { setTimeout } from 'node:timers/promises';\nexport { setTimeout };\n",
    );
    const checked = await pay(folder, 'check');
    expect(checked.status).toBe(1);
    expect(checked.err.slice(0, 4)).toEqual([
      'pay check: @acme/pay-provider-acme departs from the @pay adapter rules in 3 places:',
      '  src/bytes.ts:1 uses Buffer',
      "  src/bytes.ts: not a role of CONTRIBUTING.md's table (move it into the file of its role)",
      '  src/envelope.ts: does not export readEnvelope',
    ]);
  });

  it('refuses a folder that holds no adapter package, and more than one folder', async () => {
    expect(await pay(scratch, 'check')).toEqual({
      status: 2,
      out: [],
      err: [
        'pay: . is not an adapter package (no src/adapter.ts): name the folder pay new wrote.',
        'Run pay --help for usage.',
      ],
    });
    const twice = await pay(scratch, 'check', 'a', 'b');
    expect(twice.status).toBe(2);
    expect(twice.err[0]).toBe('pay: pay check takes one adapter package folder, got "a b".');
  });

  it('is in pay --help', () => {
    expect(USAGE).toContain(
      '  pay check [<dir>]\n      Checks the adapter package in <dir> (default: this folder)',
    );
  });
});
