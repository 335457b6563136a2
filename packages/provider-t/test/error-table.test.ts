/**
 * Provider T's error table (docs/architecture.md#provider-client): a refusal carries a portable `kind`, read from
 * the provider code.
 */
import { ProviderApiError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { errorBody, HOST, IDENTITY, nockLogin, TRANSACTION_ID, testAdapter } from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
});

const REFUND_PATH = `/refund/v2/transactions/${TRANSACTION_ID}`;

describe('Provider T error table', () => {
  it('a 400 with code 697 is kind not_found, so an application can branch without knowing the code', async () => {
    nockLogin();
    nock(HOST).get(REFUND_PATH).query(true).reply(400, errorBody('697', 'Invalid Transaction ID'));
    const error = await testAdapter()
      .createRefund({ payment_id: TRANSACTION_ID })
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, providerCode: '697', kind: 'not_found', retryable: false });
    expect((error as Error).message).toContain(`Provider T does not know transfer ${TRANSACTION_ID}`);
  });

  it('a refusal without a listed code takes its kind from the status, keeping the offending fields', async () => {
    nockLogin();
    nock(HOST)
      .get(`/amend/v1/transactions/${TRANSACTION_ID}`)
      .query(IDENTITY)
      .reply(400, errorBody('INVALID_REQUEST', 'Missing field', ['agentPartnerId']));
    const error = await testAdapter()
      .updatePayment(TRANSACTION_ID, { provider_metadata: { receiverFirstName: 'José' } })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      kind: 'invalid_request',
      providerCode: 'INVALID_REQUEST',
      context: { transactionId: TRANSACTION_ID, step: 'amend_read', offendingFields: ['agentPartnerId'] },
    });
  });
});
