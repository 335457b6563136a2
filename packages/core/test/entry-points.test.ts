import * as application from '@pay/core';
import * as toolkit from '@pay/core/adapter';
import { describe, expect, it } from 'vitest';

describe('the two entry points of @pay/core (docs/architecture.md#packages)', () => {
  it('@pay/core/adapter holds the adapter-author toolkit', () => {
    for (const name of [
      'defineAdapter',
      'OPERATIONS',
      'createHttpClient',
      'createProviderClient',
      'createTokenManager',
      'hmacSha512Hex',
      'toMinorUnits',
      'paymentCreateSchema',
      'parseReply',
      'parseInput',
      'redactingErrors',
      'readProviderConfig',
      'requestIdOf',
      'webhookEvent',
      'parseWebhookPayload',
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
      'OPERATIONS',
      'OPERATION_NAMES',
      'OPERATION_METHODS',
      'MONEY_MOVING_OPERATIONS',
      'isOperation',
      'createHttpClient',
      'createProviderClient',
      'createTokenManager',
      'hmacSha512Hex',
      'verifyRsaSha256',
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
      'redactError',
      'redactingErrors',
      'readProviderConfig',
      'readEnvironment',
      'requestIdOf',
      'webhookEvent',
      'parseWebhookPayload',
      'lowerCaseHeaders',
      'isRecord',
      'keyedReference',
      'idempotencyKeyOf',
      'moneyMovingRefusal',
      'refusalMayHaveLanded',
      'ANY_PROVIDER_CODE',
      'CREDENTIALS_HINT',
      'RECONCILE_ADVICE',
    ];
    const onApplication = toolkitOnly.filter((name) => Object.hasOwn(application, name));
    expect(onApplication).toEqual([]);
    for (const name of toolkitOnly)
      expect(typeof (toolkit as Record<string, unknown>)[name], name).not.toBe('undefined');
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
