/**
 * The Provider Xyz simulator as the `pay` command serves it: `npx pay dev @scope/pay-provider-xyz`
 * (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#simulator-descriptor).
 */
import { providerVariables } from '@pay/core/adapter';
import type { SimulatorDescriptor } from '@pay/core/testing';
import { PROVIDER_XYZ_ENV, type ProviderXyzConfig } from '../config.js';
import { paymentRequest } from '../requests.js';
import {
  PAYER_STATUS,
  type ProviderXyzBooks,
  SIMULATOR_NAME,
  startProviderXyzSimulator,
} from './simulator/index.js';

/** What `pay dev` and `pay trigger` need to run the simulator. */
export const simulator: SimulatorDescriptor<ProviderXyzConfig, ProviderXyzBooks> = {
  provider: SIMULATOR_NAME,
  label: 'Provider Xyz',
  env: providerVariables('PROVIDER_XYZ', PROVIDER_XYZ_ENV),
  events: Object.values(PAYER_STATUS),
  // Signed with the simulators' fixed secret and verified without a status read: any simulator will do.
  throwawayTrigger: { accepted: true, because: "its events are signed with the simulators' fixed secret" },
  // pay dev's event log (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#pay-dev): the books, and
  // each status read the app made, matched by the adapter's own request so it follows requests.ts.
  objects: (books) => [
    ...books.payments.map(({ id, status }) => ({ kind: 'payment', id, status })),
    ...books.refunds.map(({ id, status }) => ({ kind: 'refund', id, status })),
  ],
  readOf: (request, books) =>
    books.payments.find(({ id }) => {
      const read = paymentRequest(id);
      return request.method === read.method && request.path === read.path;
    })?.id,
  start: (options) => startProviderXyzSimulator(options),
};
