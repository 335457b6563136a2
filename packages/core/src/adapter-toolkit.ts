/**
 * `@pay/core/adapter`: the toolkit for adapter and store authors (docs/architecture.md#packages). Every name is
 * listed here (report `api/adapter.api.md`, docs/architecture.md#public-surface), and goes here when an adapter or
 * store package needs it, not because core has it.
 */

export type {
  Adapter,
  AdapterDefinition,
  AdapterTypes,
  AnyAdapter,
  CallOptions,
  IdempotencyContext,
  MayStillLand,
  OperationContext,
  ResolvedRecord,
  ResolveLookup,
} from './adapter.js';
export { ADAPTER_CONTRACT } from './adapter-contract.js';
export {
  credentialSchema,
  type EnvVariable,
  parseConfig,
  providerVariables,
  readProviderConfig,
  transportConfigEntries,
} from './config.js';
export { fromBase64, sha256Hex, spkiBytes, timingSafeEqual, timingSafeIndexOf } from './crypto.js';
export { defineAdapter, redactingErrors } from './define-adapter.js';
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
export {
  ANY_PROVIDER_CODE,
  createProviderClient,
  type EnvelopeReading,
  type HttpHooks,
  type HttpMethod,
  type HttpReply,
  type HttpRequest,
  type HttpRequestInfo,
  type HttpResponseInfo,
  type ProviderCall,
  type ProviderClient,
  type ProviderErrorTable,
  type ProviderOutcome,
  parseForm,
  parseJson,
  parseReply,
  path,
  type TransportOptions,
} from './http/index.js';
export { idempotencyKeyOf, keyedReference } from './idempotency-keys.js';
export {
  amountIssues,
  decimalText,
  minorDigits,
  normaliseCurrency,
  parseDecimal,
  toMajorUnits,
  toMinorUnits,
} from './money.js';
export { moneyMovingRefusal, refusalMayHaveLanded } from './money-moving-refusals.js';
export { OPERATION_METHODS, type Operation, type ResultOf } from './operations.js';
export {
  type CaptureParams,
  type Checkout,
  type CheckoutCreateParams,
  type Customer,
  type CustomerCreateParams,
  type CustomerRef,
  captureSchema,
  checkoutCreateSchema,
  currencySchema,
  type Invoice,
  type Payment,
  type PaymentCreateParams,
  type PaymentStatus,
  paymentCreateSchema,
  type Refund,
  type RefundCreateParams,
  type RefundStatus,
  refundCreateSchema,
  requestIdOf,
  type Subscription,
  type SubscriptionCreateParams,
  type SubscriptionStatus,
  type UpdateParams,
} from './records.js';
export { redact } from './redaction.js';
export {
  IdempotencyInProgressError,
  IdempotencyKeyMismatchError,
  StoreError,
} from './store-errors.js';
export {
  type CachedToken,
  type JsonValue,
  type StoreFailureContext,
  storeUnavailable,
  type TokenStore,
  withinStoreDeadline,
} from './stores.js';
export { assertNoIssues, isRecord, parseInput, toValidationIssues } from './validation.js';
export {
  type WebhookFailureReason,
  WebhookHandlerError,
  WebhookVerificationError,
} from './webhooks/errors.js';
export {
  hmacSignature,
  type SignatureScheme,
  verifyHmacHeader,
  verifyRsaHeader,
} from './webhooks/signatures.js';
export {
  type AuthenticatedDelivery,
  type EventOf,
  NORMALISED_EVENT_NAMES,
  type NormalisedEventName,
  type PayEvent,
  type WebhookDefinition,
  type WebhookDelivery,
  webhookEvent,
} from './webhooks/types.js';
