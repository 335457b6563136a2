/**
 * `pay dev provider-t` keeps its webhook signing key across runs (src/dev-key.ts): an app configured from what an
 * earlier run printed still verifies the webhooks after a restart.
 */
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createPay, type Payment, toNodeListener } from '@pay/core';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import { providerT } from '@pay/provider-t';
import { sampleTransferMetadata } from '@pay/provider-t/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../src/main.js';
import { capturedIo, devStateDirectory, envFrom, eventually, lateBoundApp } from './support.js';

const servers: LoopbackServer[] = [];
const stops: AbortController[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop.abort();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  vi.unstubAllEnvs();
});

/** A loopback port free now (so two runs of pay dev can take the same one, as `--port 4010` does). */
async function freePort(): Promise<number> {
  const server = await startLoopbackServer(() => undefined);
  await server.close();
  return server.port;
}

/** `pay dev` with `args` until `stop()`; resolves once the banner is out. */
async function payDev(args: string[], env?: Record<string, string | undefined>) {
  const stop = new AbortController();
  stops.push(stop);
  const { io, out, err } = capturedIo(stop.signal);
  const running = main(['dev', ...args], env ? { ...io, env } : io);
  await eventually(
    () => (out.includes('Press Ctrl+C to stop.') || err.length > 0 ? true : undefined),
    15_000,
    'the banner',
  );
  return {
    out,
    err,
    env: envFrom(out),
    async stop() {
      stop.abort();
      return running;
    },
  };
}

describe('pay dev provider-t keeps its signing key', () => {
  it('across a restart: the app configured from the first run verifies the second run’s webhook', async () => {
    const state = await devStateDirectory();
    const port = String(await freePort());
    const first = await payDev(['provider-t', '--port', port, '--state', state]);
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
    const second = await payDev(['provider-t', '--port', port, '--state', state, '--forward', forward]);
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
      const dev = await payDev(['provider-t', '--port', '0'], { XDG_CACHE_HOME: cache });
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
      await payDev(['provider-t', '--port', '0', '--state', state]).then((dev) => dev.stop());
      await chmod(keyFile, 0o644);
      const readable = await payDev(['provider-t', '--port', '0', '--state', state]);
      expect(await readable.stop()).toBe(1);
      expect(readable.err).toEqual([
        `pay: ${keyFile} holds pay dev's signing key and other users can read it (mode 644): run chmod 600 ${keyFile}.`,
      ]);
      await writeFile(keyFile, 'not a key', { mode: 0o600 });
      await chmod(keyFile, 0o600);
      const broken = await payDev(['provider-t', '--port', '0', '--state', state]);
      expect(await broken.stop()).toBe(1);
      expect(broken.err).toEqual([
        `pay: ${keyFile} is not a PEM RSA private key: delete it and pay dev makes a new key (then give your app the new PROVIDER_T_WEBHOOK_PUBLIC_KEY).`,
      ]);
    },
  );
});
