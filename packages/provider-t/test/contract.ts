import type { CallOptions, Pay } from '@pay/core';
import type { AdapterContract, FaultedStep } from '@pay/core/testing/contract';
import { expect } from 'vitest';
import { createProviderT, type ProviderTAdapter, providerT } from '../src/index.js';
import {
  generateProviderTKeyPair,
  type ProviderTSimulator,
  providerTStatusEvent,
  signedProviderTWebhook,
  simulator as simulatorDescriptor,
  startProviderTSimulator,
} from '../src/testing/index.js';
import type { TransactionStatus } from '../src/wire.js';
import { CLIENT_ID, CLIENT_SECRET, statusReply, TRANSACTION_ID, transferMetadata } from './fixtures.js';

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

/** The commit of a transfer: the call that moves the money. */
const COMMIT = /^\/transfer\/v1\/transactions\/[^/]+\/commit$/;
/** The commit of a refund. */
const REFUND_COMMIT = /^\/refund\/v2\/transactions\/[^/]+\/commit$/;

/**
 * Each upstream call of a transfer and of a refund, as Provider T's errors name the step they reached
 * (docs/architecture.md#errors): whether the call is retried (the quote never is), and what the books hold when it
 * fails, given whether the provider acted on it. The suite's fault matrix faults each one.
 */
const T_STEPS: readonly {
  path: RegExp;
  step: string;
  retried: boolean;
  /** The error names the transfer (`context.transactionId`). */
  names: boolean;
  books(simulator: ProviderTSimulator, acted: boolean, id: string): void;
}[] = [
  {
    path: /^\/oauth\/accesstoken$/,
    step: 'quote',
    retried: true,
    names: false,
    books: (simulator) => transferBooks(simulator, 0, 0),
  },
  {
    path: /^\/transfer\/v1\/transactions\/quote$/,
    step: 'quote',
    retried: false,
    names: false,
    books: (simulator, acted) => transferBooks(simulator, acted ? 1 : 0, 0),
  },
  {
    path: /^\/transfer\/v1\/transactions\/[^/]+$/,
    step: 'update',
    retried: true,
    names: true,
    books: (simulator, acted) => {
      transferBooks(simulator, 1, 0);
      expect(simulator.transfers[0]?.status).toBe(acted ? 'READY' : 'QUOTED');
    },
  },
  {
    path: COMMIT,
    step: 'commit',
    retried: true,
    names: true,
    books: (simulator, acted) => transferBooks(simulator, 1, acted ? 1 : 0),
  },
  {
    path: /^\/refund\/v2\/transactions\/[^/]+$/,
    step: 'refund_read',
    retried: true,
    names: true,
    books: (simulator, _acted, id) => {
      expect(simulator.refunds).toHaveLength(0);
      expect(simulator.transfer(id)?.status).toBe('SENT');
    },
  },
  {
    path: REFUND_COMMIT,
    step: 'refund_commit',
    retried: true,
    names: true,
    books: (simulator, acted, id) => {
      expect(simulator.refunds).toHaveLength(acted ? 1 : 0);
      expect(simulator.transfer(id)?.status).toBe(acted ? 'REFUNDED' : 'SENT');
    },
  },
];

/** A transfer's books: quotes made, transfers committed, nothing refunded. */
function transferBooks(simulator: ProviderTSimulator, quotes: number, committed: number) {
  expect(simulator.quotes).toBe(quotes);
  expect(simulator.committedTransfers).toBe(committed);
  expect(simulator.transfers.filter((transfer) => transfer.committed)).toHaveLength(committed);
  expect(simulator.refunds).toHaveLength(0);
}

/** Faults after which the provider acted on the call although its answer was lost. */
const ACTED = new Set(['drop-after', 'delay', 'malformed']);

/**
 * Provider T's side of a failed transfer or refund: the error's `context` names the step it reached, the transfer
 * and (for a commit) `outcome: 'unknown'`; a login that failed to connect proves nothing was sent; every call but
 * the quote is retried, each attempt with one `X-Client-Request-Id`; the books hold what the provider acted on.
 */
function expectTransferFailure({
  attempts,
  sent,
  fault,
  error,
  simulator,
  prepared,
  settings,
}: FaultedStep<ProviderTSimulator>) {
  const [first] = attempts;
  const row = T_STEPS.find(({ path }) => path.test(first?.path ?? ''));
  if (!row) throw new Error(`no Provider T step for ${first?.method} ${first?.path}`);
  const id = prepared ?? simulator.transfers[0]?.transactionId ?? '';
  const commit = row.step === 'commit' || row.step === 'refund_commit';
  expect(error).toMatchObject({
    context: expect.objectContaining({
      step: row.step,
      ...(row.names ? { transactionId: id } : {}),
      ...(commit ? { outcome: 'unknown' } : {}),
      ...(row.step === 'refund_commit' ? { refundId: expect.stringMatching(/^rfd-/) } : {}),
    }),
  });
  if (fault.kind === 'drop' || fault.kind === 'drop-after' || fault.kind === 'delay')
    expect(error).toMatchObject({ outcome: row.path.test('/oauth/accesstoken') ? 'not_sent' : 'unknown' });
  if (fault.kind === 'status') expect(error).toMatchObject({ retryable: !commit });
  expect(first?.requestId).toMatch(/^[0-9a-f-]{36}$/);
  // The operation stopped at the failed call: it was the last one sent.
  expect(sent.at(-1)?.requestId).toBe(first?.requestId);
  expect(attempts).toHaveLength(row.retried && fault.kind !== 'malformed' ? settings.retry + 1 : 1);
  row.books(simulator, ACTED.has(fault.kind), id);
}

/** Sends a transfer of `amount` `currency` through `pay` (quote, update, commit). */
const send = (pay: Pay<ProviderTAdapter>, amount = 100, currency = 'USD', options: CallOptions = {}) =>
  pay.payments.create({ amount, currency, provider_metadata: transferMetadata }, options);

/** Provider T's declaration to the conformance suite (docs/architecture.md#conformance-suite): run by contract.test.ts, mutated by mutations.test.ts. */
export const providerTContract: AdapterContract<ProviderTSimulator, ProviderTAdapter> = {
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
  simulator: {
    start: () => startProviderTSimulator({ keyPair: keys }),
    descriptor: simulatorDescriptor,
    webhookSecret: () => null,
    liveSettings: { isSandbox: false },
    noReference: {
      because:
        'Provider T takes no merchant reference: a repeated commit is recognised by its x-client-request-id',
    },
    createAdapter: (simulator, settings) => createProviderT(simulator.adapterConfig(settings)),
    // The client id names the account (as a user name does); the client secret is the credential.
    credentials: ({ credentials }) => [credentials.clientSecret],
    async produceRecords({ pay }) {
      const payment = await send(pay);
      return [payment, await pay.payments.retrieve(payment.id)];
    },
    // The simulator answers the refund of a transfer it does not hold with the provider's 404.
    refusedCall: ({ pay }) => pay.refunds.create({ payment_id: 'TX-NOT-HELD', amount: 100 }),
    statuses: {
      paid: ['SENT', 'AVAILABLE', 'IN TRANSIT', 'RECEIVED', 'DELIVERED'],
      failed: ['REJECTED', 'REFUNDED', 'CLOSED'],
      notPaid: ['UNFUNDED', 'PROCESSING'],
      async read({ pay, simulator }, status) {
        const payment = await send(pay);
        // An undocumented status reaches the simulator's books as any other: the adapter must not read it as paid.
        simulator.setStatus(payment.id, status as TransactionStatus);
        return pay.payments.retrieve(payment.id);
      },
    },
    moneyMovingCalls: [
      {
        name: 'payments.create',
        method: 'PUT',
        path: COMMIT,
        // Provider T replays a commit it already holds under the same request id (docs/providers/provider-t.md#commit).
        resendable: { because: 'the provider replays it by request id', sameHeader: 'x-client-request-id' },
        send: ({ pay }, _prepared, options) => send(pay, 100, 'USD', options),
        moved: (simulator) => simulator.books().committedTransfers,
        expectFailure: expectTransferFailure,
      },
      {
        // A checkout runs the same quote → update → commit as a payment.
        name: 'checkouts.create',
        method: 'PUT',
        path: COMMIT,
        resendable: { because: 'the provider replays it by request id', sameHeader: 'x-client-request-id' },
        send: ({ pay }, _prepared, options) =>
          pay.checkouts.create(
            { provider_metadata: { ...transferMetadata, amount: 100, currency: 'USD' } },
            options,
          ),
        moved: (simulator) => simulator.books().committedTransfers,
        expectFailure: expectTransferFailure,
      },
      {
        name: 'refunds.create',
        method: 'PUT',
        path: REFUND_COMMIT,
        resendable: { because: 'the provider replays it by request id', sameHeader: 'x-client-request-id' },
        prepare: async ({ pay }) => (await send(pay)).id,
        send: ({ pay }, id, options) =>
          pay.refunds.create({ payment_id: id as string, amount: 100 }, options),
        moved: (simulator) => simulator.books().refunds.length,
        expectFailure: expectTransferFailure,
      },
    ],
    amounts: {
      unit: 'major',
      currencies: [{ currency: 'USD', decimals: 2 }],
      send: ({ pay }, amount, currency) => send(pay, amount, currency),
      path: /^\/transfer\/v1\/transactions\/quote$/,
      wireAmount: (request) =>
        (JSON.parse(request.body) as { sendAmount?: { value?: unknown } }).sendAmount?.value,
    },
    unknownIds: { 'payments.retrieve': 'TX-NOT-HELD', 'checkouts.retrieve': 'TX-NOT-HELD' },
  },
};
