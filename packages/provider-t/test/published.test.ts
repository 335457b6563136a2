/**
 * Replays of Provider T's published payloads (test/fixtures, sources in test/fixtures/SOURCE.md) through nock,
 * and the real signed sandbox deliveries against the built-in sandbox key (docs/architecture.md#lenient-reading).
 */
import { readFileSync } from 'node:fs';
import { createPay, ProviderApiError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createProviderT } from '../src/index.js';
import { generateProviderTKeyPair, signedProviderTWebhook } from '../src/testing/index.js';
import { CLIENT_ID, CLIENT_SECRET, HOST, IDENTITY, OPERATOR_ID, transferMetadata } from './fixtures.js';

interface ReplyFixture {
  source: string;
  request: { method: string; path: string };
  status: number;
  body: unknown;
}
interface SignedDelivery {
  source: string;
  signature: string;
  timestamp: number;
  host: string;
  body: string;
}

function fixture<T = ReplyFixture>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as T;
}

const TXN = 'f3ba1025-6247-4ae6-90b4-1bdfc2da527d';

function adapter(overrides: Partial<Parameters<typeof createProviderT>[0]> = {}) {
  return createProviderT({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    agentPartnerId: IDENTITY.agentPartnerId,
    operatorId: OPERATOR_ID,
    isSandbox: true,
    retry: 0,
    ...overrides,
  });
}

/** Answers the fixture's call once, as recorded. */
function replay(name: string, path?: string) {
  const recorded = fixture(name);
  const scope = nock(HOST);
  const target = path ?? recorded.request.path;
  const interceptor =
    recorded.request.method === 'GET'
      ? scope.get(target).query(true)
      : scope.intercept(target, recorded.request.method);
  return interceptor.reply(recorded.status, recorded.body as nock.Body);
}

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
  vi.useRealTimers();
});

describe('every fixture names its source and holds no live credential', () => {
  const names = readFileSync(new URL('./fixtures/SOURCE.md', import.meta.url), 'utf8').match(
    /`[a-z0-9-]+\.json`/g,
  );
  it.each((names ?? []).map((name) => name.slice(1, -1)))('%s', (name) => {
    const text = readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
    expect((JSON.parse(text) as { source?: string }).source).toMatch(/\S{10,}/);
    expect(text).not.toMatch(/Bearer\s+[A-Za-z0-9._-]{8,}|Basic\s+[A-Za-z0-9+/=]{8,}|-----BEGIN/);
    const token = (JSON.parse(text) as { body?: { access_token?: string } }).body?.access_token;
    if (token !== undefined) expect(token).toMatch(/^PLACEHOLDER_/);
  });
});

describe('published replies, replayed', () => {
  it('logs in with the recorded token reply (expires_in as a string) and reads the status reply', async () => {
    replay('token.json');
    replay('status-sent.json');
    const payment = await adapter().retrievePayment(TXN);
    expect(payment).toMatchObject({
      id: TXN,
      amount: 100,
      amount_paid: 100,
      currency: 'USD',
      status: 'succeeded',
      livemode: false,
      metadata: { orderId: 'A-1001', transactionStatus: 'SENT', referenceNumber: '49122304', fees: '3' },
    });
  });

  it('resolves the recorded 400 "697 Invalid Transaction ID" of an unknown transaction to null', async () => {
    replay('token.json');
    replay('status-unknown-697.json', `/status/v1/transactions/${TXN}`);
    expect(await adapter().retrievePayment(TXN)).toBeNull();
  });

  it('runs a transfer on the recorded quote and the documented update and commit replies', async () => {
    replay('token.json');
    replay('quote.json');
    replay('update.json');
    replay('commit.json');
    const payment = await adapter().createPayment({
      amount: 100,
      currency: 'USD',
      metadata: { orderId: 'A-1001' },
      provider_metadata: transferMetadata,
    });
    expect(payment).toMatchObject({
      id: TXN,
      amount: 100,
      amount_paid: 100,
      currency: 'USD',
      status: 'succeeded',
      metadata: {
        orderId: 'A-1001',
        referenceNumber: '49122304',
        fees: '3',
        total: '103',
        receiveAmount: '1638',
        receiveCurrency: 'MXN',
        fxRate: '16.37874',
      },
    });
  });

  it('returns what the provider holds when the commit is answered with the documented "already committed"', async () => {
    replay('token.json');
    replay('quote.json');
    replay('update.json');
    replay('error-already-committed.json');
    replay('status-sent.json');
    const payment = await adapter().createPayment({
      amount: 100,
      currency: 'USD',
      metadata: { orderId: 'A-1001' },
      provider_metadata: transferMetadata,
    });
    expect(payment).toMatchObject({
      id: TXN,
      status: 'succeeded',
      amount: 100,
      metadata: { orderId: 'A-1001' },
    });
  });

  it('names the offending fields of the documented 400 update reply', async () => {
    replay('token.json');
    replay('quote.json');
    replay('error-offending-fields.json');
    const error = await adapter()
      .createPayment({ amount: 100, currency: 'USD', provider_metadata: transferMetadata })
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 400,
      providerCode: 'MISSING_REQUIRED_FIELDS',
      context: {
        transactionId: TXN,
        step: 'update',
        offendingFields: ['sender.name.lastName', 'transactionInformation.sourceOfFundsCode'],
      },
    });
  });

  it('refunds on the documented refund read and commit replies', async () => {
    replay('token.json');
    replay('refund-read.json');
    replay('refund-commit.json');
    const refund = await adapter().createRefund({ payment_id: TXN });
    expect(refund).toMatchObject({
      id: 'rfd-55120931',
      payment_id: TXN,
      amount: 100,
      currency: 'USD',
      status: 'succeeded',
      livemode: false,
      metadata: { referenceNumber: '49122304', refundReasonCode: 'CUSTOMER_REQUEST' },
    });
  });

  it('reports the documented 401 of the token endpoint without the credentials', async () => {
    replay('error-token-refused.json');
    const error = await adapter()
      .retrievePayment(TXN)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'provider_api_error', status: 401, providerCode: 'invalid_client' });
    expect(JSON.stringify(error)).not.toContain(CLIENT_SECRET);
  });
});

describe('published signed sandbox deliveries', () => {
  /** A handler as the recipient of the delivery configured it: its partner id and registered host. */
  function recipientOf(
    delivery: SignedDelivery,
    overrides: Partial<Parameters<typeof createProviderT>[0]> = {},
  ) {
    const partner = (JSON.parse(delivery.body) as { eventPayload: { agentPartnerId: string } }).eventPayload
      .agentPartnerId;
    return createPay(
      adapter({ agentPartnerId: partner, webhookHost: delivery.host, ...overrides }),
    ).webhooks.setup({ webhookSecret: null });
  }

  function atSigningTime(delivery: SignedDelivery) {
    vi.useFakeTimers({ toFake: ['Date'], now: (delivery.timestamp + 30) * 1000 });
  }

  it.each([
    ['webhook-sent-signed.json', 'SENT', 'payment.succeeded'],
    ['webhook-refunded-signed.json', 'REFUNDED', 'refund.created'],
  ])(
    '%s verifies with the built-in sandbox key and raises its event from the status read',
    async (name, status, type) => {
      const delivery = fixture<SignedDelivery>(name);
      const transactionId = (JSON.parse(delivery.body) as { eventPayload: { transactionId: string } })
        .eventPayload.transactionId;
      atSigningTime(delivery);
      replay('token.json');
      nock(HOST)
        .get(`/status/v1/transactions/${transactionId}`)
        .query(true)
        .reply(200, {
          ...(fixture('status-sent.json').body as object),
          transactionId,
          transactionStatus: status,
        });
      const { events } = await recipientOf(delivery).handle({
        body: delivery.body,
        headersAsObject: { Signature: delivery.signature, 'Content-Type': 'application/json' },
        // Behind a proxy: the request URL's host is not the signed one; the configured webhookHost is.
        fullUrl: 'http://10.0.0.7:8080/webhooks/provider-t',
      });
      expect(events.map((event) => event.type)).toEqual([type, 'providerT.TRANSACTION_STATUS_EVENT']);
      expect(events[1]?.data).toEqual(JSON.parse(delivery.body));
    },
  );

  it('is refused when the handler is configured for another host', async () => {
    const delivery = fixture<SignedDelivery>('webhook-sent-signed.json');
    atSigningTime(delivery);
    const error = await recipientOf(delivery, { webhookHost: 'shop.example' })
      .handle({
        body: delivery.body,
        headersAsObject: { Signature: delivery.signature },
        fullUrl: `https://${delivery.host}/`,
      })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ reason: 'invalid_signature', status: 400 });
  });

  it('is refused by a handler of another agent partner, although the signature is genuine', async () => {
    const delivery = fixture<SignedDelivery>('webhook-sent-signed.json');
    atSigningTime(delivery);
    const error = await recipientOf(delivery, { agentPartnerId: IDENTITY.agentPartnerId })
      .handle({
        body: delivery.body,
        headersAsObject: { Signature: delivery.signature },
        fullUrl: `https://${delivery.host}/`,
      })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ reason: 'merchant_mismatch', status: 400 });
  });

  it('reads the published unsigned delivery body (signed here with a test key)', async () => {
    const keys = generateProviderTKeyPair();
    const body = fixture<{ body: unknown }>('webhook-push-notification.json').body as {
      eventPayload: { transactionId: string; agentPartnerId: string };
    };
    replay('token.json');
    nock(HOST)
      .get(`/status/v1/transactions/${body.eventPayload.transactionId}`)
      .query(true)
      .reply(200, {
        ...(fixture('status-sent.json').body as object),
        transactionId: body.eventPayload.transactionId,
      });
    const handler = createPay(
      adapter({ agentPartnerId: body.eventPayload.agentPartnerId, webhookPublicKey: keys.publicKey }),
    ).webhooks.setup({ webhookSecret: null });
    const { events } = await handler.handle(
      signedProviderTWebhook({
        event: body as never,
        url: 'https://shop.example/hooks',
        privateKey: keys.privateKey,
      }),
    );
    expect(events.map((event) => event.type)).toEqual([
      'payment.succeeded',
      'providerT.TRANSACTION_STATUS_EVENT',
    ]);
  });
});
