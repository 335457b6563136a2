// A throwaway `redis-server` for tests (real servers, never a mock): on a free loopback port, with no
// persistence, in its own temporary directory; stopped and its directory deleted by `stop()`, by an exit handler,
// and by a watchdog when the test runner is killed outright. Fails with the install line when it is missing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanUpAfterDeathOf, freePort } from './process.mjs';

/** @param {string} command */
const installHint = (command) =>
  `${command} is not installed (not found on PATH), and these tests run against a real Redis. ` +
  "Install it from the distribution's packages (Debian/Ubuntu: `apt-get install -y redis-server`, then " +
  '`service redis-server stop`; .ci/run does this), or point REDIS_SERVER at a redis-server or valkey-server ' +
  'binary, and run the tests again.';

/**
 * True when a server on `port` answers `PING` (with `+PONG`, or `-NOAUTH` when it wants a password).
 * @param {number} port
 * @returns {Promise<boolean>}
 */
async function answers(port) {
  return await new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    /** @param {boolean} ok */
    const done = (ok) => {
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

/** @param {number} ms */
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `redis-server` (or `options.command`, or `REDIS_SERVER`, e.g. `valkey-server`) and resolves once it
 * answers. `password` turns on `--requirepass`.
 * @param {{ password?: string, command?: string }} [options]
 * @returns {Promise<import('./redis.d.mts').RedisServer>}
 */
export async function startRedis(options = {}) {
  const command = options.command ?? process.env.REDIS_SERVER ?? 'redis-server';
  let lastFailure;
  // A port can be taken between the probe and the bind: try another one.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      return await startOnce(command, await freePort(), options.password);
    } catch (failure) {
      if (/** @type {{ notInstalled?: boolean }} */ (failure).notInstalled) throw failure;
      lastFailure = failure;
    }
  }
  throw lastFailure;
}

/**
 * @param {string} command
 * @param {number} port
 * @param {string | undefined} password
 * @returns {Promise<import('./redis.d.mts').RedisServer>}
 */
async function startOnce(command, port, password) {
  const dir = mkdtempSync(join(tmpdir(), 'pay-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  args.push('--dir', dir, '--daemonize', 'no', '--loglevel', 'warning');
  if (password !== undefined) args.push('--requirepass', password);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk.toString();
  });
  const exited = new Promise((resolve) => child.once('close', () => resolve('exited')));
  /** @type {Promise<Error>} */
  const failedToSpawn = new Promise((resolve) => child.once('error', resolve));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const onExit = () => {
    if (alive()) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  if (child.pid !== undefined) {
    // Only our server works in `dir` (redis-server rewrites its command line, so that cannot be checked).
    cleanUpAfterDeathOf(
      process.pid,
      '[ "$(readlink /proc/$1/cwd 2>/dev/null)" = "$2" ] && kill -9 "$1"; rm -rf "$2"',
      [String(child.pid), dir],
    );
  }
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onExit);
    if (alive()) {
      child.kill('SIGCONT');
      child.kill('SIGTERM');
    }
    await Promise.race([exited, pause(5000)]);
    if (alive()) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (true) {
    const outcome = await Promise.race([failedToSpawn, exited, pause(50).then(() => 'waiting')]);
    if (outcome instanceof Error) {
      await stop();
      const missing = /** @type {NodeJS.ErrnoException} */ (outcome).code === 'ENOENT';
      const error = new Error(
        missing ? installHint(command) : `${command} could not start: ${outcome.message}`,
      );
      Object.assign(error, { notInstalled: missing });
      throw error;
    }
    if (outcome === 'exited') {
      await stop();
      throw new Error(`${command} exited at start-up (port ${port}): ${stderr.trim()}`);
    }
    if (await answers(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${command} did not answer on 127.0.0.1:${port} within 10 s: ${stderr.trim()}`);
    }
  }
  const credentials = password === undefined ? '' : `:${encodeURIComponent(password)}@`;
  return {
    port,
    url: `redis://${credentials}127.0.0.1:${port}`,
    get running() {
      return !stopped && alive();
    },
    freeze: () => {
      child.kill('SIGSTOP');
    },
    thaw: () => {
      child.kill('SIGCONT');
    },
    stop,
  };
}
