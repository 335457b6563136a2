/**
 * The HTTP layer of `@pay/core` (design §6): the HTTP client every adapter sends through, the provider client
 * built on it (Contract A, issue 13 item 1), and the reply helpers. Core's entry points re-export this barrel.
 */
export * from './client.js';
export * from './provider-client.js';
