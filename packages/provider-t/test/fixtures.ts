/** Realistic Provider T payloads (docs/providers/provider-t.md) and helpers shared by the nock tests. */
import nock from 'nock';
import { createProviderT, type ProviderTConfig } from '../src/index.js';
import { sampleTransferMetadata } from '../src/testing/index.js';

export const HOST = 'https://sandbox-api.provider-t.example';
export const CLIENT_ID = 'pt-client-7f3a91';
export const CLIENT_SECRET = 'pt-secret-c0ffee-5150';
export const AGENT_PARTNER_ID = '30014857';
export const OPERATOR_ID = 'op-gabriela';
export const TRANSACTION_ID = '71a5cba1-6f8e-4bd0-9cc1-0e5e8b2a7a11';
export const REFERENCE_NUMBER = '48213907';
export const RECEIPT_URL = 'https://receipts.provider-t.example/r/71a5cba1?t=eyJhbGciOi';

/** An adapter pointed at the sandbox host, with one retry so failure tests stay quick. */
export function testAdapter(overrides: Partial<ProviderTConfig> = {}) {
  return createProviderT({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    agentPartnerId: AGENT_PARTNER_ID,
    operatorId: OPERATOR_ID,
    isSandbox: true,
    retry: 1,
    ...overrides,
  });
}

/** Answers the token endpoint once with `token`. */
export function nockLogin(token = 'tok-1', times = 1) {
  return nock(HOST)
    .get('/oauth/accesstoken')
    .query({ grant_type: 'client_credentials' })
    .basicAuth({ user: CLIENT_ID, pass: CLIENT_SECRET })
    .times(times)
    .reply(200, { access_token: token, expires_in: 3599, token_type: 'BearerToken' });
}

export const IDENTITY = {
  targetAudience: 'AGENT_FACING',
  agentPartnerId: AGENT_PARTNER_ID,
  userLanguage: 'en-US',
};
export const TRANSFER_IDENTITY = { ...IDENTITY, operatorId: OPERATOR_ID, posId: '01' };

/** `provider_metadata` of a complete transfer: the sample `@pay/provider-t/testing` publishes. */
export const transferMetadata = sampleTransferMetadata;
export const { sender, receiver, transactionInformation } = sampleTransferMetadata;

const money = (value: number, currencyCode: string) => ({ value, currencyCode });

export function quoteReply(transactionId = TRANSACTION_ID, serviceOptionCode = 'WILL_CALL') {
  return {
    transactions: [
      {
        transactionId,
        serviceOptionCode,
        serviceOptionName: serviceOptionCode === 'WILL_CALL' ? '10 Minute Service' : 'Bank Deposit',
        estimatedDelivery: '2026-11-22T11:00:00.000',
        sendAmount: {
          amount: money(100, 'USD'),
          fees: money(4.99, 'USD'),
          taxes: money(0, 'USD'),
          total: money(104.99, 'USD'),
        },
        receiveAmount: {
          amount: money(1725, 'MXN'),
          fees: money(0, 'MXN'),
          total: money(1725, 'MXN'),
          fxRate: 17.25,
        },
      },
    ],
  };
}

export function updateReply(overrides: Record<string, unknown> = {}) {
  return {
    readyForCommit: true,
    transactionId: TRANSACTION_ID,
    serviceOptionCode: 'WILL_CALL',
    serviceOptionName: '10 Minute Service',
    sendAmount: {
      amount: money(100, 'USD'),
      fees: money(4.99, 'USD'),
      taxes: money(0, 'USD'),
      total: money(104.99, 'USD'),
    },
    receiveAmount: {
      amount: money(1725, 'MXN'),
      fees: money(0, 'MXN'),
      total: money(1725, 'MXN'),
      fxRate: 17.25,
    },
    preCommitReceipt: { consumerHyperLink: 'https://receipts.provider-t.example/pre/71a5cba1' },
    ...overrides,
  };
}

export const commitReply = {
  referenceNumber: REFERENCE_NUMBER,
  expectedPayoutDate: '2026-11-23',
  commitReceipt: { consumerHyperLink: RECEIPT_URL },
};

export function statusReply(transactionStatus = 'SENT', overrides: Record<string, unknown> = {}) {
  return {
    transactionId: TRANSACTION_ID,
    referenceNumber: REFERENCE_NUMBER,
    transactionSendDateTime: '2026-11-22T10:15:30.123',
    expectedPayoutDate: '2026-11-23',
    transactionStatus,
    originatingCountryCode: 'USA',
    destinationCountryCode: 'MEX',
    serviceOptionCode: 'WILL_CALL',
    serviceOptionName: '10 Minute Service',
    sendAmount: { amount: money(100, 'USD'), fees: money(4.99, 'USD'), total: money(104.99, 'USD') },
    receiveAmount: { amount: money(1725, 'MXN'), fxRate: 17.25 },
    sender: { name: { firstName: 'Maria', lastName: 'Lopez' } },
    receiver: { name: { firstName: 'Jose', lastName: 'Lopez' } },
    additionalDetails: { orderId: 'A-1001' },
    ...overrides,
  };
}

/** Provider T's error envelope. */
export function errorBody(code: string, message: string, offendingFields: string[] = []) {
  return {
    errors: [
      {
        category: 'VALIDATION',
        code,
        message,
        ...(offendingFields.length > 0
          ? { offendingFields: offendingFields.map((field) => ({ field })) }
          : {}),
      },
    ],
  };
}

/** What `action` throws synchronously; fails the test when it returns. */
export function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw, but it returned');
}
