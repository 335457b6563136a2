import type { AnyAdapter, Pay } from '@pay/core';
import { runAdapterContract } from '@pay/core/testing/contract';
import { createProviderR, type ProviderRAdapter, providerR } from '../src/index.js';
import { buildProviderRPush, startProviderRSimulator } from '../src/testing/index.js';
import { MERCHANT, pushFields, SECRET, statusReply, TRANS_ID } from './fixtures.js';

/** Answers the status call the verification makes: PAID for TRANS_ID, 1104 for any other transaction. */
const statusFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const form = new URLSearchParams(await request.text());
  const body =
    form.get('transId') === TRANS_ID ? statusReply() : 'code=1104&message=Transaction+cannot+be+loaded';
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
};

const genuine = () => ({
  body: new URLSearchParams(pushFields()).toString(),
  headersAsObject: { 'content-type': 'application/x-www-form-urlencoded' },
  fullUrl: 'https://shop.example/webhooks/provider-r',
});

/** A push with some fields replaced, as an attacker would send it. */
const withFields = (overrides: Record<string, string>) => () => ({
  ...genuine(),
  body: new URLSearchParams(pushFields(overrides)).toString(),
});

/** The contract hands the simulator members a `Pay` over the adapter `start` built: a Provider R one. */
const providerRPay = (pay: Pay<AnyAdapter>) => pay as unknown as Pay<ProviderRAdapter>;

runAdapterContract({
  name: '@pay/provider-r',
  createAdapter: (fetch) =>
    createProviderR({ merchant: MERCHANT, secret: SECRET, isSandbox: true, fetch, retry: 0 }),
  defaultFactory: () => providerR(),
  requiredEnv: ['PROVIDER_R_MERCHANT', 'PROVIDER_R_SECRET', 'PROVIDER_R_SANDBOX'],
  webhookSecret: SECRET,
  genuineWebhook: async () => genuine(),
  webhookFetch: statusFetch,
  tamperedWebhooks: [
    { name: 'wrong secret', tamper: withFields({ secret: 'not-the-secret' }) },
    { name: 'secret differing in one character', tamper: withFields({ secret: `${SECRET.slice(0, -1)}0` }) },
    { name: 'another merchant', tamper: withFields({ merchant: '654321' }) },
    { name: 'a transaction the provider does not know', tamper: withFields({ transId: 'FAKE-FAKE-FAKE' }) },
    {
      name: 'secret removed',
      tamper: () => {
        const { secret: _secret, ...fields } = pushFields();
        return { ...genuine(), body: new URLSearchParams(fields).toString() };
      },
    },
    {
      name: 'JSON push with the wrong secret',
      tamper: () => {
        const push = buildProviderRPush(
          {
            merchant: MERCHANT,
            secret: 'nope',
            transId: TRANS_ID,
            status: 'PAID',
            price: 10000,
            curr: 'CZK',
          },
          { format: 'json' },
        );
        return { ...genuine(), body: push.body, headersAsObject: push.headers };
      },
    },
  ],
  simulator: {
    async start() {
      const simulator = await startProviderRSimulator();
      return { adapter: createProviderR(simulator.adapterConfig()), close: () => simulator.close() };
    },
    async produceRecords(pay) {
      const payment = await providerRPay(pay).payments.create({
        customer: { id: 'cust_42' },
        amount: 100,
        provider_metadata: { email: 'payer@example.com' },
      });
      return [payment, await providerRPay(pay).payments.retrieve(payment.id)];
    },
    // The simulator refuses to refund a cancelled payment (code 1401), as the provider does.
    async refusedCall(pay) {
      const pending = await providerRPay(pay).payments.create({
        customer: { id: 'cust_42' },
        amount: 100,
        provider_metadata: { email: 'payer@example.com' },
      });
      await providerRPay(pay).payments.cancel(pending.id);
      return providerRPay(pay).refunds.create({ payment_id: pending.id, amount: 1 });
    },
  },
});
