// Provider T benchmarks: the three-step transfer's overhead over plain fetch and over ky alone, and webhook
// verification.
import { createPay } from '@pay/core';
import { fromBase64 } from '@pay/core/adapter';
import { createProviderT } from '@pay/provider-t';
import {
  generateProviderTKeyPair,
  providerTStatusEvent,
  sampleTransferMetadata,
  signedProviderTWebhook,
  startProviderTSimulator,
} from '@pay/provider-t/testing';
import { compareMs, kyExchange, opsPerSecond } from './harness.mjs';

const TRANSFER = { amount: 100, currency: 'USD', provider_metadata: sampleTransferMetadata };

/**
 * overhead.providerT.transfer and overhead.providerT.transferVsKy: payments.create (quote → update → commit)
 * through createPay, over the same three requests made with plain fetch, and over the same three exchanges through
 * ky configured exactly as core configures it (docs/architecture.md#http-client) with nothing of ours around it:
 * the floor the design's HTTP client sets. Both baselines replay the bodies the adapter sent, captured from the
 * simulator's request log, so every arm does exactly the same upstream work.
 */
export async function overheadTransfer() {
  const simulator = await startProviderTSimulator();
  try {
    const pay = createPay(createProviderT(simulator.adapterConfig()));
    await pay.payments.create(TRANSFER);
    const sent = simulator.requests.filter((request) => request.path.startsWith('/transfer/')).slice(-3);
    const headersOf = () => ({
      authorization: sent[0].headers.authorization,
      'content-type': 'application/json',
      accept: 'application/json',
      'x-client-request-id': crypto.randomUUID(),
    });
    const plain = transferBy(sent, async (method, path, body) => {
      const response = await fetch(`${simulator.url}${path}`, { method, headers: headersOf(), body });
      if (!response.ok) throw new Error(`plain ${method} ${path} answered ${response.status}`);
      return response.json();
    });
    const viaKy = transferBy(sent, async (method, path, body) => {
      const reply = await kyExchange(`${simulator.url}${path}`, { method, headers: headersOf(), body });
      if (!reply.ok) throw new Error(`ky ${method} ${path} answered ${reply.status}`);
      return JSON.parse(reply.text);
    });
    const ours = () => pay.payments.create(TRANSFER);
    const unit = 'ms (median per transfer)';
    const overFetch = await compareMs(ours, plain, { iterations: 200 });
    const overKy = await compareMs(ours, viaKy, { iterations: 200 });
    return [
      { name: 'overhead.providerT.transfer', ...overFetch, unit, target: 'ratio ≤ 1.20' },
      {
        name: 'overhead.providerT.transferVsKy',
        ...overKy,
        unit: `${unit}, baseline ky`,
        target: 'ratio ≤ 1.05',
      },
    ];
  } finally {
    await simulator.close();
  }
}

/** A transfer's three requests (`sent`: the quote, update and commit captured), each made by `send`. */
function transferBy([quote, update, commit], send) {
  return async () => {
    const quoted = await send('POST', quote.path, quote.body);
    const id = encodeURIComponent(quoted.transactions[0].transactionId);
    await send('PUT', `/transfer/v1/transactions/${id}`, update.body);
    await send('PUT', `/transfer/v1/transactions/${id}/commit`, commit.body);
  };
}

/**
 * verify.providerT: webhooks verified per second through handler.handle (no callbacks), the status re-read
 * answered in memory, over the same work by hand (Web Crypto RSA verify, JSON parse, the same re-read parsed).
 */
export async function verifyWebhooks() {
  const keys = generateProviderTKeyPair();
  const status = JSON.stringify({
    transactionId: 'T-1',
    referenceNumber: '12345678',
    transactionSendDateTime: '2026-11-22T10:15:30.123',
    expectedPayoutDate: '2026-11-23',
    transactionStatus: 'AVAILABLE',
    originatingCountryCode: 'USA',
    destinationCountryCode: 'MEX',
    serviceOptionCode: 'WILL_CALL',
    serviceOptionName: 'Cash pickup',
    sendAmount: {
      amount: { value: 100, currencyCode: 'USD' },
      fees: { value: 4.99, currencyCode: 'USD' },
      total: { value: 104.99, currencyCode: 'USD' },
    },
    receiveAmount: { amount: { value: 1720.5, currencyCode: 'MXN' } },
    sender: { name: { firstName: 'Maria', lastName: 'Lopez' } },
    receiver: { name: { firstName: 'Jose', lastName: 'Lopez' } },
  });
  const token = JSON.stringify({ access_token: 'tok', expires_in: 3599, token_type: 'BearerToken' });
  const upstream = async (input) =>
    new Response(String(input.url ?? input).includes('/oauth/') ? token : status, {
      headers: { 'content-type': 'application/json' },
    });
  const pay = createPay(
    createProviderT({
      clientId: 'c',
      clientSecret: 's',
      agentPartnerId: '30014857', // the partner the signed sample event names (the handler checks it)
      operatorId: 'o',
      isSandbox: true,
      webhookPublicKey: keys.publicKey,
      fetch: upstream,
    }),
  );
  const handler = pay.webhooks.setup({ webhookSecret: null });
  const delivery = signedProviderTWebhook({
    event: providerTStatusEvent({ transactionId: 'T-1', transactionStatus: 'AVAILABLE', eventId: 'evt-1' }),
    url: 'https://shop.example/webhooks/provider-t',
    privateKey: keys.privateKey,
  });
  const ours = await opsPerSecond(() => handler.handle(delivery));
  const key = await crypto.subtle.importKey(
    'spki',
    fromBase64(keys.publicKey),
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const [t, s] = delivery.headersAsObject.signature.split(', ').map((part) => part.slice(2));
  const signed = new TextEncoder().encode(`${t}.shop.example.${delivery.body}`);
  const byHand = async () => {
    if (!(await crypto.subtle.verify('RSASSA-PKCS1-v1_5', key, fromBase64(s), signed)))
      throw new Error('refused');
    JSON.parse(delivery.body);
    await (await upstream('status')).json();
  };
  const baseline = await opsPerSecond(byHand);
  return { name: 'verify.providerT', ours, baseline, unit: 'deliveries/s', target: '≥ 0.8' };
}
