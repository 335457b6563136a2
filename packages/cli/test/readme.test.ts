import { readFileSync } from 'node:fs';
import { createPay, toNodeListener } from '@pay/core';
import type { LoopbackServer } from '@pay/core/testing';
import { providerR } from '@pay/provider-r';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../src/main.js';
import { capturedIo, envFrom, eventually, lateBoundApp } from './support.js';

const servers: LoopbackServer[] = [];
const stops: AbortController[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop.abort();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  vi.unstubAllEnvs();
});

/** The README's sample output of `pay dev provider-r` (the first `text` block), line by line. */
function readmeSample(): string[] {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const block = /```text\n([\s\S]*?)\n```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('README.md has no sample output');
  return block.split('\n');
}

/** A log line without what differs on every run: the time and the request id. */
function comparable(line: string): string {
  return line.replace(/^\d\d:\d\d:\d\d /, 'HH:MM:SS ').replace(/ \([^)]+\)$/, ' (<request id>)');
}

describe("the README's sample output of pay dev", () => {
  it('is what pay dev prints while an app creates a Provider R payment, paid on the hosted page', async () => {
    const app = await lateBoundApp();
    servers.push(app.server);
    const stop = new AbortController();
    stops.push(stop);
    const { io, out } = capturedIo(stop.signal);
    const forward = `${app.server.url}/webhooks`;
    const running = main(['dev', 'provider-r', '--port', '0', '--forward', forward], io);
    await eventually(() => (out.includes('Press Ctrl+C to stop.') ? true : undefined), 15_000, 'the banner');
    const env = envFrom(out);
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const pay = createPay(providerR());
    app.use(toNodeListener(pay.webhooks.setup({ webhookSecret: env.PROVIDER_R_SECRET ?? '' })));

    const payment = await pay.payments.create({
      customer: { id: 'customer-1' },
      amount: 250.5,
      currency: 'CZK',
      provider_metadata: { email: 'payer@shop.test' },
    });
    const page = payment.payment_url ?? '';
    await fetch(page);
    await fetch(page, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=pay',
    });
    await eventually(
      () => (out.some((line) => line.includes(' webhook  -> ')) ? true : undefined),
      5_000,
      'the delivery log line',
    );
    stop.abort();
    await running;

    // The sample uses port 4010, an app on localhost:3000 and one transaction id; the rest is as printed.
    const sample = readmeSample();
    const transactionId = /[?&]id=([^&\s)]+)/.exec(sample.join('\n'))?.[1] ?? '';
    const printed = out
      .slice(0, sample.length)
      .map((line) =>
        line
          .replaceAll(env.PROVIDER_R_BASE_URL ?? '-', 'http://127.0.0.1:4010')
          .replaceAll(forward, 'http://localhost:3000/webhooks')
          .replaceAll(payment.id, transactionId),
      );
    expect(printed.map(comparable)).toEqual(sample.map(comparable));
  });
});
