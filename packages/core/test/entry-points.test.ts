import * as application from '@pay/core';
import * as toolkit from '@pay/core/adapter';
import { describe, expect, it } from 'vitest';

describe('the two entry points of @pay/core (docs/architecture.md#packages)', () => {
  it('@pay/core/adapter holds the adapter and store author toolkit', () => {
    for (const name of [
      'defineAdapter',
      'createProviderClient',
      'OPERATION_METHODS',
      'verifyHmacHeader',
      'toMinorUnits',
      'paymentCreateSchema',
      'parseReply',
      'parseInput',
      'redactingErrors',
      'readProviderConfig',
      'requestIdOf',
      'webhookEvent',
      'storeUnavailable',
      'withinStoreDeadline',
    ])
      expect(typeof (toolkit as Record<string, unknown>)[name], name).not.toBe('undefined');
  });

  it('shares one class per error between the entries, so instanceof and isInstance hold across them', () => {
    expect(toolkit.ProviderApiError).toBe(application.ProviderApiError);
    expect(toolkit.StoreError).toBe(application.StoreError);
    const error = new toolkit.ValidationError([{ path: 'amount', message: 'must be a number' }]);
    expect(error).toBeInstanceOf(application.ValidationError);
  });

  it('@pay/core does not export the toolkit: adapter-author names come from @pay/core/adapter only', () => {
    const toolkitOnly = [
      'defineAdapter',
      'createProviderClient',
      'OPERATION_METHODS',
      'verifyHmacHeader',
      'verifyRsaHeader',
      'hmacSignature',
      'timingSafeEqual',
      'sha256Hex',
      'toMinorUnits',
      'toMajorUnits',
      'amountIssues',
      'paymentCreateSchema',
      'parseReply',
      'parseJson',
      'parseInput',
      'path',
      'redact',
      'redactingErrors',
      'readProviderConfig',
      'requestIdOf',
      'webhookEvent',
      'isRecord',
      'keyedReference',
      'idempotencyKeyOf',
      'moneyMovingRefusal',
      'refusalMayHaveLanded',
      'ANY_PROVIDER_CODE',
      'storeUnavailable',
      'withinStoreDeadline',
    ];
    const onApplication = toolkitOnly.filter((name) => Object.hasOwn(application, name));
    expect(onApplication).toEqual([]);
    for (const name of toolkitOnly)
      expect(typeof (toolkit as Record<string, unknown>)[name], name).not.toBe('undefined');
  });

  it('exports neither core’s internals nor the tracing machinery from either entry (docs/architecture.md#public-surface)', () => {
    const internal = [
      // the tracing machinery: a subscriber needs PAY_CHANNELS and the message types only
      'payChannels',
      'findDiagnosticsChannel',
      'createAsyncScope',
      'withinOperation',
      'enclosingOperation',
      'traceId',
      // what only core itself uses (the signature helpers and declared auth replaced the crypto primitives)
      'hmacSha512Hex',
      'verifyRsaSha256',
      'basicAuthorization',
      'utf8',
      // what no adapter needs: readProviderConfig reads the environment, a declared login replaces the token helper
      'booleanSetting',
      'readEnvironment',
      'createRotatingLogin',
      'OPERATIONS',
      'OPERATION_NAMES',
      'MONEY_MOVING_OPERATIONS',
      'isOperation',
      'createHttpClient',
      'createTokenManager',
      'backoff',
      'retryAfterMs',
      'assertCallSettings',
      'canonicalJson',
      'fingerprintOf',
      'provesNothingMoved',
      'redactError',
      'CredentialSet',
      'knownCredentials',
      'describeStoreFailure',
      'providerErrorKindOf',
      'parseWebhookPayload',
      'lowerCaseHeaders',
      'reservedKeyIssues',
      'CREDENTIALS_HINT',
      'RECONCILE_ADVICE',
      'SHORT_SECRET_LENGTH',
      'KEYED_REFERENCE_PREFIX',
      'MIN_TOKEN_LIFETIME_SECONDS',
      'MAX_CALL_RETRY',
      'MAX_CALL_TIMEOUT_MS',
      'MAX_IDEMPOTENCY_KEY_LENGTH',
    ];
    const exported = internal.filter(
      (name) => Object.hasOwn(application, name) || Object.hasOwn(toolkit, name),
    );
    expect(exported).toEqual([]);
  });

  it('@pay/core keeps the application API', () => {
    for (const name of [
      'createPay',
      'Pay',
      'WebhookHandler',
      'toNodeListener',
      'toFetchHandler',
      'replyFor',
      'createMemoryDeduplicationStore',
      'createMemoryIdempotencyStore',
      'createMemoryTokenStore',
      'PAY_CHANNELS',
      'NORMALISED_EVENT_NAMES',
      'ConfigurationError',
    ])
      expect(typeof (application as Record<string, unknown>)[name], name).not.toBe('undefined');
  });
});

describe('isRecord (the JSON-object check adapters share)', () => {
  it('accepts a plain object and refuses null, arrays and primitives', () => {
    expect(toolkit.isRecord({ a: 1 })).toBe(true);
    expect(toolkit.isRecord(Object.create(null))).toBe(true);
    for (const value of [null, undefined, [], [1], 'text', 42, true])
      expect(toolkit.isRecord(value)).toBe(false);
  });
});
