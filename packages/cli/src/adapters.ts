/**
 * The adapter packages `pay` serves, found by package, never from a list: a package is an adapter `pay` can run
 * when its `./testing` entry exports `simulator`, a `SimulatorDescriptor` of `@pay/core/testing`
 * (docs/architecture.md#simulator-descriptor). `pay dev <package>` resolves the package from the app's directory
 * as Node does; `pay --help` lists the app's dependencies that are adapters.
 */
import type { EnvVariable } from '@pay/core/adapter';
import type { PaymentSimulator, SimulatorDescriptor } from '@pay/core/testing';
import { UsageError } from './command-line.js';

/** A simulator as `pay` drives it: the kit's interface, whatever the provider's config and books. */
export type AnySimulator = PaymentSimulator<Record<string, unknown>, unknown>;

/** An installed adapter package and its simulator descriptor. */
export interface InstalledAdapter {
  /** The package name (`@pay/provider-r`, `@acme/pay-provider-x`). */
  packageName: string;
  simulator: SimulatorDescriptor;
}

/** The scope whose packages `pay` also finds by their short name (`provider-r` for `@pay/provider-r`). */
const SHORT_NAME_SCOPE = '@pay/';

/** How an app refers to an installed adapter: its short name for `@pay/` ones, else the package name. */
export function commandName(adapter: InstalledAdapter): string {
  return adapter.packageName.startsWith(SHORT_NAME_SCOPE)
    ? adapter.packageName.slice(SHORT_NAME_SCOPE.length)
    : adapter.packageName;
}

/** Where `<packageName>/testing` resolves from `directory`, as Node resolves it; `undefined` when not installed. */
function testingEntry(packageName: string, directory: string): string | undefined {
  const { createRequire } = process.getBuiltinModule('node:module');
  const { join } = process.getBuiltinModule('node:path');
  try {
    return createRequire(join(directory, 'package.json')).resolve(`${packageName}/testing`);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'MODULE_NOT_FOUND') return undefined;
    if (code === 'ERR_PACKAGE_PATH_NOT_EXPORTED')
      throw new UsageError(
        `${packageName} is installed but exports no ./testing entry: it is not an adapter pay can serve.`,
      );
    throw error;
  }
}

/** The fields a `simulator` export lacks to be a `SimulatorDescriptor` (none: it is one). */
function missingFields(value: unknown): string[] {
  const descriptor = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const trigger = descriptor.throwawayTrigger as { accepted?: unknown; because?: unknown } | null | undefined;
  const checks: [string, boolean][] = [
    ['provider', typeof descriptor.provider === 'string'],
    ['label', typeof descriptor.label === 'string'],
    ['env', Array.isArray(descriptor.env)],
    ['events', Array.isArray(descriptor.events)],
    ['throwawayTrigger', typeof trigger?.accepted === 'boolean' && typeof trigger.because === 'string'],
    [
      'keptSigningKey',
      descriptor.keptSigningKey === undefined || isKeptSigningKey(descriptor.keptSigningKey),
    ],
    ['objects', descriptor.objects === undefined || typeof descriptor.objects === 'function'],
    ['readOf', descriptor.readOf === undefined || typeof descriptor.readOf === 'function'],
    ['start', typeof descriptor.start === 'function'],
  ];
  return checks.filter(([, ok]) => !ok).map(([field]) => field);
}

/**
 * A kept key's file name must be a plain name: `pay dev` writes it into its state directory, and a name with a
 * path would let a package write a key file anywhere the user can.
 */
function isKeptSigningKey(value: unknown): boolean {
  const key = value as { file?: unknown; type?: unknown; generate?: unknown } | null;
  return (
    typeof key?.file === 'string' &&
    /^[\w.-]+$/.test(key.file) &&
    !/^\.+$/.test(key.file) &&
    typeof key.type === 'string' &&
    typeof key.generate === 'function'
  );
}

/**
 * The adapter `packageName` installed for `directory`: `undefined` when the package is not installed; a
 * `UsageError` when it is installed but is no adapter `pay` can serve (no `./testing`, no `simulator` descriptor).
 */
async function loadAdapter(packageName: string, directory: string): Promise<InstalledAdapter | undefined> {
  const entry = testingEntry(packageName, directory);
  if (entry === undefined) return undefined;
  const { pathToFileURL } = process.getBuiltinModule('node:url');
  const exports = (await import(pathToFileURL(entry).href)) as { simulator?: unknown };
  if (exports.simulator === undefined)
    throw new UsageError(
      `${packageName}/testing exports no simulator: it is not an adapter pay can serve (see @pay/cli's README).`,
    );
  const missing = missingFields(exports.simulator);
  if (missing.length > 0)
    throw new Error(
      `The simulator descriptor of ${packageName}/testing lacks ${missing.join(', ')} (the SimulatorDescriptor of @pay/core/testing): update the package.`,
    );
  const simulator = exports.simulator as SimulatorDescriptor;
  // The environment table's rows with a string `env` and `member` (a package's table, read defensively).
  const env = (simulator.env as readonly unknown[]).filter(
    (row): row is EnvVariable =>
      typeof row === 'object' &&
      row !== null &&
      typeof (row as EnvVariable).env === 'string' &&
      typeof (row as EnvVariable).member === 'string',
  );
  return { packageName, simulator: { ...simulator, env, start: (options) => simulator.start(options) } };
}

/** The app's directory: the nearest one from `cwd` up that holds a `package.json` (else `cwd`). */
function appDirectory(cwd: string): string {
  const { existsSync } = process.getBuiltinModule('node:fs');
  const { dirname, join, resolve } = process.getBuiltinModule('node:path');
  for (let directory = resolve(cwd); ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'package.json'))) return directory;
    if (dirname(directory) === directory) return resolve(cwd);
  }
}

/** The adapter the command line names (`@acme/pay-provider-x`, or `provider-r` for `@pay/provider-r`). */
export async function adapterNamed(name: string | undefined, cwd: string): Promise<InstalledAdapter> {
  if (name === undefined) throw new UsageError(`Name an adapter package: ${await choices(cwd)}.`);
  const directory = appDirectory(cwd);
  const candidates =
    name.startsWith('@') || name.includes('/') ? [name] : [`${SHORT_NAME_SCOPE}${name}`, name];
  for (const packageName of candidates) {
    const adapter = await loadAdapter(packageName, directory);
    if (adapter) return adapter;
  }
  throw new UsageError(
    `No adapter package "${name}" is installed in ${directory}: install it, or name one of ${await choices(cwd)}.`,
  );
}

/** The installed adapters, as a usage error offers them. */
async function choices(cwd: string): Promise<string> {
  const installed = await installedAdapters(cwd);
  return installed.length === 0
    ? 'none is installed here (see pay --help)'
    : installed.map((adapter) => commandName(adapter)).join(', ');
}

/**
 * The app's dependencies (`dependencies` and `devDependencies` of its `package.json`) that are adapters `pay`
 * serves, by package name. A dependency whose `./testing` entry cannot be loaded is left out.
 */
export async function installedAdapters(cwd: string): Promise<InstalledAdapter[]> {
  const { readFileSync } = process.getBuiltinModule('node:fs');
  const { join } = process.getBuiltinModule('node:path');
  const directory = appDirectory(cwd);
  let manifest: { dependencies?: object; devDependencies?: object } = {};
  try {
    manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
  } catch {
    return [];
  }
  const names = [
    ...new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]),
  ].sort();
  const adapters: InstalledAdapter[] = [];
  for (const packageName of names) {
    const adapter = await loadAdapter(packageName, directory).catch(() => undefined);
    if (adapter) adapters.push(adapter);
  }
  return adapters;
}

/** The members of the simulator interface `pay` calls. */
const REQUIRED_MEMBERS = ['url', 'adapterConfig', 'forwardWebhooks', 'trigger', 'close'] as const;

/**
 * The running simulator as the kit's `PaymentSimulator`, or an error naming the members it lacks (a simulator
 * that has not adopted the interface yet). The simulator is closed before the error is thrown.
 */
export async function asPaymentSimulator(
  running: unknown,
  adapter: InstalledAdapter,
  port: number,
): Promise<AnySimulator> {
  const candidate = running as Partial<Record<(typeof REQUIRED_MEMBERS)[number], unknown>> | null;
  const missing = REQUIRED_MEMBERS.filter((member) => candidate?.[member] === undefined);
  const url = typeof candidate?.url === 'string' ? candidate.url : '';
  const ignoredPort = missing.length === 0 && port !== 0 && new URL(url).port !== String(port);
  if (missing.length === 0 && !ignoredPort) return running as AnySimulator;
  const close = candidate?.close;
  if (typeof close === 'function') await (close as () => Promise<void>).call(running);
  const { label } = adapter.simulator;
  throw new Error(
    ignoredPort
      ? `The ${label} simulator of ${adapter.packageName} did not listen on port ${port} (it took ${url}): update the package.`
      : `The ${label} simulator of ${adapter.packageName} does not offer ${missing.join(', ')} ` +
          '(the @pay/core/testing PaymentSimulator interface): update the package.',
  );
}
