/**
 * An adapter from outside the monorepo, installed the way an app installs one: a package under a temporary
 * `node_modules` whose `./testing` entry exports a simulator descriptor (`test/fixtures/acme-adapter`, plain
 * JavaScript, no @pay package). `pay` lists it and serves it by package name with nothing in the CLI naming it,
 * in process and as the bundled executable.
 */
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoopbackServer } from '@pay/core/testing';
import { freePort } from '@pay/tooling/servers/process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import {
  bundleCli,
  capturedIo,
  envFrom,
  eventually,
  installInto,
  lateBoundApp,
  payDevInProcess,
  payDevProcess,
  scratchApp,
} from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/acme-adapter', import.meta.url));
/** The fixture simulator's webhook secret (what `pay dev` prints as `webhookSecret`). */
const ACME_SECRET = 'acme-test-webhook-secret';

let scratch = '';
let app = '';
let cli = '';
const servers: LoopbackServer[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'pay-cli-outside-'));
  app = await scratchApp(scratch);
  await installInto(app, FIXTURE);
  cli = await bundleCli(join(scratch, 'bin'));
}, 60_000);

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** An app endpoint that keeps each webhook whose `acme-signature` verifies, and refuses the others (400). */
async function acmeWebhookEndpoint() {
  const endpoint = await lateBoundApp();
  servers.push(endpoint.server);
  const verified: unknown[] = [];
  endpoint.use((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += String(chunk);
    });
    req.on('end', () => {
      const expected = createHmac('sha256', ACME_SECRET).update(body).digest('hex');
      const genuine = req.headers['acme-signature'] === expected;
      if (genuine) verified.push(JSON.parse(body));
      res.statusCode = genuine ? 200 : 400;
      res.end(genuine ? 'ok' : 'bad signature');
    });
  });
  return { url: `${endpoint.server.url}/webhooks`, verified };
}

describe('an adapter package from outside the monorepo', () => {
  it('pay --help lists it, with its events: the adapters installed in the app, and only those', async () => {
    const { io, out } = capturedIo();
    expect(await main(['--help'], { ...io, cwd: app })).toBe(0);
    const listed = (out[0] ?? '').split('\n\n').at(-1);
    expect(listed).toBe(
      'Installed adapters (and the events pay trigger sends):\n' +
        '  @acme/pay-provider-x     Acme Pay: charge.paid, charge.failed',
    );
  });

  it('pay dev <package> serves its simulator: the env it reads, requests logged, a signed webhook forwarded', async () => {
    const endpoint = await acmeWebhookEndpoint();
    const dev = await payDevInProcess(['@acme/pay-provider-x', '--port', '0', '--forward', endpoint.url], {
      cwd: app,
    });
    const env = envFrom(dev.out);
    expect(Object.keys(env)).toEqual(['ACME_API_KEY', 'ACME_BASE_URL']);
    expect(env.ACME_API_KEY).toBe('acme-test-key');
    expect(dev.out[0]).toBe(
      `Acme Pay simulator listening on ${env.ACME_BASE_URL} (test mode: no real money moves)`,
    );
    expect(dev.out).toContain(`  webhookSecret: ${ACME_SECRET}`);

    const charge = await fetch(`${env.ACME_BASE_URL}/v1/charges`, { method: 'POST', body: '{}' });
    const { id } = (await charge.json()) as { id: string };
    await eventually(() => (endpoint.verified.length > 0 ? true : undefined), 5_000, 'the webhook');
    expect(endpoint.verified).toEqual([{ type: 'charge.paid', charge: id }]);
    await eventually(
      () => dev.out.find((line) => line.endsWith(` webhook  -> ${endpoint.url}: HTTP 200`)),
      5_000,
      'the delivery log line',
    );
    expect(dev.out.some((line) => / request {2}POST \/v1\/charges \(acme_req_1\)$/.test(line))).toBe(true);
    expect(await dev.stop()).toBe(0);
    expect(dev.err).toEqual([]);
  });

  it("pay dev --drop-webhooks refuses a simulator that does not take the kit's attach option, and stops it", async () => {
    const port = await freePort();
    const { io, out, err } = capturedIo(new AbortController().signal);
    const argv = [
      'dev',
      '@acme/pay-provider-x',
      '--port',
      String(port),
      '--forward',
      'http://127.0.0.1:9/',
      '--drop-webhooks',
      'all',
    ];
    expect(await main(argv, { ...io, cwd: app })).toBe(1);
    expect(err).toEqual([
      "pay: The Acme Pay simulator of @acme/pay-provider-x does not take the kit's attach option (SimulatorStartOptions of @pay/core/testing), so it cannot drop webhooks: update the package.",
    ]);
    expect(out).toEqual([]);
    // Stopped: the port is free again.
    const again = await payDevInProcess(['@acme/pay-provider-x', '--port', String(port)], { cwd: app });
    expect(again.out).toContain(
      "No event log: the Acme Pay simulator does not take the kit's attach option.",
    );
    expect(await again.stop()).toBe(0);
  });

  it('pay trigger <package> asks the running simulator, found through its base URL variable', async () => {
    const endpoint = await acmeWebhookEndpoint();
    const dev = await payDevInProcess(['@acme/pay-provider-x', '--port', '0'], { cwd: app });
    const { io, out, err } = capturedIo();
    const argv = ['trigger', '@acme/pay-provider-x', 'charge.paid', '--to', endpoint.url];
    expect(await main(argv, { ...io, cwd: app, env: envFrom(dev.out) })).toBe(0);
    expect(err).toEqual([]);
    expect(out[0]).toBe(`Acme Pay charge.paid -> ${endpoint.url}: HTTP 200`);
    expect(endpoint.verified).toEqual([{ type: 'charge.paid', charge: expect.stringMatching(/^ch_/) }]);
    await eventually(
      () => dev.out.find((line) => / request {2}POST \/_simulator\/trigger /.test(line)),
      5_000,
      'the control request in the log',
    );
  });

  it("pay trigger with no simulator running says why a throwaway one cannot stand in, in the package's words", async () => {
    const { io, err } = capturedIo();
    const dev = `http://127.0.0.1:${await freePort()}`;
    const argv = [
      'trigger',
      '@acme/pay-provider-x',
      'charge.paid',
      '--to',
      'http://127.0.0.1:1/',
      '--dev',
      dev,
    ];
    expect(await main(argv, { ...io, cwd: app, env: {} })).toBe(1);
    expect(err).toEqual([
      `pay: No Acme Pay simulator answers at ${dev} (ECONNREFUSED). Start it with pay dev @acme/pay-provider-x (and configure your app from what it prints), or pass --dev <url> where it runs. A throwaway simulator cannot stand in for it: the app reads the charge back from the simulator it is pointed at.`,
    ]);
  });

  it('the bundled pay executable, run in the app folder, lists and serves it', async () => {
    const help = spawnSync(process.execPath, [cli, '--help'], { cwd: app, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('  @acme/pay-provider-x     Acme Pay: charge.paid, charge.failed\n');
    const dev = await payDevProcess(cli, app, '@acme/pay-provider-x');
    try {
      expect(dev.stdout()).toMatch(/^Acme Pay simulator listening on http:\/\/127\.0\.0\.1:\d+ /);
      const answer = await fetch(`${dev.env.ACME_BASE_URL}/v1/charges`, { method: 'POST', body: '{}' });
      expect(answer.status).toBe(201);
    } finally {
      expect(await dev.stop()).toBe(0);
    }
  });

  it('refuses a package whose descriptor is incomplete or would write its key file outside the state directory', async () => {
    const directory = join(app, 'node_modules', '@acme', 'pay-provider-broken');
    await mkdir(directory, { recursive: true });
    await writeFile(
      join(directory, 'package.json'),
      JSON.stringify({
        name: '@acme/pay-provider-broken',
        type: 'module',
        exports: { './testing': './testing.js' },
      }),
    );
    await writeFile(
      join(directory, 'testing.js'),
      `export const simulator = {
  provider: 'broken', label: 'Broken', env: [], events: [],
  throwawayTrigger: { accepted: true, because: 'any simulator will do' },
  keptSigningKey: { file: '../../.ssh/authorized_keys', type: 'rsa', generate: () => '' },
};
`,
    );
    const { io, err } = capturedIo();
    expect(await main(['dev', '@acme/pay-provider-broken', '--port', '0'], { ...io, cwd: app })).toBe(1);
    expect(err).toEqual([
      'pay: The simulator descriptor of @acme/pay-provider-broken/testing lacks keptSigningKey, start (the SimulatorDescriptor of @pay/core/testing): update the package.',
    ]);
    await rm(directory, { recursive: true });
  });
});
