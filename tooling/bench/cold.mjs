// Cold clients and confirming webhooks: what a route handler pays that builds `createPay(adapter)` per request,
// and what every Provider T and Provider R delivery pays (a verify plus the status read that confirms it). Each
// row runs against the provider's simulator on loopback, beside a plain-fetch arm that makes the same requests.
import { pathToFileURL } from 'node:url';
import { createPay } from '@pay/core';
import { fromBase64, timingSafeEqual } from '@pay/core/adapter';
import { createProviderN } from '@pay/provider-n';
import { startProviderNSimulator } from '@pay/provider-n/testing';
import { createProviderR } from '@pay/provider-r';
import { buildProviderRPush, startProviderRSimulator } from '@pay/provider-r/testing';
import { createProviderT } from '@pay/provider-t';
import {
  providerTStatusEvent,
  sampleTransferMetadata,
  signedProviderTWebhook,
  startProviderTSimulator,
} from '@pay/provider-t/testing';
import { compareCpuMs, fetchExchange, kyExchange } from './harness.mjs';
import { initTransactionBody } from './provider-n.mjs';

const CHECKOUT = {
  customer: { email: 'ada@example.com' },
  item_id: 'plan-basic',
  success_url: 'https://shop.example/thanks',
  provider_metadata: { amount: 5000, currency: 'NGN' },
};
const TRANSFER = { amount: 100, currency: 'USD', provider_metadata: sampleTransferMetadata };
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/** Sends one request through `exchange` and returns the parsed JSON reply; throws on a non-2xx status. */
async function send(exchange, url, init) {
  const reply = await exchange(url, init);
  if (!reply.ok) throw new Error(`${init.method} ${url} answered ${reply.status}`);
  return JSON.parse(reply.text);
}

/**
 * The row `name`, ours over the same exchanges made by hand with plain fetch, and the row `name.ky`: the same
 * hand-made arm with ky doing each exchange as core configures it, over plain fetch (the part of the ratio ky
 * alone accounts for, docs/architecture.md#what-a-cold-client-costs). `byHand(exchange)` builds the hand-made arm.
 */
async function rowsOf(name, ours, byHand, { unit, target, batches }) {
  const plain = byHand(fetchExchange);
  const result = await compareCpuMs(ours, plain, { batches });
  const floor = await compareCpuMs(byHand(kyExchange), plain, { batches });
  return [
    { name, ...result, unit, target },
    { name: `${name}.ky`, ...floor, unit: `${unit}, bare ky` },
  ];
}

/**
 * cold.providerN.checkout: a new adapter and `createPay` per checkout (so a login, then the init-transaction)
 * over the same login and init-transaction with plain fetch.
 */
export async function coldCheckout() {
  const simulator = await startProviderNSimulator();
  try {
    const config = simulator.adapterConfig();
    const ours = () => createPay(createProviderN(config)).checkouts.create(CHECKOUT);
    const { apiKey, secretKey, contractCode } = simulator.credentials;
    let sequence = 0;
    const byHand = (exchange) => async () => {
      const login = await send(exchange, `${simulator.url}/v1/auth/login`, {
        method: 'POST',
        headers: { authorization: `Basic ${btoa(`${apiKey}:${secretKey}`)}` },
      });
      const reply = await send(exchange, `${simulator.url}/v1/merchant/transactions/init-transaction`, {
        method: 'POST',
        headers: { authorization: `Bearer ${login.responseBody.accessToken}`, ...JSON_HEADERS },
        body: initTransactionBody(contractCode, `bench-${process.pid}-${++sequence}`),
      });
      if (!reply.requestSuccessful) throw new Error('hand-made checkout failed');
    };
    return await rowsOf('cold.providerN.checkout', ours, byHand, {
      unit: 'ms CPU (median per checkout)',
      target: '≤ 1.5',
      batches: 30,
    });
  } finally {
    await simulator.close();
  }
}

/**
 * cold.providerT.transfer: a new adapter and `createPay` per transfer (token, quote, update, commit) over the same
 * four requests with plain fetch, the bodies replayed from the simulator's request log.
 */
export async function coldTransfer() {
  const simulator = await startProviderTSimulator();
  try {
    const config = simulator.adapterConfig();
    const ours = () => createPay(createProviderT(config)).payments.create(TRANSFER);
    await ours();
    const [login, quote, update, commit] = simulator.requests.slice(-4);
    const query = new URLSearchParams(login.query).toString();
    const headers = (authorization) => ({
      authorization,
      ...JSON_HEADERS,
      'x-client-request-id': crypto.randomUUID(),
    });
    const byHand = (exchange) => async () => {
      const token = await send(exchange, `${simulator.url}${login.path}${query ? `?${query}` : ''}`, {
        method: 'GET',
        headers: { authorization: login.headers.authorization, accept: 'application/json' },
      });
      const bearer = `Bearer ${token.access_token}`;
      const quoted = await send(exchange, `${simulator.url}${quote.path}`, {
        method: 'POST',
        headers: headers(bearer),
        body: quote.body,
      });
      const id = encodeURIComponent(quoted.transactions[0].transactionId);
      const path = `${simulator.url}/transfer/v1/transactions/${id}`;
      await send(exchange, path, { method: 'PUT', headers: headers(bearer), body: update.body });
      await send(exchange, `${path}/commit`, { method: 'PUT', headers: headers(bearer), body: commit.body });
    };
    return await rowsOf('cold.providerT.transfer', ours, byHand, {
      unit: 'ms CPU (median per transfer)',
      target: '≤ 1.3',
      batches: 20,
    });
  } finally {
    await simulator.close();
  }
}

/**
 * webhook.providerT: one signed status delivery through `handler.handle` (RSA verify, partner check, the status
 * read confirming it, the events) over Web Crypto's RSA verify with the key imported once, JSON parse and the same
 * status read with plain fetch. Both hold a token already, as a running deployment does.
 */
export async function webhookT() {
  const simulator = await startProviderTSimulator();
  try {
    const pay = createPay(createProviderT(simulator.adapterConfig()));
    const transfer = await pay.payments.create(TRANSFER);
    const handler = pay.webhooks.setup({ webhookSecret: null });
    const delivery = signedProviderTWebhook({
      event: providerTStatusEvent({
        transactionId: transfer.id,
        transactionStatus: 'SENT',
        eventId: 'evt-1',
      }),
      url: 'https://shop.example/webhooks/provider-t',
      privateKey: simulator.privateKey,
    });
    const ours = async () => {
      const { events } = await handler.handle(delivery);
      if (events[0]?.type !== 'payment.succeeded') throw new Error('webhook not confirmed');
    };
    await ours();
    const read = simulator.requests.at(-1);
    const key = await crypto.subtle.importKey(
      'spki',
      fromBase64(simulator.adapterConfig().webhookPublicKey),
      { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      false,
      ['verify'],
    );
    const readQuery = new URLSearchParams(read.query).toString();
    const [t, s] = delivery.headersAsObject.signature.split(', ').map((part) => part.slice(2));
    const byHand = (exchange) => async () => {
      const signed = new TextEncoder().encode(`${t}.shop.example.${delivery.body}`);
      if (!(await crypto.subtle.verify('RSASSA-PKCS1-v1_5', key, fromBase64(s), signed)))
        throw new Error('refused');
      const event = JSON.parse(delivery.body);
      const id = encodeURIComponent(event.eventPayload.transactionId);
      const status = await send(exchange, `${simulator.url}/status/v1/transactions/${id}?${readQuery}`, {
        method: 'GET',
        headers: {
          authorization: read.headers.authorization,
          accept: 'application/json',
          'x-client-request-id': crypto.randomUUID(),
        },
      });
      if (status.transactionStatus !== 'SENT') throw new Error('unconfirmed');
    };
    return await rowsOf('webhook.providerT', ours, byHand, {
      unit: 'ms CPU (median per delivery)',
      target: '≤ 1.8',
      batches: 40,
    });
  } finally {
    await simulator.close();
  }
}

/**
 * webhook.providerR: one push through `handler.handle` (secret and merchant checks, the v1.0 status call
 * confirming it, the events) over the form parse, the constant-time secret check and the same status call with
 * plain fetch, its form-encoded reply parsed.
 */
export async function webhookR() {
  const simulator = await startProviderRSimulator();
  try {
    const { merchant, secret } = simulator.credentials;
    const pay = createPay(createProviderR(simulator.adapterConfig()));
    const payment = await pay.payments.create({
      amount: 250,
      currency: 'CZK',
      customer: { id: 'customer-42' },
      item_id: 'order-1',
      provider_metadata: { email: 'payer@example.com' },
    });
    const handler = pay.webhooks.setup({ webhookSecret: secret });
    const push = buildProviderRPush({ merchant, secret, transId: payment.id, status: 'PENDING', test: true });
    const request = {
      body: push.body,
      headersAsObject: push.headers,
      fullUrl: 'https://shop.example/webhooks',
    };
    const ours = async () => {
      const { events } = await handler.handle(request);
      if (events.length === 0) throw new Error('push not confirmed');
    };
    await ours();
    const status = simulator.requests.at(-1);
    const byHand = (exchange) => async () => {
      const fields = new URLSearchParams(push.body);
      if (!timingSafeEqual(fields.get('secret') ?? '', secret) || fields.get('merchant') !== merchant)
        throw new Error('refused');
      const response = await exchange(`${simulator.url}/v1.0/status`, {
        method: 'POST',
        headers: {
          authorization: status.headers.authorization,
          'content-type': status.headers['content-type'],
        },
        body: new URLSearchParams({ merchant, transId: fields.get('transId'), secret }).toString(),
      });
      const reply = new URLSearchParams(response.text);
      if (reply.get('transId') !== fields.get('transId')) throw new Error('unconfirmed');
    };
    return await rowsOf('webhook.providerR', ours, byHand, {
      unit: 'ms CPU (median per delivery)',
      target: '≤ 1.15',
      batches: 40,
    });
  } finally {
    await simulator.close();
  }
}

/** Every row of this module, in the order they run. */
export const coldBenchmarks = [coldCheckout, coldTransfer, webhookT, webhookR];

// `node tooling/bench/cold.mjs` runs these rows alone (after a build), without the rest of `pnpm bench`.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const step of coldBenchmarks) {
    for (const { name, ours, baseline, unit, target } of await step()) {
      console.log(
        `${name.padEnd(29)} ${ours.toFixed(3)} ${baseline.toFixed(3)} ${(ours / baseline).toFixed(3)}  ${unit}${target ? ` (target ${target})` : ''}`,
      );
    }
  }
}
