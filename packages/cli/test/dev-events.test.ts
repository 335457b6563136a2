/**
 * `pay dev --drop-webhooks` and the event log page (docs/architecture.md#pay-dev): webhooks dropped and logged as
 * such, the page listing the payment with its provider status, the app's reads of it and the dropped delivery,
 * and "Send again" delivering it to the app's real handler.
 */
import { createPay, type PayEvent, toNodeListener } from '@pay/core';
import { EVENT_LOG_PATH } from '@pay/core/testing';
import { providerN } from '@pay/provider-n';
import { providerR } from '@pay/provider-r';
import { providerT } from '@pay/provider-t';
import { sampleTransferMetadata } from '@pay/provider-t/testing';
import { rowText as rowWith } from '@pay/tooling/testing/html';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { main, USAGE } from '../src/main.js';
import { capturedIo, devStateDirectory, eventually, lateBoundApp, payDevInProcess } from './support.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

/**
 * `pay dev provider-n --port 0 --forward <app> <options>` with the app's handler (the default factory, reading
 * the printed environment) recording each verified event; resolves once the banner is out.
 */
async function payDevWithApp(options: readonly string[], random?: () => number) {
  const app = await lateBoundApp();
  onTestFinished(() => app.server.close());
  const forward = `${app.server.url}/webhooks`;
  const dev = await payDevInProcess(
    ['provider-n', '--port', '0', '--forward', forward, ...options],
    random ? { random } : {},
  );
  for (const [name, value] of Object.entries(dev.env)) vi.stubEnv(name, value);
  const pay = createPay(providerN());
  const events: PayEvent[] = [];
  app.use(
    toNodeListener(
      pay.webhooks
        .setup({ webhookSecret: dev.env.PROVIDER_N_SECRET_KEY ?? '' })
        .onAny((event) => void events.push(event)),
    ),
  );
  const baseUrl = dev.env.PROVIDER_N_BASE_URL ?? '';
  return { ...dev, forward, pay, events, baseUrl, page: `${baseUrl}${EVENT_LOG_PATH}` };
}

/** A checkout opened through the app and paid by the payer on the hosted page (a plain client's form POST). */
async function paidCheckout(pay: Awaited<ReturnType<typeof payDevWithApp>>['pay'], order: string) {
  const checkout = await pay.checkouts.create({
    customer: { email: 'ada@shop.test' },
    item_id: order,
    success_url: 'https://shop.test/back',
    provider_metadata: { amount: 5000, currency: 'NGN', customerName: 'Ada Obi' },
  });
  const paid = await fetch(checkout.payment_url ?? '', {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'action=pay',
  });
  expect(paid.status).toBe(303);
  return checkout;
}

const TIME = /\d\d:\d\d:\d\d/.source;

describe('pay dev --drop-webhooks and the event log', () => {
  it('drops every webhook, logged as dropped; the page shows the payment, its reads and the delivery; Send again delivers it', async () => {
    const dev = await payDevWithApp(['--drop-webhooks', 'all']);
    expect(dev.out).toContain(
      `Event log (objects, reads, webhook deliveries, send again): ${dev.baseUrl}${EVENT_LOG_PATH}`,
    );
    expect(dev.out).toContain(
      'Dropping every webhook (--drop-webhooks): each dropped one is in the event log, to send again from there.',
    );
    const checkout = await paidCheckout(dev.pay, 'order-1');
    const reference = checkout.id;
    await eventually(
      () =>
        dev.out.find((line) =>
          line.endsWith(
            `webhook  -> ${dev.forward}: SUCCESSFUL_TRANSACTION dropped (--drop-webhooks), not sent`,
          ),
        ),
      5_000,
      'the dropped line',
    );
    expect(dev.events).toEqual([]);
    // The app finds out by reading, as its reconciler would: the page shows each read.
    expect((await dev.pay.payments.retrieve(checkout.id))?.status).toBe('succeeded');

    const view = await fetch(dev.page);
    expect(view.status).toBe(200);
    const html = await view.text();
    expect(rowWith(html, '<td>payment</td>')).toMatch(
      new RegExp(
        `^payment ${escapeRegExp(reference)} PAID ${TIME} GET /v1/merchant/transactions/query: HTTP 200$`,
      ),
    );
    expect(rowWith(html, 'whd_000001')).toMatch(
      new RegExp(
        `^whd_000001 SUCCESSFUL_TRANSACTION ${escapeRegExp(reference)} dropped not sent body .* Send again$`,
      ),
    );

    const token = /name="token" value="([0-9a-f]+)"/.exec(html)?.[1] ?? '';
    const sent = await fetch(dev.page, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, delivery: 'whd_000001' }).toString(),
    });
    expect(sent.status).toBe(303);
    // The normalised event, and the provider's raw one beside it, as the handler dispatches every delivery.
    expect(dev.events.map((event) => event.type)).toEqual([
      'payment.created',
      'providerN.SUCCESSFUL_TRANSACTION',
    ]);
    expect((dev.events[0]?.data as { id: string; status: string } | undefined)?.status).toBe('succeeded');
    expect((dev.events[0]?.data as { id: string } | undefined)?.id).toBe(checkout.id);
    const after = await (await fetch(dev.page)).text();
    expect(rowWith(after, 'whd_000001')).toMatch(
      new RegExp(
        `^whd_000001 SUCCESSFUL_TRANSACTION ${escapeRegExp(reference)} delivered ${TIME} HTTP 200 body`,
      ),
    );
    await eventually(
      () => dev.out.find((line) => line.endsWith(`webhook  -> ${dev.forward}: HTTP 200`)),
      5_000,
      'the resent attempt line',
    );
    // The developer's views of the page are not logged as the app's requests.
    expect(dev.out.filter((line) => line.includes(EVENT_LOG_PATH) && line.includes(' request '))).toEqual([]);
    expect(await dev.stop()).toBe(0);
    expect(dev.err).toEqual([]);
  });

  it('drops a share at random, drawn by io.random per webhook (seeded: the same ones every run)', async () => {
    const draws = [0.7, 0.2];
    const dev = await payDevWithApp(['--drop-webhooks', '0.5'], () => draws.shift() ?? 1);
    expect(dev.out).toContain(
      'Dropping about 50% of webhooks, at random (--drop-webhooks): each dropped one is in the event log, to send again from there.',
    );
    const first = await paidCheckout(dev.pay, 'order-1');
    const second = await paidCheckout(dev.pay, 'order-2');
    await eventually(
      () => dev.out.find((line) => line.includes('dropped (--drop-webhooks)')),
      5_000,
      'the dropped line',
    );
    const told = JSON.stringify(dev.events);
    expect([told.includes(first.id), told.includes(second.id)]).toEqual([true, false]);
    const html = await (await fetch(dev.page)).text();
    expect(html).toContain('About 50% of webhooks are dropped (--drop-webhooks 0.5).');
    expect(rowWith(html, 'whd_000001')).toContain(' delivered ');
    expect(rowWith(html, 'whd_000002')).toContain(' dropped not sent ');
  });

  it("provider-r: lists the checkout with its status, and the app's status reads (a form POST carrying its transId)", async () => {
    const dev = await payDevInProcess(['provider-r', '--port', '0']);
    for (const [name, value] of Object.entries(dev.env)) vi.stubEnv(name, value);
    const pay = createPay(providerR());
    const { transId } = await pay.adapter.createCheckoutRedirect({
      customer: { email: 'payer@shop.test' },
      item_id: 'order-1',
      amount: 250,
      currency: 'CZK',
      success_url: 'https://shop.test/paid',
      cancel_url: 'https://shop.test/cancelled',
    });
    expect((await pay.payments.retrieve(transId))?.status).toBe('pending');
    const html = await (await fetch(`${dev.env.PROVIDER_R_BASE_URL}${EVENT_LOG_PATH}`)).text();
    expect(rowWith(html, '<td>checkout</td>')).toMatch(
      new RegExp(`^checkout ${transId} PENDING ${TIME} POST /v1\\.0/status: HTTP 200$`),
    );
    expect(await dev.stop()).toBe(0);
  });

  it("provider-t: lists the transfer with its status, and the app's status reads", async () => {
    const dev = await payDevInProcess(['provider-t', '--port', '0', '--state', await devStateDirectory()]);
    for (const [name, value] of Object.entries(dev.env)) vi.stubEnv(name, value);
    const pay = createPay(providerT({ retry: 0 }));
    const payment = await pay.payments.create({
      amount: 100,
      currency: 'USD',
      provider_metadata: { ...sampleTransferMetadata },
    });
    const read = await pay.payments.retrieve(payment.id);
    const html = await (await fetch(`${dev.env.PROVIDER_T_BASE_URL}${EVENT_LOG_PATH}`)).text();
    const row = rowWith(html, '<td>transfer</td>') ?? '';
    expect(row.startsWith(`transfer ${payment.id} `)).toBe(true);
    expect(read).not.toBeNull();
    expect(row).toMatch(new RegExp(`${TIME} GET /status/v1/transactions/${payment.id}: HTTP 200$`));
    expect(await dev.stop()).toBe(0);
  });

  it.each([
    [
      ['--drop-webhooks', 'half'],
      '--drop-webhooks takes all or a share from 0 to 1 (0.3: about 3 in 10), got "half".',
    ],
    [
      ['--drop-webhooks', '1.5'],
      '--drop-webhooks takes all or a share from 0 to 1 (0.3: about 3 in 10), got "1.5".',
    ],
    [
      ['--drop-webhooks=-0.1'],
      '--drop-webhooks takes all or a share from 0 to 1 (0.3: about 3 in 10), got "-0.1".',
    ],
    [
      ['--drop-webhooks', '50%'],
      '--drop-webhooks takes all or a share from 0 to 1 (0.3: about 3 in 10), got "50%".',
    ],
    [
      ['--drop-webhooks', ''],
      '--drop-webhooks takes all or a share from 0 to 1 (0.3: about 3 in 10), got "".',
    ],
  ])('refuses %j before anything starts: exit status 2, %s', async (options, message) => {
    const { io, out, err } = capturedIo(new AbortController().signal);
    const argv = ['dev', 'provider-n', '--port', '0', '--forward', 'http://127.0.0.1:9/webhooks', ...options];
    expect(await main(argv, io)).toBe(2);
    expect(err).toEqual([`pay: ${message}`, 'Run pay --help for usage.']);
    expect(out).toEqual([]);
  });

  it('refuses --drop-webhooks without --forward (nothing would be sent to drop)', async () => {
    const { io, out, err } = capturedIo(new AbortController().signal);
    expect(await main(['dev', 'provider-n', '--port', '0', '--drop-webhooks', 'all'], io)).toBe(2);
    expect(err[0]).toBe(
      'pay: --drop-webhooks drops webhooks sent to --forward: add --forward <your webhook URL>.',
    );
    expect(out).toEqual([]);
  });

  it('pay --help documents --drop-webhooks and the event log page', () => {
    expect(USAGE).toContain('[--drop-webhooks all|<0..1>]');
    expect(USAGE).toContain(`http://127.0.0.1:<port>${EVENT_LOG_PATH}`);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
