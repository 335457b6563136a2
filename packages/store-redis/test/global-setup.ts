/**
 * Safety net for the servers the tests start: each one is registered in a directory created here, and the
 * teardown (which vitest runs even when tests fail or a worker dies) kills any server still registered and
 * deletes its data directory. A test that finishes normally has already stopped its server itself.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    redisServerRegistry: string;
  }
}

/**
 * True when `pid` is still the redis-server started with `--dir dir` (not a reused process id): the server
 * works in that directory (it rewrites its command line, so that cannot be checked). Linux only (`/proc`); on
 * other systems a server left by a killed worker must be stopped by hand.
 */
function isOurServer(pid: number, dir: string): boolean {
  try {
    return readlinkSync(`/proc/${pid}/cwd`) === dir;
  } catch {
    return false;
  }
}

export default function setup(project: TestProject): () => void {
  const registry = mkdtempSync(join(tmpdir(), 'pay-store-redis-run-'));
  project.provide('redisServerRegistry', registry);
  return () => {
    for (const name of readdirSync(registry)) {
      const pid = Number(name);
      const dir = readFileSync(join(registry, name), 'utf8');
      if (isOurServer(pid, dir)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
    rmSync(registry, { recursive: true, force: true });
  };
}
