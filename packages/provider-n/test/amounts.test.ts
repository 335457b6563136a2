/**
 * Amounts in the currency's standard unit (docs/architecture.md#money; spec: Provider N takes major units): sent
 * exactly as the caller wrote them, and anything finer than the currency's minor unit refused before any call (no
 * login either), so float drift or a misplaced unit can never reach the provider.
 */
import { ValidationError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  HOST,
  initTransactionBody,
  nockLogin,
  ok,
  refundBody,
  TRANSACTION_REFERENCE,
  testAdapter,
} from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
});

const checkout = (amount: number, currency: string) =>
  testAdapter().createCheckout({
    customer: { email: 'ada@example.com' },
    provider_metadata: { amount, currency },
  });

/** The error of a call that must be refused before any request: the login interceptor stays unused. */
async function refusedBeforeAnyCall(call: () => Promise<unknown>): Promise<ValidationError> {
  const login = nockLogin();
  const error = await call().catch((thrown: unknown) => thrown);
  expect(ValidationError.isInstance(error)).toBe(true);
  expect(login.isDone()).toBe(false);
  return error as ValidationError;
}

/** Sends a checkout and returns the exact JSON text of the init-transaction body. */
async function sentCheckoutBody(amount: number, currency: string): Promise<string> {
  let text = '';
  nockLogin();
  nock(HOST)
    .post('/api/v1/merchant/transactions/init-transaction', (body) => {
      text = JSON.stringify(body);
      return true;
    })
    .reply(200, ok(initTransactionBody));
  await checkout(amount, currency);
  return text;
}

describe('checkout amounts (provider_metadata.amount, major units)', () => {
  it.each([
    [250.5, 'NGN', '"amount":250.5'],
    [0.01, 'NGN', '"amount":0.01'],
    [9_999_999_999_999.99, 'NGN', '"amount":9999999999999.99'],
    [12.345, 'KWD', '"amount":12.345'],
    [5000, 'JPY', '"amount":5000'],
  ])('sends %s %s exactly as written', async (amount, currency, expected) => {
    expect(await sentCheckoutBody(amount, currency)).toContain(expected);
  });

  it.each([
    [100.005, 'NGN', 'has more than 2 decimal digit(s), the minor unit of NGN'],
    [0.1 + 0.2, 'NGN', 'has more than 2 decimal digit(s), the minor unit of NGN'],
    [1.2345, 'KWD', 'has more than 3 decimal digit(s), the minor unit of KWD'],
    [100.5, 'JPY', 'has more than 0 decimal digit(s), the minor unit of JPY'],
    [1e-7, 'NGN', 'has more than 2 decimal digit(s), the minor unit of NGN'],
    [12_345_678_901_234.56, 'NGN', 'must be at most 9999999999999.99'],
    [0, 'NGN', 'must be greater than zero'],
  ])('refuses %s %s before any call', async (amount, currency, message) => {
    const error = await refusedBeforeAnyCall(() => checkout(amount, currency));
    expect(error.issues).toEqual([{ path: 'provider_metadata.amount', message }]);
  });
});

describe('refund amounts (amount, major units of the payment currency)', () => {
  it('sends a refund in a three-digit currency exactly, and labels the record with it', async () => {
    let sent: Record<string, unknown> | undefined;
    nockLogin();
    nock(HOST)
      .post('/api/v1/refunds/initiate-refund', (body) => {
        sent = body;
        return true;
      })
      .reply(200, ok({ ...refundBody, refundAmount: 12.345 }));
    const refund = await testAdapter().createRefund({
      payment_id: TRANSACTION_REFERENCE,
      amount: 12.345,
      provider_metadata: { currency: 'kwd' },
    });
    expect(sent?.refundAmount).toBe(12.345);
    expect(refund).toMatchObject({ amount: 12.345, currency: 'KWD' });
  });

  it.each([
    [10.001, undefined, 'has more than 2 decimal digit(s), the minor unit of NGN'],
    [12.3456, 'KWD', 'has more than 3 decimal digit(s), the minor unit of KWD'],
  ])('refuses %s (%s) before any call', async (amount, currency, message) => {
    const error = await refusedBeforeAnyCall(() =>
      testAdapter().createRefund({
        payment_id: TRANSACTION_REFERENCE,
        amount,
        ...(currency ? { provider_metadata: { currency } } : {}),
      }),
    );
    expect(error.issues).toEqual([{ path: 'amount', message }]);
  });
});
