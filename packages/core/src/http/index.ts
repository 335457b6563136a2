/**
 * The HTTP layer of `@pay/core` (docs/architecture.md#http-client): the HTTP client every adapter sends through, the provider client
 * built on it (docs/architecture.md#provider-client), and the reply helpers. Core's entry points re-export this
 * barrel.
 */
export { createHttpClient } from './client.js';
export { CREDENTIALS_HINT } from './failures.js';
export { path } from './paths.js';
export * from './provider-client.js';
export { parseForm, parseJson, parseReply } from './replies.js';
export { backoff, retryAfterMs } from './retry-policy.js';
export type * from './types.js';
