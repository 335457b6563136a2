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
