/**
 * The simulator's hosted checkout page (docs/architecture.md#local-loop) and its kit interface
 * (docs/architecture.md#testing), over loopback HTTP: a person opens `checkoutUrl`, pays, fails or cancels; the
 * transaction changes, the signed webhook reaches the application's real webhook handler (which verifies it), and
 * the browser is sent back with a 303.
 */
import { createPay, type Payment, toNodeListener } from '@pay/core';
import { type LoopbackServer, type PaymentSimulator, startLoopbackServer } from '@pay/core/testing';
import nock from 'nock';
import { afterEach, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { createProviderN, type ProviderNConfig } from '../src/index.js';
import {
  type ProviderNSimulator,
  type ProviderNSimulatorBooks,
  startProviderNSimulator,
} from '../src/testing/index.js';

let simulator: ProviderNSimulator;
const servers: LoopbackServer[] = [];

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

beforeEach(async () => {
  simulator = await startProviderNSimulator();
});

afterEach(async () => {
  await simulator.close();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const SUCCESS_URL = 'http://shop.test/thanks?order=1001';

/** An application: the adapter from the simulator's config, its webhook handler on a loopback server. */
async function application(webhookSecret = simulator.credentials.webhookSecret) {
  const pay = createPay(createProviderN(simulator.adapterConfig()));
  const events: { type: string; payment: Payment }[] = [];
  const handler = pay.webhooks
    .setup({ webhookSecret })
    .on('payment.created', (event) => {
      events.push({ type: event.type, payment: event.data });
    })
    .on('payment.failed', (event) => {
      events.push({ type: event.type, payment: event.data });
    });
  const endpoint = await startLoopbackServer(toNodeListener(handler));
  servers.push(endpoint);
  simulator.forwardWebhooks(`${endpoint.url}/webhooks/provider-n`);
  const checkout = await pay.checkouts.create({
    customer: { email: 'ada@example.com' },
    success_url: SUCCESS_URL,
    provider_metadata: { amount: 5000.5, currency: 'NGN', paymentDescription: 'Blue mug <x2>' },
  });
  return { pay, events, checkout };
}

/** What a browser sends when the person presses one of the page's buttons. */
function press(url: string, action: string) {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ action }),
  });
}

describe('the hosted checkout page', () => {
  it('shows the amount and the Pay, Fail and Cancel buttons at checkoutUrl, escaping merchant text', async () => {
    const { checkout } = await application();
    expect(checkout.checkoutUrl).toBe(`${simulator.url}/checkout/${encodeURIComponent(checkout.id)}`);
    const page = await fetch(checkout.checkoutUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<h1>Pay NGN 5000.50</h1>');
    expect(html).toContain('Blue mug &lt;x2&gt;');
    for (const action of ['pay', 'fail', 'cancel']) {
      expect(html).toContain(`<input type="hidden" name="action" value="${action}">`);
    }
  });

  it('Pay: the transaction is PAID in full, the verified webhook reaches the app, then 303 to the redirect URL', async () => {
    const { pay, events, checkout } = await application();
    const answer = await press(checkout.checkoutUrl, 'pay');

    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(SUCCESS_URL);
    expect(simulator.books().transactions[0]).toMatchObject({
      transactionReference: checkout.id,
      paymentStatus: 'PAID',
      amountPaid: 5000.5,
    });
    // Delivered before the redirect, and accepted by the adapter's handler (signature verified).
    expect(simulator.deliveries?.map((delivery) => [delivery.event, delivery.state])).toEqual([
      ['SUCCESSFUL_TRANSACTION', 'delivered'],
    ]);
    expect(events).toEqual([
      {
        type: 'payment.created',
        payment: expect.objectContaining({
          id: checkout.id,
          status: 'succeeded',
          amount: 5000.5,
          amount_paid: 5000.5,
          request_id: null,
        }),
      },
    ]);
    await expect(pay.payments.retrieve(checkout.id)).resolves.toMatchObject({
      status: 'succeeded',
      amount_paid: 5000.5,
    });
    // The page is final now: no button, and a second press is refused without a second webhook.
    expect(await (await fetch(checkout.checkoutUrl)).text()).not.toContain('name="action"');
    expect((await press(checkout.checkoutUrl, 'pay')).status).toBe(409);
    expect(simulator.deliveries).toHaveLength(1);
  });

  it.each([['fail', 'FAILED', 'failed', 'PAYMENT_FAILED']] as const)(
    '%s: the transaction is %s with nothing paid, payment.failed reaches the app, 303 back',
    async (action, books, read, reason) => {
      const { pay, events, checkout } = await application();
      const answer = await press(checkout.checkoutUrl, action);

      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toBe(SUCCESS_URL);
      expect(simulator.books.transactions[0]).toMatchObject({ paymentStatus: books, amountPaid: 0 });
      expect(events).toEqual([
        {
          type: 'payment.failed',
          payment: expect.objectContaining({
            id: checkout.id,
            status: 'failed',
            amount_paid: 0,
            metadata: expect.objectContaining({ rejectionReason: reason }),
          }),
        },
      ]);
      await expect(pay.payments.retrieve(checkout.id)).resolves.toMatchObject({
        status: read,
        amount_paid: 0,
      });
    },
  );

  it('cancel: the transaction is CANCELLED with nothing paid, no webhook is sent (the wire has no event for it), 303 back, and the status read says canceled', async () => {
    const { pay, events, checkout } = await application();
    const answer = await press(checkout.checkoutUrl, 'cancel');

    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(SUCCESS_URL);
    expect(simulator.books.transactions[0]).toMatchObject({ paymentStatus: 'CANCELLED', amountPaid: 0 });
    expect(simulator.deliveries).toEqual([]);
    expect(events).toEqual([]);
    await expect(pay.payments.retrieve(checkout.id)).resolves.toMatchObject({
      status: 'canceled',
      amount_paid: 0,
    });
  });

  it('a delivery the app cannot verify (another secret) is refused by the handler, and the redirect still happens', async () => {
    const { events, checkout } = await application('not-the-secret-key');
    const answer = await press(checkout.checkoutUrl, 'pay');
    expect(answer.status).toBe(303);
    expect(events).toEqual([]);
    const [delivery] = simulator.deliveries ?? [];
    expect(delivery?.state).toBe('failed');
    expect(delivery?.attempts[0]?.status).toBe(400);
  });

  it("gives each checkout a random transaction reference in the provider's shape: a page elsewhere cannot count its way to the next one", async () => {
    const pay = createPay(createProviderN(simulator.adapterConfig()));
    const ids: string[] = [];
    for (let order = 0; order < 3; order += 1) {
      const checkout = await pay.checkouts.create({
        customer: { email: 'ada@example.com' },
        success_url: SUCCESS_URL,
        provider_metadata: { amount: 100, currency: 'NGN' },
      });
      ids.push(checkout.id);
    }
    for (const id of ids) expect(id).toMatch(/^PN\|\d{14}\|\d{18}$/);
    const serials = ids.map((id) => BigInt(id.split('|')[2] ?? '0'));
    // In sequence they would be n, n+1, n+2; random 18-digit numbers are (all but never) neither equal nor adjacent.
    expect(new Set(serials).size).toBe(3);
    for (const [index, serial] of serials.slice(1).entries())
      expect(serial - (serials[index] ?? 0n)).not.toBe(1n);
  });

  it('an unknown checkout is a 404 page', async () => {
    const page = await fetch(`${simulator.url}/checkout/${encodeURIComponent('PN|nope')}`);
    expect(page.status).toBe(404);
    await page.arrayBuffer();
  });
});

describe('the kit interface (PaymentSimulator)', () => {
  it('is a PaymentSimulator of the adapter config and the books', () => {
    expectTypeOf(simulator).toMatchTypeOf<PaymentSimulator<ProviderNConfig, ProviderNSimulatorBooks>>();
    expect(simulator.provider).toBe('provider-n');
    expect(simulator.adapterConfig({ timeoutMs: 1000 })).toEqual({
      apiKey: 'PN_SIM_API_KEY',
      secretKey: 'PN_SIM_SECRET_KEY_0f3b9d',
      isSandbox: true,
      contractCode: '4934121693',
      baseUrl: simulator.url,
      timeoutMs: 1000,
    });
  });

  it('payer.pay changes the books and resolves once the webhook is delivered', async () => {
    const { events, checkout } = await application();
    await simulator.payer.pay(checkout.id);
    expect(simulator.books().transactions[0]?.paymentStatus).toBe('PAID');
    expect(events.map((event) => event.type)).toEqual(['payment.created']);
  });

  it('trigger sends one correctly signed event to the URL, which the handler accepts', async () => {
    const { events } = await application();
    const answer = await simulator.trigger('SUCCESSFUL_TRANSACTION');
    expect(answer.status).toBe(200);
    expect(events).toEqual([
      {
        type: 'payment.created',
        payment: expect.objectContaining({ id: 'PN|SAMPLE|000000', status: 'succeeded' }),
      },
    ]);
    await expect(simulator.trigger('CUSTOMER_CREATED')).rejects.toThrow(/SUCCESSFUL_TRANSACTION/);
  });

  it('advanceTime past the token lifetime makes the next call log in again', async () => {
    const { pay, checkout } = await application();
    expect(simulator.books.logins).toBe(1);
    simulator.advanceTime(3600 * 1000);
    await pay.payments.retrieve(checkout.id);
    expect(simulator.books.logins).toBe(2);
    expect(simulator.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /v1/auth/login',
      'POST /v1/merchant/transactions/init-transaction',
      'GET /v1/merchant/transactions/query',
      'POST /v1/auth/login',
      'GET /v1/merchant/transactions/query',
    ]);
  });

  it('listens on a fixed port when asked (pay dev --port)', async () => {
    const probe = await startLoopbackServer(() => undefined);
    const { port } = probe;
    await probe.close();
    const fixed = await startProviderNSimulator({ port });
    try {
      expect(fixed.url).toBe(`http://127.0.0.1:${port}`);
    } finally {
      await fixed.close();
    }
  });
});
