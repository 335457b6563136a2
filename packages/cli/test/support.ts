import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import { onTestFinished } from 'vitest';
import type { CliIo } from '../src/command-line.js';
import { main } from '../src/main.js';

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

/**
 * `pay dev <args>` in process (with `options.env` / `options.cwd` / `options.random`) until `stop()` or the end of the test; resolves
 * once the banner (or an error) is out.
 */
export async function payDevInProcess(
  args: readonly string[],
  options: Pick<CliIo, 'env' | 'cwd' | 'random'> = {},
) {
  const stop = new AbortController();
  onTestFinished(() => stop.abort());
  const { io, out, err } = capturedIo(stop.signal);
  const running = main(['dev', ...args], { ...io, ...options });
  await eventually(
    () => (out.includes('Press Ctrl+C to stop.') || err.length > 0 ? true : undefined),
    15_000,
    'the banner',
  );
  return {
    out,
    err,
    env: envFrom(out),
    /** Stops it (SIGINT), then its exit status. */
    async stop() {
      stop.abort();
      return running;
    },
  };
}

/** `entry` (a name → source file map) bundled into `outDir` with every package it imports, the packages from source. */
async function bundle(entry: Record<string, string>, outDir: string): Promise<void> {
  const { build } = await import('tsup');
  await build({
    entry,
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
}

/** `src/cli.ts` bundled into one executable file in `outDir` (the packages from source), as a user runs it. */
export async function bundleCli(outDir: string): Promise<string> {
  await bundle({ cli: 'src/cli.ts' }, outDir);
  return `${outDir}/cli.js`;
}

/**
 * `pay dev <adapter> --port 0 [...options]` in its own process, in the app folder `cwd` (where it finds the
 * adapter); resolves once its banner is printed.
 */
export async function payDevProcess(
  cli: string,
  cwd: string,
  adapter: string,
  options: readonly string[] = [],
) {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [cli, 'dev', adapter, '--port', '0', ...options], {
    cwd,
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
    `the pay dev ${adapter} banner`,
  );
  if (!stdout.includes('Press Ctrl+C to stop.')) throw new Error(`pay dev ${adapter} failed: ${stderr}`);
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

/** A new app folder under `parent`: a `package.json` with no dependency yet (`installInto` adds them). */
export async function scratchApp(parent: string): Promise<string> {
  const { mkdir, writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const app = join(parent, 'app');
  await mkdir(join(app, 'node_modules'), { recursive: true });
  await writeFile(
    join(app, 'package.json'),
    JSON.stringify({ name: 'scratch-shop', private: true, dependencies: {} }),
  );
  return app;
}

/** Adds `name` to the app's dependencies, as `npm install` records it. */
async function addDependency(app: string, name: string, range: string): Promise<void> {
  const { readFile, writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const manifest = JSON.parse(await readFile(join(app, 'package.json'), 'utf8'));
  manifest.dependencies[name] = range;
  await writeFile(join(app, 'package.json'), JSON.stringify(manifest));
}

/** Installs the package in folder `source` into the app (copied under `node_modules/<name>`, listed as a dependency). */
export async function installInto(app: string, source: string): Promise<string> {
  const { cp, readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { name } = JSON.parse(await readFile(join(source, 'package.json'), 'utf8'));
  await cp(source, join(app, 'node_modules', name), { recursive: true });
  await addDependency(app, name, `file:${source}`);
  return name;
}

/**
 * Installs workspace adapter `name` into the app as plain JavaScript, as its published tarball would be: its
 * `./testing` entry bundled from source (with what it imports) into `node_modules/<name>/dist/testing.js`, so a
 * `pay` process started by plain Node can load it without a build of the workspace.
 */
export async function installWorkspaceAdapter(app: string, name: string): Promise<void> {
  const { mkdir, writeFile } = await import('node:fs/promises');
  const { createRequire } = await import('node:module');
  const { join } = await import('node:path');
  const directory = join(app, 'node_modules', name);
  await mkdir(directory, { recursive: true });
  await bundle(
    { testing: createRequire(import.meta.url).resolve(`${name}/testing`) },
    join(directory, 'dist'),
  );
  await writeFile(
    join(directory, 'package.json'),
    JSON.stringify({ name, type: 'module', exports: { './testing': './dist/testing.js' } }),
  );
  await addDependency(app, name, 'workspace:*');
}

/** `pay <args>` run by the bundled executable `cli` in `cwd`, to its exit: status, stdout and stderr. */
export async function payProcess(cli: string, cwd: string, args: readonly string[]) {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [cli, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: {} });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const status = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { status, stdout, stderr };
}
