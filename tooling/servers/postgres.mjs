// A throwaway PostgreSQL 15 server for tests (docs/architecture.md#test-suites: real servers, never a mock): its
// own data directory in a temporary folder, trust authentication, a free loopback port, a Unix socket in the same
// folder, no durability (fsync off: the data dies with the test), and no trace left afterwards, even when the test
// runner is killed. PostgreSQL refuses to run as root, so as root every server command runs as the `postgres`
// user.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanUpAfterDeathOf, freePort } from './process.mjs';

/** Where Debian's postgresql-15 package puts the server binaries (override with PAY_POSTGRES_BIN). */
const DEFAULT_BIN = '/usr/lib/postgresql/15/bin';

const asRoot = process.getuid?.() === 0;

/** The uid/gid of the `postgres` user, who runs the server when the tests run as root. */
function postgresUser() {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error(
      "The tests run as root, and PostgreSQL refuses to: they need the `postgres` user that Debian's postgresql-15 package creates (`apt-get install -y postgresql-15`, as .ci/run does).",
    );
  }
}

/**
 * Runs a binary of `bin` (as `postgres` when root and `asServer`) and throws with its output when it fails.
 * @param {string} bin
 * @param {string} name
 * @param {string[]} args
 * @param {boolean} asServer
 */
function run(bin, name, args, asServer = true) {
  const binary = join(bin, name);
  const [command, commandArgs] =
    asRoot && asServer ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    throw new Error(`${name} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
}

/**
 * The server's processes: the postmaster (first line of `postmaster.pid`) and every process it forked (backends,
 * checkpointer, WAL writer, …), read from /proc. Empty when the server is not running.
 * @param {string} dataDir
 * @returns {number[]}
 */
function serverProcesses(dataDir) {
  let postmaster;
  try {
    postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return [];
  }
  const children = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return [postmaster, ...children];
}

/**
 * Sends `signal` to every process of the server; one that ended meanwhile is skipped.
 * @param {number[]} pids
 * @param {NodeJS.Signals} signal
 */
function signalAll(pids, signal) {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Starts a PostgreSQL 15 server with an empty database `database` (default `pay_test`). Fails (never skips) with
 * the install line when the binaries are missing. `stop()` stops it and deletes its folder; so does an exit handler
 * when the process ends first, and a watchdog when the process is killed outright.
 * @param {{ database?: string, bin?: string }} [options]
 * @returns {Promise<import('./postgres.d.mts').PostgresServer>}
 */
export async function startPostgres(options = {}) {
  const bin = options.bin ?? process.env.PAY_POSTGRES_BIN ?? DEFAULT_BIN;
  const database = options.database ?? 'pay_test';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database)) throw new RangeError(`invalid database name ${database}`);
  if (!existsSync(join(bin, 'initdb')) || !existsSync(join(bin, 'pg_ctl'))) {
    throw new Error(
      `PostgreSQL 15 server binaries are missing from ${bin}: install them with \`apt-get install -y postgresql-15\` (.ci/run does this on a fresh machine), or set PAY_POSTGRES_BIN to the folder holding initdb and pg_ctl.`,
    );
  }
  const folder = mkdtempSync(join(tmpdir(), 'pay-postgres-'));
  const dataDir = join(folder, 'data');
  let running = false;
  let frozen = false;
  // SIGCONT to every process of the server (it forked nothing while frozen, so the list is the frozen one).
  const thaw = () => {
    if (!frozen) return;
    frozen = false;
    signalAll(serverProcesses(dataDir), 'SIGCONT');
  };
  /** @param {'immediate' | 'fast'} mode */
  const stopNow = (mode) => {
    // A stopped process handles no signal: pg_ctl's shutdown request would wait for nothing.
    thaw();
    if (running) {
      running = false;
      try {
        run(bin, 'pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop']);
      } catch {
        // Already gone: the folder is removed below all the same.
      }
    }
    rmSync(folder, { recursive: true, force: true });
  };
  const onExit = () => stopNow('immediate');
  process.once('exit', onExit);
  const pgCtl = join(bin, 'pg_ctl');
  cleanUpAfterDeathOf(
    process.pid,
    // A server frozen by freeze() must run again to handle pg_ctl's shutdown request.
    `pid=$(head -n 1 "$2/postmaster.pid" 2>/dev/null); [ -n "$pid" ] && kill -CONT "$pid" $(pgrep -P "$pid") 2>/dev/null; ` +
      `[ -d "$2" ] && ${asRoot ? 'runuser -u postgres -- ' : ''}"$1" -D "$2" -m immediate stop; rm -rf "$3"`,
    [pgCtl, dataDir, folder],
  );
  try {
    if (asRoot) {
      const { uid, gid } = postgresUser();
      chownSync(folder, uid, gid);
    }
    run(bin, 'initdb', [
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
    let port = 0;
    let lastFailure;
    // A port can be taken between the probe and the start: try another one.
    for (let attempt = 0; attempt < 3 && !running; attempt += 1) {
      port = await freePort();
      try {
        run(bin, 'pg_ctl', [
          '-D',
          dataDir,
          '-l',
          join(folder, 'server.log'),
          '-w',
          '-t',
          '30',
          '-o',
          `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`,
          'start',
        ]);
        running = true;
      } catch (failure) {
        lastFailure = failure;
      }
    }
    if (!running) throw lastFailure;
    run(bin, 'createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', database], false);
    return {
      host: '127.0.0.1',
      port,
      database,
      dataDir,
      url: (credentials) =>
        `postgres://${credentials ? `${credentials.user}:${encodeURIComponent(credentials.password)}` : 'postgres'}@127.0.0.1:${port}/${database}`,
      get running() {
        return running;
      },
      freeze() {
        if (!running || frozen) return;
        const [postmaster] = serverProcesses(dataDir);
        if (postmaster === undefined) return;
        frozen = true;
        // The postmaster first: once it is stopped it forks no new backend, so the children listed next are all
        // of them, and no connection, open or new, gets an answer.
        signalAll([postmaster], 'SIGSTOP');
        signalAll(serverProcesses(dataDir).slice(1), 'SIGSTOP');
      },
      thaw,
      async stop(mode = 'immediate') {
        process.removeListener('exit', onExit);
        stopNow(mode);
      },
    };
  } catch (failure) {
    process.removeListener('exit', onExit);
    stopNow('immediate');
    throw failure;
  }
}
