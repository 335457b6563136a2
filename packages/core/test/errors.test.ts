import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  NetworkError,
  PayError,
  ProviderApiError,
  ProviderNotSupportedError,
  ValidationError,
  WebhookHandlerError,
  WebhookVerificationError,
} from '../src/index.js';

describe('the error tree', () => {
  it('gives every class a stable code', () => {
    expect(new ConfigurationError('x', { missing: ['A'] }).code).toBe('configuration_error');
    expect(new ValidationError([{ path: 'amount', message: 'must be positive' }]).code).toBe(
      'validation_error',
    );
    expect(
      new ProviderNotSupportedError({
        provider: 'providerT',
        operation: 'payments.capture',
        reason: 'no manual capture',
      }).code,
    ).toBe('provider_not_supported');
    expect(new ProviderApiError({ provider: 'providerR', status: 400 }).code).toBe('provider_api_error');
    expect(new NetworkError('x', { outcome: 'unknown' }).code).toBe('network_error');
    expect(new WebhookVerificationError('x', { reason: 'invalid_signature' }).code).toBe(
      'webhook_verification_failed',
    );
    expect(new WebhookHandlerError([new Error('boom')], []).code).toBe('webhook_handler_failed');
  });

  it('recognises errors through isInstance, following inheritance but never matching a sibling', () => {
    const error = new ValidationError([{ path: 'amount', message: 'bad' }]);
    expect(PayError.isInstance(error)).toBe(true);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect(ConfigurationError.isInstance(error)).toBe(false);
    expect(PayError.isInstance(new Error('plain'))).toBe(false);
    expect(PayError.isInstance(undefined)).toBe(false);
  });

  it('recognises an error thrown by another copy of the package', () => {
    // A second copy has its own classes but the same brand (Symbol.for), so isInstance still holds.
    const foreign = Object.assign(new Error('from another copy'), {
      [Symbol.for('@pay/core.error-kinds')]: ['ValidationError', 'PayError'],
    });
    expect(ValidationError.isInstance(foreign)).toBe(true);
    expect(PayError.isInstance(foreign)).toBe(true);
    expect(NetworkError.isInstance(foreign)).toBe(false);
  });

  it('makes a webhook verification failure a 400, or a 503 when the provider should retry', () => {
    expect(new WebhookVerificationError('x', { reason: 'invalid_signature' }).status).toBe(400);
    expect(new WebhookVerificationError('x', { reason: 'unconfirmed_status', retryable: true }).status).toBe(
      503,
    );
  });

  it('names the fields of a validation error in its message', () => {
    const error = new ValidationError(
      [
        { path: 'provider_metadata.sender', message: 'is required' },
        { path: 'amount', message: 'must be greater than zero' },
      ],
      { operation: 'payments.create' },
    );
    expect(error.message).toContain('payments.create');
    expect(error.message).toContain('provider_metadata.sender: is required');
    expect(error.issues).toHaveLength(2);
  });
});

describe('ProviderApiError.withDetails', () => {
  it('keeps the provider answer, changes the message and context, and keeps the original as cause', () => {
    const original = new ProviderApiError({
      provider: 'providerT',
      status: 400,
      providerCode: 'X1',
      providerMessage: 'bad',
      requestId: 'r1',
    });
    const detailed = original.withDetails({
      message: 'the update was refused',
      context: { transactionId: 't1', step: 'update' },
    });
    expect(detailed).toMatchObject({
      provider: 'providerT',
      status: 400,
      providerCode: 'X1',
      providerMessage: 'bad',
      requestId: 'r1',
      retryable: false,
      message: 'the update was refused',
      context: { transactionId: 't1', step: 'update' },
      cause: original,
    });
    expect(ProviderApiError.isInstance(detailed)).toBe(true);
  });
});

describe('ProviderApiError after an earlier attempt may have landed (docs/architecture.md#outcomes)', () => {
  it("with outcome: 'unknown' tells the caller to reconcile, is not retryable and shows the outcome in JSON", () => {
    const error = new ProviderApiError(
      { provider: 'providerT', status: 400, providerCode: 'QUOTE_EXPIRED', retryable: true },
      { outcome: 'unknown' },
    );
    expect(error.outcome).toBe('unknown');
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      /the provider may have processed an earlier attempt: look it up with retrievePayment before sending again\.?$/i,
    );
    expect(error.toJSON()).toMatchObject({ outcome: 'unknown', retryable: false });
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ outcome: 'unknown' });
  });

  it('keeps the advice once when a message is given or the error is detailed again', () => {
    const error = new ProviderApiError(
      { provider: 'providerR', status: 409, message: 'the capture was refused.' },
      { outcome: 'unknown' },
    );
    expect(error.message.startsWith('the capture was refused.')).toBe(true);
    const detailed = error.withDetails({ context: { step: 'commit' } });
    expect(detailed.outcome).toBe('unknown');
    expect(detailed.message.match(/look it up with retrievePayment/g)).toHaveLength(1);
    const marked = new ProviderApiError({ provider: 'providerT', status: 400 }).withDetails({
      outcome: 'unknown',
    });
    expect(marked).toMatchObject({ outcome: 'unknown', retryable: false });
  });

  it('has no outcome when nothing suggests an earlier attempt', () => {
    const error = new ProviderApiError({ provider: 'providerT', status: 400 });
    expect(error.outcome).toBeUndefined();
    expect(error.toJSON()).not.toHaveProperty('outcome');
  });
});

describe('ProviderApiError.kind (docs/architecture.md#provider-client)', () => {
  it('takes the kind from the status when none is given, and keeps a given kind through withDetails and JSON', () => {
    expect(new ProviderApiError({ provider: 'providerT', status: 401 }).kind).toBe('authentication');
    expect(new ProviderApiError({ provider: 'providerT', status: 404 }).kind).toBe('not_found');
    expect(new ProviderApiError({ provider: 'providerT', status: 408 }).kind).toBe('provider_unavailable');
    expect(new ProviderApiError({ provider: 'providerT', status: 502 }).kind).toBe('provider_unavailable');
    expect(new ProviderApiError({ provider: 'providerT', status: 422 }).kind).toBe('invalid_request');
    const declined = new ProviderApiError({
      provider: 'providerN',
      status: 200,
      providerCode: 'D1',
      kind: 'declined',
    });
    const detailed = declined.withDetails({ message: 'the card was declined.', outcome: 'unknown' });
    expect(detailed.kind).toBe('declined');
    expect(detailed.toJSON()).toMatchObject({ kind: 'declined', providerCode: 'D1' });
    expect(ProviderApiError.isInstance(detailed)).toBe(true);
  });
});

describe('error names', () => {
  it('name each error by its declared kind, so a bundler renaming a class cannot change error.name', () => {
    // What a bundler emits for a class that refers to itself: `var ProviderApiError = class _ProviderApiError`.
    const Renamed = { _ProviderApiError: class extends ProviderApiError {} }._ProviderApiError;
    Object.defineProperty(Renamed, 'kind', { value: 'ProviderApiError' });
    expect(new Renamed({ provider: 'providerN', status: 400 }).name).toBe('ProviderApiError');
    expect(new NetworkError('x', { outcome: 'unknown' }).name).toBe('NetworkError');
    class AppError extends PayError {}
    expect(new AppError('x').name).toBe('AppError');
  });
});
