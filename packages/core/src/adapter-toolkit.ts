/**
 * `@pay/core/adapter`: the toolkit for adapter authors (docs/architecture.md#packages). Everything an adapter
 * package builds on: `defineAdapter` and the adapter types, the operation table, the HTTP and provider clients,
 * the token manager, crypto and money helpers, request schemas, reply parsing, validation and configuration
 * helpers, redaction, webhook building blocks, plus the records and errors an adapter produces and throws. An
 * application imports `@pay/core` instead.
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
  type ImplementationsOf,
  type MayStillLand,
  type MetadataOf,
  MONEY_MOVING_OPERATIONS,
  type MoneyMovingOperation,
  OPERATION_METHODS,
  type Operation,
  type OperationChecks,
  type OperationContext,
  type OperationImplementations,
  type OperationMethod,
  type ResolvedRecord,
  type ResolveLookup,
  redactingErrors,
  type TypesOf,
} from './adapter.js';
export * from './config.js';
export * from './crypto.js';
export * from './errors.js';
export * from './http/index.js';
export {
  canonicalJson,
  fingerprintOf,
  provesNothingMoved,
} from './idempotency.js';
export { idempotencyKeyOf, KEYED_REFERENCE_PREFIX, keyedReference } from './idempotency-keys.js';
export * from './money.js';
export {
  type MoneyMovingRefusalFacts,
  moneyMovingRefusal,
  refusalMayHaveLanded,
} from './money-moving-refusals.js';
export {
  assertCallSettings,
  type CallSettings,
  MAX_CALL_RETRY,
  MAX_CALL_TIMEOUT_MS,
} from './operation-context.js';
export {
  type ArgumentsOf,
  isOperation,
  OPERATION_NAMES,
  OPERATIONS,
  type OperationResults,
  type OperationRow,
  type ParamsOf,
  type ResultOf,
  type RowOf,
  type SupportedEvents,
  type SupportedOperations,
} from './operations.js';
export * from './records.js';
export type { CachedToken, JsonValue, TokenStore } from './stores.js';
export {
  type AccessToken,
  createRotatingLogin,
  createTokenManager,
  MIN_TOKEN_LIFETIME_SECONDS,
  type RotatingLogin,
  type RotatingLoginOptions,
  type TokenCacheKey,
  type TokenManager,
  type TokenManagerOptions,
} from './token.js';
export {
  assertNoIssues,
  isRecord,
  parseInput,
  reservedKeyIssues,
  toValidationIssues,
} from './validation.js';
export { lowerCaseHeaders } from './webhooks/handler.js';
export * from './webhooks/types.js';
