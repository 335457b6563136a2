/**
 * The reconciler as the root README presents it, under `pay dev provider-r --drop-webhooks all`: the README's
 * wiring (memory stores, `createReconciler(pay, webhooks)`), a payment paid on the simulator's hosted page whose
 * webhook is dropped, and the `payment.succeeded` callback running from the reconciler's read. And the READMEs that
 * point to it: the root README's section, Provider R's and the CLI's `--drop-webhooks` section link it.
 */
import { readFileSync } from 'node:fs';
import {
  createMemoryDeduplicationStore,
  createMemoryIdempotencyStore,
  createMemoryReconciliationStore,
  createPay,
  createReconciler,
  type Payment,
  toNodeListener,
} from '@pay/core';
import type { LoopbackServer } from '@pay/core/testing';
import { providerR } from '@pay/provider-r';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { eventually, lateBoundApp, payDevInProcess } from './support.js';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  vi.unstubAllEnvs();
});

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

describe('the reconciler, from the front door', () => {
  it('the root README presents createReconciler with its design link; Provider R and pay dev --drop-webhooks link it', () => {
    const root = read('README.md');
    expect(root).toContain('## When a webhook never comes: the reconciler');
    expect(root).toContain('const reconciler = createReconciler(pay, webhooks);');
    expect(root).toContain('](docs/architecture.md#reconciliation)');
    const anchor = 'README.md#when-a-webhook-never-comes-the-reconciler';
    expect(read('packages/provider-r/README.md')).toContain(`](../../${anchor})`);
    const dropping =
      /### Dropping webhooks\n([\s\S]*?)\n### /.exec(read('packages/cli/README.md'))?.[1] ?? '';
    expect(dropping).toContain(`](../../${anchor})`);
    expect(dropping).toContain('`createReconciler`');
  });

  it("with every webhook dropped, the README's wiring runs payment.succeeded from a read", async () => {
    const app = await lateBoundApp();
    servers.push(app.server);
    const forward = `${app.server.url}/webhooks`;
    const dev = await payDevInProcess([
      'provider-r',
      '--port',
      '0',
      '--forward',
      forward,
      '--drop-webhooks',
      'all',
    ]);
    for (const [name, value] of Object.entries(dev.env)) vi.stubEnv(name, value);

    // The root README's wiring, as written (one process: the in-memory stores).
    const pay = createPay(providerR(), {
      idempotency: createMemoryIdempotencyStore(),
      reconcile: createMemoryReconciliationStore(),
    });
    const received: Payment[] = [];
    const webhooks = pay.webhooks
      .setup({ webhookSecret: process.env.PROVIDER_R_SECRET, deduplicate: createMemoryDeduplicationStore() })
      .on('payment.succeeded', async (event) => void received.push(event.data));
    app.use(toNodeListener(webhooks));
    // Its clock 3 minutes ahead: the first read of a payment comes 2 minutes after its creation.
    const reconciler = createReconciler(pay, webhooks, { now: () => Date.now() + 180_000 });

    const payment = await pay.payments.create({
      customer: { id: 'cust_42' },
      item_id: 'order-1',
      amount: 100,
      currency: 'EUR',
      provider_metadata: { email: 'payer@example.com' },
    });
    const paid = await fetch(payment.payment_url ?? '', {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=pay',
    });
    // No return URL was given: the page shows the outcome itself.
    expect(paid.status).toBe(200);
    await eventually(
      () => dev.out.find((line) => line.endsWith('dropped (--drop-webhooks), not sent')),
      5_000,
      'the dropped webhook',
    );
    expect(received).toEqual([]);

    const run = await reconciler.runOnce();
    expect(run).toMatchObject({ paused: false });
    expect(received).toEqual([
      expect.objectContaining({ id: payment.id, status: 'succeeded', livemode: false }),
    ]);
    expect(await dev.stop()).toBe(0);
  });
});
