/**
 * Starts the app (`app/`) on a real runtime: bundled by esbuild from the built packages, run by the binary of the
 * runtime's npm platform package, in its own temporary folder, on a loopback port. Every process started here is
 * stopped by `stop()`, by an exit handler when the test process ends first, and by a watchdog when it is killed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanUpAfterDeathOf, freePort } from '@pay/tooling/servers/process';
import { build } from 'esbuild';
import type { RuntimeAppConfig } from '../app/app.js';

const require = createRequire(import.meta.url);
const appFolder = fileURLToPath(new URL('../app/', import.meta.url));

/** The binary shipped in an npm platform package (`@oven/bun-linux-x64` → `bin/bun`). */
function binaryOf(platformPackage: string, file: string): string {
  return join(dirname(require.resolve(`${platformPackage}/package.json`)), file);
}

export const BUN = binaryOf('@oven/bun-linux-x64', 'bin/bun');
export const DENO = binaryOf('@deno/linux-x64-glibc', 'deno');
export const WORKERD = binaryOf('@cloudflare/workerd-linux-64', 'bin/workerd');

/** A runtime serving the app. */
export interface RunningRuntime {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Everything the runtime printed so far (stdout and stderr). */
  output(): string;
  /** Stops the process (SIGTERM, then SIGKILL after 3 s) and deletes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The app's entry for one runtime as one ES module: every package from its `dist` (no `@pay/source` condition),
 * for the browser platform, so a `node:` import in a package fails the bundle instead of reaching the runtime.
 */
async function bundle(entry: 'bun' | 'deno' | 'workerd'): Promise<string> {
  const result = await build({
    entryPoints: [join(appFolder, `${entry}.ts`)],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

/** A fresh folder holding the bundle as `worker.js`; the process runs there. */
async function folderWith(entry: 'bun' | 'deno' | 'workerd'): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), `pay-runtime-${entry}-`));
  writeFileSync(join(folder, 'worker.js'), await bundle(entry));
  return folder;
}

/**
 * Runs `command` in `folder` until the app answers on `port` (`GET /events`, polled), then hands it over. Fails
 * with the process's output when it exits first or does not answer within 20 s.
 */
async function launch(
  folder: string,
  port: number,
  command: string,
  args: string[],
): Promise<RunningRuntime> {
  const child = spawn(command, args, { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  child.stdout?.on('data', (chunk) => {
    printed += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    printed += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  if (child.pid !== undefined)
    cleanUpAfterDeathOf(
      process.pid,
      '[ "$(readlink /proc/$1/cwd 2>/dev/null)" = "$2" ] && kill -9 "$1"; rm -rf "$2"',
      [String(child.pid), folder],
    );
  const url = `http://127.0.0.1:${port}`;
  let stopped = false;
  const runtime: RunningRuntime = {
    url,
    output: () => printed,
    async stop() {
      if (stopped) return;
      stopped = true;
      process.off('exit', kill);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(kill, 3_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
  try {
    await untilAnswering(url, child);
  } catch (error) {
    await runtime.stop();
    throw new Error(`${basename(command)} did not start: ${(error as Error).message}\n${printed}`);
  }
  return runtime;
}

async function untilAnswering(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`it exited (${child.exitCode ?? child.signalCode})`);
    const answered = await fetch(`${url}/events`).then(
      (reply) => reply.ok,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no answer within 20 s');
}

/** The app on Bun. */
export async function startBun(config: RuntimeAppConfig): Promise<RunningRuntime> {
  const folder = await folderWith('bun');
  const port = await freePort();
  return launch(folder, port, BUN, ['run', 'worker.js', JSON.stringify(config), String(port)]);
}

/**
 * The app on Deno, allowed the environment and the network (`--allow-net`), or only its own port
 * (`--allow-net=127.0.0.1:<port>`: `{ ownPortOnly: true }`).
 */
export async function startDeno(
  config: RuntimeAppConfig,
  options: { ownPortOnly?: boolean } = {},
): Promise<RunningRuntime> {
  const folder = await folderWith('deno');
  const port = await freePort();
  const net = options.ownPortOnly ? `--allow-net=127.0.0.1:${port}` : '--allow-net';
  return launch(folder, port, DENO, [
    'run',
    '--no-prompt',
    '--no-config',
    '--no-lock',
    net,
    // The default factories read the environment when called (docs/architecture.md#configuration).
    '--allow-env',
    'worker.js',
    JSON.stringify(config),
    String(port),
  ]);
}

/**
 * The app as a workerd ES module worker at `compatibilityDate`, its config a generated capnp file: one socket on a
 * free loopback port, the `CONFIG` JSON binding, and outbound fetch allowed to loopback addresses only (workerd's
 * default outbound reaches public addresses only; the simulators listen on 127.0.0.1).
 */
export async function startWorkerd(
  config: RuntimeAppConfig,
  compatibilityDate: string,
): Promise<RunningRuntime> {
  const folder = await folderWith('workerd');
  const port = await freePort();
  writeFileSync(
    join(folder, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "app", worker = .app),
    (name = "loopback", network = (allow = ["local", "private"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "app")],
);

const app :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "${compatibilityDate}",
  bindings = [(name = "CONFIG", json = ${JSON.stringify(JSON.stringify(config))})],
  globalOutbound = "loopback",
);
`,
  );
  return launch(folder, port, WORKERD, ['serve', 'config.capnp', '--verbose']);
}
