/**
 * `@pay/core`: one API for payments, checkouts, refunds, customers, subscriptions and verified webhooks over
 * one configured provider adapter, plus what adapters build on (HTTP client, token manager, crypto and money
 * helpers, the error tree).
 */

export {
  type Adapter,
  type AdapterDefinition,
  type AdapterOperations,
  type AdapterTypes,
  type AnyAdapter,
  type CallOptions,
  defineAdapter,
  type IdempotencyContext,
  type MetadataOf,
  MONEY_MOVING_OPERATIONS,
  type MoneyMovingOperation,
  OPERATION_METHODS,
  type Operation,
  type OperationImplementations,
  type OperationMethod,
  type OperationOptions,
  type ResolvedRecord,
  type ResolveLookup,
  redactingErrors,
  type TypesOf,
} from './adapter.js';
export {
  assertCallSettings,
  type CallSettings,
  MAX_CALL_RETRY,
  MAX_CALL_TIMEOUT_MS,
} from './call-settings.js';
export * from './config.js';
export * from './crypto.js';
export * from './errors.js';
export {
  type Authorization,
  createHttpClient,
  type HookFailure,
  type HttpClient,
  type HttpClientOptions,
  type HttpHooks,
  type HttpMethod,
  type HttpReply,
  type HttpRequest,
  type HttpRequestInfo,
  type HttpResponseInfo,
  parseForm,
  parseJson,
  parseReply,
  path,
  type TransportOptions,
} from './http.js';
export {
  canonicalJson,
  DEFAULT_IDEMPOTENCY_LEASE_SECONDS,
  fingerprintOf,
  type IdempotencyOptions,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MIN_IDEMPOTENCY_LEASE_SECONDS,
  MIN_IDEMPOTENCY_RETENTION_SECONDS,
  provesNothingMoved,
  type StoreFailure,
} from './idempotency.js';
export * from './money.js';
export { createPay, Pay, type PayOptions, type ResolveOptions, type ResolveResult } from './pay.js';
export * from './records.js';
export * from './stores.js';
export {
  type AccessToken,
  createTokenManager,
  MIN_TOKEN_LIFETIME_SECONDS,
  type TokenManager,
  type TokenManagerOptions,
} from './token.js';
export { assertNoIssues, parseInput, reservedKeyIssues, toValidationIssues } from './validation.js';
export {
  type NodeListenerOptions,
  type NodeRequestLike,
  type NodeResponseLike,
  replyFor,
  toFetchHandler,
  toNodeListener,
  type WebhookBridgeOptions,
  type WebhookReply,
} from './webhooks/bridges.js';
export {
  createMemoryDeduplicationStore,
  type DeduplicationStore,
  type DeliveryLease,
} from './webhooks/dedupe.js';
export {
  lowerCaseHeaders,
  type WebhookCallback,
  WebhookHandler,
  type WebhookRequest,
  type WebhookResult,
  type WebhookSetupOptions,
} from './webhooks/handler.js';
export * from './webhooks/types.js';
