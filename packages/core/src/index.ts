/**
 * `@pay/core`: the application API. Every name is listed here, none through `export *`: the checked-in report
 * `api/index.api.md` shows each one (docs/architecture.md#public-surface). Adapter and store authors import
 * `@pay/core/adapter`.
 */

export type { Adapter, AdapterTypes, AnyAdapter, CallOptions } from './adapter.js';
export {
  type AttemptTrace,
  type CallTrace,
  type OperationTrace,
  PAY_CHANNELS,
  type ReconcileTrace,
  type WebhookTrace,
} from './diagnostics/channels.js';
export type { Logger } from './diagnostics/logger.js';
export {
  ConfigurationError,
  type ErrorContext,
  InvalidResponseError,
  NetworkError,
  PayError,
  ProviderApiError,
  ProviderNotSupportedError,
  ValidationError,
  type ValidationIssue,
} from './errors.js';
export type {
  HttpHooks,
  HttpRequestInfo,
  HttpResponseInfo,
  TransportOptions,
} from './http/index.js';
export type { Operation, ResultOf } from './operations.js';
export { createPay, type Namespace, Pay, type PayOptions } from './pay.js';
export { createReconciler } from './reconcile/reconciler.js';
export type { UnresolvedKey } from './reconcile/store.js';
export {
  type ClaimedObject,
  createMemoryReconciliationStore,
  type ReconciliationStore,
  type WatchedObject,
} from './reconcile/store.js';
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
  Refund,
  RefundCreateParams,
  RefundStatus,
  Subscription,
  SubscriptionCreateParams,
  SubscriptionStatus,
  UpdateParams,
} from './records.js';
export type { ResolveResult } from './resolve.js';
export {
  IdempotencyInProgressError,
  IdempotencyKeyMismatchError,
  StoreError,
} from './store-errors.js';
export {
  type CachedToken,
  createMemoryIdempotencyStore,
  createMemoryTokenStore,
  type IdempotencyBegin,
  type IdempotencyEntry,
  type IdempotencyStore,
  type JsonValue,
  type TokenStore,
} from './stores.js';
export {
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
} from './webhooks/dedupe.js';
export {
  type WebhookFailureReason,
  WebhookHandlerError,
  WebhookVerificationError,
} from './webhooks/errors.js';
export {
  WebhookHandler,
  type WebhookRequest,
  type WebhookResult,
  type WebhookSetupOptions,
} from './webhooks/handler.js';
export {
  type EventOf,
  NORMALISED_EVENT_NAMES,
  type NormalisedEventName,
  type PayEvent,
} from './webhooks/types.js';
