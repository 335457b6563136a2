/**
 * The Provider Xyz simulator as the `pay` command serves it: `npx pay dev @scope/pay-provider-xyz`
 * (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#simulator-descriptor).
 */
import { providerVariables } from '@pay/core/adapter';
import type { SimulatorDescriptor } from '@pay/core/testing';
import { PROVIDER_XYZ_ENV, type ProviderXyzConfig } from '../config.js';
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
  start: (options) => startProviderXyzSimulator(options),
};
