/**
 * `@pay/provider-n/testing`: a Provider N simulator for loopback tests and signing helpers for your own
 * webhook tests, and `simulator`, the descriptor `pay dev @pay/provider-n` runs it from. Test-only: the simulator
 * uses `node:http` (through the `@pay/core/testing` kit).
 */
export { simulator } from './descriptor.js';
export {
  type ProviderNWebhookPayload,
  type ProviderNWebhookRequestOptions,
  providerNWebhookRequest,
  signProviderNWebhook,
} from './signing.js';
export {
  CHECKOUT_PAGE_PATH,
  type DeliverWebhookOptions,
  PROVIDER_N_SIMULATOR_CREDENTIALS,
  type ProviderNSimulator,
  type ProviderNSimulatorBooks,
  type ProviderNSimulatorCredentials,
  type ProviderNSimulatorOptions,
  type ProviderNTriggerOptions,
  type SimulatedRefund,
  type SimulatedRequest,
  type SimulatedTransaction,
  startProviderNSimulator,
} from './simulator/index.js';
