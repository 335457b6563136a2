/**
 * A local npm registry for the tests: Verdaccio on a free loopback port, its storage in a temporary folder, no
 * uplink (it serves only what the tests publish), one user whose token publishes. Consumers point only the `@pay`
 * scope at it (`@pay:registry=`), so every other package comes from where a user's would.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The repository's root folder. */
export const root = new URL('../../..', import.meta.url).pathname;

/** A running registry: its URL, a token that publishes, and how to stop it. */
export interface Registry {
  url: string;
  token: string;
  stop(): Promise<void>;
}

/** A loopback port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Verdaccio's configuration: storage and users under `folder`, anyone reads, a signed-in user publishes. */
function config(folder: string): string {
  return `storage: ${join(folder, 'storage')}
auth:
  htpasswd:
    file: ${join(folder, 'htpasswd')}
    max_users: 10
uplinks: {}
packages:
  '**':
    access: $all
    publish: $authenticated
    unpublish: $authenticated
web:
  enable: false
# Longer than a release takes: the tests' fetch keeps its connection between two reads a release apart.
server:
  keepAliveTimeout: 600
log: { type: stdout, format: json, level: warn }
`;
}

/** Starts Verdaccio with its storage in `folder`; resolves once it answers, with a publishing user signed up. */
export async function startRegistry(folder: string): Promise<Registry> {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'config.yaml'), config(folder));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const bin = createRequire(import.meta.url).resolve('verdaccio/bin/verdaccio');
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, '--config', join(folder, 'config.yaml'), '--listen', `127.0.0.1:${port}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  };
  try {
    await waitUntilUp(url, child, () => output);
    return { url, token: await signUp(url), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Polls the registry's ping route until it answers (or the process exits, or 30 s pass). */
async function waitUntilUp(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const ok = await fetch(`${url}-/ping`).then(
      (reply) => reply.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Verdaccio did not start:\n${output()}`);
}

/** Signs a user up as `npm adduser` does; resolves to its token. */
async function signUp(url: string): Promise<string> {
  const reply = await fetch(`${url}-/user/org.couchdb.user:release`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'release', password: 'release-password', type: 'user', roles: [] }),
  });
  const body = (await reply.json()) as { token?: string };
  if (!reply.ok || !body.token) throw new Error(`Verdaccio refused the sign-up: ${JSON.stringify(body)}`);
  return body.token;
}

/**
 * Runs `command` in `cwd`; its exit status and its output (stdout then stderr), without colour: the test command
 * sets `FORCE_COLOR` outside CI, and a package manager's colour codes would split the words the tests look for.
 */
export function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const { FORCE_COLOR: _colour, ...inherited } = process.env;
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...inherited, CI: 'true', NO_COLOR: '1', ...env },
  });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

/** Removes `folder` and everything in it. */
export function remove(folder: string | undefined): void {
  if (folder) rmSync(folder, { recursive: true, force: true });
}
