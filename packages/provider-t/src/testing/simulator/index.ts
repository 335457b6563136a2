/**
 * A Provider T simulator: a real HTTP server on 127.0.0.1 implementing the wire contract (docs/providers/provider-t.md) with state — OAuth
 * tokens that expire, quotes with fees, FX and the 30-minute lock, updates that enforce sender, receiver and
 * compliance data, commits replayed by `X-Client-Request-Id`, status, amendments, refunds — plus a hosted
 * receipt page, controls that move a transfer, a clock that can be advanced, signed webhook delivery and
 * forwarding, and fault injection on every route. Built from the kit of `@pay/core/testing` and exposing its
 * `PaymentSimulator` interface.
 *
 * The parts: `state.ts` (the books and their transitions), `routes.ts` (the route table and its checks),
 * `transfers.ts` and `after-commit.ts` (the wire routes), `pages.ts` (the receipt page), `tokens.ts` (OAuth and
 * the clock), `webhooks.ts` (signed deliveries), `replies.ts` (reply shapes), `types.ts` (the public shapes).
 */
import { type PaymentSimulator, startSimulator } from '@pay/core/testing';
import type { ProviderTConfig } from '../../config.js';
import { TRANSACTION_STATUSES } from '../../wire.js';
import { generateProviderTKeyPair } from '../signing.js';
import { addRoutes } from './routes.js';
import { isTransactionStatus, ProviderTBooks } from './state.js';
import { ProviderTClock, ProviderTTokens } from './tokens.js';
import {
  PROVIDER_T_SIMULATOR_CREDENTIALS,
  type ProviderTBooksSnapshot,
  type ProviderTSimulator,
  type ProviderTSimulatorConfig,
  type ProviderTSimulatorCredentials,
  type ProviderTSimulatorOptions,
  type ProviderTTriggerOptions,
} from './types.js';
import { forwardStatus, sendStatusEvent, TRIGGER_STATUSES } from './webhooks.js';

/** Provider T's controls and counters beside the kit's interface (and its `adapterConfig` holding the values). */
type ProviderTOwnMembers = Omit<
  ProviderTSimulator,
  Exclude<keyof PaymentSimulator<ProviderTConfig, ProviderTBooksSnapshot>, 'adapterConfig'>
>;

/** Starts a simulator on 127.0.0.1 (a free port unless `options.port` is given). */
export async function startProviderTSimulator(
  options: ProviderTSimulatorOptions = {},
): Promise<ProviderTSimulator> {
  const credentials: ProviderTSimulatorCredentials = {
    ...PROVIDER_T_SIMULATOR_CREDENTIALS,
    ...options.credentials,
  };
  const keys = options.keyPair ?? generateProviderTKeyPair();
  const clock = new ProviderTClock(options.now);
  const books = new ProviderTBooks(clock);
  const tokens = new ProviderTTokens({
    ...credentials,
    lifetimeSeconds: options.tokenLifetimeSeconds ?? 3599,
    clock,
  });
  const signer = { books, agentPartnerId: credentials.agentPartnerId, privateKey: keys.privateKey };
  return startSimulator(options, {
    provider: 'provider-t',
    requestIdHeader: 'x-client-request-id',
    // Each delivery carries its own Signature header, signed for its URL's host when it is queued.
    sign: () => ({}),
    delivery: { timeoutMs: 30_000 },
    clock,
    tokens: tokens.issuer,
    setup: (kit) => {
      const { forwarder } = kit;
      const context = { books, agentPartnerId: credentials.agentPartnerId, baseUrl: () => kit.url };
      books.onStatusChange((transfer) =>
        forwardStatus(signer, forwarder, transfer.transactionId, transfer.status),
      );
      /**
       * A payer action, after the deliveries already queued are done: a person acts on what the application has
       * been told, and the application's status read for the earlier webhook still sees the status it pushed.
       */
      const act = async (transactionId: string, action: 'pay' | 'fail' | 'cancel') => {
        await forwarder.idle();
        books.payerAction(transactionId, action);
      };
      const notFound = addRoutes({ routes: kit.routes, context, tokens, pages: { act, forwarder } });
      const config = (): ProviderTSimulatorConfig => ({
        ...credentials,
        isSandbox: true,
        baseUrl: kit.url,
        webhookPublicKey: keys.publicKey,
      });
      /** The adapter configuration with `overrides` (the kit's `adapterConfig`). */
      const adapterConfig = (overrides: Partial<ProviderTConfig> = {}) => ({ ...config(), ...overrides });
      return {
        notFound,
        adapterConfig,
        books: () => ({
          transfers: [...books.transfers.values()].map((transfer) => structuredClone(transfer)),
          refunds: structuredClone(books.refunds),
          movements: structuredClone(books.movements),
          quotes: books.quotes,
          committedTransfers: books.committed,
          replays: books.replays,
          amendments: books.amendments,
          tokensIssued: tokens.issuer.issued,
          webhooks: structuredClone([...forwarder.deliveries]),
        }),
        act,
        async trigger(event, triggerOptions: ProviderTTriggerOptions) {
          const status = TRIGGER_STATUSES.get(event) ?? event;
          if (!isTransactionStatus(status)) {
            const known = [...TRIGGER_STATUSES.keys()].join(', ');
            throw new Error(
              `Provider T has no event ${event}: the simulator triggers ${known}, or a Provider T status (${TRANSACTION_STATUSES.join(', ')}).`,
            );
          }
          const url = triggerOptions.to ?? forwarder.url;
          if (!url) throw new Error('trigger() needs options.to or a forwarding URL (forwardWebhooks).');
          // As for a payer action: the deliveries already queued land before the status moves under them.
          await forwarder.idle();
          const transactionId =
            triggerOptions.transactionId ?? books.addTriggeredTransfer(status).transactionId;
          books.setStatusQuietly(transactionId, status);
          return sendStatusEvent(signer, forwarder, url, { transactionId, eventId: triggerOptions.eventId });
        },
        triggerOptions: triggerOptionsFrom,
        members: (): ProviderTOwnMembers => ({
          credentials,
          publicKey: keys.publicKey,
          privateKey: keys.privateKey,
          // Callable (the kit's interface) and holding the values (the spread older tests use).
          adapterConfig: Object.assign(
            (overrides?: Partial<ProviderTConfig>) => adapterConfig(overrides),
            config(),
          ),
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
            return tokens.issuer.issued;
          },
          transfer(transactionId) {
            const transfer = books.transfers.get(transactionId);
            return transfer && structuredClone(transfer);
          },
          setStatus(transactionId, next) {
            books.setStatus(transactionId, next);
          },
          async deliverWebhook(url, delivery) {
            return (await sendStatusEvent(signer, forwarder, url, delivery)).status;
          },
        }),
      };
    },
  });
}

/** The trigger options of a control request (JSON from `pay trigger`): the known ones, each a string. */
function triggerOptionsFrom(given: Record<string, unknown>): ProviderTTriggerOptions {
  const known = ['to', 'transactionId', 'eventId'] as const;
  const unknown = Object.keys(given).filter((name) => !(known as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`Provider T's trigger takes the options ${known.join(', ')}; not ${unknown.join(', ')}.`);
  const options: ProviderTTriggerOptions = {};
  for (const name of known) {
    if (!Object.hasOwn(given, name) || given[name] === undefined) continue;
    const value = given[name];
    if (typeof value !== 'string') throw new Error(`The trigger option ${name} must be a string.`);
    options[name] = value;
  }
  return options;
}
