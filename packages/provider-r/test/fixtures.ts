/** Realistic Provider R payloads (docs/providers/provider-r.md) and a configured adapter for the nock tests. */
import nock from 'nock';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createProviderR, PROVIDER_R_BASE_URL, type ProviderRConfig } from '../src/index.js';

export const BASE_URL = PROVIDER_R_BASE_URL;
export const MERCHANT = '123456';
export const SECRET = 'x4q8-Secret+Value/9';
/** `Authorization: Basic base64("<merchant>:<secret>")`. */
export const BASIC = `Basic ${Buffer.from(`${MERCHANT}:${SECRET}`).toString('base64')}`;
export const TRANS_ID = 'AB12-CD34-EF56';
export const REDIRECT = `${BASE_URL}/client/instructions/index?id=${TRANS_ID}`;

/** An adapter in sandbox mode that never retries unless told to. */
export function testAdapter(overrides: Partial<ProviderRConfig> = {}) {
  return createProviderR({ merchant: MERCHANT, secret: SECRET, isSandbox: true, retry: 0, ...overrides });
}

/** The fields of a status reply for `TRANS_ID`, as the provider sends them (every value text, secret echoed). */
export function statusFields(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    code: '0',
    message: 'OK',
    merchant: MERCHANT,
    test: 'true',
    price: '10000',
    curr: 'CZK',
    label: 'Order from Eshop',
    refId: 'order-1001',
    payerId: 'cust_42',
    method: 'CARD',
    email: 'payer@example.com',
    transId: TRANS_ID,
    secret: SECRET,
    status: 'PAID',
    fee: 'unknown',
    ...overrides,
  };
}

/** The form-encoded status reply. */
export function statusReply(overrides: Record<string, string> = {}): string {
  return new URLSearchParams(statusFields(overrides)).toString();
}

/** A payment of 100.00 CZK (standard unit) for a customer by id: the nock tests' `payments.create` input. */
export const paymentParams = {
  customer: { id: 'cust_42' },
  item_id: 'order-1001',
  amount: 100,
  provider_metadata: { email: 'payer@example.com' },
};

/** A checkout of 100.00 CZK with both return URLs: the nock tests' `checkouts.create` input. */
export const checkoutParams = {
  customer: { email: 'payer@example.com' },
  item_id: 'order-1001',
  amount: 100,
  currency: 'CZK',
  success_url: 'https://shop.example/paid',
  cancel_url: 'https://shop.example/cancelled',
};

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** The form fields of the status call for `transId`. */
export function statusRequest(transId = TRANS_ID): Record<string, string> {
  return { merchant: MERCHANT, transId, secret: SECRET };
}

/** A push notification's fields for `TRANS_ID`. */
export function pushFields(overrides: Record<string, string> = {}): Record<string, string> {
  const { code: _code, message: _message, ...push } = statusFields(overrides);
  return push;
}

/** Blocks every real connection but loopback for the file's tests, and clears interceptors after each test. */
export function useNock(): void {
  beforeAll(() => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
  });
  afterEach(() => {
    nock.cleanAll();
  });
  afterAll(() => {
    nock.enableNetConnect();
  });
}

/** Resolves to the rejection of `promise`, failing the test when it resolves. */
export async function rejectionOf<E = unknown>(promise: Promise<unknown>): Promise<E> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error as E,
  );
}
