import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import { onTestFinished } from 'vitest';
import type { CliIo } from '../src/command-line.js';

/** What the command printed, and a way to wait for a line. */
export function capturedIo(stop?: AbortSignal) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (line) => void out.push(line),
    err: (line) => void err.push(line),
    ...(stop ? { stop } : {}),
  };
  return { io, out, err };
}

/**
 * A new empty directory for `pay dev --state` (Provider T's signing key), so no test writes to the user's cache;
 * removed when the test finishes.
 */
export async function devStateDirectory(): Promise<string> {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = await mkdtemp(join(tmpdir(), 'pay-dev-state-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A loopback port nothing listens on now (a second `pay dev` can take it again, as `--port 4010` does). */
export async function freeLoopbackPort(): Promise<number> {
  const server = await startLoopbackServer(() => undefined);
  await server.close();
  return server.port;
}

/** Resolves when `check()` returns a value (polled every 20 ms), or rejects after `ms`. */
export async function eventually<T>(check: () => T | undefined, ms = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The `NAME=value` lines `pay dev` printed, as an object. */
export function envFrom(lines: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    lines
      .map((line) => /^ {2}([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[1] as string, match[2] as string]),
  );
}

/** An app on loopback whose request listener is set later (once the adapter config is known). */
export async function lateBoundApp(): Promise<{
  server: LoopbackServer;
  use(listener: (req: IncomingMessage, res: ServerResponse) => void): void;
}> {
  let current: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = await startLoopbackServer((req, res) => {
    if (!current) {
      res.statusCode = 503;
      res.end();
      return;
    }
    current(req, res);
  });
  return {
    server,
    use: (listener) => {
      current = listener;
    },
  };
}

/** `src/cli.ts` bundled into one executable file in `outDir` (the packages from source), as a user runs it. */
export async function bundleCli(outDir: string): Promise<string> {
  const { build } = await import('tsup');
  await build({
    entry: { cli: 'src/cli.ts' },
    outDir,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    noExternal: [/.*/],
    splitting: false,
    dts: false,
    silent: true,
    config: false,
    esbuildOptions(options) {
      options.conditions = ['@pay/source', 'node', 'import', 'default'];
    },
  });
  return `${outDir}/cli.js`;
}

/** `pay dev <provider> --port 0 [...options]` in its own process; resolves once its banner is printed. */
export async function payDevProcess(cli: string, provider: string, options: readonly string[] = []) {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [cli, 'dev', provider, '--port', '0', ...options], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await eventually(
    () => (stdout.includes('Press Ctrl+C to stop.') ? true : stderr !== '' ? true : undefined),
    30_000,
    `the pay dev ${provider} banner`,
  );
  if (!stdout.includes('Press Ctrl+C to stop.')) throw new Error(`pay dev ${provider} failed: ${stderr}`);
  return {
    child,
    /** The `NAME=value` lines it printed. */
    env: envFrom(stdout.split('\n')),
    stdout: () => stdout,
    stderr: () => stderr,
    /** SIGINT, then its exit status. */
    async stop(): Promise<number | null> {
      if (child.exitCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}
