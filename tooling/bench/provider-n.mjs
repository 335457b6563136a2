// Provider N benchmarks: checkout overhead over plain fetch, webhook verification, logins on a cold adapter.
import { createHmac } from 'node:crypto';
import { createPay } from '@pay/core';
import { timingSafeEqual } from '@pay/core/adapter';
import { createProviderN } from '@pay/provider-n';
import { providerNWebhookRequest, startProviderNSimulator } from '@pay/provider-n/testing';
import { compareMs, opsPerSecond } from './harness.mjs';

const CHECKOUT = {
  customer: { email: 'ada@example.com' },
  item_id: 'plan-basic',
  success_url: 'https://shop.example/thanks',
  provider_metadata: { amount: 5000, currency: 'NGN' },
};

function adapterFor(simulator) {
  return createProviderN(simulator.adapterConfig());
}

/**
 * The init-transaction body Provider N's adapter sends for the benchmarks' checkout (5000 NGN, `plan-basic`), as the
 * plain-`fetch` arms send it by hand.
 */
export function initTransactionBody(contractCode, paymentReference) {
  return JSON.stringify({
    amount: 5000,
    currencyCode: 'NGN',
    contractCode,
    customerEmail: 'ada@example.com',
    paymentReference,
    paymentDescription: 'plan-basic',
    redirectUrl: 'https://shop.example/thanks',
    paymentMethods: ['CARD', 'ACCOUNT_TRANSFER'],
    metaData: {},
  });
}

/** overhead.providerN.checkout: checkouts.create through createPay over the same init-transaction with plain fetch. */
export async function overheadCheckout() {
  const simulator = await startProviderNSimulator();
  try {
    const pay = createPay(adapterFor(simulator));
    const { apiKey, secretKey, contractCode } = simulator.credentials;
    await pay.checkouts.create(CHECKOUT); // the adapter now holds a token, as the plain client does below
    const login = await fetch(`${simulator.url}/v1/auth/login`, {
      method: 'POST',
      headers: { authorization: `Basic ${btoa(`${apiKey}:${secretKey}`)}` },
    });
    const token = (await login.json()).responseBody.accessToken;
    let sequence = 0;
    const plain = async () => {
      const response = await fetch(`${simulator.url}/v1/merchant/transactions/init-transaction`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: initTransactionBody(contractCode, `bench-${process.pid}-${++sequence}`),
      });
      const reply = await response.json();
      if (!reply.requestSuccessful) throw new Error('plain checkout failed');
    };
    const { ours, baseline } = await compareMs(() => pay.checkouts.create(CHECKOUT), plain, {
      iterations: 300,
    });
    return {
      name: 'overhead.providerN.checkout',
      ours,
      baseline,
      unit: 'ms (median per call)',
      target: '≤ 1.10',
    };
  } finally {
    await simulator.close();
  }
}

/** verify.providerN: webhooks verified per second through handler.handle, over raw Web Crypto HMAC + compare + parse. */
export async function verifyWebhooks() {
  const webhookSecret = 'bench_webhook_secret_0123456789';
  const pay = createPay(createProviderN({ apiKey: 'k', secretKey: 's', isSandbox: true }));
  const handler = pay.webhooks.setup({ webhookSecret });
  const eventData = {
    transactionReference: 'PN|20261122101530|000123',
    paymentReference: 'ref-1',
    amountPaid: 5000,
    totalPayable: 5000,
    settlementAmount: 4925,
    paidOn: '2026-11-22 10:20:11',
    paymentStatus: 'PAID',
    paymentDescription: 'plan',
    currency: 'NGN',
    paymentMethod: 'CARD',
    customer: { email: 'ada@example.com', name: 'Ada' },
    metaData: {},
  };
  const request = await providerNWebhookRequest(
    { eventType: 'SUCCESSFUL_TRANSACTION', eventData },
    { webhookSecret },
  );
  const ours = await opsPerSecond(() => handler.handle(request));
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(webhookSecret),
    { name: 'HMAC', hash: 'SHA-512' },
    false,
    ['sign'],
  );
  const byHand = async () => {
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(request.body)));
    const hex = Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('');
    if (!timingSafeEqual(hex, request.headersAsObject['providerN-signature'])) throw new Error('refused');
    JSON.parse(request.body);
  };
  const baseline = await opsPerSecond(byHand);
  // The same work by hand with the HMAC computed as core computes it on Node (node:crypto, no worker thread):
  // what the handler itself adds per delivery, the HMAC aside.
  const sameHmac = async () => {
    const hex = createHmac('sha512', webhookSecret).update(request.body).digest('hex');
    if (!timingSafeEqual(hex, request.headersAsObject['providerN-signature'])) throw new Error('refused');
    JSON.parse(request.body);
  };
  const handlerOnly = await opsPerSecond(sameHmac);
  return [
    { name: 'verify.providerN', ours, baseline, unit: 'deliveries/s', target: 'ratio ≥ 0.9' },
    {
      name: 'verify.providerN.handler',
      ours,
      baseline: handlerOnly,
      unit: 'deliveries/s (baseline: node:crypto HMAC)',
    },
  ];
}

/** tokens.cold200: logins made by 200 concurrent operations on a cold adapter (target 1). */
export async function coldTokens() {
  const simulator = await startProviderNSimulator();
  try {
    const pay = createPay(adapterFor(simulator));
    const first = await pay.checkouts.create(CHECKOUT);
    const cold = createPay(adapterFor(simulator));
    const before = simulator.books.logins;
    await Promise.all(Array.from({ length: 200 }, () => cold.payments.retrieve(first.id)));
    return {
      name: 'tokens.cold200',
      ours: simulator.books.logins - before,
      baseline: 1,
      unit: 'logins',
      target: '1',
    };
  } finally {
    await simulator.close();
  }
}
