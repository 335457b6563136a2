import { runAdapterContract } from '@pay/core/testing/contract';
import { createProviderT, providerT } from '../src/index.js';
import {
  generateProviderTKeyPair,
  providerTStatusEvent,
  signedProviderTWebhook,
} from '../src/testing/index.js';
import { CLIENT_ID, CLIENT_SECRET, statusReply, TRANSACTION_ID } from './fixtures.js';

const keys = generateProviderTKeyPair();
const forger = generateProviderTKeyPair();
const URL_ = 'https://shop.example/webhooks/provider-t';
const event = providerTStatusEvent({
  transactionId: TRANSACTION_ID,
  transactionStatus: 'SENT',
  eventId: 'evt-contract-1',
});

/** Answers the calls webhook verification makes: the login and the status re-read. */
const webhookFetch: typeof fetch = async (input) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.pathname === '/oauth/accesstoken') return Response.json({ access_token: 'tok', expires_in: 3599 });
  if (url.pathname === `/status/v1/transactions/${TRANSACTION_ID}`) return Response.json(statusReply('SENT'));
  return Response.json({ errors: [{ code: 'NOT_FOUND' }] }, { status: 404 });
};

function signed(options: { privateKey?: string; timestamp?: number; host?: string } = {}) {
  return signedProviderTWebhook({
    event,
    url: URL_,
    privateKey: options.privateKey ?? keys.privateKey,
    timestamp: options.timestamp,
    host: options.host,
  });
}

const now = () => Math.floor(Date.now() / 1000);

runAdapterContract({
  name: '@pay/provider-t',
  createAdapter: (fetch) =>
    createProviderT({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      agentPartnerId: '30014857',
      operatorId: 'op-1',
      isSandbox: true,
      webhookPublicKey: keys.publicKey,
      retry: 0,
      fetch,
    }),
  defaultFactory: () => providerT(),
  requiredEnv: [
    'PROVIDER_T_CLIENT_ID',
    'PROVIDER_T_CLIENT_SECRET',
    'PROVIDER_T_AGENT_PARTNER_ID',
    'PROVIDER_T_OPERATOR_ID',
    'PROVIDER_T_SANDBOX',
  ],
  webhookSecret: null,
  genuineWebhook: async () => signed(),
  webhookFetch,
  tamperedWebhooks: [
    {
      name: 'body altered after signing',
      tamper: (genuine) => ({ ...genuine, body: String(genuine.body).replace('SENT', 'REJECTED') }),
    },
    { name: 'signed with another key', tamper: () => signed({ privateKey: forger.privateKey }) },
    { name: 'signed for another host', tamper: () => signed({ host: 'evil.example' }) },
    {
      name: 'posted to another host',
      tamper: (genuine) => ({ ...genuine, fullUrl: 'https://evil.example/webhooks/provider-t' }),
    },
    { name: 'signature older than 65 minutes', tamper: () => signed({ timestamp: now() - 66 * 60 }) },
    { name: 'signature dated 6 minutes ahead', tamper: () => signed({ timestamp: now() + 6 * 60 }) },
    { name: 'Signature header missing', tamper: (genuine) => ({ ...genuine, headersAsObject: {} }) },
    {
      name: 'timestamp changed in the header',
      tamper: (genuine) => {
        const header = String((genuine.headersAsObject as Record<string, string>).signature);
        return {
          ...genuine,
          headersAsObject: { signature: header.replace(/t=(\d+)/, (_, t) => `t=${Number(t) - 1}`) },
        };
      },
    },
  ],
});
