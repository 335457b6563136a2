/**
 * Provider T: every record carries the request id of the call that produced it, amounts are in the
 * currency's standard unit and refused before any call when finer than its minor unit, and the default factory
 * reads `PROVIDER_T_BASE_URL` (docs/architecture.md#records).
 */
import { createPay, ValidationError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { providerT } from '../src/index.js';
import {
  generateProviderTKeyPair,
  providerTStatusEvent,
  signedProviderTWebhook,
} from '../src/testing/index.js';
import {
  AGENT_PARTNER_ID,
  CLIENT_ID,
  CLIENT_SECRET,
  commitReply,
  HOST,
  IDENTITY,
  nockLogin,
  OPERATOR_ID,
  quoteReply,
  statusReply,
  TRANSACTION_ID,
  testAdapter,
  transferMetadata,
  updateReply,
} from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
  vi.unstubAllEnvs();
});

const STATUS_PATH = `/status/v1/transactions/${TRANSACTION_ID}`;
const TRANSFER_PATH = `/transfer/v1/transactions/${TRANSACTION_ID}`;
const REFUND_PATH = `/refund/v2/transactions/${TRANSACTION_ID}`;
const AMEND_PATH = `/amend/v1/transactions/${TRANSACTION_ID}`;

/** A nock reply that records the `X-Client-Request-Id` it was sent with, under `name`. */
function answer(ids: Map<string, string>, name: string, body: unknown) {
  return function (this: { req: { headers: Record<string, string> } }) {
    ids.set(name, String(this.req.headers['x-client-request-id']));
    return [200, body] as [number, unknown];
  };
}

describe('request_id on every record (docs/architecture.md#records)', () => {
  it('a created payment and checkout carry the request id of the commit', async () => {
    const ids = new Map<string, string>();
    nockLogin();
    nock(HOST).post('/transfer/v1/transactions/quote').times(2).reply(200, quoteReply());
    nock(HOST).put(TRANSFER_PATH).times(2).reply(200, updateReply());
    nock(HOST)
      .put(`${TRANSFER_PATH}/commit`)
      .reply(answer(ids, 'payment', commitReply));
    nock(HOST)
      .put(`${TRANSFER_PATH}/commit`)
      .reply(answer(ids, 'checkout', commitReply));
    const adapter = testAdapter();

    const payment = await adapter.createPayment({
      amount: 100,
      currency: 'USD',
      provider_metadata: transferMetadata,
    });
    const checkout = await adapter.createCheckout({
      provider_metadata: { ...transferMetadata, amount: 100, currency: 'USD' },
    });

    expect(payment.request_id).toBe(ids.get('payment'));
    expect(checkout?.request_id).toBe(ids.get('checkout'));
    expect(payment.request_id).not.toBe(checkout?.request_id);
  });

  it('retrieved and amended records carry the request id of the status read they were built from', async () => {
    const ids = new Map<string, string>();
    nockLogin();
    nock(HOST)
      .get(STATUS_PATH)
      .query(IDENTITY)
      .reply(answer(ids, 'payment', statusReply('SENT')));
    nock(HOST)
      .get(STATUS_PATH)
      .query(IDENTITY)
      .reply(answer(ids, 'checkout', statusReply('SENT')));
    nock(HOST)
      .get(STATUS_PATH)
      .query(IDENTITY)
      .reply(answer(ids, 'update', statusReply('SENT')));
    const adapter = testAdapter();

    const payment = await adapter.retrievePayment(TRANSACTION_ID);
    const checkout = await adapter.retrieveCheckout(TRANSACTION_ID);
    const updated = await adapter.updatePayment(TRANSACTION_ID, {});

    expect(payment?.request_id).toBe(ids.get('payment'));
    expect(checkout?.request_id).toBe(ids.get('checkout'));
    expect(updated.request_id).toBe(ids.get('update'));
    expect(new Set(ids.values()).size).toBe(3);
  });

  it('an amended record carries the request id of the re-read, not of the amendment calls', async () => {
    const ids = new Map<string, string>();
    nockLogin();
    nock(HOST)
      .get(AMEND_PATH)
      .query(IDENTITY)
      .reply(
        answer(ids, 'amend_read', {
          amendId: 'amd-1',
          amendable: true,
          receiver: { name: { firstName: 'Jose', lastName: 'Lopez' } },
        }),
      );
    nock(HOST)
      .patch(`${AMEND_PATH}/receiver/name`)
      .reply(answer(ids, 'amend', { amendSuccess: true }));
    nock(HOST)
      .get(STATUS_PATH)
      .query(IDENTITY)
      .reply(answer(ids, 'status', statusReply('SENT')));

    const updated = await testAdapter().updateCheckout(TRANSACTION_ID, {
      provider_metadata: { receiverFirstName: 'José' },
    });

    expect(updated.request_id).toBe(ids.get('status'));
  });

  it('a refund carries the request id of its commit', async () => {
    const ids = new Map<string, string>();
    nockLogin();
    nock(HOST)
      .get(REFUND_PATH)
      .query(true)
      .reply(
        answer(ids, 'read', {
          refundId: 'rfd-1',
          availableForRefund: true,
          refundAmount: { amount: { value: 100, currencyCode: 'USD' } },
        }),
      );
    nock(HOST)
      .put(`${REFUND_PATH}/commit`)
      .reply(answer(ids, 'commit', { referenceNumber: '4821' }));

    const refund = await testAdapter().createRefund({ payment_id: TRANSACTION_ID });

    expect(refund.request_id).toBe(ids.get('commit'));
    expect(refund.request_id).not.toBe(ids.get('read'));
  });

  it('webhook data carries the request id of the status read that confirmed it', async () => {
    const ids = new Map<string, string>();
    const keys = generateProviderTKeyPair();
    nockLogin();
    nock(HOST)
      .get(STATUS_PATH)
      .query(true)
      .reply(answer(ids, 'status', statusReply('SENT')));
    const seen: (string | null)[] = [];
    const handler = createPay(testAdapter({ webhookPublicKey: keys.publicKey }))
      .webhooks.setup({ webhookSecret: null })
      .on('payment.succeeded', (event) => {
        seen.push(event.data.request_id);
      });

    await handler.handle(
      signedProviderTWebhook({
        event: providerTStatusEvent({ transactionId: TRANSACTION_ID, transactionStatus: 'SENT' }),
        url: 'https://shop.example/webhooks/provider-t',
        privateKey: keys.privateKey,
      }),
    );

    expect(seen).toEqual([ids.get('status')]);
  });
});

describe('amounts in the standard currency unit (docs/architecture.md#money)', () => {
  async function refusedBeforeAnyCall(call: Promise<unknown>) {
    const error = await call.catch((thrown: unknown) => thrown);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect(nock.pendingMocks()).toEqual([]);
    return (error as ValidationError).issues;
  }

  it('refuses a payment amount finer than the minor unit (10.005 USD, 100.5 JPY, 0.1 + 0.2) before any call', async () => {
    const adapter = testAdapter();
    const payment = (amount: number, currency: string) =>
      adapter.createPayment({ amount, currency, provider_metadata: transferMetadata });

    expect(await refusedBeforeAnyCall(payment(10.005, 'USD'))).toEqual([
      { path: 'amount', message: 'has more than 2 decimal digit(s), the minor unit of USD' },
    ]);
    expect(await refusedBeforeAnyCall(payment(100.5, 'JPY'))).toEqual([
      { path: 'amount', message: 'has more than 0 decimal digit(s), the minor unit of JPY' },
    ]);
    // Float arithmetic (0.30000000000000004) is not 0.30: refused, never rounded.
    expect(await refusedBeforeAnyCall(payment(0.1 + 0.2, 'USD'))).toMatchObject([{ path: 'amount' }]);
  });

  it('refuses a checkout amount finer than the minor unit, in provider_metadata, before any call', async () => {
    const issues = await refusedBeforeAnyCall(
      testAdapter().createCheckout({
        provider_metadata: { ...transferMetadata, amount: 25.001, currency: 'EUR' },
      }),
    );
    expect(issues).toEqual([
      {
        path: 'provider_metadata.amount',
        message: 'has more than 2 decimal digit(s), the minor unit of EUR',
      },
    ]);
  });

  it('refuses a refund amount finer than the minor unit before the refund read', async () => {
    const issues = await refusedBeforeAnyCall(
      testAdapter().createRefund({ payment_id: TRANSACTION_ID, amount: 99.999, currency: 'USD' }),
    );
    expect(issues).toEqual([
      { path: 'amount', message: 'has more than 2 decimal digit(s), the minor unit of USD' },
    ]);
  });

  it('sends a major-unit amount as written (250.5 = 250.50) and reads the decimal-string reply exactly', async () => {
    let quoted: unknown;
    nockLogin();
    nock(HOST)
      .post('/transfer/v1/transactions/quote', (body) => {
        quoted = body;
        return true;
      })
      .reply(200, quoteReply());
    const sendAmount = { amount: { value: '250.50', currencyCode: 'USD' } };
    nock(HOST).put(TRANSFER_PATH).reply(200, updateReply({ sendAmount }));
    nock(HOST).put(`${TRANSFER_PATH}/commit`).reply(200, commitReply);

    const payment = await testAdapter().createPayment({
      amount: 250.5,
      currency: 'usd',
      provider_metadata: transferMetadata,
    });

    expect((quoted as { sendAmount: unknown }).sendAmount).toEqual({ value: 250.5, currencyCode: 'USD' });
    expect(payment).toMatchObject({ amount: 250.5, amount_paid: 250.5, currency: 'USD' });
  });
});

describe('PROVIDER_T_BASE_URL (docs/architecture.md#local-loop)', () => {
  function stubEnvironment() {
    vi.stubEnv('PROVIDER_T_CLIENT_ID', CLIENT_ID);
    vi.stubEnv('PROVIDER_T_CLIENT_SECRET', CLIENT_SECRET);
    vi.stubEnv('PROVIDER_T_AGENT_PARTNER_ID', AGENT_PARTNER_ID);
    vi.stubEnv('PROVIDER_T_OPERATOR_ID', OPERATOR_ID);
    vi.stubEnv('PROVIDER_T_SANDBOX', 'true');
  }

  it('the default factory sends every call to PROVIDER_T_BASE_URL when it is set', async () => {
    stubEnvironment();
    vi.stubEnv('PROVIDER_T_BASE_URL', 'http://sim.test:4010');
    const local = 'http://sim.test:4010';
    nock(local)
      .get('/oauth/accesstoken')
      .query({ grant_type: 'client_credentials' })
      .reply(200, { access_token: 'tok-local', expires_in: 3599 });
    nock(local).get(STATUS_PATH).query(IDENTITY).reply(200, statusReply('SENT'));

    const payment = await providerT({ retry: 0 }).retrievePayment(TRANSACTION_ID);

    expect(payment).toMatchObject({ id: TRANSACTION_ID, status: 'succeeded' });
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('an explicit baseUrl wins over PROVIDER_T_BASE_URL, and a bad value is a ConfigurationError naming baseUrl', async () => {
    stubEnvironment();
    vi.stubEnv('PROVIDER_T_BASE_URL', 'http://sim.test:4010');
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(IDENTITY).reply(200, statusReply('SENT'));
    await expect(
      providerT({ baseUrl: HOST, retry: 0 }).retrievePayment(TRANSACTION_ID),
    ).resolves.toMatchObject({
      id: TRANSACTION_ID,
    });

    vi.stubEnv('PROVIDER_T_BASE_URL', 'not a url');
    expect(() => providerT()).toThrow(/baseUrl/);
  });

  it('without PROVIDER_T_BASE_URL the sandbox host is used', async () => {
    stubEnvironment();
    nockLogin();
    nock(HOST).get(STATUS_PATH).query(IDENTITY).reply(200, statusReply('SENT'));
    await expect(providerT({ retry: 0 }).retrievePayment(TRANSACTION_ID)).resolves.toMatchObject({
      id: TRANSACTION_ID,
    });
  });
});
