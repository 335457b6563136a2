/**
 * The redirect URL Provider R's creations return is a real
 * page on the simulator, where a person pays, fails or cancels (docs/architecture.md#local-loop). The action
 * changes the payment, the push is forwarded the way the provider sends it (form-encoded, with the merchant and
 * its secret), and the browser is sent back (303) to the merchant's URL. Over loopback HTTP, verified by the real
 * adapter's webhook handler.
 */
import { createMemoryDeduplicationStore, createPay, type PayEvent, toNodeListener } from '@pay/core';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProviderR } from '../src/index.js';
import { type ProviderRSimulator, startProviderRSimulator } from '../src/testing/index.js';

let simulator: ProviderRSimulator;
let app: LoopbackServer;
let events: PayEvent[];

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterAll(() => nock.enableNetConnect());

beforeEach(async () => {
  simulator = await startProviderRSimulator();
  events = [];
  const pay = createPay(createProviderR(simulator.adapterConfig({ retry: 0 })));
  const handler = pay.webhooks.setup({
    webhookSecret: simulator.credentials.secret,
    deduplicate: createMemoryDeduplicationStore(),
  });
  for (const type of ['payment.succeeded', 'payment.failed', 'invoice.generated', 'providerR.PAID'] as const)
    handler.on(type, (event) => void events.push(event as PayEvent));
  app = await startLoopbackServer(toNodeListener(handler));
  simulator.forwardWebhooks(`${app.url}/webhooks/provider-r`);
});
afterEach(async () => {
  await simulator.close();
  await app.close();
});

const urls = {
  success_url: 'https://shop.example/paid?o=7',
  cancel_url: 'https://shop.example/cancelled?o=7',
};

async function openCheckout() {
  const pay = createPay(createProviderR(simulator.adapterConfig()));
  return pay.adapter.createCheckoutRedirect({
    ...urls,
    customer: { email: 'payer@example.com' },
    item_id: 'order-7',
    amount: 250.5,
    currency: 'CZK',
    provider_metadata: { label: '<b>Tickets</b>' },
  });
}

const act = (redirectUrl: string, action: string) =>
  fetch(redirectUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ action }),
  });

describe('the Provider R hosted page (simulator)', () => {
  it('shows the payment at the redirect URL with Pay, Fail and Cancel, every merchant value escaped', async () => {
    const { transId, redirectUrl } = await openCheckout();
    expect(redirectUrl).toBe(`${simulator.url}/client/instructions/index?id=${transId}`);
    const page = await fetch(redirectUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<h1>Pay CZK 250.50</h1>');
    expect(html).toContain('&lt;b&gt;Tickets&lt;/b&gt;');
    expect(html).not.toContain('<b>Tickets</b>');
    for (const action of ['pay', 'fail', 'cancel'])
      expect(html).toContain(`<input type="hidden" name="action" value="${action}">`);
    expect(html).toContain(`action="/client/instructions/index?id=${transId}"`);
  });

  it('Pay marks the payment PAID, delivers the push the handler verifies, then answers 303 to url_paid', async () => {
    const { transId, redirectUrl } = await openCheckout();
    const answer = await act(redirectUrl, 'pay');
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(urls.success_url);
    expect(simulator.transaction(transId)?.status).toBe('PAID');
    // Delivered and verified (secret, merchant, then the status read) before the payer is sent back.
    expect(events.map((event) => event.type)).toEqual([
      'payment.succeeded',
      'invoice.generated',
      'providerR.PAID',
    ]);
    expect(events[0]?.data).toMatchObject({
      id: transId,
      status: 'succeeded',
      amount: 250.5,
      currency: 'CZK',
    });
    const [delivery] = simulator.deliveries;
    expect(delivery).toMatchObject({ state: 'delivered', event: 'providerR.PAID' });
    expect(delivery?.attempts.map((attempt) => attempt.status)).toEqual([200]);
    // The provider's push: form-encoded, the merchant and its secret, the wire price in minor units.
    expect(delivery?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(delivery?.body))).toMatchObject({
      merchant: simulator.credentials.merchant,
      secret: simulator.credentials.secret,
      transId,
      status: 'PAID',
      price: '25050',
      curr: 'CZK',
    });
    const statusReads = simulator.requests.filter((request) => request.path === '/v1.0/status');
    expect(statusReads).toHaveLength(1);
  });

  it.each([['cancel'], ['fail']])(
    '%s marks the payment CANCELLED, delivers payment.failed, then answers 303 to url_cancelled',
    async (action) => {
      const { transId, redirectUrl } = await openCheckout();
      const answer = await act(redirectUrl, action);
      expect([answer.status, answer.headers.get('location')]).toEqual([303, urls.cancel_url]);
      expect(simulator.transaction(transId)?.status).toBe('CANCELLED');
      expect(events.map((event) => event.type)).toEqual(['payment.failed']);
    },
  );

  it('offers nothing once the payment is final, and answers an unknown payment 404', async () => {
    const { redirectUrl } = await openCheckout();
    await act(redirectUrl, 'pay');
    const again = await act(redirectUrl, 'cancel');
    expect(again.status).toBe(409);
    expect(await (await fetch(redirectUrl)).text()).toContain('Nothing left to do on this page.');
    expect(events.filter((event) => event.type === 'payment.succeeded')).toHaveLength(1);
    expect((await fetch(`${simulator.url}/client/instructions/index?id=NOPE`)).status).toBe(404);
  });
});

describe('the PaymentSimulator interface of the Provider R simulator', () => {
  it('adapterConfig, payer actions and books: a payer action forwards the verified push', async () => {
    expect(simulator.provider).toBe('provider-r');
    expect(simulator.adapterConfig()).toEqual({
      merchant: simulator.credentials.merchant,
      secret: simulator.credentials.secret,
      isSandbox: true,
      baseUrl: simulator.url,
    });
    const pay = createPay(createProviderR(simulator.adapterConfig()));
    const payment = await pay.payments.create({
      customer: { id: 'cust_42' },
      amount: 99.9,
      provider_metadata: { email: 'payer@example.com' },
    });
    await simulator.payer.pay(payment.id);
    expect(events[0]?.data).toMatchObject({ id: payment.id, status: 'succeeded', amount: 99.9 });
    expect(simulator.books().transactions).toEqual([
      expect.objectContaining({ transId: payment.id, status: 'PAID', price: 9990, curr: 'CZK' }),
    ]);
    expect(simulator.books().refunds).toEqual([]);
  });

  it('forwards status changes the API makes too (a capture), and nothing once forwarding stops', async () => {
    const pay = createPay(createProviderR(simulator.adapterConfig()));
    const payment = await pay.payments.create({
      customer: { id: 'cust_42' },
      amount: 10,
      provider_metadata: { email: 'payer@example.com' },
    });
    simulator.forwardWebhooks(null);
    simulator.authorize(payment.id);
    simulator.forwardWebhooks(`${app.url}/webhooks/provider-r`);
    await pay.payments.capture(payment.id);
    await simulator.close(); // waits for the deliveries in flight
    expect(simulator.deliveries.map((delivery) => delivery.event)).toEqual(['providerR.PAID']);
    expect(events.map((event) => event.type)).toContain('payment.succeeded');
    simulator = await startProviderRSimulator(); // for afterEach
  });

  it('trigger sends one genuine push for a transaction in that status, which the handler accepts', async () => {
    const reply = await simulator.trigger('PAID');
    expect(reply.status).toBe(200);
    expect(events.map((event) => event.type)).toEqual([
      'payment.succeeded',
      'invoice.generated',
      'providerR.PAID',
    ]);
    const forged = await simulator.deliverWebhook(`${app.url}/webhooks/provider-r`, {
      transId: simulator.transactions[0]?.transId ?? '',
      secret: 'guess',
    });
    expect(forged).toBe(400);
  });

  it('listens on a fixed port when asked', async () => {
    const probe = await startLoopbackServer(() => undefined);
    const port = probe.port;
    await probe.close();
    const fixed = await startProviderRSimulator({ port });
    try {
      expect(fixed.url).toBe(`http://127.0.0.1:${port}`);
    } finally {
      await fixed.close();
    }
  });
});
