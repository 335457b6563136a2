import { createPay, toNodeListener } from '@pay/core';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import { createProviderN } from '@pay/provider-n';
import { PROVIDER_N_SIMULATOR_CREDENTIALS } from '@pay/provider-n/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../src/main.js';
import { capturedIo, lateBoundApp, payDevInProcess } from './support.js';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A loopback URL nothing listens on: where no `pay dev` runs. */
async function nothingRunning(): Promise<string> {
  const server = await startLoopbackServer(() => undefined);
  await server.close();
  return server.url;
}

/** `main(argv)` with no `PROVIDER_X_BASE_URL` in the environment. */
const run = (argv: string[], io: ReturnType<typeof capturedIo>['io']) => main(argv, { ...io, env: {} });

/** An app with Provider N's webhook handler, verifying with `webhookSecret`. */
async function providerNApp(webhookSecret: string | string[]) {
  const app = await lateBoundApp();
  servers.push(app.server);
  const { apiKey, secretKey } = PROVIDER_N_SIMULATOR_CREDENTIALS;
  // No call goes upstream: Provider N's webhooks need no status read.
  const pay = createPay(
    createProviderN({ apiKey, secretKey, isSandbox: true, baseUrl: 'http://127.0.0.1:9' }),
  );
  const types: string[] = [];
  app.use(
    toNodeListener(pay.webhooks.setup({ webhookSecret }).onAny((event) => void types.push(event.type))),
  );
  return { url: `${app.server.url}/webhooks`, types };
}

describe('pay trigger', () => {
  it('asks the running pay dev simulator for the event, which the real adapter handler verifies', async () => {
    const stop = new AbortController();
    const dev = capturedIo(stop.signal);
    const devRun = main(['dev', 'provider-n', '--port', '0'], dev.io);
    await vi.waitFor(() => expect(dev.out).toContain('Press Ctrl+C to stop.'), { timeout: 15_000 });
    const devUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.out[0] ?? '')?.[1] ?? '';
    const app = await providerNApp(PROVIDER_N_SIMULATOR_CREDENTIALS.webhookSecret);
    const { io, out, err } = capturedIo();
    const argv = ['trigger', 'provider-n', 'SUCCESSFUL_TRANSACTION', '--to', app.url];
    expect(await main(argv, { ...io, env: { PROVIDER_N_BASE_URL: devUrl } })).toBe(0);
    expect(err).toEqual([]);
    expect(out[0]).toBe(`Provider N SUCCESSFUL_TRANSACTION -> ${app.url}: HTTP 200`);
    expect(app.types).toContain('providerN.SUCCESSFUL_TRANSACTION');
    // The running simulator received the control request (pay dev logs it like any request).
    await vi.waitFor(
      () => expect(dev.out.some((line) => / request {2}POST \/_simulator\/trigger /.test(line))).toBe(true),
      { timeout: 5_000 },
    );
    stop.abort();
    expect(await devRun).toBe(0);
  });

  it('with no simulator running, Provider N falls back to a throwaway simulator and says so', async () => {
    const app = await providerNApp(PROVIDER_N_SIMULATOR_CREDENTIALS.webhookSecret);
    const devUrl = await nothingRunning();
    const { io, out, err } = capturedIo();
    const argv = ['trigger', 'provider-n', 'SUCCESSFUL_TRANSACTION', '--to', app.url, '--dev', devUrl];
    expect(await run(argv, io)).toBe(0);
    expect(err).toEqual([
      `pay: No Provider N simulator answers at ${devUrl} (ECONNREFUSED): sending from a throwaway simulator (its events are signed with the simulators' fixed secret, so your app accepts it all the same).`,
    ]);
    expect(out[0]).toBe(`Provider N SUCCESSFUL_TRANSACTION -> ${app.url}: HTTP 200`);
    // Verified by Provider N's real handler: the raw event is dispatched only after the signature check passed.
    expect(app.types).toContain('providerN.SUCCESSFUL_TRANSACTION');
  });

  it('pay dev --webhook-secret: the simulator signs with the new secret; a handler holding new and old verifies, one holding only the old refuses', async () => {
    const dev = await payDevInProcess([
      'provider-n',
      '--port',
      '0',
      '--webhook-secret',
      'rotated-secret-7c1e',
    ]);
    expect(dev.out).toContain(
      'Signing webhooks with the secret of --webhook-secret, not the one above: to rehearse a rotation, give your handler the new secret first and the old one after it, then drop the old one (docs/architecture.md#credential-rotation).',
    );
    const devUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.out[0] ?? '')?.[1] ?? '';
    const old = PROVIDER_N_SIMULATOR_CREDENTIALS.webhookSecret;
    const rotating = await providerNApp(['rotated-secret-7c1e', old]);
    const stale = await providerNApp(old);
    const send = async (to: string) => {
      const { io } = capturedIo();
      return main(['trigger', 'provider-n', 'SUCCESSFUL_TRANSACTION', '--to', to, '--dev', devUrl], {
        ...io,
        env: {},
      });
    };
    expect(await send(rotating.url)).toBe(0);
    expect(rotating.types).toContain('providerN.SUCCESSFUL_TRANSACTION');
    expect(await send(stale.url)).toBe(1);
    expect(stale.types).toEqual([]);
    expect(await dev.stop()).toBe(0);
  });

  it.each([
    [['provider-n', '--webhook-secret', '  '], 'pay: --webhook-secret must not be blank.'],
    [
      ['provider-t', '--webhook-secret', 'x'],
      '--webhook-secret replaces a shared webhook secret; the Provider T simulator signs with a key pair (--state).',
    ],
  ])('pay dev %j is refused (exit status 2)', async (args, message) => {
    const { io, err } = capturedIo();
    expect(await main(['dev', ...args], io)).toBe(2);
    expect(err[0]).toBe(message.startsWith('pay: ') ? message : `pay: ${message}`);
  });

  it('exits 1 with the HTTP status when the app refuses the event (a handler with another secret)', async () => {
    const app = await providerNApp('not-the-simulator-secret');
    const { io, out } = capturedIo();
    const argv = ['trigger', 'provider-n', 'SUCCESSFUL_TRANSACTION', '--to', app.url];
    expect(await run([...argv, '--dev', await nothingRunning()], io)).toBe(1);
    expect(out[0]).toBe(`Provider N SUCCESSFUL_TRANSACTION -> ${app.url}: HTTP 400`);
    expect(app.types).toEqual([]);
  });

  it("exits 1 with the simulator's message for an event the provider does not send", async () => {
    const app = await providerNApp(PROVIDER_N_SIMULATOR_CREDENTIALS.webhookSecret);
    const { io, err } = capturedIo();
    const argv = ['trigger', 'provider-n', 'PAYMENT_EXPLODED', '--to', app.url];
    expect(await run([...argv, '--dev', await nothingRunning()], io)).toBe(1);
    expect(err.at(-1)).toMatch(
      /^pay: The Provider N simulator triggers SUCCESSFUL_TRANSACTION, .* not PAYMENT_EXPLODED\.$/,
    );
  });

  it.each([
    [
      ['trigger', 'provider-n', 'SUCCESSFUL_TRANSACTION'],
      'pay: --to <url> is required: where to send the event.',
    ],
    [
      ['trigger', 'provider-n'],
      'pay: Name the event to send: pay trigger provider-n <event> --to <url>, the event one of SUCCESSFUL_TRANSACTION, ',
    ],
    [
      ['trigger', 'stripe', 'x', '--to', 'http://localhost:1/'],
      `pay: No adapter package "stripe" is installed in ${process.cwd()}: install it, or name one of `,
    ],
    [
      ['trigger', 'provider-n', 'X', '--to', 'http://localhost:1/', '--option', 'novalue'],
      'pay: --option takes name=value, got "novalue".',
    ],
    [['trigger', 'provider-n', 'X', '--too', 'http://localhost:1/'], "pay: Unknown option '--too'"],
  ])('refuses %j with exit status 2', async (argv, message) => {
    const { io, err } = capturedIo();
    expect(await run(argv, io)).toBe(2);
    expect(err[0]?.startsWith(message)).toBe(true);
  });
});
