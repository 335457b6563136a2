// Provider R benchmarks: the payment call's overhead over plain fetch, and local webhook verification.
import { createPay } from '@pay/core';
import { timingSafeEqual } from '@pay/core/adapter';
import { createProviderR } from '@pay/provider-r';
import { buildProviderRPush, startProviderRSimulator } from '@pay/provider-r/testing';
import { compareMs, opsPerSecond } from './harness.mjs';

const PAYMENT = {
  amount: 250, // standard unit: 250.00 CZK, 25000 on the wire
  currency: 'CZK',
  customer: { id: 'customer-42' },
  item_id: 'order-1',
  provider_metadata: { email: 'payer@example.com' },
};

/** overhead.providerR.payment: payments.create through createPay over the same POST made with plain fetch. */
export async function overheadPayment() {
  const simulator = await startProviderRSimulator();
  try {
    const { merchant, secret } = simulator.credentials;
    const pay = createPay(createProviderR(simulator.adapterConfig()));
    const authorization = `Basic ${btoa(`${merchant}:${secret}`)}`;
    const body = JSON.stringify({
      price: 25000,
      curr: 'CZK',
      label: 'Order from Eshop',
      refId: 'order-1',
      payerId: 'customer-42',
      email: 'payer@example.com',
      method: 'ALL',
      prepareOnly: true,
      test: true,
    });
    const plain = async () => {
      const response = await fetch(`${simulator.url}/v2.0/payment`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', accept: 'application/json' },
        body,
      });
      const reply = await response.json();
      if (reply.code !== 0) throw new Error('plain payment failed');
    };
    const { ours, baseline } = await compareMs(() => pay.payments.create(PAYMENT), plain, {
      iterations: 300,
    });
    return {
      name: 'overhead.providerR.payment',
      ours,
      baseline,
      unit: 'ms (median per call)',
      target: '≤ 1.10',
    };
  } finally {
    await simulator.close();
  }
}

/**
 * verify.providerR.local: pushes verified per second through handler.handle (no callbacks), with the status
 * confirmation answered in memory, over the same work done by hand (form parse, constant-time secret check,
 * merchant check, the same in-memory confirmation parsed).
 */
export async function verifyLocal() {
  const merchant = '100001';
  const secret = 'bench-secret-0123456789';
  const statusReply = `code=0&message=OK&merchant=${merchant}&test=true&price=10000&curr=CZK&label=Order&refId=o1&email=p%40example.com&transId=AB12-CD34-EF56&status=PAID&secret=${secret}`;
  const confirm = async () =>
    new Response(statusReply, { headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const pay = createPay(
    createProviderR({
      merchant,
      secret,
      isSandbox: true,
      fetch: confirm,
      baseUrl: 'https://payments.provider-r.example',
    }),
  );
  const handler = pay.webhooks.setup({ webhookSecret: secret });
  const push = buildProviderRPush({
    merchant,
    secret,
    transId: 'AB12-CD34-EF56',
    status: 'PAID',
    price: 10000,
    curr: 'CZK',
    email: 'p@example.com',
    label: 'Order',
    refId: 'o1',
    test: true,
  });
  const request = {
    body: push.body,
    headersAsObject: push.headers,
    fullUrl: 'https://shop.example/webhooks',
  };
  const ours = await opsPerSecond(() => handler.handle(request));
  const byHand = async () => {
    const fields = new URLSearchParams(push.body);
    if (!timingSafeEqual(fields.get('secret') ?? '', secret) || fields.get('merchant') !== merchant)
      throw new Error('refused');
    const reply = new URLSearchParams(await (await confirm()).text());
    if (reply.get('status') !== 'PAID') throw new Error('unconfirmed');
  };
  const baseline = await opsPerSecond(byHand);
  return { name: 'verify.providerR.local', ours, baseline, unit: 'deliveries/s', target: '≥ 0.8' };
}
