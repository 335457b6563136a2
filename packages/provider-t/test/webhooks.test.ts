import dc from 'node:diagnostics_channel';
import { createPay, WebhookVerificationError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseSignatureHeader } from '../src/index.js';
import {
  generateProviderTKeyPair,
  providerTStatusEvent,
  signedProviderTWebhook,
  signProviderTWebhook,
} from '../src/testing/index.js';
import { errorBody, HOST, nockLogin, statusReply, TRANSACTION_ID, testAdapter } from './fixtures.js';

const keys = generateProviderTKeyPair();
const otherKeys = generateProviderTKeyPair();
const URL_ = 'https://shop.example/webhooks/provider-t';
const STATUS_PATH = `/status/v1/transactions/${TRANSACTION_ID}`;

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
});

function handlerFor(overrides: Parameters<typeof testAdapter>[0] = {}) {
  return createPay(testAdapter({ webhookPublicKey: keys.publicKey, ...overrides })).webhooks.setup({
    webhookSecret: null,
  });
}

function delivery(status = 'SENT', options: { timestamp?: number; host?: string; privateKey?: string } = {}) {
  return signedProviderTWebhook({
    event: providerTStatusEvent({
      transactionId: TRANSACTION_ID,
      transactionStatus: status,
      eventId: 'evt-3f9c2a',
      eventDate: new Date('2026-11-22T10:15:30.123Z'),
    }),
    url: URL_,
    privateKey: options.privateKey ?? keys.privateKey,
    timestamp: options.timestamp,
    host: options.host,
  });
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(WebhookVerificationError.isInstance(error)).toBe(true);
  return error as WebhookVerificationError;
}

describe('verification', () => {
  it('accepts a genuine delivery and raises the normalised event with data re-read from the status endpoint, then the raw event', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('SENT'));
    const order: string[] = [];
    const handler = handlerFor()
      .on('payment.succeeded', (event) => {
        order.push(event.type);
        expect(event.data).toMatchObject({
          id: TRANSACTION_ID,
          amount: 100,
          currency: 'USD',
          status: 'succeeded',
        });
      })
      .on('providerT.TRANSACTION_STATUS_EVENT', (event) => {
        order.push(event.type);
        expect(event.data.eventPayload.transactionStatus).toBe('SENT');
      });
    const result = await handler.handle(delivery('SENT'));
    expect(order).toEqual(['payment.succeeded', 'providerT.TRANSACTION_STATUS_EVENT']);
    expect(result.events.map((event) => event.id)).toEqual([
      'evt-3f9c2a:payment.succeeded',
      'evt-3f9c2a:providerT.TRANSACTION_STATUS_EVENT',
    ]);
    expect(result.events[0]).toMatchObject({
      provider: 'providerT',
      is_raw: false,
      created: Date.parse('2026-11-22T10:15:30.123Z'),
    });
    expect(result.events[1]).toMatchObject({ is_raw: true });
  });

  it('raises refund.created with a Refund for REFUNDED', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('REFUNDED'));
    const { events } = await handlerFor().handle(delivery('REFUNDED'));
    expect(events[0]).toMatchObject({
      type: 'refund.created',
      data: { id: `${TRANSACTION_ID}:refund`, payment_id: TRANSACTION_ID, status: 'succeeded' },
    });
  });

  it('raises only the raw event for a status it does not know, without a status read', async () => {
    const { events } = await handlerFor().handle(delivery('ON_HOLD'));
    expect(events.map((event) => event.type)).toEqual(['providerT.TRANSACTION_STATUS_EVENT']);
  });

  it('verifies against webhookHost when a proxy changes the host', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('SENT'));
    const signedForPublicHost = delivery('SENT', { host: 'pay.shop.example' });
    const { events } = await handlerFor({ webhookHost: 'pay.shop.example' }).handle({
      ...signedForPublicHost,
      fullUrl: 'http://10.0.0.7:8080/webhooks/provider-t',
    });
    expect(events).toHaveLength(2);
  });

  it('refuses a signature made with another key, before any status read', async () => {
    const error = await refusal(handlerFor().handle(delivery('SENT', { privateKey: otherKeys.privateKey })));
    expect(error.reason).toBe('invalid_signature');
    expect(error.status).toBe(400);
  });

  it('refuses a body altered after signing', async () => {
    const genuine = delivery('SENT');
    const error = await refusal(
      handlerFor().handle({ ...genuine, body: genuine.body.replace('SENT', 'REFUNDED') }),
    );
    expect(error.reason).toBe('invalid_signature');
  });

  it('refuses a delivery signed for another host', async () => {
    const error = await refusal(handlerFor().handle(delivery('SENT', { host: 'evil.example' })));
    expect(error.reason).toBe('invalid_signature');
    expect(error.message).toContain('webhookHost');
  });

  it('refuses a signature older than 65 minutes, and one dated more than 5 minutes ahead', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(
      (await refusal(handlerFor().handle(delivery('SENT', { timestamp: now - 65 * 60 - 30 })))).reason,
    ).toBe('stale_timestamp');
    expect(
      (await refusal(handlerFor().handle(delivery('SENT', { timestamp: now + 5 * 60 + 30 })))).reason,
    ).toBe('stale_timestamp');
  });

  it('accepts a signature 64 minutes old', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('SENT'));
    const now = Math.floor(Date.now() / 1000);
    const { events } = await handlerFor().handle(delivery('SENT', { timestamp: now - 64 * 60 }));
    expect(events).toHaveLength(2);
  });

  it('refuses a missing or malformed Signature header', async () => {
    const genuine = delivery('SENT');
    expect((await refusal(handlerFor().handle({ ...genuine, headersAsObject: {} }))).reason).toBe(
      'missing_signature',
    );
    for (const signature of ['s=abc', 't=now, s=AAAA', 't=1700000000, s=not base64!', 't=1700000000']) {
      expect(
        (await refusal(handlerFor().handle({ ...genuine, headersAsObject: { Signature: signature } })))
          .reason,
      ).toBe('invalid_signature');
    }
  });

  it('checks with the environment fixed key unless webhookPublicKey overrides it', async () => {
    const handler = createPay(testAdapter()).webhooks.setup({ webhookSecret: null });
    expect((await refusal(handler.handle(delivery('SENT')))).reason).toBe('invalid_signature');
  });

  it('while Provider T rotates its key, accepts deliveries signed with either configured key and says which one verified each', async () => {
    const seen: unknown[] = [];
    const onWebhook = (message: unknown) =>
      void seen.push((message as { secretIndex?: unknown }).secretIndex);
    dc.subscribe('pay:webhook', onWebhook);
    try {
      const rotating = handlerFor({ webhookPublicKey: [otherKeys.publicKey, keys.publicKey] });
      nockLogin();
      nock(HOST).get(STATUS_PATH).query(true).times(2).reply(200, statusReply('SENT'));
      const byOld = await rotating.handle(delivery('SENT'));
      expect(byOld.events.map((event) => event.type)).toEqual([
        'payment.succeeded',
        'providerT.TRANSACTION_STATUS_EVENT',
      ]);
      await rotating.handle(delivery('SENT', { privateKey: otherKeys.privateKey }));
      expect(seen).toEqual([1, 0]);
    } finally {
      dc.unsubscribe('pay:webhook', onWebhook);
    }
    const retired = handlerFor({ webhookPublicKey: [otherKeys.publicKey] });
    expect((await refusal(retired.handle(delivery('SENT')))).reason).toBe('invalid_signature');
  });

  it('refuses a callback for an event Provider T never raises (invoices, subscriptions)', () => {
    for (const name of ['invoice.generated', 'subscription.created'] as never[])
      expect(() => handlerFor().on(name, () => {})).toThrow(`'${name}' is not an event providerT raises.`);
  });

  it('refuses a signed body that is not a status event', async () => {
    const genuine = signedProviderTWebhook({
      event: '{"hello":"world"}',
      url: URL_,
      privateKey: keys.privateKey,
    });
    expect((await refusal(handlerFor().handle(genuine))).reason).toBe('malformed_payload');
  });

  it('asks for redelivery when the status read fails, and runs no callback', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).times(2).reply(503, errorBody('UNAVAILABLE', 'busy'));
    const callback = vi.fn();
    const error = await refusal(handlerFor().on('payment.succeeded', callback).handle(delivery('SENT')));
    expect(error).toMatchObject({ reason: 'confirmation_failed', retryable: true, status: 503 });
    expect(callback).not.toHaveBeenCalled();
  });

  it('asks for redelivery when the status endpoint does not know the transfer yet', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(404, errorBody('TRANSACTION_NOT_FOUND', 'Unknown'));
    const error = await refusal(handlerFor().handle(delivery('SENT')));
    expect(error).toMatchObject({ reason: 'unconfirmed_status', retryable: true });
  });
});

describe('signing helpers', () => {
  it('writes the Signature header as t=<seconds>, s=<base64>', () => {
    const header = signProviderTWebhook({
      body: '{}',
      host: 'shop.example',
      privateKey: keys.privateKey,
      timestamp: 1763806530,
    });
    expect(header).toMatch(/^t=1763806530, s=[A-Za-z0-9+/]+=*$/);
    expect(parseSignatureHeader(header)?.timestamp).toBe(1763806530);
  });
});

describe('binding to this merchant (docs/providers/provider-t.md#webhooks)', () => {
  it('refuses every delivery in production until webhookHost is configured, retryably and before any status read', async () => {
    const handler = handlerFor({ isSandbox: false, baseUrl: HOST });
    const error = await refusal(handler.handle(delivery('SENT')));
    expect(error).toMatchObject({ reason: 'missing_host', retryable: true, status: 503 });
    expect(error.message).toContain('PROVIDER_T_WEBHOOK_HOST');
  });

  it('verifies against the configured host, not the host of the request, in production', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('SENT'));
    const handler = handlerFor({ isSandbox: false, baseUrl: HOST, webhookHost: 'pay.shop.example' });
    const genuine = delivery('SENT', { host: 'pay.shop.example' });
    const { events } = await handler.handle({
      ...genuine,
      fullUrl: 'http://10.0.0.7:8080/webhooks/provider-t',
    });
    expect(events).toHaveLength(2);
  });

  it("refuses a delivery signed for another partner's host even when the request names that host", async () => {
    // One key signs every partner's deliveries: a delivery for evil.example, replayed to us with a Host header
    // (or absolute-form target) of evil.example, must not verify.
    const handler = handlerFor({ webhookHost: 'pay.shop.example' });
    const foreign = delivery('SENT', { host: 'evil.example' });
    const error = await refusal(handler.handle({ ...foreign, fullUrl: 'https://evil.example/webhooks' }));
    expect(error.reason).toBe('invalid_signature');
  });

  it('refuses a genuinely signed delivery for another agent partner', async () => {
    const foreign = signedProviderTWebhook({
      event: providerTStatusEvent({
        transactionId: TRANSACTION_ID,
        transactionStatus: 'SENT',
        agentPartnerId: '39999999',
      }),
      url: URL_,
      privateKey: keys.privateKey,
    });
    const error = await refusal(handlerFor().handle(foreign));
    expect(error).toMatchObject({ reason: 'merchant_mismatch', status: 400 });
  });

  it('refuses a signed delivery that names no agent partner', async () => {
    const event = providerTStatusEvent({ transactionId: TRANSACTION_ID, transactionStatus: 'SENT' });
    const { agentPartnerId: _omitted, ...payload } = event.eventPayload;
    const unnamed = signedProviderTWebhook({
      event: { ...event, eventPayload: payload as typeof event.eventPayload },
      url: URL_,
      privateKey: keys.privateKey,
    });
    const error = await refusal(handlerFor().handle(unnamed));
    expect(error.status).toBe(400);
  });
});

describe('events say what the provider confirmed (docs/providers/provider-t.md#events)', () => {
  it('raises payment.failed, not payment.succeeded, for a late SENT push of a transfer that is now REJECTED', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('REJECTED'));
    const { events } = await handlerFor().handle(delivery('SENT'));
    expect(events.map((event) => event.type)).toEqual([
      'payment.failed',
      'providerT.TRANSACTION_STATUS_EVENT',
    ]);
    expect(events[0]?.data).toMatchObject({ status: 'failed', amount_paid: null, livemode: false });
  });

  it('answers 503 when the push claims a final status the status read does not show yet, and runs nothing', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('SENT'));
    const callback = vi.fn();
    const error = await refusal(handlerFor().on('payment.failed', callback).handle(delivery('REJECTED')));
    expect(error).toMatchObject({ reason: 'unconfirmed_status', retryable: true, status: 503 });
    expect(callback).not.toHaveBeenCalled();
  });

  it('maps a confirmed status it does not know to payment.updated with status processing', async () => {
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply('ON_HOLD'));
    const { events } = await handlerFor().handle(delivery('SENT'));
    expect(events[0]).toMatchObject({ type: 'payment.updated', data: { status: 'processing' } });
  });
});

describe('odd but signed input (docs/architecture.md#events)', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    'a pushed status named %s raises only the raw event, without a status read and without a crash',
    async (odd) => {
      const { events } = await handlerFor().handle(delivery(odd));
      expect(events.map((event) => event.type)).toEqual(['providerT.TRANSACTION_STATUS_EVENT']);
      expect(nock.pendingMocks()).toEqual([]);
    },
  );

  it('reads ids sent as numbers', async () => {
    nockLogin();
    nock(HOST)
      .get('/status/v1/transactions/3009143868')
      .query(true)
      .reply(200, statusReply('SENT', { transactionId: 3009143868 }));
    const event = providerTStatusEvent({ transactionId: '3009143868', transactionStatus: 'SENT' });
    const body = JSON.stringify({
      ...event,
      eventId: 740708201,
      eventPayload: { ...event.eventPayload, transactionId: 3009143868 },
    });
    const { events } = await handlerFor().handle(
      signedProviderTWebhook({ event: body, url: URL_, privateKey: keys.privateKey }),
    );
    expect(events[0]).toMatchObject({ id: '740708201:payment.succeeded', data: { id: '3009143868' } });
  });
});
