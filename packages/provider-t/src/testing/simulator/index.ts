/**
 * A Provider T simulator: a real HTTP server on 127.0.0.1 implementing the wire contract with state — OAuth
 * tokens that expire, quotes with fees, FX and the 30-minute lock, updates that enforce sender, receiver and
 * compliance data, commits replayed by `X-Client-Request-Id`, status, amendments, refunds — plus controls that
 * move a transfer, a clock that can be advanced, signed webhook delivery, and fault injection on every route.
 *
 * The parts: `state.ts` (the books and their transitions), `routes.ts` (HTTP dispatch), `transfers.ts` and
 * `after-commit.ts` (the wire routes), `pages.ts` (receipt links), `tokens.ts` (OAuth), `webhooks.ts` (signed
 * deliveries), `replies.ts` (reply shapes), `types.ts` (the public shapes).
 */
import { FaultInjector, startLoopbackServer } from '@pay/core/testing';
import { generateProviderTKeyPair } from '../signing.js';
import { createListener } from './routes.js';
import { ProviderTBooks } from './state.js';
import { ProviderTTokens } from './tokens.js';
import {
  PROVIDER_T_SIMULATOR_CREDENTIALS,
  type ProviderTSimulator,
  type ProviderTSimulatorCredentials,
  type ProviderTSimulatorOptions,
  type RecordedRequest,
} from './types.js';
import { deliverStatusEvent } from './webhooks.js';

export {
  type DeliverWebhookOptions,
  PROVIDER_T_SIMULATOR_CREDENTIALS,
  type ProviderTSimulator,
  type ProviderTSimulatorCredentials,
  type ProviderTSimulatorOptions,
  type RecordedRequest,
  type SimulatedMovement,
  type SimulatedRefund,
  type SimulatedTransfer,
} from './types.js';

/** Starts a simulator on 127.0.0.1 with a free port. */
export async function startProviderTSimulator(
  options: ProviderTSimulatorOptions = {},
): Promise<ProviderTSimulator> {
  const credentials: ProviderTSimulatorCredentials = {
    ...PROVIDER_T_SIMULATOR_CREDENTIALS,
    ...options.credentials,
  };
  const keys = options.keyPair ?? generateProviderTKeyPair();
  const books = new ProviderTBooks(options.now);
  const now = () => books.now();
  const tokens = new ProviderTTokens({
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    lifetimeSeconds: options.tokenLifetimeSeconds ?? 3599,
    now,
  });
  const faults = new FaultInjector();
  const requests: RecordedRequest[] = [];
  let baseUrl = '';
  const context = { books, agentPartnerId: credentials.agentPartnerId, baseUrl: () => baseUrl };
  const signer = { books, agentPartnerId: credentials.agentPartnerId, privateKey: keys.privateKey };

  const server = await startLoopbackServer(createListener({ context, tokens, faults, requests }));
  baseUrl = server.url;

  return {
    url: server.url,
    credentials,
    publicKey: keys.publicKey,
    privateKey: keys.privateKey,
    adapterConfig: { ...credentials, isSandbox: true, baseUrl: server.url, webhookPublicKey: keys.publicKey },
    faults,
    get transfers() {
      return [...books.transfers.values()].map((transfer) => structuredClone(transfer));
    },
    get quotes() {
      return books.quotes;
    },
    get committedTransfers() {
      return books.committed;
    },
    get refunds() {
      return books.refunds.map((refund) => structuredClone(refund));
    },
    get movements() {
      return books.movements.map((movement) => structuredClone(movement));
    },
    get replays() {
      return books.replays;
    },
    get amendments() {
      return books.amendments;
    },
    get tokensIssued() {
      return tokens.issued;
    },
    get requests() {
      return [...requests];
    },
    transfer(transactionId) {
      const transfer = books.transfers.get(transactionId);
      return transfer && structuredClone(transfer);
    },
    setStatus(transactionId, next) {
      void books.setStatus(transactionId, next);
    },
    advanceTime(ms) {
      books.advanceTime(ms);
    },
    expireTokens() {
      tokens.expireAll();
    },
    async deliverWebhook(url, delivery) {
      return (await deliverStatusEvent(signer, url, delivery)).status;
    },
    close: () => server.close(),
  };
}
