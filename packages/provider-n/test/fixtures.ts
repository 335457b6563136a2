/** Realistic Provider N payloads (docs/providers/provider-n.md) and test credentials shared by the tests. */
import nock from 'nock';
import { createProviderN, type ProviderNConfig } from '../src/index.js';

export const API_KEY = 'PN_APIKEY_7d1f0c2e9b';
export const SECRET_KEY = 'PN_SECRET_4a8b6c2d0e1f';
export const CONTRACT_CODE = '7059707855';
/** Provider N keys the webhook HMAC with the merchant's secret key (docs/providers/provider-n.md#webhooks). */
export const WEBHOOK_SECRET = SECRET_KEY;
export const HOST = 'https://sandbox.provider-n.example';
export const BASIC = `Basic ${Buffer.from(`${API_KEY}:${SECRET_KEY}`).toString('base64')}`;
export const TRANSACTION_REFERENCE = 'PN|20261122101530|000123';

/** An adapter pointed at the sandbox host, which nock intercepts. Retries are off unless a test asks. */
export function testAdapter(overrides: Partial<ProviderNConfig> = {}) {
  return createProviderN({ apiKey: API_KEY, secretKey: SECRET_KEY, isSandbox: true, retry: 0, ...overrides });
}

/** The success envelope around a body. */
export function ok(responseBody: unknown) {
  return { requestSuccessful: true, responseMessage: 'success', responseCode: '0', responseBody };
}

/** An error envelope. */
export function refused(responseCode: string, responseMessage: string) {
  return { requestSuccessful: false, responseMessage, responseCode };
}

/** Intercepts one login and answers with `token`. */
export function nockLogin(token = 'token-1', expiresIn = 3599) {
  return nock(HOST)
    .post('/api/v1/auth/login')
    .matchHeader('authorization', BASIC)
    .reply(200, ok({ accessToken: token, expiresIn }));
}

export const initTransactionBody = {
  transactionReference: TRANSACTION_REFERENCE,
  paymentReference: 'ignored-by-the-test',
  merchantName: 'Test Shop',
  apiKey: API_KEY,
  enabledPaymentMethod: ['CARD', 'ACCOUNT_TRANSFER'],
  checkoutUrl: `https://sandbox.provider-n.example/checkout/${encodeURIComponent(TRANSACTION_REFERENCE)}`,
};

export const transactionStatusBody = {
  transactionReference: TRANSACTION_REFERENCE,
  paymentReference: 'order-1001',
  amountPaid: '5000.00',
  totalPayable: '5000.00',
  settlementAmount: '4925.00',
  paidOn: '2026-11-22 10:20:11',
  paymentStatus: 'PAID',
  paymentDescription: 'Blue mug',
  currency: 'NGN',
  paymentMethod: 'CARD',
  customer: { email: 'ada@example.com', name: 'Ada Obi' },
  metaData: { orderId: '1001' },
};

export const refundBody = {
  refundReference: 'set-by-test',
  transactionReference: TRANSACTION_REFERENCE,
  refundReason: 'Damaged item',
  customerNote: 'Sorry',
  refundAmount: 1000,
  refundStatus: 'IN_PROGRESS',
  refundType: 'PARTIAL_REFUND',
  createdOn: '2026-11-22 11:00:00',
};

export const transactionEventData = {
  transactionReference: TRANSACTION_REFERENCE,
  paymentReference: 'order-1001',
  amountPaid: 5000,
  totalPayable: 5000,
  settlementAmount: 4925,
  paidOn: '2026-11-22 10:20:11',
  paymentStatus: 'PAID',
  paymentDescription: 'Blue mug',
  currency: 'NGN',
  paymentMethod: 'CARD',
  customer: { email: 'ada@example.com', name: 'Ada Obi' },
  metaData: { orderId: '1001' },
};

/** The published SETTLEMENT shape: amounts as strings, `amountPaid`/`totalPayable` per transaction, no `amount`. */
export const settlementEventData = {
  amount: '7900.00',
  settlementTime: '23/11/2026 09:00:00 AM',
  settlementReference: 'SETL-2026-11-22-0001',
  transactionsCount: 2,
  transactions: [
    {
      transactionReference: TRANSACTION_REFERENCE,
      paymentReference: 'order-1001',
      amountPaid: '5000.00',
      totalPayable: '5000.00',
      paymentMethod: 'CARD',
      currency: 'NGN',
      paymentStatus: 'PAID',
      customer: { name: 'Ada Obi', email: 'ada@example.com' },
    },
    {
      transactionReference: 'PN|20261122111000|000124',
      paymentReference: 'order-1002',
      amountPaid: '3000.00',
      totalPayable: '2900.00',
      paymentMethod: 'ACCOUNT_TRANSFER',
      currency: 'NGN',
      paymentStatus: 'OVERPAID',
      customer: { name: 'Bo Eze', email: 'bo@example.com' },
    },
  ],
};

export const refundEventData = {
  refundReference: 'rf-6a1c2d',
  transactionReference: TRANSACTION_REFERENCE,
  refundReason: 'Damaged item',
  customerNote: 'Sorry',
  refundAmount: 1000,
  refundStatus: 'COMPLETED',
  refundType: 'PARTIAL_REFUND',
  createdOn: '2026-11-22 11:00:00',
  completedOn: '2026-11-22 11:05:00',
};

/** The published MANDATE_UPDATE shape: the payer as `customerName` / `customerEmailAddress`. */
export const mandateEventData = {
  mandateCode: 'MTDD|01JX9',
  mandateStatus: 'ACTIVE',
  customerName: 'Ada Obi',
  customerEmailAddress: 'ada@example.com',
  mandateAmount: 2500,
  startDate: '2026-12-01',
  endDate: '2027-12-01',
};
