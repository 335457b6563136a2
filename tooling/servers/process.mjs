// Shared plumbing of the throwaway test servers (tooling/servers/postgres.mjs, redis.mjs): free loopback ports,
// and a watchdog that cleans up after a test runner that was killed outright and ran no exit handler.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * A loopback port nobody listens on right now (the kernel's pick for port 0). Another process may take it before
 * the server binds it: callers retry their start on a fresh port when the bind fails.
 * @returns {Promise<number>}
 */
export async function freePort() {
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
 * A process killed outright (SIGKILL, a closed output pipe) runs no exit handler, and a server it started would
 * outlive it. A detached shell waits for process `owner` to end, then runs `cleanup` (a shell command reading its
 * arguments as "$1"…), which must be a no-op after a normal stop.
 * @param {number} owner process id to outlive
 * @param {string} cleanup shell command run once `owner` has ended
 * @param {string[]} args arguments of `cleanup` ("$1", "$2", …)
 */
export function cleanUpAfterDeathOf(owner, cleanup, args) {
  const script = `owner="$1"; shift; while kill -0 "$owner" 2>/dev/null; do sleep 1; done; ${cleanup}`;
  spawn('sh', ['-c', script, 'pay-test-server-watchdog', String(owner), ...args], {
    detached: true,
    stdio: 'ignore',
  }).unref();
}
