/**
 * `@pay/core`: one API for payments, checkouts, refunds, customers, subscriptions and verified webhooks over
 * one configured provider adapter, plus what adapters build on (HTTP client, token manager, crypto and money
 * helpers, the error tree).
 */
export { createPay, Pay, type TypesOf } from './pay.js';
export {
  type Adapter,
  type AdapterDefinition,
  type AdapterOperations,
  type AdapterTypes,
  type CallOptions,
  defineAdapter,
  type MetadataOf,
  OPERATION_METHODS,
  type Operation,
  type OperationImplementations,
  type OperationMethod,
} from './adapter.js';
export * from './records.js';
export * from './errors.js';
export { parseInput, assertNoIssues, toValidationIssues } from './validation.js';
export * from './money.js';
export * from './crypto.js';
export * from './config.js';
export { createTokenManager, type AccessToken, type TokenManager, type TokenManagerOptions } from './token.js';
export {
  createHttpClient,
  path,
  parseForm,
  parseJson,
  parseReply,
  type Authorization,
  type HttpClient,
  type HttpClientOptions,
  type HttpHooks,
  type HttpMethod,
  type HttpReply,
  type HttpRequest,
  type HttpRequestInfo,
  type HttpResponseInfo,
  type TransportOptions,
} from './http.js';
export * from './webhooks/types.js';
export {
  WebhookHandler,
  lowerCaseHeaders,
  type WebhookCallback,
  type WebhookRequest,
  type WebhookResult,
  type WebhookSetupOptions,
} from './webhooks/handler.js';
export { createMemoryDeduplicationStore, type DeduplicationStore } from './webhooks/dedupe.js';
export {
  replyFor,
  toFetchHandler,
  toNodeListener,
  type NodeListenerOptions,
  type NodeRequestLike,
  type NodeResponseLike,
  type WebhookReply,
} from './webhooks/bridges.js';
