/**
 * Provider R's simulator as the `pay` command serves it (`pay dev @pay/provider-r`, docs/architecture.md#simulator-descriptor).
 */
import { providerVariables } from '@pay/core/adapter';
import type { SimulatorDescriptor } from '@pay/core/testing';
import { PROVIDER_R_ENV, type ProviderRConfig } from '../config.js';
import { PROVIDER_R_STATUSES } from '../wire.js';
import { type ProviderRBooks, startProviderRSimulator } from './simulator/index.js';

/** What `pay dev` and `pay trigger` need to run Provider R's simulator. */
export const simulator: SimulatorDescriptor<ProviderRConfig, ProviderRBooks> = {
  provider: 'provider-r',
  label: 'Provider R',
  env: providerVariables('PROVIDER_R', PROVIDER_R_ENV),
  events: PROVIDER_R_STATUSES,
  // The app confirms every push with a status read at PROVIDER_R_BASE_URL: the running simulator's books.
  throwawayTrigger: {
    accepted: false,
    because: "the app confirms every push with a status read that the running simulator's books must answer",
  },
  // pay dev's event log (docs/architecture.md#pay-dev): the transactions and refunds, and the app's status reads.
  objects: (books) => [
    ...books.transactions.map((transaction) => ({
      kind: transaction.kind,
      id: transaction.transId,
      status: transaction.status,
    })),
    // The wire gives a refund neither an id nor a status of its own: it is listed under its transaction.
    ...books.refunds.map((refund) => ({
      kind: 'refund',
      id: refund.refId ?? refund.transId,
      status: 'accepted',
    })),
  ],
  // The status read is a form POST carrying the transaction's `transId` (docs/providers/provider-r.md#calls).
  readOf: (request) =>
    request.method === 'POST' && request.path === '/v1.0/status'
      ? (new URLSearchParams(request.body).get('transId') ?? undefined)
      : undefined,
  start: (options) => startProviderRSimulator(options),
};
