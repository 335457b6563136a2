/**
 * `@pay/core`: the application API. One API for payments, checkouts, refunds, customers, subscriptions and
 * verified webhooks over one configured provider adapter: `createPay`, the records, the error tree, the webhook
 * handler and its HTTP bridges, the store contracts and the tracing channels.
 *
 * Adapter authors import `@pay/core/adapter` (the toolkit: `defineAdapter`, HTTP and provider clients, token
 * manager, crypto, money, schemas, validation, redaction); none of those names is exported here.
 */

export type {
  Adapter,
  AdapterTypes,
  AnyAdapter,
  CallOptions,
  MoneyMovingOperation,
  Operation,
  TypesOf,
} from './adapter.js';
export * from './diagnostics/channels.js';
export type { Logger, LogLevel } from './diagnostics/logger.js';
export {
  ConfigurationError,
  type ErrorContext,
  IdempotencyInProgressError,
  IdempotencyKeyMismatchError,
  InvalidResponseError,
  NetworkError,
  PayError,
  ProviderApiError,
  type ProviderErrorKind,
  ProviderNotSupportedError,
  StoreError,
  type StoreStep,
  ValidationError,
  type ValidationIssue,
  type WebhookFailureReason,
  WebhookHandlerError,
  WebhookVerificationError,
} from './errors.js';
export type {
  HookFailure,
  HttpHooks,
  HttpRequestInfo,
  HttpResponseInfo,
  TransportOptions,
} from './http/index.js';
export {
  DEFAULT_IDEMPOTENCY_LEASE_SECONDS,
  type IdempotencyOptions,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MIN_IDEMPOTENCY_LEASE_SECONDS,
  MIN_IDEMPOTENCY_RETENTION_SECONDS,
  type StoreFailure,
} from './idempotency.js';
export { type CallSettings, MAX_CALL_RETRY, MAX_CALL_TIMEOUT_MS } from './operation-context.js';
export {
  createPay,
  type Namespace,
  Pay,
  type PayOptions,
  type ResolveOptions,
  type ResolveResult,
} from './pay.js';
export type {
  CaptureParams,
  Checkout,
  CheckoutCreateParams,
  Customer,
  CustomerCreateParams,
  CustomerRef,
  Invoice,
  Payment,
  PaymentCreateParams,
  PaymentStatus,
  ProviderName,
  Refund,
  RefundCreateParams,
  RefundStatus,
  Subscription,
  SubscriptionCreateParams,
  SubscriptionStatus,
  UpdateParams,
} from './records.js';
export * from './stores.js';
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
  type AnyEventOf,
  type WebhookCallback,
  type WebhookErrorCallback,
  type WebhookErrorContext,
  WebhookHandler,
  type WebhookRequest,
  type WebhookResult,
  type WebhookSetupOptions,
} from './webhooks/handler.js';
export {
  type EventMap,
  type EventOf,
  NORMALISED_EVENT_NAMES,
  type NormalisedEventName,
  type NormalisedEvents,
  type PayEvent,
} from './webhooks/types.js';
