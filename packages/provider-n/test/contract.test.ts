import type { CallOptions, Pay } from '@pay/core';
import { runAdapterContract } from '@pay/core/testing/contract';
import { createProviderN, type ProviderNAdapter, providerN } from '../src/index.js';
import {
  providerNWebhookRequest,
  signProviderNWebhook,
  startProviderNSimulator,
} from '../src/testing/index.js';
import type { ProviderNPaymentStatus } from '../src/wire.js';
import { API_KEY, SECRET_KEY, transactionEventData, WEBHOOK_SECRET } from './fixtures.js';

/** Opens a checkout for `amount` of `currency` through `pay`. */
const openCheckout = (
  pay: Pay<ProviderNAdapter>,
  amount = 5000,
  options: CallOptions = {},
  currency = 'NGN',
) =>
  pay.checkouts.create(
    {
      customer: { email: 'ada@example.com' },
      item_id: 'blue-mug',
      success_url: 'https://shop.example/thanks',
      provider_metadata: { amount, currency },
    },
    options,
  );

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
    start: () => startProviderNSimulator(),
    createAdapter: (simulator, settings) => createProviderN(simulator.adapterConfig(settings)),
    credentials: ({ credentials }) => [credentials.apiKey, credentials.secretKey, credentials.webhookSecret],
    async produceRecords({ pay }) {
      const checkout = await openCheckout(pay);
      return [checkout, await pay.payments.retrieve(checkout.id)];
    },
    // The simulator answers a refund of a transaction it does not hold with the provider's refusal.
    refusedCall: ({ pay }) => pay.refunds.create({ payment_id: 'MNFY|00|NOT-A-TRANSACTION', amount: 10 }),
    statuses: {
      paid: ['PAID', 'OVERPAID'],
      failed: ['FAILED', 'EXPIRED', 'ABANDONED', 'CANCELLED', 'REVERSED'],
      notPaid: ['PENDING', 'PARTIALLY_PAID'],
      async read({ pay, simulator }, status) {
        const checkout = await openCheckout(pay);
        // An undocumented status reaches the simulator's books as any other: the adapter must not read it as paid.
        simulator.complete(checkout.id, { status: status as ProviderNPaymentStatus });
        return pay.payments.retrieve(checkout.id);
      },
    },
    moneyMovingCalls: [
      {
        name: 'checkouts.create',
        method: 'POST',
        path: /^\/v1\/merchant\/transactions\/init-transaction$/,
        send: ({ pay }, _prepared, options) => openCheckout(pay, 5000, options),
        moved: (simulator) => simulator.books().transactions.length,
      },
      {
        name: 'refunds.create',
        method: 'POST',
        path: /^\/v1\/refunds\/initiate-refund$/,
        async prepare({ pay, simulator }) {
          const checkout = await openCheckout(pay);
          simulator.complete(checkout.id);
          return checkout.id;
        },
        send: ({ pay }, transactionReference, options) =>
          pay.refunds.create({ payment_id: transactionReference as string, amount: 1000 }, options),
        moved: (simulator) => simulator.books().refunds.length,
      },
    ],
    amounts: {
      unit: 'major',
      currencies: [{ currency: 'NGN', decimals: 2 }],
      send: ({ pay }, amount, currency) => openCheckout(pay, amount, {}, currency),
      path: /^\/v1\/merchant\/transactions\/init-transaction$/,
      wireAmount: (request) => (JSON.parse(request.body) as { amount: unknown }).amount,
    },
    unknownIds: {
      'payments.retrieve': 'MNFY|00|NOT-A-TRANSACTION',
      'checkouts.retrieve': 'MNFY|00|NOT-A-TRANSACTION',
    },
  },
});
