/**
 * `@pay/provider-r/testing`: a loopback simulator of Provider R and a push-notification builder for your own
 * tests. Test-only: it uses `node:http`.
 */
export {
  buildProviderRPush,
  type ProviderRPush,
  type ProviderRPushFields,
  type ProviderRPushOptions,
} from './push.js';
export {
  type DeliverWebhookOptions,
  type ProviderRSimulator,
  type ProviderRSimulatorOptions,
  type RecordedRequest,
  SIMULATOR_MERCHANT,
  SIMULATOR_SECRET,
  type SimulatedRefund,
  type SimulatedTransaction,
  startProviderRSimulator,
} from './simulator.js';
