/**
 * The simulator's hosted receipt page (docs/architecture.md#local-loop): Provider T's receipt
 * link (`checkout.payment_url`, the commit's `consumerHyperLink`) opens a page where a person confirms the payout,
 * fails or cancels the transfer; the action moves the transfer, delivers the signed status webhook to the
 * forwarding URL and answers 303. Everything over real loopback HTTP, verified by the adapter's own handler.
 */
import { createPay, type PayEvent, toNodeListener } from '@pay/core';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProviderT } from '../src/index.js';
import {
  generateProviderTKeyPair,
  type ProviderTSimulator,
  startProviderTSimulator,
} from '../src/testing/index.js';
import { transferMetadata } from './fixtures.js';

const keyPair = generateProviderTKeyPair();
let sim: ProviderTSimulator;
let app: LoopbackServer;
/** Every event the application's webhook endpoint dispatched, in order. */
let events: PayEvent[];
/** Every `Signature` header the application received. */
let signatures: string[];

beforeEach(async () => {
  sim = await startProviderTSimulator({ keyPair });
  events = [];
  signatures = [];
  const pay = createPay(createProviderT({ ...sim.adapterConfig, retry: 0 }));
  const handler = pay.webhooks.setup({ webhookSecret: null });
  for (const type of ['payment.succeeded', 'payment.updated', 'payment.failed'] as const)
    handler.on(type, (event) => void events.push(event));
  const listener = toNodeListener(handler);
  app = await startLoopbackServer((req, res) => {
    signatures.push(String(req.headers.signature));
    return listener(req, res);
  });
});

afterEach(async () => {
  await app.close();
  await sim.close();
});

/** A committed transfer made through the adapter, as an application would: its checkout carries the link. */
async function checkout() {
  const pay = createPay(createProviderT({ ...sim.adapterConfig, retry: 0 }));
  return pay.checkouts.create({ provider_metadata: { ...transferMetadata, amount: 100, currency: 'USD' } });
}

async function page(url: string) {
  const response = await fetch(url, { headers: { accept: 'text/html,application/xhtml+xml' } });
  return { status: response.status, type: response.headers.get('content-type'), html: await response.text() };
}

async function submit(url: string, action: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body: new URLSearchParams({ action }).toString(),
    redirect: 'manual',
  });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

describe('the receipt page of a committed transfer', () => {
  it('shows the transfer with Pay, Fail and Cancel forms that post back to the link', async () => {
    const created = await checkout();
    const url = created.payment_url as string;
    const shown = await page(url);

    expect(shown.status).toBe(200);
    expect(shown.type).toMatch(/^text\/html/);
    const transfer = sim.transfer(created.id);
    expect(shown.html).toContain(transfer?.referenceNumber as string);
    expect(shown.html).toContain('100.00 USD');
    expect(shown.html).toContain('SENT');
    const path = new URL(url).pathname;
    for (const action of ['pay', 'fail', 'cancel']) {
      expect(shown.html).toContain(
        `<form method="post" action="${path}"><input type="hidden" name="action" value="${action}">`,
      );
    }
  });

  it('pay (confirm the payout): the transfer is RECEIVED, the signed webhook is delivered before the 303', async () => {
    sim.forwardWebhooks(`${app.url}/webhooks/provider-t`);
    const created = await checkout();
    await settle();
    events.length = 0;

    const answer = await submit(created.payment_url as string, 'pay');

    expect(answer.status).toBe(303);
    expect(answer.location).toBe(created.payment_url);
    expect(sim.transfer(created.id)?.status).toBe('RECEIVED');
    // Delivered, verified by the adapter's handler against the simulator's key and dispatched before the redirect.
    expect(events.map((event) => event.type)).toEqual(['payment.updated']);
    expect(events[0]?.data).toMatchObject({
      id: created.id,
      status: 'succeeded',
      metadata: { transactionStatus: 'RECEIVED' },
    });
    expect(signatures.at(-1)).toMatch(/^t=\d+, s=[A-Za-z0-9+/]+=*$/);
    // The page the redirect lands on says what happened and offers no more actions.
    const after = await page(answer.location as string);
    expect(after.html).toContain('RECEIVED');
    expect(after.html).not.toContain('<form');
  });

  it('fail: the transfer is REJECTED and the application gets payment.failed', async () => {
    sim.forwardWebhooks(`${app.url}/webhooks/provider-t`);
    const created = await checkout();
    await settle();
    events.length = 0;

    const answer = await submit(created.payment_url as string, 'fail');

    expect(answer.status).toBe(303);
    expect(sim.transfer(created.id)?.status).toBe('REJECTED');
    expect(events.map((event) => [event.type, (event.data as { status: string }).status])).toEqual([
      ['payment.failed', 'failed'],
    ]);
  });

  it('cancel: the transfer is CLOSED and the application sees the payment canceled', async () => {
    sim.forwardWebhooks(`${app.url}/webhooks/provider-t`);
    const created = await checkout();
    await settle();
    events.length = 0;

    const answer = await submit(created.payment_url as string, 'cancel');

    expect(answer.status).toBe(303);
    expect(sim.transfer(created.id)?.status).toBe('CLOSED');
    expect(events.map((event) => [event.type, (event.data as { status: string }).status])).toEqual([
      ['payment.updated', 'canceled'],
    ]);
  });

  it('refuses a second action once the transfer is final (409), moving nothing and delivering nothing', async () => {
    sim.forwardWebhooks(`${app.url}/webhooks/provider-t`);
    const created = await checkout();
    expect((await submit(created.payment_url as string, 'fail')).status).toBe(303);
    await settle();
    const delivered = signatures.length;

    const again = await submit(created.payment_url as string, 'pay');

    expect(again.status).toBe(409);
    expect(sim.transfer(created.id)?.status).toBe('REJECTED');
    expect(signatures).toHaveLength(delivered);
  });

  it('refuses an action the page does not offer (409) without moving the transfer', async () => {
    const created = await checkout();
    const answer = await submit(created.payment_url as string, 'refund');
    expect(answer.status).toBe(409);
    expect(sim.transfer(created.id)?.status).toBe('SENT');
  });

  it('answers 410 on the page and on its forms once the 5-minute link has expired', async () => {
    const created = await checkout();
    sim.advanceTime(5 * 60 * 1000 + 1000);
    expect((await page(created.payment_url as string)).status).toBe(410);
    expect((await submit(created.payment_url as string, 'pay')).status).toBe(410);
    expect(sim.transfer(created.id)?.status).toBe('SENT');
  });

  it('escapes what the sender typed (a receiver name is shown as text, never as markup)', async () => {
    const pay = createPay(createProviderT({ ...sim.adapterConfig, retry: 0 }));
    const created = await pay.checkouts.create({
      provider_metadata: {
        ...transferMetadata,
        receiver: {
          ...transferMetadata.receiver,
          name: { firstName: '<img src=x onerror=alert(1)>', lastName: 'O"Brien & Co' },
        },
        amount: 100,
        currency: 'USD',
      },
    });
    const shown = await page(created.payment_url as string);
    expect(shown.html).not.toContain('<img');
    expect(shown.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(shown.html).toContain('O&quot;Brien &amp; Co');
  });
});

/** Waits until every forwarded webhook (the commit's SENT) has been answered by the application. */
async function settle() {
  for (let wait = 0; wait < 200; wait++) {
    if (sim.deliveries.length > 0 && sim.deliveries.every((delivery) => delivery.state !== 'pending')) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the forwarded webhooks were not delivered');
}
