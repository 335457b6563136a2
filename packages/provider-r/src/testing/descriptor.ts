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
  start: (options) => startProviderRSimulator(options),
};
