/**
 * `@scope/pay-provider-xyz/testing`: a Provider Xyz simulator for loopback tests, a signing helper for your own
 * webhook tests, and `simulator`, the descriptor `pay dev @scope/pay-provider-xyz` runs. Test-only: the simulator
 * uses `node:http` through the `@pay/core/testing` kit.
 */
export { simulator } from './descriptor.js';
export { signProviderXyzWebhook } from './signing.js';
export {
  PROVIDER_XYZ_SIMULATOR_SECRET_KEY,
  type ProviderXyzBooks,
  type ProviderXyzSimulator,
  type SimulatedPayment,
  type SimulatedRefund,
  startProviderXyzSimulator,
} from './simulator/index.js';
