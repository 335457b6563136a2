/**
 * Provider N: money-moving calls never say "safe to send again" when the money may have
 * moved, credentials echoed by the provider never reach an error, reserved refund members are refused in any
 * letter case, and event types or statuses named like `Object.prototype` members are unknown values
 * (docs/architecture.md#webhooks, docs/architecture.md#outcomes).
 */
import { createPay, NetworkError, ProviderApiError, ValidationError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_N_ERRORS } from '../src/client.js';
import { moneyMovingRefusal, readEnvelope } from '../src/envelope.js';
import { providerNWebhookRequest } from '../src/testing/index.js';
import {
  BASIC,
  HOST,
  nockLogin,
  refundEventData,
  refused,
  TRANSACTION_REFERENCE,
  testAdapter,
  transactionEventData,
  WEBHOOK_SECRET,
} from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
});

const checkoutParams = {
  customer: { email: 'ada@example.com' },
  provider_metadata: { amount: 5000, currency: 'NGN' },
};
const refundParams = { payment_id: TRANSACTION_REFERENCE, amount: 1000, reason: 'Damaged item' };

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );

const MONEY_CALLS = [
  {
    call: 'init-transaction',
    path: '/api/v1/merchant/transactions/init-transaction',
    run: (retry: number) => testAdapter({ retry }).createCheckout(checkoutParams),
    reference: 'paymentReference',
    duplicate: 'Duplicate payment reference',
  },
  {
    call: 'initiate-refund',
    path: '/api/v1/refunds/initiate-refund',
    run: (retry: number) => testAdapter({ retry }).createRefund(refundParams),
    reference: 'refundReference',
    duplicate: 'Duplicate refund reference',
  },
] as const;

describe.each(MONEY_CALLS)('money-moving call $call (docs/architecture.md#outcomes)', (site) => {
  it('a lost reply is sent once even with retries enabled, and says the outcome is unknown', async () => {
    nockLogin();
    let attempts = 0;
    nock(HOST)
      .post(site.path)
      .times(3)
      .replyWithError({ code: 'ECONNRESET' })
      .on('request', () => {
        attempts += 1;
      });
    const error = await rejection(site.run(2));
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ outcome: 'unknown', context: { [site.reference]: expect.any(String) } });
    expect(attempts).toBe(1);
  });

  it('a "duplicate reference" refusal says the outcome is unknown, never "safe to send again"', async () => {
    nockLogin();
    nock(HOST).post(site.path).reply(422, refused('99', site.duplicate));
    const error = await rejection(site.run(2));
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      outcome: 'unknown',
      retryable: false,
      context: { [site.reference]: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    });
    expect((error as Error).message).toMatch(/may have been processed/);
  });

  it('a 502 from a gateway is not advice to retry: the call may have been processed', async () => {
    nockLogin();
    nock(HOST).post(site.path).reply(502, 'Bad Gateway');
    const error = await rejection(site.run(2));
    expect(error).toMatchObject({ status: 502, outcome: 'unknown', retryable: false });
    expect((error as Error).message).not.toMatch(/retry with the same input/i);
  });

  it('an ordinary 4xx refusal with no earlier attempt stays a plain refusal', async () => {
    nockLogin();
    nock(HOST).post(site.path).reply(400, refused('99', 'Invalid request'));
    const error = await rejection(site.run(0));
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error).not.toHaveProperty('outcome');
  });

  it('a refusal after an earlier attempt may have reached the provider says outcome unknown', () => {
    const reply = {
      status: 400,
      headers: new Headers(),
      // R3 has advice ("lower amount") that a proven refusal carries: here nothing is proven.
      text: JSON.stringify(refused('R3', 'Refund amount exceeds the transaction amount')),
      requestId: 'req-1',
      earlierAttemptMayHaveReached: true,
    };
    const reading = readEnvelope(reply, { call: site.call });
    expect(reading).toEqual({
      ok: false,
      code: 'R3',
      message: 'Refund amount exceeds the transaction amount',
    });
    const refusal = {
      ok: false as const,
      error: new ProviderApiError({
        provider: 'providerN',
        status: 400,
        providerCode: 'R3',
        requestId: 'req-1',
        message: 'providerN answered HTTP 400 (code R3): lower amount.',
      }),
      code: 'R3',
      rule: PROVIDER_N_ERRORS.R3 as Parameters<typeof moneyMovingRefusal>[0]['rule'],
      reply,
    };
    const error = moneyMovingRefusal(refusal);
    expect(error).toMatchObject({ outcome: 'unknown', retryable: false });
    expect(error.message).not.toContain('lower amount');
  });
});

describe('credentials echoed by the provider (docs/architecture.md#redaction)', () => {
  it('never appear in providerCode, providerMessage, message or toJSON of the error', async () => {
    nockLogin('tok-echoed-9f2c71d4e8');
    nock(HOST)
      .post('/api/v1/refunds/initiate-refund')
      .reply(400, {
        requestSuccessful: false,
        responseCode: 'Bearer tok-echoed-9f2c71d4e8',
        responseMessage: `Rejected Authorization: Bearer tok-echoed-9f2c71d4e8 (login used ${BASIC})`,
      });
    const error = await rejection(testAdapter().createRefund(refundParams));
    expect(ProviderApiError.isInstance(error)).toBe(true);
    const seen = JSON.stringify({
      json: (error as ProviderApiError).toJSON(),
      message: (error as Error).message,
      code: (error as ProviderApiError).providerCode,
      providerMessage: (error as ProviderApiError).providerMessage,
    });
    expect(seen).not.toContain('tok-echoed-9f2c71d4e8');
    expect(seen).not.toContain(BASIC.slice('Basic '.length));
  });
});

describe('reserved refund members in any letter case (docs/providers/provider-n.md#refunds)', () => {
  it.each(['TransactionReference', 'REFUNDAMOUNT', 'refundreference'])(
    'refuses provider_metadata.%s before any call',
    async (member) => {
      const error = await rejection(
        testAdapter().createRefund({ ...refundParams, provider_metadata: { [member]: 'x' } }),
      );
      expect(ValidationError.isInstance(error)).toBe(true);
      expect((error as ValidationError).issues).toEqual([
        expect.objectContaining({ path: `provider_metadata.${member}` }),
      ]);
      expect(nock.pendingMocks()).toEqual([]);
    },
  );
});

describe('names like Object.prototype members (docs/architecture.md#events)', () => {
  const handler = () => createPay(testAdapter()).webhooks.setup({ webhookSecret: WEBHOOK_SECRET });
  const signed = (eventType: string, eventData: Record<string, unknown>) =>
    providerNWebhookRequest({ eventType, eventData }, { webhookSecret: WEBHOOK_SECRET });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'an event type named %s raises only its raw event',
    async (eventType) => {
      const { events } = await handler().handle(await signed(eventType, transactionEventData));
      expect(events.map((event) => event.type)).toEqual([`providerN.${eventType}`]);
    },
  );

  it.each(['constructor', '__proto__', 'toString'])(
    'a paymentStatus named %s is an unknown status read from the amounts',
    async (paymentStatus) => {
      const data = { ...transactionEventData, paymentStatus, amountPaid: 1 };
      const { events } = await handler().handle(await signed('SUCCESSFUL_TRANSACTION', data));
      expect(events[0]).toMatchObject({ type: 'payment.created', data: { status: 'processing' } });
    },
  );

  it.each(['constructor', '__proto__', 'valueOf'])(
    'a mandateStatus named %s raises subscription.updated with a pending subscription',
    async (mandateStatus) => {
      const data = { mandateCode: 'MTDD|1', mandateStatus, customerEmailAddress: 'ada@example.com' };
      const { events } = await handler().handle(await signed('MANDATE_UPDATE', data));
      expect(events[0]).toMatchObject({ type: 'subscription.updated', data: { status: 'pending' } });
    },
  );

  it.each(['constructor', 'toString'])(
    'a refundStatus named %s does not crash the normaliser',
    async (refundStatus) => {
      const { events } = await handler().handle(
        await signed('SUCCESSFUL_REFUND', { ...refundEventData, refundStatus }),
      );
      expect(events[0]).toMatchObject({ type: 'refund.created', data: { status: 'succeeded' } });
    },
  );
});
