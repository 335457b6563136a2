/**
 * The README's server, `createServer(toNodeListener(handler))`, runs in a child process and is sent
 * every hostile request over a raw socket; after each one the child must still be alive and answering a genuine
 * delivery with 200 (docs/architecture.md#webhook-bridges). An unhandled rejection (the bug this guards) ends a
 * Node process, so a crash shows here as an exit code, not as a swallowed error inside the test runner.
 *
 * The child is plain Node: core's sources are transpiled once (TypeScript's `transpileModule`, no type check)
 * into a cache folder under `node_modules`, where `ky` and `valibot` resolve, so this works from a clean clone
 * without a build.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rawRequest } from './bridge-sockets.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
// One folder per run: two runs at once (two checkouts' worth of test commands) must not delete each other's.
const childRoot = join(packageRoot, 'node_modules', '.cache', `pay-ingress-child-${process.pid}`);
const SECRET = 'whsec_child_process_test';

/**
 * Transpiles `src/**` (not `src/testing`, which loads node:http and vitest) to `childRoot/src`, and the shared test
 * adapter `test/fixtures.ts` to `childRoot/test`, where its `../src/index.js` import finds the transpiled core.
 */
function transpileCoreSources(): void {
  rmSync(childRoot, { recursive: true, force: true });
  const sourceRoot = join(packageRoot, 'src');
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? entry.name === 'testing'
          ? []
          : walk(join(dir, entry.name))
        : entry.name.endsWith('.ts')
          ? [join(dir, entry.name)]
          : [],
    );
  for (const file of [...walk(sourceRoot), join(packageRoot, 'test', 'fixtures.ts')]) {
    const output = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
      fileName: file,
    }).outputText;
    const target = join(childRoot, relative(packageRoot, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, output);
  }
  writeFileSync(join(childRoot, 'package.json'), '{ "type": "module" }\n');
}

/**
 * The child: the README's two plain-Node servers (with and without `publicOrigin`) over core's test adapter
 * (test/fixtures.ts: HMAC-SHA512 of the raw body, two-phase verify). It prints both ports once listening.
 */
const CHILD_SCRIPT = `
import { createServer } from 'node:http';
import { createPay, toNodeListener } from './src/index.js';
import { createTestAdapter } from './test/fixtures.js';

const { adapter } = createTestAdapter();
const handler = createPay(adapter).webhooks.setup({ webhookSecret: ${JSON.stringify(SECRET)} });

const plain = createServer(toNodeListener(handler));
const behindProxy = createServer(toNodeListener(handler, { publicOrigin: 'https://shop.example' }));
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const ports = { plain: await listen(plain), behindProxy: await listen(behindProxy) };
process.stdout.write(JSON.stringify(ports) + '\\n');
`;

let child: ChildProcess;
let ports: { plain: number; behindProxy: number };
let childErrors = '';

/** Starts a fresh child for each hostile request, so each one proves on its own that it cannot end the process. */
async function startChild(): Promise<void> {
  childErrors = '';
  child = spawn(process.execPath, [join(childRoot, 'server.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr?.on('data', (data: Buffer) => {
    childErrors += data.toString();
  });
  ports = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (data: Buffer) => {
      out += data.toString();
      if (out.includes('\n')) resolve(JSON.parse(out));
    });
    child.on('exit', (code) =>
      reject(new Error(`child exited with ${code} before listening: ${childErrors}`)),
    );
  });
}

beforeAll(() => {
  transpileCoreSources();
  writeFileSync(join(childRoot, 'server.mjs'), CHILD_SCRIPT);
}, 120_000);

beforeEach(startChild, 30_000);

afterEach(() => {
  child?.kill();
});

afterAll(() => {
  rmSync(childRoot, { recursive: true, force: true });
});

function sign(body: string): string {
  return createHmac('sha512', SECRET).update(body).digest('hex');
}

/** The child is alive and answers a genuine delivery with 200 on both servers. */
async function expectAliveAndAnswering(label: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(child.exitCode, `${label}: the child exited. ${childErrors}`).toBeNull();
  for (const port of [ports.plain, ports.behindProxy]) {
    const body = JSON.stringify({ ref: `alive-${label}` });
    const response = await fetch(`http://127.0.0.1:${port}/hooks`, {
      method: 'POST',
      body,
      headers: { 'x-signature': sign(body) },
    });
    expect(response.status, `${label}: genuine delivery after it`).toBe(200);
  }
}

const genuine = JSON.stringify({ ref: 'hostile' });
const signedHeaders = `x-signature: ${sign(genuine)}\r\nContent-Length: ${genuine.length}\r\nConnection: close\r\n`;

describe('the README server (createServer(toNodeListener(handler))) in a child process, under hostile requests', () => {
  const hostile: {
    name: string;
    send: (port: number) => ReturnType<typeof rawRequest>;
    expected: number[];
  }[] = [
    {
      name: 'absolute-form target with an invalid port',
      send: (port) =>
        rawRequest(port, `POST http://a:99999/hooks HTTP/1.1\r\nHost: a\r\n${signedHeaders}\r\n`, {
          body: genuine,
        }),
      expected: [200],
    },
    {
      name: 'scheme-relative target with a broken IPv6 literal',
      send: (port) =>
        rawRequest(port, `POST //[bad/hooks HTTP/1.1\r\nHost: shop.example\r\n${signedHeaders}\r\n`, {
          body: genuine,
        }),
      expected: [200],
    },
    {
      name: 'Host header with a space',
      send: (port) =>
        rawRequest(port, `POST /hooks HTTP/1.1\r\nHost: exa mple.com\r\n${signedHeaders}\r\n`, {
          body: genuine,
        }),
      expected: [400, 200],
    },
    {
      name: 'Host header with a port out of range',
      send: (port) =>
        rawRequest(port, `POST /hooks HTTP/1.1\r\nHost: shop.example:99999\r\n${signedHeaders}\r\n`, {
          body: genuine,
        }),
      expected: [400, 200],
    },
    {
      name: 'upload aborted by the client mid-body',
      send: (port) =>
        rawRequest(port, 'POST /hooks HTTP/1.1\r\nHost: shop.example\r\nContent-Length: 100000\r\n\r\n', {
          body: '{"ref":"abo',
          abort: true,
        }),
      expected: [],
    },
    {
      name: 'endless chunked body',
      send: (port) =>
        rawRequest(port, 'POST /hooks HTTP/1.1\r\nHost: shop.example\r\nTransfer-Encoding: chunked\r\n\r\n', {
          endless: `4000\r\n${'x'.repeat(0x4000)}\r\n`,
        }),
      expected: [413],
    },
    {
      name: 'declared body far over the limit',
      send: (port) =>
        rawRequest(
          port,
          'POST /hooks HTTP/1.1\r\nHost: shop.example\r\nContent-Length: 99999999999\r\n\r\n',
          {
            body: 'x',
          },
        ),
      expected: [413],
    },
  ];

  for (const request of hostile) {
    it(`survives: ${request.name}`, async () => {
      for (const [server, port] of Object.entries(ports)) {
        const reply = await request.send(port);
        if (request.expected.length === 0) expect(reply.closed, server).toBe(true);
        else {
          // Without publicOrigin a bad Host is a 400; behind publicOrigin the Host is never read (200).
          const expected = server === 'plain' ? request.expected[0] : request.expected.at(-1);
          expect(reply.status, `${request.name} on the ${server} server`).toBe(expected);
        }
      }
      await expectAliveAndAnswering(request.name);
    });
  }
});
