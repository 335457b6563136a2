/**
 * `@pay/provider-n/testing`: a Provider N simulator for loopback tests and signing helpers for your own
 * webhook tests. Test-only: the simulator uses `node:http`.
 */
export {
  type ProviderNWebhookPayload,
  type ProviderNWebhookRequestOptions,
  providerNWebhookRequest,
  signProviderNWebhook,
} from './signing.js';
export {
  type DeliverWebhookOptions,
  PROVIDER_N_SIMULATOR_CREDENTIALS,
  type ProviderNSimulator,
  type ProviderNSimulatorBooks,
  type ProviderNSimulatorCredentials,
  type ProviderNSimulatorOptions,
  type SimulatedRefund,
  type SimulatedRequest,
  type SimulatedTransaction,
  startProviderNSimulator,
} from './simulator.js';
