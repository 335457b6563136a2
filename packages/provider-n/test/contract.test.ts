import type { AnyAdapter, Pay } from '@pay/core';
import { runAdapterContract } from '@pay/core/testing/contract';
import { createProviderN, type ProviderNAdapter, providerN } from '../src/index.js';
import {
  providerNWebhookRequest,
  signProviderNWebhook,
  startProviderNSimulator,
} from '../src/testing/index.js';
import { API_KEY, SECRET_KEY, transactionEventData, WEBHOOK_SECRET } from './fixtures.js';

/** The contract hands the simulator members a `Pay` over the adapter `start` built: a Provider N one. */
const providerNPay = (pay: Pay<AnyAdapter>) => pay as unknown as Pay<ProviderNAdapter>;

runAdapterContract({
  name: '@pay/provider-n',
  createAdapter: (fetch) =>
    createProviderN({ apiKey: API_KEY, secretKey: SECRET_KEY, isSandbox: true, fetch }),
  defaultFactory: () => providerN(),
  requiredEnv: ['PROVIDER_N_API_KEY', 'PROVIDER_N_SECRET_KEY', 'PROVIDER_N_SANDBOX'],
  webhookSecret: WEBHOOK_SECRET,
  genuineWebhook: () =>
    providerNWebhookRequest(
      { eventType: 'SUCCESSFUL_TRANSACTION', eventData: transactionEventData },
      { webhookSecret: WEBHOOK_SECRET },
    ),
  tamperedWebhooks: [
    {
      name: 'amount changed after signing',
      tamper: (genuine) => ({
        ...genuine,
        body: String(genuine.body).replace('"totalPayable":5000', '"totalPayable":1'),
      }),
    },
    { name: 'signature header removed', tamper: (genuine) => ({ ...genuine, headersAsObject: {} }) },
    {
      name: 'signed with another secret',
      tamper: async (genuine) => ({
        ...genuine,
        headersAsObject: {
          'providerN-signature': await signProviderNWebhook(String(genuine.body), 'not-the-secret'),
        },
      }),
    },
    {
      name: 'signature of a different body',
      tamper: async (genuine) => ({
        ...genuine,
        headersAsObject: { 'providerN-signature': await signProviderNWebhook('{}', WEBHOOK_SECRET) },
      }),
    },
    {
      name: 'signature as base64 instead of hex',
      tamper: async (genuine) => {
        const hex = await signProviderNWebhook(String(genuine.body), WEBHOOK_SECRET);
        return {
          ...genuine,
          headersAsObject: { 'providerN-signature': Buffer.from(hex, 'hex').toString('base64') },
        };
      },
    },
  ],
  simulator: {
    async start() {
      const simulator = await startProviderNSimulator();
      return { adapter: createProviderN(simulator.adapterConfig()), close: () => simulator.close() };
    },
    async produceRecords(pay) {
      const checkout = await providerNPay(pay).checkouts.create({
        customer: { email: 'ada@example.com' },
        item_id: 'blue-mug',
        success_url: 'https://shop.example/thanks',
        provider_metadata: { amount: 5000, currency: 'NGN' },
      });
      return [checkout, await providerNPay(pay).payments.retrieve(checkout.id)];
    },
    // The simulator answers a refund of a transaction it does not hold with the provider's refusal.
    refusedCall: (pay) =>
      providerNPay(pay).refunds.create({ payment_id: 'MNFY|00|NOT-A-TRANSACTION', amount: 10 }),
  },
});
