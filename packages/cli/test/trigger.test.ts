import { createPay, toNodeListener } from '@pay/core';
import type { LoopbackServer } from '@pay/core/testing';
import { createProviderN } from '@pay/provider-n';
import { PROVIDER_N_SIMULATOR_CREDENTIALS } from '@pay/provider-n/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { capturedIo, lateBoundApp } from './support.js';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** An app with Provider N's webhook handler, verifying with `webhookSecret`. */
async function providerNApp(webhookSecret: string) {
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
  it('sends one correctly signed event that the real adapter handler verifies, and prints the status', async () => {
    const app = await providerNApp(PROVIDER_N_SIMULATOR_CREDENTIALS.webhookSecret);
    const { io, out, err } = capturedIo();
    expect(await main(['trigger', 'provider-n', 'SUCCESSFUL_TRANSACTION', '--to', app.url], io)).toBe(0);
    expect(err).toEqual([]);
    expect(out[0]).toBe(`Provider N SUCCESSFUL_TRANSACTION -> ${app.url}: HTTP 200`);
    // Verified by Provider N's real handler: the raw event is dispatched only after the signature check passed.
    expect(app.types).toContain('providerN.SUCCESSFUL_TRANSACTION');
  });

  it('exits 1 with the HTTP status when the app refuses the event (a handler with another secret)', async () => {
    const app = await providerNApp('not-the-simulator-secret');
    const { io, out } = capturedIo();
    expect(await main(['trigger', 'provider-n', 'SUCCESSFUL_TRANSACTION', '--to', app.url], io)).toBe(1);
    expect(out[0]).toBe(`Provider N SUCCESSFUL_TRANSACTION -> ${app.url}: HTTP 400`);
    expect(app.types).toEqual([]);
  });

  it("exits 1 with the simulator's message for an event the provider does not send", async () => {
    const app = await providerNApp(PROVIDER_N_SIMULATOR_CREDENTIALS.webhookSecret);
    const { io, err } = capturedIo();
    expect(await main(['trigger', 'provider-n', 'PAYMENT_EXPLODED', '--to', app.url], io)).toBe(1);
    expect(err[0]).toMatch(
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
      'pay: Name the event to send, e.g. pay trigger provider-n SUCCESSFUL_TRANSACTION --to <url>.',
    ],
    [
      ['trigger', 'stripe', 'x', '--to', 'http://localhost:1/'],
      'pay: Unknown provider "stripe": choose one of provider-t, provider-r, provider-n.',
    ],
    [
      ['trigger', 'provider-n', 'X', '--to', 'http://localhost:1/', '--option', 'novalue'],
      'pay: --option takes name=value, got "novalue".',
    ],
    [['trigger', 'provider-n', 'X', '--too', 'http://localhost:1/'], "pay: Unknown option '--too'"],
  ])('refuses %j with exit status 2', async (argv, message) => {
    const { io, err } = capturedIo();
    expect(await main(argv, io)).toBe(2);
    expect(err[0]?.startsWith(message)).toBe(true);
  });
});
