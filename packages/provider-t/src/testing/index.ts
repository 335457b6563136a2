/**
 * `@pay/provider-t/testing`: a Provider T simulator on 127.0.0.1, signing helpers for webhook tests and a sample
 * transfer, and `simulator`, the descriptor `pay dev @pay/provider-t` runs it from.
 * Test-only: uses `node:http` and `node:crypto`.
 */
export { simulator } from './descriptor.js';
export { sampleTransferMetadata } from './sample.js';
export {
  generateProviderTKeyPair,
  type ProviderTKeyPair,
  providerTStatusEvent,
  type SignWebhookOptions,
  type StatusEventOptions,
  signedProviderTWebhook,
  signProviderTWebhook,
} from './signing.js';
export { startProviderTSimulator } from './simulator/index.js';
export {
  type DeliverWebhookOptions,
  PROVIDER_T_SIMULATOR_CREDENTIALS,
  type ProviderTBooksSnapshot,
  type ProviderTSimulator,
  type ProviderTSimulatorConfig,
  type ProviderTSimulatorCredentials,
  type ProviderTSimulatorOptions,
  type ProviderTTriggerOptions,
  type RecordedRequest,
  type SimulatedMovement,
  type SimulatedRefund,
  type SimulatedTransfer,
} from './simulator/types.js';
