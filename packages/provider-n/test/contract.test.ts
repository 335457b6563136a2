import { runAdapterContract } from '@pay/core/testing/contract';
import { createProviderN, providerN } from '../src/index.js';
import { providerNWebhookRequest, signProviderNWebhook } from '../src/testing/index.js';
import { API_KEY, SECRET_KEY, transactionEventData, WEBHOOK_SECRET } from './fixtures.js';

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
});
