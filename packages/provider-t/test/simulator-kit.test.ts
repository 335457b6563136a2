/**
 * The Provider T simulator as a kit `PaymentSimulator` (docs/architecture.md#testing,
 * docs/architecture.md#local-loop): adapter config, books, payer actions, webhook forwarding, trigger, time,
 * tokens, a fixed port and close. Over real loopback HTTP, with the adapter's own webhook handler verifying every
 * delivery.
 */

import { createPay, type PayEvent, toNodeListener } from '@pay/core';
import {
  type LoopbackServer,
  type PaymentSimulator,
  type RecordedRequest,
  startLoopbackServer,
  type WebhookDelivery,
} from '@pay/core/testing';
import { freePort } from '@pay/tooling/servers/process';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { createProviderT, type ProviderTConfig } from '../src/index.js';
import {
  generateProviderTKeyPair,
  type ProviderTBooksSnapshot,
  type ProviderTSimulator,
  startProviderTSimulator,
} from '../src/testing/index.js';
import { transferMetadata } from './fixtures.js';

const keyPair = generateProviderTKeyPair();
let sim: ProviderTSimulator;
let app: LoopbackServer | undefined;
let events: PayEvent[];

beforeEach(async () => {
  sim = await startProviderTSimulator({ keyPair });
  events = [];
});

afterEach(async () => {
  await sim.close();
  await app?.close();
  app = undefined;
});

/** An application endpoint on loopback: the adapter's handler, recording every event it dispatched. */
async function application(): Promise<string> {
  const handler = createPay(createProviderT(sim.adapterConfig({ retry: 0 }))).webhooks.setup({
    webhookSecret: null,
  });
  for (const type of ['payment.created', 'payment.succeeded', 'payment.updated', 'payment.failed'] as const)
    handler.on(type, (event) => void events.push(event));
  handler.on('refund.created', (event) => void events.push(event));
  app = await startLoopbackServer(toNodeListener(handler));
  return `${app.url}/webhooks/provider-t`;
}

const transfer = { amount: 100, currency: 'USD', provider_metadata: transferMetadata };

describe('the Provider T simulator as a PaymentSimulator', () => {
  it('is a PaymentSimulator of ProviderTConfig and its books', () => {
    expectTypeOf(sim).toMatchTypeOf<PaymentSimulator<ProviderTConfig, ProviderTBooksSnapshot>>();
    expect(sim.provider).toBe('provider-t');
  });

  it('adapterConfig() gives createProviderT all it needs, with overrides; the old spread still works', async () => {
    expect(sim.adapterConfig({ retry: 2 })).toEqual({
      ...sim.credentials,
      isSandbox: true,
      baseUrl: sim.url,
      webhookPublicKey: sim.publicKey,
      retry: 2,
    });
    expect({ ...sim.adapterConfig }).toEqual(sim.adapterConfig());
    const payment = await createPay(createProviderT(sim.adapterConfig())).payments.create(transfer);
    expect(payment.status).toBe('succeeded');
  });

  it('books() is a snapshot of transfers, movements and counters that later calls do not change', async () => {
    const pay = createPay(createProviderT(sim.adapterConfig({ retry: 0 })));
    const payment = await pay.payments.create(transfer);
    const books = sim.books();
    expect(books).toMatchObject({
      quotes: 1,
      committedTransfers: 1,
      replays: 0,
      amendments: 0,
      tokensIssued: 1,
      refunds: [],
      webhooks: [],
    });
    expect(books.transfers.map((t) => [t.transactionId, t.status])).toEqual([[payment.id, 'SENT']]);
    expect(books.movements).toEqual([
      {
        kind: 'transfer',
        transactionId: payment.id,
        amount: { value: 100, currencyCode: 'USD' },
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ]);
    await pay.refunds.create({ payment_id: payment.id, provider_metadata: { refundReasonCode: 'OTHER' } });
    expect(books.movements).toHaveLength(1);
    expect(sim.books().movements.map((movement) => movement.kind)).toEqual(['transfer', 'refund']);
  });

  it('forwards every status change, signed: the commit (SENT), then a payer action, verified by the app', async () => {
    sim.forwardWebhooks(await application());
    const payment = await createPay(createProviderT(sim.adapterConfig({ retry: 0 }))).payments.create(
      transfer,
    );

    await sim.payer.pay(payment.id);

    // payer.pay resolves once the forwarded webhooks are delivered.
    expect(events.map((event) => event.type)).toEqual(['payment.succeeded', 'payment.updated']);
    expect(events[1]?.data).toMatchObject({ id: payment.id, metadata: { transactionStatus: 'RECEIVED' } });
    expect(sim.deliveries.map((delivery: WebhookDelivery) => [delivery.event, delivery.state])).toEqual([
      ['TRANSACTION_STATUS_EVENT SENT', 'delivered'],
      ['TRANSACTION_STATUS_EVENT RECEIVED', 'delivered'],
    ]);
    expect(sim.deliveries[0]?.headers.signature).toMatch(/^t=\d+, s=/);
  });

  it('payer.fail and payer.cancel move the transfer to REJECTED and CLOSED; a final transfer refuses', async () => {
    const pay = createPay(createProviderT(sim.adapterConfig({ retry: 0 })));
    const failed = await pay.payments.create(transfer);
    const cancelled = await pay.payments.create(transfer);
    await sim.payer.fail(failed.id);
    await sim.payer.cancel(cancelled.id);
    expect(sim.transfer(failed.id)?.status).toBe('REJECTED');
    expect(sim.transfer(cancelled.id)?.status).toBe('CLOSED');
    expect(await pay.payments.retrieve(cancelled.id)).toMatchObject({ status: 'canceled' });
    await expect(sim.payer.pay(failed.id)).rejects.toThrow(/REJECTED already/);
    await expect(sim.payer.pay('no-such-transfer')).rejects.toThrow(/no committed transfer/);
  });

  it('forwardWebhooks(null) stops forwarding', async () => {
    sim.forwardWebhooks(await application());
    sim.forwardWebhooks(null);
    const payment = await createPay(createProviderT(sim.adapterConfig({ retry: 0 }))).payments.create(
      transfer,
    );
    await sim.payer.fail(payment.id);
    expect(sim.deliveries).toEqual([]);
    expect(events).toEqual([]);
  });

  it('trigger(event) sends one signed event about a new sample transfer the status read confirms', async () => {
    const to = await application();
    const answer = await sim.trigger('payment.failed', { to, eventId: 'evt-trigger-1' });
    expect(answer.status).toBe(200);
    expect(events.map((event) => [event.id, event.type])).toEqual([
      ['evt-trigger-1:payment.failed', 'payment.failed'],
    ]);
    const [made] = sim.books().transfers;
    expect(made).toMatchObject({ status: 'REJECTED', committed: true, sendAmount: { value: 100 } });
    expect(events[0]?.data).toMatchObject({ id: made?.transactionId, status: 'failed', amount: 100 });
    // Money moved through no API call: the books' movements stay empty.
    expect(sim.books().movements).toEqual([]);
  });

  it('trigger(event, { transactionId }) moves that transfer and goes to the forwarding URL by default', async () => {
    sim.forwardWebhooks(await application());
    const payment = await createPay(createProviderT(sim.adapterConfig({ retry: 0 }))).payments.create(
      transfer,
    );
    await sim.trigger('refund.created', { transactionId: payment.id });
    expect(sim.transfer(payment.id)?.status).toBe('REFUNDED');
    // The commit's SENT delivery landed first (trigger waits for queued deliveries before moving the transfer).
    expect(events.map((event) => event.type)).toEqual(['payment.succeeded', 'refund.created']);
    expect(events[1]?.data).toMatchObject({ payment_id: payment.id, status: 'succeeded' });
  });

  it('trigger refuses an unknown event and a call with nowhere to send', async () => {
    await expect(sim.trigger('payment.exploded', { to: 'http://127.0.0.1:9/' })).rejects.toThrow(
      /no event payment\.exploded/,
    );
    await expect(sim.trigger('payment.succeeded')).rejects.toThrow(/needs options\.to or a forwarding URL/);
  });

  it('POST /_simulator/trigger (pay trigger) makes the running simulator send the event its status read confirms', async () => {
    const to = await application();
    const reply = await fetch(`${sim.url}/_simulator/trigger`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        event: 'payment.succeeded',
        to,
        options: { eventId: 'evt-control-1' },
        provider: 'provider-t',
      }),
    });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({
      provider: 'provider-t',
      event: 'payment.succeeded',
      to,
      status: 200,
    });
    const [made] = sim.books().transfers;
    expect(made).toMatchObject({ status: 'SENT', committed: true });
    // Verified with this simulator's key, then confirmed by the status read against this simulator's books.
    expect(events.map((event) => [event.id, event.type])).toEqual([
      ['evt-control-1:payment.succeeded', 'payment.succeeded'],
    ]);
    expect(events[0]?.data).toMatchObject({ id: made?.transactionId, status: 'succeeded' });
    expect(
      sim.requests.filter((request) => request.path.startsWith('/status/v1/transactions/')),
    ).toHaveLength(1);
  });

  it('POST /_simulator/trigger refuses an option Provider T does not know, and a non-string one', async () => {
    const post = (options: Record<string, unknown>) =>
      fetch(`${sim.url}/_simulator/trigger`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ event: 'payment.succeeded', to: 'http://127.0.0.1:1/', options }),
      }).then(async (reply) => [reply.status, await reply.json()]);
    expect(await post({ transId: 'x' })).toEqual([
      400,
      { error: "Provider T's trigger takes the options to, transactionId, eventId; not transId." },
    ]);
    expect(await post({ transactionId: 7 })).toEqual([
      400,
      { error: 'The trigger option transactionId must be a string.' },
    ]);
    expect(sim.books().transfers).toEqual([]);
  });

  it('advanceTime and expireTokens act on the kit clock and issuer: the next call logs in again', async () => {
    const pay = createPay(createProviderT(sim.adapterConfig({ retry: 0 })));
    const payment = await pay.payments.create(transfer);
    sim.expireTokens();
    await pay.payments.retrieve(payment.id);
    sim.advanceTime(3600 * 1000);
    await pay.payments.retrieve(payment.id);
    expect(sim.books().tokensIssued).toBe(3);
    expect(() => sim.advanceTime(-1)).toThrow(RangeError);
  });

  it('listens on a fixed port when asked, and reports each request to onRequest', async () => {
    const port = await freePort();
    const seen: RecordedRequest[] = [];
    const fixed = await startProviderTSimulator({
      keyPair,
      port,
      onRequest: (request) => seen.push(request),
    });
    try {
      expect(fixed.url).toBe(`http://127.0.0.1:${port}`);
      await createPay(createProviderT(fixed.adapterConfig())).payments.create(transfer);
      expect(seen.map((request) => `${request.method} ${request.path}`)).toEqual(
        fixed.requests.map((request) => `${request.method} ${request.path}`),
      );
      expect(seen).toHaveLength(4);
    } finally {
      await fixed.close();
    }
  });

  it('close() waits for a forwarded delivery in flight', async () => {
    let answered = false;
    const slow = await startLoopbackServer(async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      answered = true;
      res.end();
    });
    try {
      sim.forwardWebhooks(slow.url);
      await createPay(createProviderT(sim.adapterConfig({ retry: 0 }))).payments.create(transfer);
      await sim.close();
      expect(answered).toBe(true);
      expect(sim.deliveries.map((delivery) => delivery.state)).toEqual(['delivered']);
    } finally {
      await slow.close();
    }
  });
});
