/**
 * A Provider N simulator on 127.0.0.1, built on the `@pay/core/testing` kit: the wire contract's (docs/providers/provider-n.md#authentication) login,
 * init-transaction, status query, initiate-refund and refund status read with state (`state.ts`), the provider's
 * codes and checks (`routes.ts`), payloads in its published shapes (`payloads.ts`), the hosted checkout page where
 * a person pays, fails or cancels (`pages.ts`), tokens that expire on the simulator's clock, fault injection on
 * every route, and webhooks signed as the provider signs them, delivered to a forwarding URL.
 */

import { toMajorUnits, toMinorUnits } from '@pay/core/adapter';
import { jsonBody, type PayerAction, type PaymentSimulator, startSimulator } from '@pay/core/testing';
import type { ProviderNConfig } from '../../config.js';
import { type ProviderNWebhookPayload, signProviderNWebhook } from '../signing.js';
import { addCheckoutPage, payerAction } from './pages.js';
import {
  refundEventData,
  rejectedPaymentEventData,
  settlementEventData,
  transactionEventData,
} from './payloads.js';
import { addApiRoutes, refusal } from './routes.js';
import { ProviderNLedger, type StoredTransaction } from './state.js';
import type {
  ProviderNSimulator,
  ProviderNSimulatorBooks,
  ProviderNSimulatorCredentials,
  ProviderNSimulatorOptions,
  ProviderNTriggerOptions,
} from './types.js';
import { payerWebhook, triggerOptionsOf, triggerPayload } from './webhooks.js';

export { CHECKOUT_PAGE_PATH } from './pages.js';
export type {
  DeliverWebhookOptions,
  ProviderNSimulator,
  ProviderNSimulatorBooks,
  ProviderNSimulatorCredentials,
  ProviderNSimulatorOptions,
  ProviderNTriggerOptions,
  SimulatedRefund,
  SimulatedRequest,
  SimulatedTransaction,
} from './types.js';

/** Default simulator credentials (the webhook key is the secret key, as with the real provider). */
export const PROVIDER_N_SIMULATOR_CREDENTIALS: Readonly<ProviderNSimulatorCredentials> = Object.freeze({
  apiKey: 'PN_SIM_API_KEY',
  secretKey: 'PN_SIM_SECRET_KEY_0f3b9d',
  contractCode: '4934121693',
  webhookSecret: 'PN_SIM_SECRET_KEY_0f3b9d',
});

/** Provider N's controls beside the kit's interface (and its callable `books`). */
type ProviderNOwnMembers = Omit<
  ProviderNSimulator,
  Exclude<keyof PaymentSimulator<ProviderNConfig, ProviderNSimulatorBooks>, 'books'>
>;

/** Starts a simulator on 127.0.0.1, on `options.port` or a free port. */
export async function startProviderNSimulator(
  options: ProviderNSimulatorOptions = {},
): Promise<ProviderNSimulator> {
  const secretKey = options.credentials?.secretKey ?? PROVIDER_N_SIMULATOR_CREDENTIALS.secretKey;
  const credentials: ProviderNSimulatorCredentials = {
    ...PROVIDER_N_SIMULATOR_CREDENTIALS,
    ...options.credentials,
    // The provider signs webhooks with the merchant's secret key: a changed secret key changes the signing key.
    webhookSecret: options.webhookSecret ?? options.credentials?.webhookSecret ?? secretKey,
  };
  const webhook = (payload: ProviderNWebhookPayload) => ({
    event: payload.eventType,
    body: JSON.stringify(payload),
  });
  return startSimulator(options, {
    provider: 'provider-n',
    requestIdHeader: 'x-request-id',
    sign: async (body) => ({
      'providerN-signature': await signProviderNWebhook(body, credentials.webhookSecret),
    }),
    tokens: { lifetimeSeconds: options.tokenLifetimeSeconds ?? 3599, prefix: 'pn_sim_' },
    setup: (kit) => {
      const { routes, forwarder, requests, clock, tokens } = kit;
      const ledger = new ProviderNLedger({
        clock,
        merchantBalance: options.merchantBalance ?? 10_000_000,
        minimumRefundAmount: options.minimumRefundAmount ?? 10,
      });
      /** A status change the payer made: the webhook the provider sends for it (if any), queued for the forwarding URL. */
      const changed = (transaction: StoredTransaction, action: PayerAction) => {
        const payload = payerWebhook(ledger, transaction, action);
        if (payload) forwarder.enqueue(webhook(payload));
      };
      addApiRoutes(routes, { ledger, tokens, credentials, baseUrl: () => kit.url });
      addCheckoutPage(routes, { ledger, forwarder, changed });
      const snapshot = (): ProviderNSimulatorBooks => ({
        logins: tokens.issued,
        transactions: [...ledger.transactions.values()].map(ProviderNLedger.view),
        refunds: [...ledger.refunds.values()].map(ProviderNLedger.refundView),
        // As before the kit: a JSON body parsed, any other body as text.
        requests: requests.entries.map((request) => ({
          method: request.method,
          path: request.path,
          query: { ...request.query },
          headers: { ...request.headers },
          body: jsonBody(request) ?? request.body,
        })),
        balance: toMajorUnits(ledger.balanceMinor, ledger.balanceCurrency),
      });
      return {
        notFound: (request) =>
          refusal({ status: 404, code: '99', message: `No route ${request.method} ${request.path}` }),
        adapterConfig: (overrides = {}): ProviderNConfig => ({
          apiKey: credentials.apiKey,
          secretKey: credentials.secretKey,
          isSandbox: true,
          ...(credentials.contractCode === undefined ? {} : { contractCode: credentials.contractCode }),
          baseUrl: kit.url,
          ...overrides,
        }),
        books: snapshot,
        act: (id, action) => payerAction({ ledger, changed }, id, action),
        async trigger(eventType, given: ProviderNTriggerOptions) {
          const to = given.to ?? forwarder.url;
          if (!to) throw new Error('trigger needs a URL: pass { to } or call forwardWebhooks(url) first.');
          return forwarder.send(to, webhook(triggerPayload(ledger, eventType, given)));
        },
        triggerOptions: triggerOptionsOf,
        members: (): ProviderNOwnMembers => ({
          credentials,
          get books() {
            // A callable snapshot: `books()` (the kit's interface) and `books.transactions` (as before) both read now.
            return Object.assign(() => snapshot(), snapshot());
          },
          complete(transactionReference, outcome = {}) {
            const transaction = ledger.transaction(transactionReference);
            const status = outcome.status ?? 'PAID';
            const paid = status === 'PAID' || status === 'OVERPAID';
            const paidMinor =
              outcome.amountPaid !== undefined
                ? toMinorUnits(outcome.amountPaid, transaction.currency)
                : paid
                  ? transaction.amountMinor
                  : 0;
            ledger.settlePayment(transaction, status, paidMinor);
            return transactionEventData(transaction, outcome.paymentMethod);
          },
          completeRefund: (refundReference, outcome = {}) =>
            refundEventData(ledger.completeRefund(refundReference, outcome.status ?? 'COMPLETED')),
          settle(transactionReferences) {
            const settled = transactionReferences.map((reference) => {
              const transaction = ledger.transactions.get(reference);
              if (!transaction || transaction.amountPaidMinor === 0)
                throw new Error(`The simulator has no paid transaction ${reference} to settle.`);
              return transaction;
            });
            return settlementEventData(ledger, settled);
          },
          rejectPayment: (transactionReference, rejection) =>
            rejectedPaymentEventData(ledger, ledger.transaction(transactionReference), {
              amountSent: rejection.amountSent,
              reason: rejection.reason ?? 'UNDER_PAYMENT',
            }),
          async deliverWebhook(url, payload, deliveryOptions = {}) {
            const body = JSON.stringify(payload);
            const signature =
              deliveryOptions.signature ?? (await signProviderNWebhook(body, credentials.webhookSecret));
            const response = await fetch(url, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                ...deliveryOptions.headers,
                'providerN-signature': signature,
              },
              body,
            });
            await response.arrayBuffer();
            return response.status;
          },
        }),
      };
    },
  });
}
