import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPay, type Payment, toNodeListener } from '@pay/core';
import type { LoopbackServer } from '@pay/core/testing';
import { createProviderR } from '@pay/provider-r';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundleCli,
  eventually,
  installWorkspaceAdapter,
  lateBoundApp,
  payDevProcess,
  scratchApp,
} from './support.js';

let outDir = '';
/** The app folder `pay` runs in: Provider R's adapter installed, as plain JavaScript. */
let app = '';
const servers: LoopbackServer[] = [];
const children: ChildProcess[] = [];

// The command as a user runs it: `src/cli.ts` bundled into one file (the packages from source), started by Node.
beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'pay-cli-'));
  await bundleCli(outDir);
  app = await scratchApp(outDir);
  await installWorkspaceAdapter(app, '@pay/provider-r');
}, 60_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(servers.map((server) => server.close()));
  await rm(outDir, { recursive: true, force: true });
});

describe('the pay executable', () => {
  it('keeps the shebang and is executable', async () => {
    const mode = (await stat(join(outDir, 'cli.js'))).mode;
    expect(mode & 0o100).toBe(0o100);
  });

  it('pay dev runs in its own process, delivers the signed webhook of a hosted-page payment, and exits 0 on SIGINT', async () => {
    const shop = await lateBoundApp();
    servers.push(shop.server);
    const forward = `${shop.server.url}/webhooks`;
    const dev = await payDevProcess(join(outDir, 'cli.js'), app, 'provider-r', ['--forward', forward]);
    children.push(dev.child);
    const env = dev.env;
    const pay = createPay(
      createProviderR({
        merchant: env.PROVIDER_R_MERCHANT ?? '',
        secret: env.PROVIDER_R_SECRET ?? '',
        isSandbox: env.PROVIDER_R_SANDBOX === 'true',
        baseUrl: env.PROVIDER_R_BASE_URL ?? '',
      }),
    );
    const received: Payment[] = [];
    shop.use(
      toNodeListener(
        pay.webhooks
          .setup({ webhookSecret: env.PROVIDER_R_SECRET ?? '' })
          .on('payment.succeeded', (event) => void received.push(event.data)),
      ),
    );
    const { transId, redirectUrl } = await pay.adapter.createCheckoutRedirect({
      customer: { email: 'payer@shop.test' },
      item_id: 'order-2',
      amount: 99.9,
      currency: 'CZK',
      success_url: 'https://shop.test/paid',
      cancel_url: 'https://shop.test/cancelled',
    });
    const paid = await fetch(redirectUrl, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=pay',
    });
    expect([paid.status, paid.headers.get('location')]).toEqual([303, 'https://shop.test/paid']);
    expect(received).toEqual([expect.objectContaining({ id: transId, status: 'succeeded', amount: 99.9 })]);
    await eventually(
      () => (/ webhook {2}-> .*: HTTP 200/.test(dev.stdout()) ? true : undefined),
      5_000,
      'the delivery log',
    );

    expect(await dev.stop()).toBe(0);
    expect(dev.stdout().trimEnd().endsWith('Stopped.')).toBe(true);
    expect(dev.stderr()).toBe('');
  });

  it('exits 2 with a clear message for an adapter that is not installed, naming the installed ones', async () => {
    const child = spawn(process.execPath, [join(outDir, 'cli.js'), 'dev', 'provider-q'], {
      cwd: app,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toBe(
      `pay: No adapter package "provider-q" is installed in ${app}: install it, or name one of provider-r.\nRun pay --help for usage.\n`,
    );
  });
});
