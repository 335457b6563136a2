/**
 * Starts a real, throwaway `redis-server` for the tests (issue 14 §3: never a mock): on a free loopback port, with
 * no persistence, in its own temporary directory, and stops it and deletes the directory afterwards. When
 * `redis-server` is not installed the tests fail with a message that says how to install it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';

/** A running server: where it listens and how to stop it. */
export interface RedisServer {
  port: number;
  /** `redis://[:password@]127.0.0.1:<port>` */
  url: string;
  /** Suspends the server process (SIGSTOP): connections stay open but nothing answers, like a hung server. */
  freeze(): void;
  /** Resumes a frozen server (SIGCONT). */
  thaw(): void;
  /** Stops the server (waits for it to exit) and deletes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

const installHint = (command: string) =>
  `${command} is not installed (not found on PATH), and the @pay/store-redis tests run against a real Redis. ` +
  "Install it from the distribution's packages (Debian/Ubuntu: `apt-get install -y redis-server`, then " +
  '`service redis-server stop`), or point REDIS_SERVER at a redis-server or valkey-server binary, and run the ' +
  'tests again.';

const running = new Set<ChildProcess>();
// A worker that exits with servers still running takes them down with it; one that is killed leaves them to the
// global teardown, which finds them in the registry (test/global-setup.ts).
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A port nothing listens on right now (the kernel's pick for port 0). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** True when a server on `port` answers `PING` (with `+PONG`, or `-NOAUTH` when it wants a password). */
async function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
  });
}

/**
 * Starts `redis-server` and resolves once it answers. `password` turns on `--requirepass`. `command` is the
 * server binary: `REDIS_SERVER` from the environment (for example `valkey-server`), else `redis-server`.
 */
export async function startRedisServer(
  options: { password?: string; command?: string } = {},
): Promise<RedisServer> {
  const command = options.command ?? process.env.REDIS_SERVER ?? 'redis-server';
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pay-store-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  args.push('--dir', dir, '--daemonize', 'no', '--loglevel', 'warning');
  if (options.password !== undefined) args.push('--requirepass', options.password);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  const registered =
    child.pid === undefined ? undefined : join(inject('redisServerRegistry'), String(child.pid));
  if (registered !== undefined) writeFileSync(registered, dir);
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const failedToSpawn = new Promise<Error>((resolve) => child.once('error', resolve));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGTERM');
    }
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    running.delete(child);
    rmSync(dir, { recursive: true, force: true });
    if (registered !== undefined) rmSync(registered, { force: true });
  };
  const deadline = Date.now() + 10_000;
  while (true) {
    const outcome = await Promise.race([
      failedToSpawn,
      exited.then(() => 'exited' as const),
      new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 50)),
    ]);
    if (outcome instanceof Error) {
      await stop();
      const missing = (outcome as NodeJS.ErrnoException).code === 'ENOENT';
      throw new Error(missing ? installHint(command) : `${command} could not start: ${outcome.message}`);
    }
    if (outcome === 'exited') {
      await stop();
      throw new Error(`redis-server exited at start-up (port ${port}): ${stderr.trim()}`);
    }
    if (await answers(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server did not answer on 127.0.0.1:${port} within 10 s: ${stderr.trim()}`);
    }
  }
  const credentials = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
  return {
    port,
    url: `redis://${credentials}127.0.0.1:${port}`,
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
    stop,
  };
}
