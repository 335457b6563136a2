/**
 * Provider N's simulator as the `pay` command serves it (`pay dev @pay/provider-n`, docs/architecture.md#simulator-descriptor).
 */
import { providerVariables } from '@pay/core/adapter';
import type { SimulatorDescriptor } from '@pay/core/testing';
import { PROVIDER_N_ENV, type ProviderNConfig } from '../config.js';
import { startProviderNSimulator } from './simulator/index.js';
import type { ProviderNSimulatorBooks } from './simulator/types.js';
import { TRIGGER_EVENT_TYPES } from './simulator/webhooks.js';

/** What `pay dev` and `pay trigger` need to run Provider N's simulator. */
export const simulator: SimulatorDescriptor<ProviderNConfig, ProviderNSimulatorBooks> = {
  provider: 'provider-n',
  label: 'Provider N',
  env: providerVariables('PROVIDER_N', PROVIDER_N_ENV),
  events: TRIGGER_EVENT_TYPES,
  // Signed with the simulators' fixed secret and verified without a status read: any simulator will do.
  throwawayTrigger: { accepted: true, because: "its events are signed with the simulators' fixed secret" },
  // pay dev's event log (docs/architecture.md#pay-dev): the transactions and refunds, and the app's reads of each.
  objects: (books) => [
    ...books.transactions.map((transaction) => ({
      kind: 'payment',
      id: transaction.transactionReference,
      status: transaction.paymentStatus,
    })),
    ...books.refunds.map((refund) => ({
      kind: 'refund',
      id: refund.refundReference,
      status: refund.refundStatus,
    })),
  ],
  readOf: (request, books) => {
    if (request.method !== 'GET') return undefined;
    const refund = /^\/v1\/refunds\/([^/]+)$/.exec(request.path);
    if (refund?.[1] !== undefined) return decodeURIComponent(refund[1]);
    if (request.path !== '/v1/merchant/transactions/query') return undefined;
    // The read takes the transaction's reference or the merchant's own payment reference.
    const { transactionReference, paymentReference } = request.query;
    return (
      transactionReference ??
      books.transactions.find((transaction) => transaction.paymentReference === paymentReference)
        ?.transactionReference
    );
  },
  start: (options) => startProviderNSimulator(options),
};
