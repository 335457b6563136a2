/**
 * Releases through a real registry, as users meet them (CONTRIBUTING.md#versions-and-peer-ranges): a local Verdaccio,
 * the release tooling's `changeset version` + `changeset publish` from a scratch copy of the built repository, then
 * apps that install `@pay/core` and one adapter by version with npm and pnpm. Four releases, in order:
 *
 * 1. the first: every package, from the repository's changesets;
 * 2. a Provider N fix: only `@pay/provider-n` gets a version; an app pins the older Provider R with it;
 * 3. a core fix (same adapter contract): only `@pay/core`; the first release's adapters run with it, and
 *    `pay new adapter` writes a range that holds both core patches;
 * 4. a new adapter contract (a core minor): the packages peering on core follow with ranges of their own; an app that
 *    keeps the first release's Provider R is stopped by npm at install, warned by pnpm, and refused at `createPay`.
 *
 * Release 4's core is the built core with its `ADAPTER_CONTRACT` raised in the scratch copy (and the adapters'
 * declared contract with it), as the source change of such a release would build.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPayDev } from '@pay/tooling/testing/pay-dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addChangeset,
  firstJsonLine,
  installApp,
  installedPayPackages,
  installedVersion,
  pnpmStorePayPackages,
  printedVariables,
  publishedManifest,
  publishedVersions,
  release,
  runScript,
} from './consumer.js';
import { type Registry, remove, run, startRegistry } from './registry.js';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
/** The packages peering on `@pay/core` (the adapters, the stores, the OpenTelemetry package). */
const PEERS_ON_CORE = [
  '@pay/otel',
  '@pay/provider-n',
  '@pay/provider-r',
  '@pay/provider-t',
  '@pay/store-postgres',
  '@pay/store-redis',
];
const ADAPTERS = ['@pay/provider-n', '@pay/provider-r', '@pay/provider-t'];

let work: string;
let registry: Registry;
let scratch: string;
/** Every package's version after each release, by release number. */
const releases: Record<string, string>[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pay-registry-'));
  registry = await startRegistry(join(work, 'verdaccio'));
  scratch = join(work, 'release');
  releases[1] = release(scratch, registry);
});

afterAll(async () => {
  await registry?.stop();
  remove(work);
});

/** The packages whose version release `n` changed. */
function changedBy(n: number): string[] {
  return Object.keys(releases[n]!)
    .filter((name) => releases[n]![name] !== releases[n - 1]![name])
    .sort();
}

/** A script that creates a payment through Provider R's adapter from the variables pay dev printed, and reads it. */
const PROVIDER_R_FLOW = `import { createPay } from '@pay/core';
import { providerR } from '@pay/provider-r';
const pay = createPay(providerR());
const created = await pay.payments.create({
  customer: { id: 'c-1' },
  amount: 250.5,
  currency: 'CZK',
  provider_metadata: { email: 'payer@example.com' },
});
const read = await pay.payments.retrieve(created.id);
console.log(JSON.stringify({ id: created.id, amount: created.amount, readBack: read?.id === created.id }));
`;

/** Runs {@link PROVIDER_R_FLOW} in `dir` against `pay dev provider-r` started from the app's installed CLI. */
async function providerRFlowOnPayDev(dir: string) {
  const dev = await startPayDev(join(dir, 'node_modules', '.bin', 'pay'), ['provider-r', '--port', '0'], dir);
  const variables = printedVariables(dev.output());
  writeFileSync(join(dir, 'flow.mjs'), PROVIDER_R_FLOW);
  const flow = run('node', ['flow.mjs'], dir, variables);
  const events = variables.PROVIDER_R_BASE_URL
    ? await fetch(`${variables.PROVIDER_R_BASE_URL}/_simulator/events`).then((reply) => reply.text())
    : '';
  dev.child.kill('SIGINT');
  const status = await dev.exited;
  return { flow, events, status, printed: dev.output() };
}

/**
 * Type-checks `source` as `app.ts` of the app in `dir` against its installed declarations (strict) under
 * `resolution`: `NodeNext`, or `Bundler` with `ESNext` modules. What is checked is that every entry and type the app
 * names resolves from the installed layout; the declarations themselves are checked whole by tests/packaging
 * (`skipLibCheck` here keeps four compilations within seconds).
 */
function typeCheck(dir: string, source: string, resolution: 'NodeNext' | 'Bundler') {
  writeFileSync(join(dir, 'app.ts'), source);
  const config = `tsconfig.${resolution}.json`;
  const compilerOptions = {
    target: 'ES2022',
    module: resolution === 'NodeNext' ? 'NodeNext' : 'ESNext',
    moduleResolution: resolution,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ['ES2022', 'DOM'],
  };
  writeFileSync(join(dir, config), JSON.stringify({ compilerOptions, files: ['app.ts'] }));
  return run('node', [tsc, '-p', config], dir);
}

describe('release 1: every package, published by changeset publish', () => {
  it('puts each published package on the registry at the version changeset version gave it, above 0.0.0', async () => {
    expect(Object.keys(releases[1]!).sort()).toEqual(['@pay/cli', '@pay/core', ...PEERS_ON_CORE].sort());
    for (const [name, version] of Object.entries(releases[1]!)) {
      expect(version, name).toMatch(/^0\.[1-9]\d*\.\d+$/);
      expect(await publishedVersions(registry, name), name).toEqual([version]);
    }
  });

  it('publishes the peer ranges the policy writes: ^0.<core minor>.0 on @pay/core; the CLI depends on ^core', async () => {
    const core = releases[1]!['@pay/core']!;
    const contractRange = `^0.${core.split('.')[1]}.0`;
    for (const name of PEERS_ON_CORE) {
      const manifest = await publishedManifest(registry, name, releases[1]![name]!);
      expect(manifest.peerDependencies?.['@pay/core'], name).toBe(contractRange);
    }
    const cli = await publishedManifest(registry, '@pay/cli', releases[1]!['@pay/cli']!);
    expect(cli.dependencies?.['@pay/core']).toBe(`^${core}`);
  });
});

describe('an npm app installing @pay/core, Provider R and the CLI by version', () => {
  let dir: string;
  beforeAll(() => {
    dir = join(work, 'npm-app');
    const pinned = (name: string) => releases[1]![name]!;
    installApp(dir, registry, 'npm', {
      '@pay/core': pinned('@pay/core'),
      '@pay/provider-r': pinned('@pay/provider-r'),
      '@pay/cli': pinned('@pay/cli'),
    });
  });

  it('installs without a peer conflict, and no other adapter lands in node_modules', () => {
    expect(installedPayPackages(dir)).toEqual(['cli', 'core', 'provider-r']);
    const tree = run('npm', ['ls', '--all', '--parseable'], dir);
    expect(tree.status, tree.output).toBe(0);
    for (const other of ['provider-n', 'provider-t']) expect(tree.output).not.toContain(`@pay/${other}`);
  });

  it('runs the demo flow against the installed CLI’s pay dev', async () => {
    const { flow, events, status, printed } = await providerRFlowOnPayDev(dir);
    expect(status, printed).toBe(0);
    expect(flow.status, flow.output).toBe(0);
    const answer = firstJsonLine(flow.output) as { id: string; amount: number; readBack: boolean };
    expect(answer).toEqual({ id: expect.any(String), amount: 250.5, readBack: true });
    // pay dev's event log holds the payment the app created through it.
    expect(events).toContain(answer.id);
  }, 60_000);

  it('type-checks an app against the installed declarations under NodeNext and bundler resolution', () => {
    const app = `import { createPay, type Payment } from '@pay/core';
import { ADAPTER_CONTRACT } from '@pay/core/adapter';
import { createProviderR } from '@pay/provider-r';

const pay = createPay(createProviderR({ merchant: '1', secret: 's', isSandbox: true }));
export const contract: 1 = ADAPTER_CONTRACT;
export async function status(id: string): Promise<Payment['status'] | 'missing'> {
  return (await pay.payments.retrieve(id))?.status ?? 'missing';
}
// Fails to compile if the declarations resolved to \`any\`: the amount is a number.
// @ts-expect-error
export const amount: string = (await pay.payments.retrieve('p-1'))!.amount;
`;
    for (const resolution of ['NodeNext', 'Bundler'] as const) {
      const checked = typeCheck(dir, app, resolution);
      expect(checked.status, `${resolution}: ${checked.output}`).toBe(0);
    }
  });
});

describe('a pnpm app installing @pay/core and Provider N by version', () => {
  let dir: string;
  let install: { status: number | null; output: string };
  beforeAll(() => {
    dir = join(work, 'pnpm-app');
    ({ install } = installApp(dir, registry, 'pnpm', {
      '@pay/core': releases[1]!['@pay/core']!,
      '@pay/provider-n': releases[1]!['@pay/provider-n']!,
    }));
  });

  it('installs without an unmet peer, and pnpm’s store holds no other @pay package', () => {
    expect(install.status, install.output).toBe(0);
    expect(install.output).not.toContain('unmet peer');
    expect(installedPayPackages(dir)).toEqual(['core', 'provider-n']);
    expect(pnpmStorePayPackages(dir)).toEqual([
      `@pay/core@${releases[1]!['@pay/core']}`,
      `@pay/provider-n@${releases[1]!['@pay/provider-n']}`,
    ]);
  });

  it('opens a checkout on Provider N’s simulator from the installed /testing entry', () => {
    const result = runScript(
      dir,
      'checkout.mjs',
      `import { createPay } from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import { startProviderNSimulator } from '@pay/provider-n/testing';
const simulator = await startProviderNSimulator();
try {
  const pay = createPay(createProviderN(simulator.adapterConfig()));
  const checkout = await pay.checkouts.create({
    customer: { email: 'ada@example.com' },
    provider_metadata: { amount: 5000.5, currency: 'NGN' },
  });
  console.log(JSON.stringify({ amount: checkout.amount, url: typeof checkout.payment_url }));
} finally {
  await simulator.close();
}
`,
    );
    expect(result.status, result.output).toBe(0);
    expect(firstJsonLine(result.output)).toEqual({ amount: 5000.5, url: 'string' });
  });
  it('type-checks an app against pnpm’s linked layout under NodeNext and bundler resolution', () => {
    const app = `import { createPay } from '@pay/core';
import { createProviderN } from '@pay/provider-n';

const pay = createPay(createProviderN({ apiKey: 'k', secretKey: 's', contractCode: 'c', isSandbox: true }));
pay.webhooks.setup({ webhookSecret: 's' }).on('providerN.SUCCESSFUL_TRANSACTION', (event) => {
  const reference: string = event.data.transactionReference;
  return reference;
});
// Fails to compile if the declarations resolved to \`any\`: Provider N takes no payments.create.
// @ts-expect-error
pay.payments.create;
`;
    for (const resolution of ['NodeNext', 'Bundler'] as const) {
      const checked = typeCheck(dir, app, resolution);
      expect(checked.status, `${resolution}: ${checked.output}`).toBe(0);
    }
  });
});

describe('release 2: only Provider N changes', () => {
  beforeAll(() => {
    addChangeset(scratch, 'provider-n-fix', { '@pay/provider-n': 'patch' }, 'Provider N: a fix.');
    releases[2] = release(scratch, registry);
  });

  it('gives only @pay/provider-n a new version, and publishes only it', async () => {
    expect(changedBy(2)).toEqual(['@pay/provider-n']);
    expect(await publishedVersions(registry, '@pay/provider-n')).toEqual(
      [releases[1]!['@pay/provider-n'], releases[2]!['@pay/provider-n']].sort(),
    );
    for (const name of ['@pay/core', '@pay/cli', '@pay/provider-r'])
      expect(await publishedVersions(registry, name), name).toEqual([releases[1]![name]]);
  });

  it('installs and runs in an app pinned to the older Provider R and the newer Provider N', async () => {
    const dir = join(work, 'pinned-app');
    const { install } = installApp(dir, registry, 'npm', {
      '@pay/core': releases[2]!['@pay/core']!,
      '@pay/provider-r': releases[1]!['@pay/provider-r']!,
      '@pay/provider-n': releases[2]!['@pay/provider-n']!,
      '@pay/cli': releases[2]!['@pay/cli']!,
    });
    expect(install.status, install.output).toBe(0);
    expect(install.output).not.toContain('ERESOLVE');
    expect(installedVersion(dir, '@pay/provider-r')).toBe(releases[1]!['@pay/provider-r']);
    expect(installedVersion(dir, '@pay/provider-n')).toBe(releases[2]!['@pay/provider-n']);
    expect(installedVersion(dir, '@pay/provider-n')).not.toBe(releases[1]!['@pay/provider-n']);
    const { flow, status, printed } = await providerRFlowOnPayDev(dir);
    expect(status, printed).toBe(0);
    expect(flow.status, flow.output).toBe(0);
    const both = runScript(
      dir,
      'both.mjs',
      `import { createPay } from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import { startProviderNSimulator } from '@pay/provider-n/testing';
const simulator = await startProviderNSimulator();
try {
  const pay = createPay(createProviderN(simulator.adapterConfig()));
  const checkout = await pay.checkouts.create({
    customer: { email: 'ada@example.com' },
    provider_metadata: { amount: 120, currency: 'NGN' },
  });
  console.log(JSON.stringify({ amount: checkout.amount }));
} finally {
  await simulator.close();
}
`,
    );
    expect(both.status, both.output).toBe(0);
    expect(firstJsonLine(both.output)).toEqual({ amount: 120 });
  }, 60_000);
});

describe('release 3: a core fix, on the same adapter contract', () => {
  beforeAll(() => {
    addChangeset(scratch, 'core-fix', { '@pay/core': 'patch' }, 'A core fix.');
    releases[3] = release(scratch, registry);
  });

  it('gives only @pay/core a new version: the adapters’ ranges and the CLI’s hold it', () => {
    expect(changedBy(3)).toEqual(['@pay/core']);
  });

  it('runs the previous release’s adapters, from the registry, with the new core', async () => {
    const dir = join(work, 'compatibility-app');
    const { install } = installApp(dir, registry, 'npm', {
      '@pay/core': releases[3]!['@pay/core']!,
      '@pay/provider-r': releases[1]!['@pay/provider-r']!,
      '@pay/cli': releases[1]!['@pay/cli']!,
    });
    expect(install.status, install.output).toBe(0);
    expect(install.output).not.toContain('ERESOLVE');
    // One core for the app, the adapter and the CLI: the new one.
    const cores = run('npm', ['ls', '@pay/core', '--all', '--parseable'], dir);
    expect(
      cores.output
        .trim()
        .split('\n')
        .filter((line) => line.includes('@pay/core')),
    ).toHaveLength(1);
    expect(installedVersion(dir, '@pay/core')).toBe(releases[3]!['@pay/core']);
    const { flow, status, printed } = await providerRFlowOnPayDev(dir);
    expect(status, printed).toBe(0);
    expect(flow.status, flow.output).toBe(0);
    expect(firstJsonLine(flow.output)).toMatchObject({ amount: 250.5, readBack: true });
  }, 60_000);

  it('lets an adapter made outside the repository with pay new adapter install its ranges from the registry and compile', () => {
    // CONTRIBUTING.md#start-from-the-skeleton: the contributor's own pay, then the skeleton, then npm install.
    const tools = join(work, 'tools');
    const { install } = installApp(tools, registry, 'npm', { '@pay/cli': releases[3]!['@pay/cli']! });
    expect(install.status, install.output).toBe(0);
    const adapter = join(work, 'acme-pay');
    const made = run(
      join(tools, 'node_modules', '.bin', 'pay'),
      ['new', 'adapter', adapter, '--name', '@acme/pay-provider-acme', '--provider', 'acmePay'],
      work,
    );
    expect(made.status, made.output).toBe(0);
    const manifest = JSON.parse(readFileSync(join(adapter, 'package.json'), 'utf8'));
    const core = releases[3]!['@pay/core']!;
    // The contract's range, not the patch the CLI ran with: it holds every core of that contract.
    expect(manifest.peerDependencies['@pay/core']).toBe(`^0.${core.split('.')[1]}.0`);
    expect(manifest.devDependencies['@pay/core']).toBe(core);
    expect(manifest.devDependencies['@pay/cli']).toBe(releases[3]!['@pay/cli']);
    writeFileSync(join(adapter, '.npmrc'), `@pay:registry=${registry.url}\n`);
    const installed = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], adapter);
    expect(installed.status, installed.output).toBe(0);
    expect(installed.output).not.toContain('ERESOLVE');
    expect(installedVersion(adapter, '@pay/core')).toBe(core);
    const typecheck = run('npm', ['run', 'typecheck'], adapter);
    expect(typecheck.status, typecheck.output).toBe(0);
  }, 120_000);
});

/** Replaces `from` by `to` in `file` of the scratch copy, exactly once. */
function replaceOnce(file: string, from: string, to: string): void {
  const path = join(scratch, file);
  const text = readFileSync(path, 'utf8');
  expect(text.split(from).length - 1, `${file}: ${from}`).toBe(1);
  writeFileSync(path, text.replace(from, to));
}

describe('release 4: a new adapter contract (a core minor)', () => {
  let core: string;
  beforeAll(() => {
    // The source change such a release builds: core's contract up by one, each adapter built for it, and every
    // package that peers on core moving its range to the new line (CONTRIBUTING.md#versions-and-peer-ranges).
    const coreDist = readFileSync(join(scratch, 'packages/core/dist/adapter.js'), 'utf8');
    const chunk = /from '\.\/(chunk-[\w-]+\.js)'/.exec(
      coreDist.split('\n').find((line) => line.includes('ADAPTER_CONTRACT')) ?? '',
    )?.[1];
    replaceOnce(`packages/core/dist/${chunk}`, 'var ADAPTER_CONTRACT = 1;', 'var ADAPTER_CONTRACT = 2;');
    for (const adapter of ADAPTERS)
      replaceOnce(`packages/${adapter.slice(5)}/dist/index.js`, 'contract: 1,', 'contract: 2,');
    const next = `^0.${Number(releases[3]!['@pay/core']!.split('.')[1]) + 1}.0`;
    for (const name of PEERS_ON_CORE) {
      const file = `packages/${name.slice(5)}/package.json`;
      replaceOnce(
        file,
        `"@pay/core": "^0.${releases[3]!['@pay/core']!.split('.')[1]}.0"`,
        `"@pay/core": "${next}"`,
      );
    }
    addChangeset(
      scratch,
      'adapter-contract-2',
      { '@pay/core': 'minor', ...Object.fromEntries(PEERS_ON_CORE.map((name) => [name, 'minor'])) },
      'Adapter contract 2.',
    );
    releases[4] = release(scratch, registry);
    core = releases[4]!['@pay/core']!;
  });

  it('moves core to its next minor, and every package peering on core with it (the CLI follows its dependency)', async () => {
    expect(core).toBe(`0.${Number(releases[3]!['@pay/core']!.split('.')[1]) + 1}.0`);
    expect(changedBy(4)).toEqual(['@pay/cli', '@pay/core', ...PEERS_ON_CORE].sort());
    for (const name of PEERS_ON_CORE) {
      expect(releases[4]![name], name).toMatch(/^0\.\d+\.0$/);
      const manifest = await publishedManifest(registry, name, releases[4]![name]!);
      expect(manifest.peerDependencies?.['@pay/core'], name).toBe(`^${core}`);
    }
  });

  it('is stopped by npm at install when the app keeps the first release’s Provider R with the new core', () => {
    const { install } = installApp(join(work, 'stale-npm-app'), registry, 'npm', {
      '@pay/core': core,
      '@pay/provider-r': releases[1]!['@pay/provider-r']!,
    });
    expect(install.status).not.toBe(0);
    expect(install.output).toContain('ERESOLVE');
    expect(install.output).toContain(`@pay/core@"^0.${releases[1]!['@pay/core']!.split('.')[1]}.0"`);
  });

  it('is reported by pnpm at install, and refused at createPay with a ConfigurationError naming both contracts', () => {
    const dir = join(work, 'stale-pnpm-app');
    const { install } = installApp(dir, registry, 'pnpm', {
      '@pay/core': core,
      '@pay/provider-r': releases[1]!['@pay/provider-r']!,
    });
    expect(install.status, install.output).toBe(0);
    expect(install.output).toContain('unmet peer @pay/core@');
    const refused = runScript(
      dir,
      'refused.mjs',
      `import { createPay, ConfigurationError } from '@pay/core';
import { createProviderR } from '@pay/provider-r';
try {
  createPay(createProviderR({ merchant: '1', secret: 's', isSandbox: true }));
  console.log(JSON.stringify({ refused: false }));
} catch (error) {
  console.log(JSON.stringify({ refused: ConfigurationError.isInstance(error), message: error.message }));
}
`,
    );
    expect(refused.status, refused.output).toBe(0);
    expect(firstJsonLine(refused.output)).toEqual({
      refused: true,
      message:
        'The providerR adapter was built for @pay/core adapter contract 1, but the installed @pay/core implements adapter contract 2: install the adapter release whose peer range on @pay/core includes the installed core (npm ls @pay/core), or the @pay/core that range names.',
    });
  });

  it('runs the adapter release built for the new contract with the new core', () => {
    const dir = join(work, 'current-app');
    const { install } = installApp(dir, registry, 'npm', {
      '@pay/core': core,
      '@pay/provider-r': releases[4]!['@pay/provider-r']!,
    });
    expect(install.status, install.output).toBe(0);
    const taken = runScript(
      dir,
      'taken.mjs',
      `import { createPay } from '@pay/core';
import { createProviderR } from '@pay/provider-r';
const pay = createPay(createProviderR({ merchant: '1', secret: 's', isSandbox: true }));
console.log(JSON.stringify({ contract: pay.adapter.contract }));
`,
    );
    expect(taken.status, taken.output).toBe(0);
    expect(firstJsonLine(taken.output)).toEqual({ contract: 2 });
  });
});
