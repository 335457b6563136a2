/**
 * The HTTP layer of `@pay/core` (docs/architecture.md#http-client, docs/architecture.md#provider-client): the names
 * core's entry points take from it, each listed (docs/architecture.md#public-surface).
 */
export { createHttpClient } from './client.js';
export { CREDENTIALS_HINT } from './failures.js';
export { path } from './paths.js';
export { createProviderClient } from './provider-client.js';
export { ANY_PROVIDER_CODE } from './provider-errors.js';
export type {
  EnvelopeReading,
  ProviderCall,
  ProviderClient,
  ProviderClientOptions,
  ProviderErrorRule,
  ProviderErrorTable,
  ProviderOutcome,
  Replied,
} from './provider-types.js';
export { parseForm, parseJson, parseReply } from './replies.js';
export type {
  Authorization,
  HookFailure,
  HttpClient,
  HttpClientOptions,
  HttpHooks,
  HttpMethod,
  HttpReply,
  HttpRequest,
  HttpRequestInfo,
  HttpResponseInfo,
  TransportOptions,
} from './types.js';
