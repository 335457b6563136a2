import { describe, expect, it } from 'vitest';
import {
  isOperation,
  MONEY_MOVING_OPERATIONS,
  OPERATION_METHODS,
  optionsIndexOf,
} from '../src/operations.js';

describe('the operation table', () => {
  it('runs exactly the calls that can move money under the idempotency ledger', () => {
    expect([...MONEY_MOVING_OPERATIONS].sort()).toEqual([
      'checkouts.create',
      'payments.cancel',
      'payments.capture',
      'payments.create',
      'refunds.create',
    ]);
  });

  it('names the adapter method behind every operation', () => {
    expect(Object.keys(OPERATION_METHODS)).toHaveLength(20);
    expect(OPERATION_METHODS['payments.capture']).toBe('capturePayment');
    expect(OPERATION_METHODS['subscriptions.cancel']).toBe('cancelSubscription');
  });

  it('places the call options after the id and the parameters', () => {
    expect(optionsIndexOf('payments.create')).toBe(1);
    expect(optionsIndexOf('payments.capture')).toBe(2);
    expect(optionsIndexOf('payments.cancel')).toBe(1);
    expect(optionsIndexOf('payments.update')).toBe(2);
  });

  it('knows only its own operation names (never an inherited property)', () => {
    expect(isOperation('refunds.create')).toBe(true);
    expect(isOperation('constructor')).toBe(false);
    expect(isOperation('toString')).toBe(false);
  });
});
