/**
 * The root README's Next.js recipe (`next-app/app/api/webhooks/route.ts`, the README's code block verbatim) in a
 * real Next.js production build: `next build` without any of the provider's variables (as CI builds run, without
 * secrets), then `next start` on a loopback port with them, held to everything support.ts checks. The test app's
 * `markPaid` (next-app/lib/orders.ts) appends each paid transaction to a file the test reads.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRecipes, type Started, WEBHOOK_SECRET } from './support.js';

const app = fileURLToPath(new URL('../next-app', import.meta.url));
const next = fileURLToPath(new URL('../node_modules/next/dist/bin/next', import.meta.url));
const readme = fileURLToPath(new URL('../../../README.md', import.meta.url));

/** The environment without any provider variable, so nothing the build does can read a secret. */
function withoutProviderVariables(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^PROVIDER_/.test(name)));
  return { ...env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' };
}

/** Runs `next <args>` in the app; resolves with its output once it exits. */
function nextCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [next, ...args], { cwd: app, env });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/** Runs `next start` on a free loopback port with `env`; resolves once it is ready. */
async function startNext(env: NodeJS.ProcessEnv): Promise<{ server: ChildProcess; url: string }> {
  const started = spawn(process.execPath, [next, 'start', '-H', '127.0.0.1', '-p', '0'], { cwd: app, env });
  const ready = new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`next start did not get ready:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk;
      const local = /Local:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (local?.[1] && /Ready/.test(output)) {
        clearTimeout(timer);
        resolve(local[1]);
      }
    };
    started.stdout.on('data', read);
    started.stderr.on('data', read);
    started.on('exit', (code) => reject(new Error(`next start exited (${code}):\n${output}`)));
  });
  return { server: started, url: await ready };
}

/** Stops a `next start` and waits for it to exit. */
async function stopNext(started: ChildProcess | undefined): Promise<void> {
  if (!started || started.exitCode !== null) return;
  const exited = new Promise((resolve) => started.once('exit', resolve));
  started.kill('SIGTERM');
  await exited;
}

let build: { code: number | null; output: string };
let server: ChildProcess | undefined;
let url = '';
let workDir = '';
let paidFile = '';

beforeAll(async () => {
  await rm(join(app, '.next'), { recursive: true, force: true });
  build = await nextCommand(['build'], withoutProviderVariables());
  if (build.code !== 0) return; // the first test reports the build's output
  workDir = await mkdtemp(join(tmpdir(), 'pay-next-recipe-'));
  paidFile = join(workDir, 'paid.txt');
  await writeFile(paidFile, '');
  const env = {
    ...withoutProviderVariables(),
    PROVIDER_N_API_KEY: 'recipes-api-key',
    PROVIDER_N_SECRET_KEY: WEBHOOK_SECRET,
    PROVIDER_N_SANDBOX: 'true',
    RECIPE_PAID_FILE: paidFile,
  };
  const started = await startNext(env);
  server = started.server;
  url = started.url;
}, 300_000);

afterAll(async () => {
  await stopNext(server);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('the Next.js recipe', () => {
  it('is the README’s code block, verbatim', async () => {
    const text = await readFile(readme, 'utf8');
    const section = text.slice(text.indexOf('**Next.js (app router)**'));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBe(await readFile(join(app, 'app/api/webhooks/route.ts'), 'utf8'));
  });

  it('builds with next build while none of the provider’s variables is set', () => {
    expect(build.output).not.toMatch(/ConfigurationError|is not configured/);
    expect(build.code, build.output).toBe(0);
  });

  it('answers a delivery with a JSON 500 naming the missing variable, never a secret, while one is missing', async () => {
    expect(build.code, 'next build failed (see the build test)').toBe(0);
    const env = {
      ...withoutProviderVariables(),
      PROVIDER_N_SECRET_KEY: WEBHOOK_SECRET,
      PROVIDER_N_SANDBOX: 'true',
    };
    const unconfigured = await startNext(env);
    try {
      const response = await fetch(`${unconfigured.url}/api/webhooks`, { method: 'POST', body: '{}' });
      const text = await response.text();
      expect(response.status).toBe(500);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(JSON.parse(text)).toEqual({
        error: 'configuration_error',
        message: expect.stringContaining('set PROVIDER_N_API_KEY (or the config member `apiKey`)'),
      });
      expect(text).not.toContain(WEBHOOK_SECRET);
    } finally {
      await stopNext(unconfigured.server);
    }
  }, 90_000);
});

/** The running `next start`: paid() reads the lines the app appended since start() was called. */
describeRecipes([
  {
    name: 'Next.js 16 route handler (next build, next start, Node.js runtime)',
    async start(): Promise<Started> {
      expect(url, 'next start is not running (see the build test)').not.toBe('');
      const before = (await readFile(paidFile, 'utf8')).length;
      return {
        url: `${url}/api`,
        paid: async () => (await readFile(paidFile, 'utf8')).slice(before).split('\n').filter(Boolean),
      };
    },
  },
]);
