import { readFileSync } from 'node:fs';
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createPay, type Payment, toNodeListener } from '@pay/core';
import type { LoopbackServer } from '@pay/core/testing';
import { providerR } from '@pay/provider-r';
import { providerT } from '@pay/provider-t';
import { sampleTransferMetadata } from '@pay/provider-t/testing';
import { freePort } from '@pay/tooling/servers/process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../src/main.js';
import {
  capturedIo,
  devStateDirectory,
  envFrom,
  eventually,
  lateBoundApp,
  payDevInProcess,
} from './support.js';

const servers: LoopbackServer[] = [];
const stops: AbortController[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop.abort();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  vi.unstubAllEnvs();
});

/** The README's sample output of `pay dev provider-r` (its first `text` block), line by line. */
function readmeSample(): string[] {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  return (/```text\n([\s\S]*?)\n```/.exec(readme)?.[1] ?? '').split('\n');
}

/** A log line without what differs on every run: the time and the request id. */
function comparable(line: string): string {
  return line.replace(/^\d\d:\d\d:\d\d /, 'HH:MM:SS ').replace(/ \([^)]+\)$/, ' (<request id>)');
}

describe('pay dev', () => {
  it('prints the env that switches the default factory to the simulator; a payment on the hosted page reaches the app handler, logged', async () => {
    const app = await lateBoundApp();
    servers.push(app.server);
    const stop = new AbortController();
    stops.push(stop);
    const { io, out, err } = capturedIo(stop.signal);
    const forward = `${app.server.url}/webhooks`;
    const running = main(['dev', 'provider-r', '--port', '0', '--forward', forward], io);

    await eventually(() => (out.includes('Press Ctrl+C to stop.') ? true : undefined), 15_000, 'the banner');
    const env = envFrom(out);
    expect(Object.keys(env)).toEqual([
      'PROVIDER_R_MERCHANT',
      'PROVIDER_R_SECRET',
      'PROVIDER_R_SANDBOX',
      'PROVIDER_R_BASE_URL',
    ]);
    expect(env.PROVIDER_R_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(out[0]).toBe(
      `Provider R simulator listening on ${env.PROVIDER_R_BASE_URL} (test mode: no real money moves)`,
    );
    expect(out).toContain(`Forwarding a signed webhook to ${forward} on every payment change.`);

    // The app: the default factory reads only the environment, exactly as an app switched to `pay dev` does.
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const pay = createPay(providerR());
    const received: Payment[] = [];
    app.use(
      toNodeListener(
        pay.webhooks
          .setup({ webhookSecret: process.env.PROVIDER_R_SECRET ?? '' })
          .on('payment.succeeded', (event) => void received.push(event.data)),
      ),
    );
    const { transId, redirectUrl } = await pay.adapter.createCheckoutRedirect({
      customer: { email: 'payer@shop.test' },
      item_id: 'order-1',
      amount: 250,
      currency: 'CZK',
      success_url: 'https://shop.test/paid',
      cancel_url: 'https://shop.test/cancelled',
    });
    expect(redirectUrl.startsWith(env.PROVIDER_R_BASE_URL ?? '-')).toBe(true);

    const page = await fetch(redirectUrl);
    expect(page.status).toBe(200);
    const paid = await fetch(redirectUrl, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=pay',
    });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe('https://shop.test/paid');
    expect(received).toEqual([
      expect.objectContaining({ id: transId, status: 'succeeded', amount: 250, currency: 'CZK' }),
    ]);

    await eventually(
      () => out.find((line) => / webhook {2}-> http:\/\/127\.0\.0\.1:\d+\/webhooks: HTTP 200$/.test(line)),
      5_000,
      'the delivery log line',
    );
    expect(out.some((line) => / request {2}POST \/v2\.0\/paymentRedirect\//.test(line))).toBe(true);
    // The README's sample log is this run as printed, on port 4010, for an app on localhost:3000.
    const sample = readmeSample();
    const sampleId = /[?&]id=([^&\s)]+)/.exec(sample.join('\n'))?.[1] ?? '-';
    const printed = out.slice(0, sample.length).map((line) =>
      line
        .replaceAll(env.PROVIDER_R_BASE_URL ?? '-', 'http://127.0.0.1:4010')
        .replaceAll(forward, 'http://localhost:3000/webhooks')
        .replaceAll(transId, sampleId),
    );
    expect(printed.map(comparable)).toEqual(sample.map(comparable));

    stop.abort();
    expect(await running).toBe(0);
    expect(out).toContain('Stopping: waiting for webhook deliveries in flight…');
    expect(out.at(-1)).toBe('Stopped.');
    expect(err).toEqual([]);
  });

  it('provider-t: forwards each status change straight to the app, whose handler verifies it (signed for its host), logged', async () => {
    const app = await lateBoundApp();
    servers.push(app.server);
    const stop = new AbortController();
    stops.push(stop);
    const { io, out, err } = capturedIo(stop.signal);
    const forward = `${app.server.url}/webhooks/provider-t`;
    const state = await devStateDirectory();
    const running = main(['dev', 'provider-t', '--port', '0', '--forward', forward, '--state', state], io);
    await eventually(() => (out.includes('Press Ctrl+C to stop.') ? true : undefined), 15_000, 'the banner');
    const env = envFrom(out);
    expect(env.PROVIDER_T_WEBHOOK_PUBLIC_KEY).toMatch(/^MII[A-Za-z0-9+/=]+$/);
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const pay = createPay(providerT({ retry: 0 }));
    const received: Payment[] = [];
    app.use(
      toNodeListener(
        pay.webhooks
          .setup({ webhookSecret: null })
          .on('payment.succeeded', (event) => void received.push(event.data)),
      ),
    );
    const payment = await pay.payments.create({
      amount: 100,
      currency: 'USD',
      provider_metadata: { ...sampleTransferMetadata },
    });
    await eventually(() => (received.length > 0 ? true : undefined), 10_000, 'the forwarded webhook');
    expect(received).toEqual([expect.objectContaining({ id: payment.id, status: 'succeeded' })]);
    await eventually(
      () => out.find((line) => line.endsWith(` webhook  -> ${forward}: HTTP 200`)),
      5_000,
      'the delivery log line',
    );
    expect(out.filter((line) => line.includes(' webhook  -> ') && !line.endsWith('HTTP 200'))).toEqual([]);
    stop.abort();
    expect(await running).toBe(0);
    expect(err).toEqual([]);
  });

  it('provider-t: prints PROVIDER_T_WEBHOOK_HOST for --forward, so a recipe copied with its production publicOrigin verifies', async () => {
    const app = await lateBoundApp();
    servers.push(app.server);
    const forward = `${app.server.url}/webhooks/provider-t`;
    const dev = await payDevInProcess([
      'provider-t',
      '--port',
      '0',
      '--forward',
      forward,
      '--state',
      await devStateDirectory(),
    ]);
    expect(dev.env.PROVIDER_T_WEBHOOK_HOST).toBe(new URL(forward).host);
    for (const [name, value] of Object.entries(dev.env)) vi.stubEnv(name, value);
    const pay = createPay(providerT({ retry: 0 }));
    const received: Payment[] = [];
    // The README's recipe as written: the production origin, whatever host the request came to.
    const handler = pay.webhooks
      .setup({ webhookSecret: null })
      .on('payment.succeeded', (event) => void received.push(event.data));
    app.use(toNodeListener(handler, { publicOrigin: 'https://pay.shop.example' }));
    const payment = await pay.payments.create({
      amount: 100,
      currency: 'USD',
      provider_metadata: { ...sampleTransferMetadata },
    });
    await eventually(
      () => dev.out.find((line) => line.includes(` webhook  -> ${forward}: `)),
      10_000,
      'the delivery log line',
    );
    expect(dev.out.filter((line) => line.includes(' webhook  -> '))).toEqual([
      expect.stringMatching(/ webhook {2}-> .*: HTTP 200$/),
    ]);
    expect(received).toEqual([expect.objectContaining({ id: payment.id, status: 'succeeded' })]);
    expect(await dev.stop()).toBe(0);
  });

  it('provider-t without --forward: says which variable to set to the host of the webhook URL', async () => {
    const dev = await payDevInProcess(['provider-t', '--port', '0', '--state', await devStateDirectory()]);
    expect(dev.env.PROVIDER_T_WEBHOOK_HOST).toBeUndefined();
    expect(dev.out).toContain(
      'Set PROVIDER_T_WEBHOOK_HOST to the host of your webhook URL (localhost:3000): the simulator signs each ' +
        'delivery for the host it is posted to (with --forward, pay dev prints it).',
    );
    expect(await dev.stop()).toBe(0);
  });

  it('--keep 2: the event log keeps the last 2 deliveries and objects and says how many it left out', async () => {
    const app = await lateBoundApp();
    servers.push(app.server);
    const forward = `${app.server.url}/webhooks/provider-t`;
    const dev = await payDevInProcess([
      'provider-t',
      '--port',
      '0',
      '--forward',
      forward,
      '--keep',
      '2',
      '--state',
      await devStateDirectory(),
    ]);
    expect(dev.out).toContain(
      'Keeping the last 2 objects and webhook deliveries on the event log and 20 requests (--keep): the page says how many older ones it left out.',
    );
    app.use((_req, res) => res.end());
    for (const [name, value] of Object.entries(dev.env)) vi.stubEnv(name, value);
    const pay = createPay(providerT({ retry: 0 }));
    for (let made = 0; made < 4; made += 1)
      await pay.payments.create({
        amount: 100,
        currency: 'USD',
        provider_metadata: { ...sampleTransferMetadata },
      });
    await eventually(
      () =>
        dev.out.filter((line) => line.includes(` webhook  -> ${forward}: HTTP 200`)).length === 4
          ? true
          : undefined,
      10_000,
      'four deliveries',
    );
    const base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.out[0] ?? '')?.[1] ?? '';
    const page = await (await fetch(`${base}/_simulator/events`)).text();
    expect([...page.matchAll(/<tr id="(whd_\d+)">/g)].map((match) => match[1])).toEqual([
      'whd_000004',
      'whd_000003',
    ]);
    expect(page).toContain('<p class="note">2 older deliveries forgotten (pay dev --keep).</p>');
    expect(page).toContain('<p class="note">2 older object(s) not listed (pay dev --keep).</p>');
    expect(await dev.stop()).toBe(0);
  });

  it('refuses a --keep that is not a whole number from 1 (exit status 2)', async () => {
    const { io, err } = capturedIo();
    expect(await main(['dev', 'provider-t', '--keep', '0'], io)).toBe(2);
    expect(err[0]).toBe('pay: --keep must be a whole number from 1 to 100000, got "0".');
  });

  it("logs a refused delivery with the app's answer, each redelivery, and when the simulator gives up", async () => {
    const app = await lateBoundApp();
    servers.push(app.server);
    app.use((_req, res) => {
      res.statusCode = 400;
      res.end('signature mismatch');
    });
    const stop = new AbortController();
    stops.push(stop);
    const { io, out } = capturedIo(stop.signal);
    const forward = `${app.server.url}/webhooks`;
    const running = main(['dev', 'provider-r', '--port', '0', '--forward', forward], io);
    await eventually(() => (out.includes('Press Ctrl+C to stop.') ? true : undefined), 15_000, 'the banner');
    for (const [name, value] of Object.entries(envFrom(out))) vi.stubEnv(name, value);
    const { redirectUrl } = await createPay(providerR()).adapter.createCheckoutRedirect({
      customer: { email: 'payer@shop.test' },
      item_id: 'order-3',
      amount: 10,
      currency: 'CZK',
      success_url: 'https://shop.test/paid',
      cancel_url: 'https://shop.test/cancelled',
    });
    await fetch(redirectUrl, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=pay',
    });
    const gaveUp = await eventually(
      () => out.find((line) => line.includes('not delivered after')),
      15_000,
      'the give-up line',
    );
    expect(
      gaveUp.endsWith(
        ` webhook  -> ${forward}: providerR.PAID not delivered after 4 attempt(s); the simulator stopped redelivering it`,
      ),
    ).toBe(true);
    const attempts = out.filter(
      (line) => line.includes(' webhook  -> ') && !line.includes('not delivered after'),
    );
    expect(attempts).toHaveLength(4);
    for (const line of attempts) expect(line.endsWith(`: HTTP 400 signature mismatch`)).toBe(true);
    stop.abort();
    expect(await running).toBe(0);
  });

  it('listens on the port asked for, and says so clearly when the port is taken', async () => {
    const app = await lateBoundApp();
    servers.push(app.server);
    const taken = app.server.port;
    const { io, err } = capturedIo(new AbortController().signal);
    expect(await main(['dev', 'provider-n', '--port', String(taken)], io)).toBe(1);
    expect(err).toEqual([`pay: Port ${taken} on 127.0.0.1 is already in use: choose another port.`]);
  });

  it.each([
    [['dev'], 'pay: Name an adapter package: '],
    [
      ['dev', 'provider-x'],
      `pay: No adapter package "provider-x" is installed in ${process.cwd()}: install it, or name one of `,
    ],
    [['dev', 'core'], 'pay: @pay/core/testing exports no simulator: it is not an adapter pay can serve'],
    [
      ['dev', 'vitest'],
      'pay: vitest is installed but exports no ./testing entry: it is not an adapter pay can serve.',
    ],
    [['dev', 'provider-n', '--prot', '4010'], "pay: Unknown option '--prot'"],
    [['dev', 'provider-n', '--port', 'http'], 'pay: --port must be a port number 0–65535, got "http".'],
    [['dev', 'provider-n', '--port', '70000'], 'pay: --port must be a port number 0–65535, got "70000".'],
    [
      ['dev', 'provider-n', '--forward', 'localhost:3000'],
      'pay: --forward must be an http(s) URL, got "localhost:3000".',
    ],
    [
      ['dev', 'provider-n', '--forward', '/webhooks'],
      'pay: --forward must be an absolute http(s) URL, got "/webhooks".',
    ],
    [
      ['dev', 'provider-r', '--state', '.pay'],
      "pay: --state keeps a simulator's signing key; Provider R keeps no state.",
    ],
    [['deploy'], 'pay: Unknown command "deploy": use pay dev, pay trigger, pay new or pay check.'],
  ])('refuses %j with exit status 2: %s', async (argv, message) => {
    const { io, err } = capturedIo();
    expect(await main(argv, io)).toBe(2);
    expect(err[0]?.startsWith(message)).toBe(true);
    expect(err[1]).toBe('Run pay --help for usage.');
  });

  it('prints the usage for --help (exit 0) and without a command (exit 2)', async () => {
    const help = capturedIo();
    expect(await main(['--help'], help.io)).toBe(0);
    expect(help.out[0]).toMatch(/^Usage:\n {2}pay dev <adapter>/);
    const none = capturedIo();
    expect(await main([], none.io)).toBe(2);
  });
});

describe('pay dev provider-t keeps its signing key', () => {
  it('across a restart: the app configured from the first run verifies the second run’s webhook', async () => {
    const state = await devStateDirectory();
    const port = String(await freePort());
    const first = await payDevInProcess(['provider-t', '--port', port, '--state', state]);
    const keyFile = join(state, 'provider-t-webhook-key.pem');
    expect(first.out).toContain(
      `Made a webhook signing key, kept in ${keyFile} (mode 0600): the next runs sign with it too.`,
    );
    expect(await first.stop()).toBe(0);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(state)).mode & 0o077).toBe(0);
    expect(await readFile(keyFile, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);

    // The app keeps the configuration the first run printed, as an app's .env does.
    for (const [name, value] of Object.entries(first.env)) vi.stubEnv(name, value);
    const app = await lateBoundApp();
    servers.push(app.server);
    const received: Payment[] = [];
    app.use(
      toNodeListener(
        createPay(providerT({ retry: 0 }))
          .webhooks.setup({ webhookSecret: null })
          .on('payment.succeeded', (event) => void received.push(event.data)),
      ),
    );
    const forward = `${app.server.url}/webhooks/provider-t`;
    const second = await payDevInProcess([
      'provider-t',
      '--port',
      port,
      '--state',
      state,
      '--forward',
      forward,
    ]);
    expect(second.env.PROVIDER_T_WEBHOOK_PUBLIC_KEY).toBe(first.env.PROVIDER_T_WEBHOOK_PUBLIC_KEY);
    expect(second.out).toContain(
      `Signing webhooks with the key kept in ${keyFile}: the same public key as the earlier runs.`,
    );

    const payment = await createPay(providerT({ retry: 0 })).payments.create({
      amount: 100,
      currency: 'USD',
      provider_metadata: { ...sampleTransferMetadata },
    });
    await eventually(
      () => second.out.find((line) => line.includes(` webhook  -> ${forward}: `)),
      10_000,
      'the delivery log line',
    );
    expect(second.out.filter((line) => line.includes(' webhook  -> '))).toEqual([
      expect.stringMatching(/ webhook {2}-> .*: HTTP 200$/),
    ]);
    expect(received).toEqual([expect.objectContaining({ id: payment.id, status: 'succeeded' })]);
    expect(await second.stop()).toBe(0);
  });

  it.skipIf(process.platform === 'win32' || process.platform === 'darwin')(
    'without --state, in $XDG_CACHE_HOME/pay',
    async () => {
      const cache = await devStateDirectory();
      const dev = await payDevInProcess(['provider-t', '--port', '0'], { env: { XDG_CACHE_HOME: cache } });
      expect(dev.out).toContain(
        `Made a webhook signing key, kept in ${join(cache, 'pay', 'provider-t-webhook-key.pem')} (mode 0600): the next runs sign with it too.`,
      );
      expect(await dev.stop()).toBe(0);
    },
  );

  it.skipIf(process.platform === 'win32')(
    'refuses a key file other users can read, and one holding no key (exit 1)',
    async () => {
      const state = await devStateDirectory();
      const keyFile = join(state, 'provider-t-webhook-key.pem');
      await payDevInProcess(['provider-t', '--port', '0', '--state', state]).then((dev) => dev.stop());
      await chmod(keyFile, 0o644);
      const readable = await payDevInProcess(['provider-t', '--port', '0', '--state', state]);
      expect(await readable.stop()).toBe(1);
      expect(readable.err).toEqual([
        `pay: ${keyFile} holds pay dev's signing key and other users can read it (mode 644): run chmod 600 ${keyFile}.`,
      ]);
      await writeFile(keyFile, 'not a key', { mode: 0o600 });
      await chmod(keyFile, 0o600);
      const broken = await payDevInProcess(['provider-t', '--port', '0', '--state', state]);
      expect(await broken.stop()).toBe(1);
      expect(broken.err).toEqual([
        `pay: ${keyFile} is not a PEM RSA private key: delete it and pay dev makes a new key (then give your app the new public key it prints).`,
      ]);
    },
  );
});
