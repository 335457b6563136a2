/**
 * `pay trigger` against the RUNNING `pay dev` simulator, as a user runs them: `pay dev` in its own process (the
 * bundled executable), the app a real adapter webhook handler configured only from what `pay dev` printed, and
 * `pay trigger` asking that simulator for the event. The event must be verified by the app (the running
 * simulator's key / secret) and confirmed by the app's status read (a payment in the running simulator's books).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPay, type Payment, toNodeListener } from '@pay/core';
import type { LoopbackServer } from '@pay/core/testing';
import { providerR } from '@pay/provider-r';
import { providerT } from '@pay/provider-t';
import { freePort } from '@pay/tooling/servers/process';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../src/main.js';
import {
  bundleCli,
  capturedIo,
  devStateDirectory,
  installWorkspaceAdapter,
  lateBoundApp,
  payDevProcess,
  payProcess,
  scratchApp,
} from './support.js';

let outDir = '';
let cli = '';
/** The app folder `pay dev` runs in: Provider T's, R's and N's adapters installed, as plain JavaScript. */
let app = '';
const servers: LoopbackServer[] = [];
const running: Awaited<ReturnType<typeof payDevProcess>>[] = [];

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'pay-cli-trigger-'));
  cli = await bundleCli(outDir);
  app = await scratchApp(outDir);
  await installWorkspaceAdapter(app, '@pay/provider-t');
  await installWorkspaceAdapter(app, '@pay/provider-r');
  await installWorkspaceAdapter(app, '@pay/provider-n');
}, 90_000);

afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(running.splice(0).map((dev) => dev.stop()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
});

/** `pay dev <adapter>` in a child process (a state directory of its own for Provider T's kept key). */
async function payDev(adapter: string) {
  const state = adapter === 'provider-t' ? ['--state', await devStateDirectory()] : [];
  const dev = await payDevProcess(cli, app, adapter, state);
  running.push(dev);
  return dev;
}

/**
 * An app configured only from the environment `pay dev` printed: `adapter()` runs the provider's default factory
 * with those variables set; the app records every `payment.succeeded` it verifies.
 */
async function appConfiguredFrom(
  env: Record<string, string>,
  adapter: () => Parameters<typeof createPay>[0],
  webhookSecret: string | null,
) {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const app = await lateBoundApp();
  servers.push(app.server);
  const received: Payment[] = [];
  app.use(
    toNodeListener(
      createPay(adapter())
        .webhooks.setup({ webhookSecret })
        .on('payment.succeeded', (event) => void received.push(event.data)),
    ),
  );
  return { url: app.server.url, received };
}

/** The request lines `pay dev` logged for the status reads of `id` (`GET <path containing id>`). */
function statusReadsLogged(stdout: string, pathPrefix: string, id: string): string[] {
  return stdout
    .split('\n')
    .filter((line) => line.includes(` request  GET ${pathPrefix}`) && line.includes(encodeURIComponent(id)));
}

describe('pay trigger talks to the running pay dev simulator', () => {
  it('provider-t: the app configured from pay dev verifies the event (200) and its status read confirms it', async () => {
    const dev = await payDev('provider-t');
    expect(Object.keys(dev.env)).toEqual([
      'PROVIDER_T_CLIENT_ID',
      'PROVIDER_T_CLIENT_SECRET',
      'PROVIDER_T_AGENT_PARTNER_ID',
      'PROVIDER_T_OPERATOR_ID',
      'PROVIDER_T_SANDBOX',
      'PROVIDER_T_WEBHOOK_PUBLIC_KEY',
      'PROVIDER_T_BASE_URL',
    ]);
    // The app: Provider T's default factory reads only the environment pay dev printed.
    const { url, received } = await appConfiguredFrom(dev.env, () => providerT({ retry: 0 }), null);
    const to = `${url}/webhooks/provider-t`;

    // No --dev: pay trigger finds the simulator through PROVIDER_T_BASE_URL, as the app did.
    const { io, out, err } = capturedIo();
    const status = await main(['trigger', 'provider-t', 'payment.succeeded', '--to', to], {
      ...io,
      env: { ...dev.env },
    });
    expect(err).toEqual([]);
    expect(status).toBe(0);
    expect(out[0]).toBe(`Provider T payment.succeeded -> ${to}: HTTP 200`);
    expect(received).toHaveLength(1);
    const payment = received[0] as Payment;
    expect(payment).toMatchObject({ status: 'succeeded', livemode: false });
    // The status read went to the running simulator, which knows the transfer the event reported.
    await vi.waitFor(
      () => expect(statusReadsLogged(dev.stdout(), '/status/v1/transactions/', payment.id)).toHaveLength(1),
      { timeout: 5_000 },
    );
    expect(payment.request_id).toEqual(expect.any(String));
  });

  it('provider-r: the app configured from pay dev verifies the push (200) and its status read confirms it', async () => {
    const dev = await payDev('provider-r');
    const { url, received } = await appConfiguredFrom(
      dev.env,
      () => providerR({ retry: 0 }),
      dev.env.PROVIDER_R_SECRET ?? '',
    );
    const to = `${url}/webhooks`;
    const { io, out, err } = capturedIo();
    const status = await main(
      ['trigger', 'provider-r', 'PAID', '--to', to, '--dev', dev.env.PROVIDER_R_BASE_URL ?? ''],
      { ...io, env: {} },
    );
    expect(err).toEqual([]);
    expect(status).toBe(0);
    expect(out[0]).toBe(`Provider R PAID -> ${to}: HTTP 200`);
    expect(received).toEqual([expect.objectContaining({ status: 'succeeded', livemode: false })]);
    const payment = received[0] as Payment;
    await vi.waitFor(
      () =>
        expect(
          dev
            .stdout()
            .split('\n')
            .filter((line) => / request {2}POST \/v1\.0\/status /.test(line)),
        ).toHaveLength(1),
      { timeout: 5_000 },
    );
    expect(payment.id).toEqual(expect.any(String));
  });

  it("provider-r payment.succeeded (the built pay): the push is PAID and the app's payment.succeeded callback runs", async () => {
    const dev = await payDev('provider-r');
    const { url, received } = await appConfiguredFrom(
      dev.env,
      () => providerR({ retry: 0 }),
      dev.env.PROVIDER_R_SECRET ?? '',
    );
    const to = `${url}/webhooks`;
    const base = dev.env.PROVIDER_R_BASE_URL ?? '';
    const sent = await payProcess(cli, app, [
      'trigger',
      'provider-r',
      'payment.succeeded',
      '--to',
      to,
      '--dev',
      base,
    ]);
    expect([sent.status, sent.stderr, sent.stdout.split('\n')[0]]).toEqual([
      0,
      '',
      `Provider R payment.succeeded -> ${to}: HTTP 200`,
    ]);
    expect(received).toEqual([expect.objectContaining({ status: 'succeeded', livemode: false })]);
  });

  it.each([
    [
      'provider-r',
      'FOO',
      'pay: The Provider R simulator triggers PENDING, AUTHORIZED, PAID, CANCELLED (also as providerR.<status>) or payment.created (PENDING), payment.updated (AUTHORIZED), payment.succeeded (PAID), invoice.generated (PAID), payment.failed (CANCELLED), not FOO.',
    ],
    [
      'provider-n',
      'payment.succeeded',
      'pay: The Provider N simulator triggers SUCCESSFUL_TRANSACTION, SUCCESSFUL_TRANSACTION_OFFLINE, REJECTED_PAYMENT, SETTLEMENT, SUCCESSFUL_REFUND, FAILED_REFUND (also as providerN.<type>), or payment.created (SUCCESSFUL_TRANSACTION or SUCCESSFUL_TRANSACTION_OFFLINE), payment.failed (REJECTED_PAYMENT), payment.updated (SETTLEMENT), refund.created (SUCCESSFUL_REFUND or FAILED_REFUND), not payment.succeeded.',
    ],
    [
      'provider-n',
      'payment.created',
      'pay: The Provider N simulator triggers SUCCESSFUL_TRANSACTION, SUCCESSFUL_TRANSACTION_OFFLINE, REJECTED_PAYMENT, SETTLEMENT, SUCCESSFUL_REFUND, FAILED_REFUND (also as providerN.<type>), or payment.created (SUCCESSFUL_TRANSACTION or SUCCESSFUL_TRANSACTION_OFFLINE), payment.failed (REJECTED_PAYMENT), payment.updated (SETTLEMENT), refund.created (SUCCESSFUL_REFUND or FAILED_REFUND): name one of SUCCESSFUL_TRANSACTION, SUCCESSFUL_TRANSACTION_OFFLINE, not payment.created.',
    ],
    [
      'provider-t',
      'FOO',
      'pay: Provider T has no event FOO: the simulator triggers payment.created, payment.succeeded, payment.updated, payment.failed, refund.created, providerT.TRANSACTION_STATUS_EVENT, or a Provider T status (UNFUNDED, ',
    ],
  ])(
    '%s %s (the built pay): refused, exit 1, naming the events it triggers; nothing is sent',
    async (adapter, event, message) => {
      const dev = await payDev(adapter);
      const endpoint = await lateBoundApp();
      servers.push(endpoint.server);
      const hits: string[] = [];
      endpoint.use((req, res) => {
        hits.push(req.url ?? '');
        res.end();
      });
      const base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.stdout())?.[1] ?? '';
      const sent = await payProcess(cli, app, [
        'trigger',
        adapter,
        event,
        '--to',
        endpoint.server.url,
        '--dev',
        base,
      ]);
      expect(sent.status).toBe(1);
      expect(sent.stdout).toBe('');
      expect(sent.stderr.slice(0, message.length)).toBe(message);
      expect(hits).toEqual([]);
    },
  );

  it('provider-t with no simulator running: exit 1, says none answers and why a throwaway one cannot stand in', async () => {
    const app = await lateBoundApp();
    servers.push(app.server);
    const dev = `http://127.0.0.1:${await freePort()}`;
    const { io, out, err } = capturedIo();
    const status = await main(
      ['trigger', 'provider-t', 'payment.succeeded', '--to', `${app.server.url}/webhooks`, '--dev', dev],
      { ...io, env: {} },
    );
    expect(status).toBe(1);
    expect(out).toEqual([]);
    expect(err).toEqual([
      `pay: No Provider T simulator answers at ${dev} (ECONNREFUSED). Start it with pay dev provider-t (and configure your app from what it prints), or pass --dev <url> where it runs. A throwaway simulator cannot stand in for it: its webhooks are signed with the running simulator's key (PROVIDER_T_WEBHOOK_PUBLIC_KEY) and the app's status read looks the transfer up in the running simulator.`,
    ]);
  });

  it("refuses to trigger through another provider's simulator (exit 1, names both)", async () => {
    const stop = new AbortController();
    const dev = capturedIo(stop.signal);
    const devRun = main(['dev', 'provider-t', '--port', '0', '--state', await devStateDirectory()], dev.io);
    await vi.waitFor(() => expect(dev.out).toContain('Press Ctrl+C to stop.'), { timeout: 15_000 });
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.out[0] ?? '')?.[1] ?? '';
    const { io, err } = capturedIo();
    const status = await main(
      ['trigger', 'provider-n', 'SUCCESSFUL_TRANSACTION', '--to', 'http://127.0.0.1:1/', '--dev', url],
      { ...io, env: {} },
    );
    stop.abort();
    expect(await devRun).toBe(0);
    expect(status).toBe(1);
    expect(err).toEqual([
      'pay: This is the provider-t simulator, not provider-n: start pay dev provider-n on another port. pay trigger ' +
        `sends through ${url}, so start yours elsewhere and name it: pay dev provider-n --port 4011, then pay trigger ` +
        'provider-n SUCCESSFUL_TRANSACTION --to http://127.0.0.1:1/ --dev http://127.0.0.1:4011.',
    ]);
  });

  it.each([
    [
      { PROVIDER_T_BASE_URL: 'https://sandbox-api.provider-t.example' },
      [],
      'pay: PROVIDER_T_BASE_URL is https://sandbox-api.provider-t.example, not a simulator on this machine: pay trigger talks to the simulator of pay dev (127.0.0.1). Pass --dev http://127.0.0.1:<port>.',
    ],
    [
      {},
      ['--dev', 'http://192.0.2.10:4010'],
      'pay: --dev is http://192.0.2.10:4010, not a simulator on this machine: pay trigger talks to the simulator of pay dev (127.0.0.1). Pass --dev http://127.0.0.1:<port>.',
    ],
    [{}, ['--dev', '4010'], 'pay: --dev must be an absolute http(s) URL, got "4010".'],
  ])('refuses a simulator URL off this machine (%j %j) with exit status 2', async (env, flags, message) => {
    const { io, err } = capturedIo();
    const status = await main(
      ['trigger', 'provider-t', 'payment.succeeded', '--to', 'http://127.0.0.1:1/', ...flags],
      { ...io, env },
    );
    expect(status).toBe(2);
    expect(err[0]).toBe(message);
  });
});
