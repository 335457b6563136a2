import { readFileSync } from 'node:fs';
import {
  createMemoryDeduplicationStore,
  createPay,
  NetworkError,
  type Operation,
  ProviderApiError,
  ProviderNotSupportedError,
  toNodeListener,
} from '@pay/core';
import { OPERATION_METHODS } from '@pay/core/adapter';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProviderT, type ProviderTConfig } from '../src/index.js';
import {
  generateProviderTKeyPair,
  type ProviderTSimulator,
  signedProviderTWebhook,
  startProviderTSimulator,
} from '../src/testing/index.js';
import { receiver, sender, transactionInformation, transferMetadata } from './fixtures.js';

let sim: ProviderTSimulator;
let endpoint: LoopbackServer | undefined;
// One key pair for every simulator of this file: generating RSA keys is the slow part of a start.
const keyPair = generateProviderTKeyPair();

beforeEach(async () => {
  sim = await startProviderTSimulator({ keyPair });
});

afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  await sim.close();
});

function adapter(overrides: Partial<ProviderTConfig> = {}) {
  return createProviderT({ ...sim.adapterConfig, retry: 1, ...overrides });
}

const paymentParams = {
  amount: 100,
  currency: 'USD',
  metadata: { orderId: 'A-1001' },
  provider_metadata: transferMetadata,
};

/** Calls after the login, as `METHOD path`. */
function apiCalls() {
  return sim.requests
    .filter((request) => request.path !== '/oauth/accesstoken')
    .map((request) => `${request.method} ${request.path}`);
}

function commitRequests() {
  return sim.requests.filter((request) => request.path.endsWith('/commit'));
}

async function failure(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (thrown: unknown) => thrown as Error & { context?: Record<string, unknown> },
  );
}

describe('a transfer end to end', () => {
  it('quotes, updates and commits in one call, and its webhook raises payment.succeeded once', async () => {
    const pay = createPay(adapter());
    const payment = await pay.payments.create(paymentParams);

    expect(payment).toMatchObject({
      status: 'succeeded',
      amount: 100,
      currency: 'USD',
      metadata: { orderId: 'A-1001' },
    });
    expect(payment.metadata.fees).toBe('3.99');
    expect(payment.metadata.fxRate).toBe('17.25');
    expect(apiCalls()).toEqual([
      'POST /transfer/v1/transactions/quote',
      `PUT /transfer/v1/transactions/${payment.id}`,
      `PUT /transfer/v1/transactions/${payment.id}/commit`,
    ]);
    expect(sim.quotes).toBe(1);
    expect(sim.committedTransfers).toBe(1);

    const succeeded = vi.fn();
    const raw = vi.fn();
    const handler = pay.webhooks
      .setup({ webhookSecret: null, deduplicate: createMemoryDeduplicationStore() })
      .on('payment.succeeded', succeeded)
      .on('providerT.TRANSACTION_STATUS_EVENT', raw);
    endpoint = await startLoopbackServer(toNodeListener(handler));
    const url = `${endpoint.url}/webhooks/provider-t`;

    expect(await sim.deliverWebhook(url, { transactionId: payment.id, eventId: 'evt-1' })).toBe(200);
    // A redelivery of the same event is acknowledged and not dispatched again.
    expect(await sim.deliverWebhook(url, { transactionId: payment.id, eventId: 'evt-1' })).toBe(200);

    expect(succeeded).toHaveBeenCalledTimes(1);
    expect(succeeded.mock.calls[0]?.[0]).toMatchObject({
      id: 'evt-1:payment.succeeded',
      data: {
        id: payment.id,
        status: 'succeeded',
        amount: 100,
        currency: 'USD',
        metadata: { orderId: 'A-1001' },
      },
    });
    expect(raw).toHaveBeenCalledTimes(1);
    expect(raw.mock.calls[0]?.[0].data.eventPayload).toMatchObject({
      transactionId: payment.id,
      transactionStatus: 'SENT',
    });
  });

  it('raises payment.updated when the transfer moves on, with data re-read from the status endpoint', async () => {
    const pay = createPay(adapter());
    const payment = await pay.payments.create(paymentParams);
    sim.setStatus(payment.id, 'RECEIVED');
    const updated = vi.fn();
    endpoint = await startLoopbackServer(
      toNodeListener(pay.webhooks.setup({ webhookSecret: null }).on('payment.updated', updated)),
    );
    expect(await sim.deliverWebhook(`${endpoint.url}/hook`, { transactionId: payment.id })).toBe(200);
    expect(updated).toHaveBeenCalledTimes(1);
    expect(updated.mock.calls[0]?.[0].data).toMatchObject({
      id: payment.id,
      metadata: { transactionStatus: 'RECEIVED' },
    });
  });

  it('returns a checkout whose payment_url is the 5-minute receipt of the committed transfer', async () => {
    const checkout = await adapter().createCheckout({
      item_id: 'remittance',
      provider_metadata: { ...transferMetadata, amount: 250.5, currency: 'usd' },
    });
    expect(checkout).toMatchObject({
      amount: 250.5,
      currency: 'USD',
      products: [{ id: 'remittance', quantity: 1 }],
    });
    expect(sim.committedTransfers).toBe(1);
    const receipt = await fetch(checkout.payment_url as string);
    expect(receipt.status).toBe(200);
    expect(receipt.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await receipt.text();
    expect(page).toContain(checkout.metadata.referenceNumber as string);
    expect(page).toContain('SENT');
    sim.advanceTime(5 * 60 * 1000 + 1000);
    expect((await fetch(checkout.payment_url as string)).status).toBe(410);
  });

  it('logs in again when the provider expires the token', async () => {
    const pay = createPay(adapter());
    const payment = await pay.payments.create(paymentParams);
    sim.expireTokens();
    expect(await pay.payments.retrieve(payment.id)).toMatchObject({ id: payment.id, status: 'succeeded' });
    expect(sim.tokensIssued).toBe(2);
  });

  it('returns null for a transfer the provider does not know', async () => {
    expect(await adapter().retrievePayment('00000000-0000-0000-0000-000000000000')).toBeNull();
  });
});

describe('commit failures against the simulator', () => {
  it('retries a commit answered 503 with the same request id: one quote, one transfer', async () => {
    sim.faults.inject({ method: 'PUT', path: /\/commit$/, times: 1, fault: { kind: 'status', status: 503 } });
    const payment = await adapter().createPayment(paymentParams);
    expect(payment.status).toBe('succeeded');
    expect(sim.quotes).toBe(1);
    expect(sim.committedTransfers).toBe(1);
    const commits = commitRequests();
    expect(commits).toHaveLength(2);
    expect(commits[0]?.requestId).toBe(commits[1]?.requestId);
  });

  it('when the commit succeeded but its reply was lost: outcome unknown, the transaction named, and it reconciles to one sent transfer', async () => {
    sim.faults.inject({ method: 'PUT', path: /\/commit$/, times: 1, fault: { kind: 'drop-after' } });
    const pay = createPay(adapter({ retry: 0 }));
    const error = await failure(pay.payments.create(paymentParams));

    const transactionId = sim.transfers[0]?.transactionId as string;
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      outcome: 'unknown',
      context: { transactionId, step: 'commit', outcome: 'unknown' },
    });
    expect(error.message).toContain(transactionId);
    expect(error.message).toContain(`retrievePayment('${transactionId}')`);

    expect(await pay.payments.retrieve(transactionId)).toMatchObject({
      id: transactionId,
      status: 'succeeded',
    });
    expect(sim.committedTransfers).toBe(1);
    expect(sim.quotes).toBe(1);
  });

  it('when the reply was lost and the commit is retried, the provider replays it: one transfer, success', async () => {
    sim.faults.inject({ method: 'PUT', path: /\/commit$/, times: 1, fault: { kind: 'drop-after' } });
    const payment = await adapter({ retry: 1 }).createPayment(paymentParams);
    expect(payment.status).toBe('succeeded');
    expect(sim.committedTransfers).toBe(1);
    const commits = commitRequests();
    expect(commits).toHaveLength(2);
    expect(commits[0]?.requestId).toBe(commits[1]?.requestId);
  });

  it('refuses the commit of an expired quote, and nothing moves', async () => {
    const expiring = adapter({
      hooks: {
        // The 30-minute lock runs out between the update and the commit.
        onRequest: (request) => {
          if (request.url.endsWith('/commit')) sim.advanceTime(31 * 60 * 1000);
        },
      },
    });
    const error = await failure(expiring.createPayment(paymentParams));
    const transactionId = sim.transfers[0]?.transactionId;
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 400,
      providerCode: 'QUOTE_EXPIRED',
      context: { transactionId, step: 'commit' },
    });
    expect(error.context).not.toHaveProperty('outcome');
    expect(sim.committedTransfers).toBe(0);
  });

  it('refuses a second commit of a committed transfer with a new request id', async () => {
    const payment = await adapter().createPayment(paymentParams);
    const token = await (
      await fetch(`${sim.url}/oauth/accesstoken?grant_type=client_credentials`, {
        headers: {
          authorization: `Basic ${Buffer.from(`${sim.credentials.clientId}:${sim.credentials.clientSecret}`).toString('base64')}`,
        },
      })
    ).json();
    const again = await fetch(`${sim.url}/transfer/v1/transactions/${payment.id}/commit`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${token.access_token}`,
        'x-client-request-id': crypto.randomUUID(),
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        targetAudience: 'AGENT_FACING',
        agentPartnerId: sim.credentials.agentPartnerId,
        userLanguage: 'en-US',
        operatorId: 'x',
      }),
    });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ errors: [{ code: 'TRANSACTION_ALREADY_COMMITTED' }] });
    expect(sim.committedTransfers).toBe(1);
  });
});

describe('update failures against the simulator', () => {
  it('names the missing compliance data and commits nothing', async () => {
    const error = await failure(
      adapter().createPayment({ ...paymentParams, amount: 3500, provider_metadata: { sender, receiver } }),
    );
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 400,
      providerCode: 'MISSING_REQUIRED_FIELDS',
      context: {
        step: 'update',
        transactionId: sim.transfers[0]?.transactionId,
        offendingFields: [
          'transactionInformation.purposeOfTransactionCode',
          'transactionInformation.sourceOfFundsCode',
          'transactionInformation.proofOfFundsCode',
        ],
      },
    });
    expect(sim.quotes).toBe(1);
    expect(sim.committedTransfers).toBe(0);
  });
});

describe('receiver-name amendment', () => {
  it('amends the last name only, keeping the first, and returns the re-read transfer', async () => {
    const pay = createPay(adapter());
    const payment = await pay.payments.create(paymentParams);
    const updated = await pay.payments.update(payment.id, {
      provider_metadata: { receiverLastName: 'López' },
    });
    expect(updated).toMatchObject({ id: payment.id, status: 'succeeded' });
    expect((updated.raw as { receiver: unknown }).receiver).toEqual({
      name: { firstName: 'Jose', lastName: 'López' },
    });
    expect(sim.transfer(payment.id)?.receiver?.name).toEqual({ firstName: 'Jose', lastName: 'López' });
    expect(sim.amendments).toBe(1);
  });

  it('only re-reads when no name is given', async () => {
    const pay = createPay(adapter());
    const payment = await pay.payments.create(paymentParams);
    const checkout = await pay.checkouts.update(payment.id, {});
    expect(checkout).toMatchObject({ id: payment.id, session_type: 'one_time' });
    expect(apiCalls().at(-1)).toBe(`GET /status/v1/transactions/${payment.id}`);
    expect(sim.amendments).toBe(0);
  });

  it('refuses to amend a transfer that was paid out', async () => {
    const pay = createPay(adapter());
    const payment = await pay.payments.create(paymentParams);
    sim.setStatus(payment.id, 'RECEIVED');
    const error = await failure(
      pay.payments.update(payment.id, { provider_metadata: { receiverFirstName: 'José' } }),
    );
    expect(error).toMatchObject({ providerCode: 'NOT_AMENDABLE' });
  });
});

describe('refunds', () => {
  it('refunds a transfer whole, once, and the REFUNDED webhook raises refund.created', async () => {
    const pay = createPay(adapter());
    const payment = await pay.payments.create(paymentParams);
    const refund = await pay.refunds.create({
      payment_id: payment.id,
      amount: 100,
      reason: 'sent by mistake',
    });
    expect(refund).toMatchObject({
      payment_id: payment.id,
      amount: 100,
      currency: 'USD',
      status: 'succeeded',
      reason: 'sent by mistake',
      metadata: { refundReasonCode: 'CUSTOMER_REQUEST' },
    });
    expect(sim.refunds).toEqual([
      expect.objectContaining({ refundId: refund.id, transactionId: payment.id }),
    ]);
    expect(await pay.payments.retrieve(payment.id)).toMatchObject({ status: 'canceled' });

    const again = await failure(pay.refunds.create({ payment_id: payment.id }));
    expect(again).toMatchObject({ providerCode: 'NOT_AVAILABLE_FOR_REFUND' });
    expect(sim.refunds).toHaveLength(1);

    const created = vi.fn();
    endpoint = await startLoopbackServer(
      toNodeListener(pay.webhooks.setup({ webhookSecret: null }).on('refund.created', created)),
    );
    expect(await sim.deliverWebhook(`${endpoint.url}/hook`, { transactionId: payment.id })).toBe(200);
    expect(created.mock.calls[0]?.[0].data).toMatchObject({
      id: `${payment.id}:refund`,
      payment_id: payment.id,
      amount: 100,
    });
  });

  it('refuses a partial refund after the read, before the commit', async () => {
    const pay = createPay(adapter());
    const payment = await pay.payments.create(paymentParams);
    const error = await failure(pay.refunds.create({ payment_id: payment.id, amount: 40 }));
    expect(error).toMatchObject({ code: 'validation_error', context: { transactionId: payment.id } });
    expect(sim.requests.some((request) => request.path === `/refund/v2/transactions/${payment.id}`)).toBe(
      true,
    );
    expect(sim.refunds).toHaveLength(0);
  });
});

describe('unsupported operations', () => {
  it('throws ProviderNotSupportedError for every one, without calling the provider', async () => {
    const transfers = adapter();
    const unsupported = (Object.keys(OPERATION_METHODS) as Operation[]).filter(
      (operation) => !transfers.capabilities.includes(operation),
    );
    expect(unsupported).toHaveLength(13);
    for (const operation of unsupported) {
      const method = transfers[OPERATION_METHODS[operation]] as (...args: unknown[]) => Promise<unknown>;
      const error = await failure(method('id-1', {}));
      expect(ProviderNotSupportedError.isInstance(error), operation).toBe(true);
      expect(error).toMatchObject({ provider: 'providerT', operation });
    }
    expect(sim.requests).toHaveLength(0);
  });
});

describe('webhook tampering', () => {
  async function endpointWithCallbacks() {
    const pay = createPay(adapter());
    const payment = await pay.payments.create(paymentParams);
    const callback = vi.fn();
    const handler = pay.webhooks.setup({ webhookSecret: null });
    for (const name of [
      'payment.succeeded',
      'payment.updated',
      'providerT.TRANSACTION_STATUS_EVENT',
    ] as const) {
      handler.on(name, callback);
    }
    endpoint = await startLoopbackServer(toNodeListener(handler));
    const statusReads = () => sim.requests.filter((request) => request.path.startsWith('/status/')).length;
    return { payment, callback, url: `${endpoint.url}/webhooks/provider-t`, statusReads };
  }

  it('refuses a forged signature with 400 and runs nothing', async () => {
    const { payment, callback, url, statusReads } = await endpointWithCallbacks();
    const forger = generateProviderTKeyPair();
    expect(await sim.deliverWebhook(url, { transactionId: payment.id, privateKey: forger.privateKey })).toBe(
      400,
    );
    expect(callback).not.toHaveBeenCalled();
    expect(statusReads()).toBe(0);
  });

  it('refuses a stale signature with 400', async () => {
    const { payment, callback, url } = await endpointWithCallbacks();
    const timestamp = Math.floor(Date.now() / 1000) - 66 * 60;
    expect(await sim.deliverWebhook(url, { transactionId: payment.id, timestamp })).toBe(400);
    expect(callback).not.toHaveBeenCalled();
  });

  it('refuses a delivery signed for another host with 400', async () => {
    const { payment, callback, url } = await endpointWithCallbacks();
    expect(await sim.deliverWebhook(url, { transactionId: payment.id, host: 'evil.example' })).toBe(400);
    expect(callback).not.toHaveBeenCalled();
  });
});

describe('the simulator', () => {
  it('refuses an update that misses sender or receiver data, naming the fields', async () => {
    const token = await (
      await fetch(`${sim.url}/oauth/accesstoken?grant_type=client_credentials`, {
        headers: {
          authorization: `Basic ${Buffer.from(`${sim.credentials.clientId}:${sim.credentials.clientSecret}`).toString('base64')}`,
        },
      })
    ).json();
    const headers = { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' };
    const identity = {
      targetAudience: 'AGENT_FACING',
      agentPartnerId: sim.credentials.agentPartnerId,
      userLanguage: 'en-US',
      operatorId: 'op',
    };
    const quote = await (
      await fetch(`${sim.url}/transfer/v1/transactions/quote`, {
        method: 'POST',
        headers: { ...headers, 'x-client-request-id': crypto.randomUUID() },
        body: JSON.stringify({
          ...identity,
          destinationCountryCode: 'MEX',
          sendAmount: { value: 10, currencyCode: 'USD' },
        }),
      })
    ).json();
    const transactionId = quote.transactions[0].transactionId;
    const update = await fetch(`${sim.url}/transfer/v1/transactions/${transactionId}`, {
      method: 'PUT',
      headers: { ...headers, 'x-client-request-id': crypto.randomUUID() },
      body: JSON.stringify({
        ...identity,
        serviceOptionCode: 'WILL_CALL',
        sendAmount: { value: 10, currencyCode: 'USD' },
        sender: { name: { firstName: 'Maria' } },
        receiver: { name: { lastName: 'Lopez' } },
        transactionInformation,
      }),
    });
    expect(update.status).toBe(400);
    const fields = (await update.json()).errors[0].offendingFields.map(
      (field: { field: string }) => field.field,
    );
    expect(fields).toEqual(
      expect.arrayContaining(['sender.name.lastName', 'sender.address.line1', 'receiver.name.firstName']),
    );
  });
});

function statusReads() {
  return sim.requests.filter((request) => request.path.startsWith('/status/'));
}

/** The keys of a published fixture's body, nested, as `a.b.c` paths. */
function shapeOf(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([key, inner]) => shapeOf(inner, prefix ? `${prefix}.${key}` : key));
}
function publishedBody(name: string): unknown {
  return (
    JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as { body: unknown }
  ).body;
}

describe('deduplication before any upstream work (docs/architecture.md#webhook-deduplication)', () => {
  it('replaying one captured delivery 200 times makes one status read at the provider', async () => {
    const payment = await adapter().createPayment(paymentParams);
    const before = statusReads().length;
    const handler = createPay(adapter())
      .webhooks.setup({ webhookSecret: null, deduplicate: createMemoryDeduplicationStore() })
      .on('payment.succeeded', () => {});
    const captured = signedProviderTWebhook({
      event: {
        eventId: '740708201679925945014500444747',
        eventDate: new Date().toISOString().replace('Z', ''),
        subscriptionId: '15efa8b3-bb09-4fe9-a295-55fc323cf3ee',
        subscriptionType: 'TRANSACTION_STATUS_EVENT',
        eventPayload: {
          transactionId: payment.id,
          agentPartnerId: sim.credentials.agentPartnerId,
          transactionStatus: 'SENT',
          transactionSubStatus: [],
        },
      },
      url: 'https://shop.example/webhooks/provider-t',
      privateKey: sim.privateKey,
    });
    const results = [];
    for (let replay = 0; replay < 200; replay++) results.push(await handler.handle(captured));
    expect(results[0]?.events.map((event) => event.type)).toEqual([
      'payment.succeeded',
      'providerT.TRANSACTION_STATUS_EVENT',
    ]);
    expect(results.slice(1).every((result) => result.events.length === 0)).toBe(true);
    expect(statusReads().length - before).toBe(1);
  });
});

describe('events from the confirmed status, against the simulator (docs/providers/provider-t.md#events)', () => {
  it('a late SENT push for a transfer the provider has since REJECTED raises payment.failed', async () => {
    const payment = await adapter().createPayment(paymentParams);
    sim.setStatus(payment.id, 'REJECTED');
    const seen: string[] = [];
    const handler = createPay(adapter())
      .webhooks.setup({ webhookSecret: null })
      .on(['payment.succeeded', 'payment.failed'], (event) => {
        seen.push(`${event.type}:${event.data.status}`);
      });
    endpoint = await startLoopbackServer(toNodeListener(handler));
    expect(
      await sim.deliverWebhook(`${endpoint.url}/hook`, { transactionId: payment.id, status: 'SENT' }),
    ).toBe(200);
    expect(seen).toEqual(['payment.failed:failed']);
  });

  it('a REFUNDED push the status read does not show yet is answered 503 and redelivered', async () => {
    const payment = await adapter().createPayment(paymentParams);
    const created = vi.fn();
    const handler = createPay(adapter())
      .webhooks.setup({ webhookSecret: null })
      .on('refund.created', created);
    endpoint = await startLoopbackServer(toNodeListener(handler));
    expect(
      await sim.deliverWebhook(`${endpoint.url}/hook`, { transactionId: payment.id, status: 'REFUNDED' }),
    ).toBe(503);
    expect(created).not.toHaveBeenCalled();
  });
});

describe('a lost reply, then a refusal of the retry (docs/architecture.md#outcomes)', () => {
  const COMMIT = /^\/transfer\/v1\/transactions\/[^/]+\/commit$/;
  const REFUND_COMMIT = /^\/refund\/v2\/transactions\/[^/]+\/commit$/;
  const refusal = (status: number, code: string) => ({
    kind: 'status' as const,
    status,
    body: JSON.stringify({ errors: [{ category: 'VALIDATION', code, message: 'refused' }] }),
  });

  for (const [status, code] of [
    [409, 'REQUEST_IN_PROGRESS'],
    [400, 'QUOTE_EXPIRED'],
  ] as const) {
    it(`transfer commit: processed, reply lost, retry refused ${status} ${code} → outcome unknown, one transfer, never "create again"`, async () => {
      sim.faults.inject({ method: 'PUT', path: COMMIT, fault: { kind: 'drop-after' } });
      sim.faults.inject({ method: 'PUT', path: COMMIT, fault: refusal(status, code) });
      const error = await failure(adapter().createPayment(paymentParams));
      const transactionId = sim.transfers[0]?.transactionId as string;
      expect(ProviderApiError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        providerCode: code,
        outcome: 'unknown',
        retryable: false,
        context: { transactionId, step: 'commit', outcome: 'unknown' },
      });
      expect(error.message).not.toMatch(/no money moved|call create again/i);
      expect(sim.committedTransfers).toBe(1);
      expect(await adapter().retrievePayment(transactionId)).toMatchObject({ status: 'succeeded' });
    });
  }

  it('transfer commit: processed, reply lost, retry answered "already committed" → the Payment, one transfer', async () => {
    sim.faults.inject({ method: 'PUT', path: COMMIT, fault: { kind: 'drop-after' } });
    sim.faults.inject({ method: 'PUT', path: COMMIT, fault: refusal(400, 'TRANSACTION_ALREADY_COMMITTED') });
    const payment = await adapter().createPayment(paymentParams);
    expect(payment).toMatchObject({
      id: sim.transfers[0]?.transactionId,
      status: 'succeeded',
      amount: 100,
      amount_paid: 100,
      metadata: { orderId: 'A-1001', transactionStatus: 'SENT' },
    });
    expect(sim.committedTransfers).toBe(1);
  });

  it('checkout commit: processed, reply lost, retry answered "already committed" → the Checkout', async () => {
    sim.faults.inject({ method: 'PUT', path: COMMIT, fault: { kind: 'drop-after' } });
    sim.faults.inject({ method: 'PUT', path: COMMIT, fault: refusal(400, 'TRANSACTION_ALREADY_COMMITTED') });
    const checkout = await adapter().createCheckout({
      item_id: 'remittance',
      provider_metadata: { ...transferMetadata, amount: 100, currency: 'USD' },
    });
    expect(checkout).toMatchObject({
      amount: 100,
      payment_url: null,
      products: [{ id: 'remittance', quantity: 1 }],
      metadata: { transactionStatus: 'SENT' },
    });
    expect(sim.committedTransfers).toBe(1);
  });

  for (const [status, code] of [
    [409, 'REQUEST_IN_PROGRESS'],
    [400, 'INVALID_REFUND_ID'],
  ] as const) {
    it(`refund commit: processed, reply lost, retry refused ${status} ${code} → outcome unknown, refunded once`, async () => {
      const payment = await adapter().createPayment(paymentParams);
      sim.faults.inject({ method: 'PUT', path: REFUND_COMMIT, fault: { kind: 'drop-after' } });
      sim.faults.inject({ method: 'PUT', path: REFUND_COMMIT, fault: refusal(status, code) });
      const error = await failure(adapter().createRefund({ payment_id: payment.id }));
      expect(error).toMatchObject({
        providerCode: code,
        outcome: 'unknown',
        retryable: false,
        context: { transactionId: payment.id, step: 'refund_commit', outcome: 'unknown' },
      });
      expect(error.message).not.toMatch(/nothing was refunded/i);
      expect(sim.refunds).toHaveLength(1);
    });
  }

  it('refund commit: processed, reply lost, retry answered "already committed" → the Refund, refunded once', async () => {
    const payment = await adapter().createPayment(paymentParams);
    sim.faults.inject({ method: 'PUT', path: REFUND_COMMIT, fault: { kind: 'drop-after' } });
    sim.faults.inject({
      method: 'PUT',
      path: REFUND_COMMIT,
      fault: refusal(400, 'TRANSACTION_ALREADY_COMMITTED'),
    });
    const refund = await adapter().createRefund({ payment_id: payment.id });
    expect(refund).toMatchObject({
      payment_id: payment.id,
      amount: 100,
      currency: 'USD',
      status: 'succeeded',
    });
    expect(refund.id).toBe(sim.refunds[0]?.refundId);
    expect(sim.refunds).toHaveLength(1);
  });

  it('the simulator itself answers a second commit of a committed refund with TRANSACTION_ALREADY_COMMITTED', async () => {
    const payment = await adapter().createPayment(paymentParams);
    const refundId = (await adapter().createRefund({ payment_id: payment.id })).id;
    const token = (await (
      await fetch(`${sim.url}/oauth/accesstoken?grant_type=client_credentials`, {
        headers: {
          authorization: `Basic ${Buffer.from(`${sim.credentials.clientId}:${sim.credentials.clientSecret}`).toString('base64')}`,
        },
      })
    ).json()) as { access_token: string };
    const again = await fetch(`${sim.url}/refund/v2/transactions/${payment.id}/commit`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${token.access_token}`,
        'x-client-request-id': crypto.randomUUID(),
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        targetAudience: 'AGENT_FACING',
        agentPartnerId: sim.credentials.agentPartnerId,
        userLanguage: 'en-US',
        refundId,
      }),
    });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ errors: [{ code: 'TRANSACTION_ALREADY_COMMITTED' }] });
  });
});

describe('the simulator speaks the published shapes (docs/architecture.md#lenient-reading)', () => {
  it('answers an unknown transaction id with 400 and code 697, as recorded from the sandbox', async () => {
    const token = (await (
      await fetch(`${sim.url}/oauth/accesstoken?grant_type=client_credentials`, {
        headers: {
          authorization: `Basic ${Buffer.from(`${sim.credentials.clientId}:${sim.credentials.clientSecret}`).toString('base64')}`,
        },
      })
    ).json()) as Record<string, unknown>;
    // The token reply has the recorded shape too: expires_in as a string.
    expect(typeof token.expires_in).toBe('string');
    const reply = await fetch(
      `${sim.url}/status/v1/transactions/transaction_id?targetAudience=AGENT_FACING&agentPartnerId=${sim.credentials.agentPartnerId}&userLanguage=en-US`,
      {
        headers: {
          authorization: `Bearer ${token.access_token}`,
          'x-client-request-id': crypto.randomUUID(),
        },
      },
    );
    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual(publishedBody('status-unknown-697.json'));
  });

  it('quote, status and refund replies carry every field of the published ones', async () => {
    const recorded: Record<string, unknown> = {};
    const payment = await createProviderT({
      ...sim.adapterConfig,
      hooks: {
        onResponse: (info) => {
          if (info.responseBody === '[REDACTED]') return;
          recorded[`${info.method} ${new URL(info.url).pathname.split('/').slice(0, 3).join('/')}`] =
            JSON.parse(info.responseBody ?? 'null');
        },
      },
    }).createPayment(paymentParams);
    await adapter().retrievePayment(payment.id);
    const quote = recorded['POST /transfer/v1'];
    const quoteFields = shapeOf(quote);
    for (const field of shapeOf(publishedBody('quote.json'))) expect(quoteFields).toContain(field);
    const status = await fetchJson(`/status/v1/transactions/${payment.id}`);
    const statusFields = shapeOf(status);
    for (const field of shapeOf(publishedBody('status-sent.json')).filter(
      (f) => !f.startsWith('additionalDetails'),
    ))
      expect(statusFields).toContain(field);
  });

  it('signs webhook bodies with the fields of the published deliveries', async () => {
    const payment = await adapter().createPayment(paymentParams);
    let received: unknown;
    endpoint = await startLoopbackServer(async (req, res) => {
      let text = '';
      for await (const chunk of req) text += chunk;
      received = JSON.parse(text);
      res.writeHead(200).end();
    });
    await sim.deliverWebhook(`${endpoint.url}/hook`, { transactionId: payment.id });
    const published = JSON.parse(
      (
        JSON.parse(
          readFileSync(new URL('./fixtures/webhook-refunded-signed.json', import.meta.url), 'utf8'),
        ) as { body: string }
      ).body,
    );
    expect(shapeOf(received).sort()).toEqual(shapeOf(published).sort());
  });
});

async function fetchJson(path: string): Promise<unknown> {
  const token = (await (
    await fetch(`${sim.url}/oauth/accesstoken?grant_type=client_credentials`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${sim.credentials.clientId}:${sim.credentials.clientSecret}`).toString('base64')}`,
      },
    })
  ).json()) as { access_token: string };
  const query = `targetAudience=AGENT_FACING&agentPartnerId=${sim.credentials.agentPartnerId}&userLanguage=en-US`;
  const reply = await fetch(`${sim.url}${path}?${query}`, {
    headers: { authorization: `Bearer ${token.access_token}`, 'x-client-request-id': crypto.randomUUID() },
  });
  return reply.json();
}
