/**
 * `@pay/provider-r/testing`: a loopback simulator of Provider R (the `@pay/core/testing` kit's `PaymentSimulator`,
 * with a hosted page a person pays on), a push-notification builder for your own tests, and `simulator`, the
 * descriptor `pay dev @pay/provider-r` runs it from. Test-only: it uses `node:http`.
 */
export { simulator } from './descriptor.js';
export {
  buildProviderRPush,
  type ProviderRPush,
  type ProviderRPushFields,
  type ProviderRPushOptions,
} from './signing.js';
export {
  type DeliverWebhookOptions,
  HOSTED_PAGE_PATH,
  type ProviderRBooks,
  type ProviderRSimulator,
  type ProviderRSimulatorOptions,
  type RecordedRequest,
  SIMULATOR_MERCHANT,
  SIMULATOR_SECRET,
  type SimulatedRefund,
  type SimulatedTransaction,
  startProviderRSimulator,
} from './simulator/index.js';
