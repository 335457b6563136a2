/**
 * Release hygiene: what we publish must install and work the way a user gets it. The tarballs are those of the
 * release dry run (`tooling/scripts/release-dry-run.mjs`: `changeset version` on a scratch copy of the repository,
 * then `pnpm pack`, which writes real versions for `workspace:` and `catalog:` ranges), so they carry the versions,
 * changelogs and metadata the next release would publish. They are installed into a scratch app with plain
 * `npm install` (no `--force`, no `--legacy-peer-deps`), and the app then runs a script, the `pay` command and a
 * strict type check against the installed copies.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPayDev } from '@pay/tooling/testing/pay-dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Packed, packRelease, root, run } from './release.js';

const packagesDir = join(root, 'packages');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

const published = readdirSync(packagesDir)
  .map((dir) => join(packagesDir, dir))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => manifest.private !== true);

/** Peer dependencies the app installs itself, as a user does (`@pay/otel` peers on the OpenTelemetry API). */
const APP_PEERS = { '@opentelemetry/api': '^1.9.0' };

let scratch: string;
let app: string;
const tarballs = new Map<string, string>();
const release = new Map<string, Packed>();

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'pay-packaging-'));
  for (const packed of packRelease(join(scratch, 'tarballs'))) {
    release.set(packed.name, packed);
    tarballs.set(packed.name, packed.tarball);
  }
  app = join(scratch, 'app');
  run('mkdir', ['-p', app], scratch);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'scratch-shop',
      private: true,
      type: 'module',
      dependencies: {
        ...Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`])),
        ...APP_PEERS,
      },
    }),
  );
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the packed packages', () => {
  it('include every published package, the CLI and the OpenTelemetry package too', () => {
    expect([...tarballs.keys()].sort()).toEqual(
      expect.arrayContaining([
        '@pay/cli',
        '@pay/core',
        '@pay/otel',
        '@pay/provider-n',
        '@pay/provider-r',
        '@pay/provider-t',
        '@pay/store-postgres',
        '@pay/store-redis',
      ]),
    );
  });

  it('each ship a LICENSE, a README and their built entry points', () => {
    for (const [name, file] of tarballs) {
      const listing = run('tar', ['-tzf', file], scratch).output.split('\n');
      expect(listing, name).toContain('package/LICENSE');
      expect(listing, name).toContain('package/README.md');
      expect(listing, name).toContain('package/dist/index.js');
      expect(listing, name).toContain('package/dist/index.d.ts');
    }
  });

  it('install together with plain npm install (adapters peer on the core version that is packed)', () => {
    const result = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], app);
    expect(result.output).not.toContain('ERESOLVE');
    expect(result.status, result.output).toBe(0);
  });

  it('run a script that uses core, an adapter and its simulator from the installed copies', () => {
    writeFileSync(
      join(app, 'check.mjs'),
      `import { createPay, ProviderNotSupportedError, PayError } from '@pay/core';
import { instrumentPay } from '@pay/otel';
import { createProviderR } from '@pay/provider-r';
import { startProviderRSimulator } from '@pay/provider-r/testing';

const simulator = await startProviderRSimulator();
const instrumentation = instrumentPay();
try {
  const pay = createPay(createProviderR(simulator.adapterConfig()));
  const unsupported = await pay.customers.create({ email: 'a@example.com' }).catch((error) => error);
  const payment = await pay.payments.retrieve('0000-0000-0000');
  const created = await pay.payments.create({
    customer: { id: 'c-1' },
    amount: 250.5,
    currency: 'CZK',
    provider_metadata: { email: 'payer@example.com' },
  });
  console.log(JSON.stringify({
    supportsRefunds: pay.supports('refunds.create'),
    unsupported: ProviderNotSupportedError.isInstance(unsupported) && PayError.isInstance(unsupported),
    unknownPayment: payment,
    created: { amount: created.amount, price: simulator.transaction(created.id)?.price },
    instrumented: typeof instrumentation === 'object' && instrumentation !== null,
  }));
} finally {
  await simulator.close();
}
`,
    );
    const result = run('node', ['check.mjs'], app);
    expect(result.status, result.output).toBe(0);
    expect(JSON.parse(result.output.trim().split('\n')[0] ?? '')).toEqual({
      supportsRefunds: true,
      unsupported: true,
      unknownPayment: null,
      created: { amount: 250.5, price: 25050 },
      instrumented: true,
    });
  });

  it('name every exported class as it is exported, so logs print ProviderApiError and not a bundler rename', () => {
    // A class that names itself inside its body is renamed by the bundler (`class _ProviderApiError`) when the
    // build does not keep names; `console.log(error)` prints the class name.
    const entries = [...tarballs.keys()]
      .filter((name) => name !== '@pay/cli')
      .flatMap((name) => (name === '@pay/core' ? [name, '@pay/core/adapter'] : [name]));
    writeFileSync(
      join(app, 'names.mjs'),
      `const renamed = [];
const core = await import('@pay/core');
for (const entry of ${JSON.stringify(entries)}) {
  const module = await import(entry);
  for (const [exported, value] of Object.entries(module)) {
    // An alias (a store's StoreUnavailableError for core's StoreError) is fine when its class is exported under
    // its own name too, there or by core.
    const named = value?.name === exported || module[value?.name] === value || core[value?.name] === value;
    if (typeof value === 'function' && /^[A-Z]/.test(exported) && value.prototype && !named)
      renamed.push(entry + ' ' + exported + ' is named ' + value.name);
  }
}
const { ProviderApiError } = core;
const refusal = new ProviderApiError({ provider: 'providerN', status: 400 }).withDetails({ outcome: 'unknown' });
const printed = (await import('node:util')).inspect(refusal).split('\\n')[0];
console.log(JSON.stringify({ renamed, printed }));
`,
    );
    const result = run('node', ['names.mjs'], app);
    expect(result.status, result.output).toBe(0);
    const { renamed, printed } = JSON.parse(result.output.trim().split('\n')[0] ?? '');
    expect(renamed).toEqual([]);
    expect(printed).toMatch(/^ProviderApiError: providerN answered HTTP 400\./);
  });

  it('run the pay command from the installed tarball: --help, then pay dev until Ctrl+C', async () => {
    const bin = join(app, 'node_modules', '.bin', 'pay');
    const help = run(bin, ['--help'], app);
    expect(help.status, help.output).toBe(0);
    expect(help.output).toContain('pay dev <adapter>');
    // Every installed adapter package lists itself (its ./testing entry's simulator descriptor): none is named in pay.
    const adapters = [...release.values()].filter(({ files }) => files.includes('dist/testing/index.js'));
    for (const { name } of adapters.filter(({ name }) => name !== '@pay/core'))
      expect(help.output).toContain(`  ${name.replace(/^@pay\//, '')} `);

    // pay dev on a free port: it prints the variables that point the app at it and stops cleanly on SIGINT.
    const { child, output: printed, exited } = await startPayDev(bin, ['provider-r', '--port', '0'], app);
    const baseUrl = /PROVIDER_R_BASE_URL=(http:\/\/127\.0\.0\.1:\d+)/.exec(printed())?.[1];
    const page = baseUrl ? await fetch(`${baseUrl}/client/instructions/index?id=unknown`) : undefined;
    child.kill('SIGINT');
    const status = await exited;
    const output = printed();
    expect(status, output).toBe(0);
    expect(output).toContain('Provider R simulator listening on http://127.0.0.1:');
    expect(baseUrl, output).toBeDefined();
    // The simulator answered on that port: its hosted page knows no such payment.
    expect(page?.status).toBe(404);
    expect(output).toContain('Stopped.');
  }, 40_000);

  it('type-check a TypeScript app against the installed declarations', () => {
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: [],
          lib: ['ES2022', 'DOM'],
        },
        files: ['app.ts'],
      }),
    );
    writeFileSync(
      join(app, 'app.ts'),
      `import { createPay, type Payment, NetworkError } from '@pay/core';
import { createProviderN } from '@pay/provider-n';

const pay = createPay(createProviderN({ apiKey: 'k', secretKey: 's', contractCode: 'c', isSandbox: true }));
export async function status(reference: string): Promise<Payment['status'] | 'missing'> {
  try {
    return (await pay.payments.retrieve(reference))?.status ?? 'missing';
  } catch (error) {
    if (NetworkError.isInstance(error) && error.outcome === 'not_sent') return 'missing';
    throw error;
  }
}
pay.webhooks.setup({ webhookSecret: 's' }).on('providerN.SUCCESSFUL_TRANSACTION', (event) => {
  const reference: string = event.data.transactionReference;
  return reference;
});
`,
    );
    const result = run('node', [tsc, '-p', 'tsconfig.json'], app);
    expect(result.status, result.output).toBe(0);
  });
});

/** The packages each changeset names in its frontmatter (`"@pay/core": minor`). */
function packagesNamedByChangesets(): Set<string> {
  const folder = join(root, '.changeset');
  const named = new Set<string>();
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.md') && name !== 'README.md')) {
    const frontmatter = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(folder, file), 'utf8'))?.[1] ?? '';
    for (const match of frontmatter.matchAll(/^\s*["']?(@[^"':\s]+)["']?\s*:/gm)) named.add(match[1]!);
  }
  return named;
}

const REPOSITORY = 'git+https://github.com/pay-sdk/pay.git';

describe('the next release, as the release dry run packs it', () => {
  it('packs every published package of the workspace', () => {
    expect([...release.keys()].sort()).toEqual(published.map(({ manifest }) => manifest.name).sort());
  });

  it('versions every package a changeset names above 0.0.0, every package below 1.0, adapters peering on the core released with them', () => {
    const named = packagesNamedByChangesets();
    const core = release.get('@pay/core')!.version;
    for (const { name, version, manifest } of release.values()) {
      expect(version, name).toMatch(/^0\.\d+\.\d+$/);
      if (named.has(name)) expect(version, name).not.toBe('0.0.0');
      const peer = manifest.peerDependencies?.['@pay/core'];
      if (peer)
        expect(
          peer.split('||').map((range) => range.trim()),
          name,
        ).toContain(`^${core}`);
    }
  });

  it('ship each package’s CHANGELOG.md with the section of the version packed', () => {
    for (const { name, version, files, changelog } of release.values()) {
      expect(files, name).toContain('CHANGELOG.md');
      expect(changelog?.split('\n')[0], name).toBe(`# ${name}`);
      expect(changelog, name).toContain(`\n## ${version}\n`);
    }
  });

  it('ship the Provider R migration note the root README points to in @pay/provider-r’s changelog', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain('its changelog has\nthe migration note');
    const changelog = release.get('@pay/provider-r')!.changelog ?? '';
    expect(changelog).toContain("**Breaking: amounts are in the currency's standard unit**");
    expect(changelog).toMatch(/Migration: multiply nothing: pass `250\.5` instead of\s+`25050`/);
  });

  it('tell npm users where the source, the documentation and the issue tracker are', () => {
    for (const { name, manifest } of release.values()) {
      const dir = published.find((candidate) => candidate.manifest.name === name)!.dir;
      const directory = dir.slice(root.length).replace(/^\/+/, '');
      expect(manifest.repository, name).toEqual({ type: 'git', url: REPOSITORY, directory });
      expect(manifest.homepage, name).toBe(`https://github.com/pay-sdk/pay/tree/main/${directory}#readme`);
      expect(manifest.bugs, name).toEqual({ url: 'https://github.com/pay-sdk/pay/issues' });
    }
  });

  it('name the repository, its folder, homepage and issue tracker in every package.json of the workspace', () => {
    const folders = ['packages', 'tests', 'examples']
      .flatMap((group) => readdirSync(join(root, group)).map((dir) => `${group}/${dir}`))
      .concat(['tooling', 'tooling/bench'])
      .filter((folder) => existsSync(join(root, folder, 'package.json')));
    expect(folders.length).toBeGreaterThan(10);
    for (const directory of folders) {
      const manifest = JSON.parse(readFileSync(join(root, directory, 'package.json'), 'utf8'));
      expect(manifest.repository, directory).toEqual({ type: 'git', url: REPOSITORY, directory });
      expect(manifest.homepage, directory).toBe(
        `https://github.com/pay-sdk/pay/tree/main/${directory}#readme`,
      );
      expect(manifest.bugs, directory).toEqual({ url: 'https://github.com/pay-sdk/pay/issues' });
    }
  });
});
