/**
 * Kept while consumers move to `./http/index.js` (docs/architecture.md#http-client): everything the HTTP layer
 * exports.
 */
export * from './http/index.js';
