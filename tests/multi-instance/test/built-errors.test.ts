/**
 * The instances import the BUILT packages, as applications do, and these tests read the errors they report by
 * `error.name` as well as `error.code`: the bundled `@pay/core` must name every error class as it is exported
 * (a bundler that renames a class, e.g. `_ProviderApiError`, changes `error.name` in every log line).
 */
import {
  ConfigurationError,
  IdempotencyInProgressError,
  IdempotencyKeyMismatchError,
  InvalidResponseError,
  NetworkError,
  ProviderApiError,
  ProviderNotSupportedError,
  StoreError,
  ValidationError,
  WebhookHandlerError,
  WebhookVerificationError,
} from '@pay/core';
import { describe, expect, it } from 'vitest';

describe('errors of the built @pay/core', () => {
  it('name themselves as exported (error.name is the class name users see in logs)', () => {
    const errors = {
      ConfigurationError: new ConfigurationError('x'),
      ValidationError: new ValidationError([]),
      ProviderNotSupportedError: new ProviderNotSupportedError({
        provider: 'providerR',
        operation: 'customers.create',
        reason: 'x',
      }),
      ProviderApiError: new ProviderApiError({ provider: 'providerN', status: 422, providerCode: '99' }),
      NetworkError: new NetworkError('x', { outcome: 'unknown' }),
      InvalidResponseError: new InvalidResponseError('x'),
      WebhookVerificationError: new WebhookVerificationError('x', { reason: 'invalid_signature' }),
      WebhookHandlerError: new WebhookHandlerError([new Error('x')], []),
      StoreError: new StoreError('x', { step: 'begin' }),
      IdempotencyKeyMismatchError: new IdempotencyKeyMismatchError({
        idempotencyKey: 'k',
        operation: 'payments.create',
      }),
      IdempotencyInProgressError: new IdempotencyInProgressError({
        idempotencyKey: 'k',
        operation: 'payments.create',
      }),
    };
    expect(
      Object.fromEntries(Object.entries(errors).map(([exported, error]) => [exported, error.name])),
    ).toEqual(Object.fromEntries(Object.keys(errors).map((exported) => [exported, exported])));
  });
});
