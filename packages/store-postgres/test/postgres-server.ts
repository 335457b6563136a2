// A throwaway PostgreSQL 15 server for the tests: its own data directory in a temporary folder, trust
// authentication, a free loopback port, a Unix socket in the same folder, and no trace left afterwards.
// PostgreSQL refuses to run as root, so as root every server command runs as the `postgres` user.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Where Debian's postgresql-15 package puts the server binaries (override with PAY_POSTGRES_BIN). */
const BIN = process.env.PAY_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';
const DATABASE = 'pay_store_test';

/** A running throwaway server. */
export interface PostgresServer {
  port: number;
  /** A connection string to the test database; `credentials` adds a user and password (ignored by trust auth). */
  url(credentials?: { user: string; password: string }): string;
  /** Stops the server at once (`immediate`, or `fast` which ends open sessions first) and deletes its folder. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

/** The uid/gid of the `postgres` user, who runs the server when the tests run as root. */
function postgresUser(): { uid: number; gid: number } {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error(
      "The store tests run as root, and PostgreSQL refuses to: they need the `postgres` user that Debian's postgresql-15 package creates (`apt-get install -y postgresql-15`, as .ci/run does).",
    );
  }
}

/** Runs a server binary (as `postgres` when root) and throws with its output when it fails. */
function runServerCommand(name: string, args: string[]): void {
  const binary = join(BIN, name);
  const [command, commandArgs] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', binary, ...args]]
    : [binary, args];
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    throw new Error(`${name} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
}

/** A loopback port nobody listens on right now. */
async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
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

/**
 * Starts a PostgreSQL 15 server with an empty test database. Fails (never skips) with the install line when the
 * binaries are missing. The server is stopped and its folder deleted by `stop()`, and by an exit handler if the
 * test process ends first.
 */
export async function startPostgres(): Promise<PostgresServer> {
  if (!existsSync(join(BIN, 'initdb')) || !existsSync(join(BIN, 'pg_ctl'))) {
    throw new Error(
      `PostgreSQL 15 server binaries are missing from ${BIN}: install them with \`apt-get install -y postgresql-15\` (.ci/run does this on a fresh machine), or set PAY_POSTGRES_BIN to the folder holding initdb and pg_ctl.`,
    );
  }
  const folder = mkdtempSync(join(tmpdir(), 'pay-store-postgres-'));
  const dataDir = join(folder, 'data');
  let running = false;
  const stopNow = (mode: 'immediate' | 'fast') => {
    if (running) {
      running = false;
      try {
        runServerCommand('pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop']);
      } catch {
        // Already gone (a test stopped it): the folder is removed below all the same.
      }
    }
    rmSync(folder, { recursive: true, force: true });
  };
  const onExit = () => stopNow('immediate');
  process.once('exit', onExit);
  watchForDeath(dataDir, folder);
  try {
    if (asRoot) {
      const { uid, gid } = postgresUser();
      chownSync(folder, uid, gid);
    }
    runServerCommand('initdb', [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--no-locale',
      '--no-sync',
    ]);
    const port = await startOnFreePort(dataDir, folder, () => {
      running = true;
    });
    const server: PostgresServer = {
      port,
      url: (credentials) =>
        `postgres://${credentials ? `${credentials.user}:${encodeURIComponent(credentials.password)}` : 'postgres'}@127.0.0.1:${port}/${DATABASE}`,
      async stop(mode = 'immediate') {
        process.removeListener('exit', onExit);
        stopNow(mode);
      },
    };
    const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${DATABASE}`);
    } finally {
      await admin.end();
    }
    return server;
  } catch (failure) {
    process.removeListener('exit', onExit);
    stopNow('immediate');
    throw failure;
  }
}

/**
 * A process killed outright (SIGKILL, a closed output pipe) runs no exit handler: a detached shell waits for this
 * process to end, then stops the server and removes its folder (both no-ops after a normal `stop()`).
 */
function watchForDeath(dataDir: string, folder: string): void {
  const pgCtl = join(BIN, 'pg_ctl');
  const stopCommand = asRoot
    ? 'runuser -u postgres -- "$2" -D "$3" -m immediate stop'
    : '"$2" -D "$3" -m immediate stop';
  const script = `while kill -0 "$1" 2>/dev/null; do sleep 1; done; [ -d "$3" ] && ${stopCommand}; rm -rf "$4"`;
  spawn('sh', ['-c', script, 'pay-postgres-watchdog', String(process.pid), pgCtl, dataDir, folder], {
    detached: true,
    stdio: 'ignore',
  }).unref();
}

/** Starts the server on a free port, trying another port if one was taken between the probe and the start. */
async function startOnFreePort(dataDir: string, folder: string, started: () => void): Promise<number> {
  let lastFailure: unknown;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    try {
      runServerCommand('pg_ctl', [
        '-D',
        dataDir,
        '-l',
        join(folder, 'server.log'),
        '-w',
        '-t',
        '30',
        '-o',
        `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`,
        'start',
      ]);
      started();
      return port;
    } catch (failure) {
      lastFailure = failure;
    }
  }
  throw lastFailure;
}
