import { ConfigurationError, createPay, WebhookVerificationError } from '@pay/core';
import { describe, expect, it, vi } from 'vitest';
import { MANDATE_STATUS } from '../src/index.js';
import { providerNWebhookRequest, signProviderNWebhook } from '../src/testing/index.js';
import {
  mandateEventData,
  refundEventData,
  settlementEventData,
  TRANSACTION_REFERENCE,
  testAdapter,
  transactionEventData,
  WEBHOOK_SECRET,
} from './fixtures.js';

function handler() {
  return createPay(testAdapter()).webhooks.setup({ webhookSecret: WEBHOOK_SECRET });
}

function signed(eventType: string, eventData: Record<string, unknown>) {
  return providerNWebhookRequest({ eventType, eventData }, { webhookSecret: WEBHOOK_SECRET });
}

async function refusal(request: Parameters<ReturnType<typeof handler>['handle']>[0]) {
  const error = await handler()
    .handle(request)
    .catch((thrown: unknown) => thrown);
  expect(WebhookVerificationError.isInstance(error)).toBe(true);
  return error as WebhookVerificationError;
}

describe('transaction events', () => {
  it.each(['SUCCESSFUL_TRANSACTION', 'SUCCESSFUL_TRANSACTION_OFFLINE'])(
    '%s raises payment.created with the Payment, then the raw event',
    async (eventType) => {
      const { events } = await handler().handle(await signed(eventType, transactionEventData));
      expect(events.map((event) => [event.type, event.id, event.is_raw])).toEqual([
        ['payment.created', `${TRANSACTION_REFERENCE}:PAID:payment.created`, false],
        [`providerN.${eventType}`, `${TRANSACTION_REFERENCE}:PAID:providerN.${eventType}`, true],
      ]);
      expect(events[0]?.data).toEqual({
        provider: 'providerN',
        id: TRANSACTION_REFERENCE,
        amount: 5000,
        currency: 'NGN',
        status: 'succeeded',
        amount_paid: 5000,
        customer: { email: 'ada@example.com' },
        item_id: null,
        metadata: {
          orderId: '1001',
          paymentStatus: 'PAID',
          paymentReference: 'order-1001',
          settlementAmount: '4925',
        },
        requires_action: false,
        payment_url: null,
        livemode: false,
        // Built from the payload alone: no call produced it (Provider N has no status read here).
        request_id: null,
        raw: transactionEventData,
      });
      expect(events[1]?.data).toEqual(transactionEventData);
      expect(events.every((event) => event.provider === 'providerN')).toBe(true);
    },
  );

  it('reads string amounts in a transaction payload too', async () => {
    const { events } = await handler().handle(
      await signed('SUCCESSFUL_TRANSACTION', { ...transactionEventData, totalPayable: '5000.50' }),
    );
    expect(events[0]?.data).toMatchObject({ amount: 5000.5 });
  });

  it.each([
    ['PARTIALLY_PAID', 'processing'],
    ['OVERPAID', 'succeeded'],
    ['SOMETHING_NEW', 'succeeded'],
  ])('reads paymentStatus %s of a fully paid transaction as %s', async (paymentStatus, status) => {
    const { events } = await handler().handle(
      await signed('SUCCESSFUL_TRANSACTION', { ...transactionEventData, paymentStatus }),
    );
    expect(events[0]?.data).toMatchObject({ status, metadata: { paymentStatus } });
  });

  it('a payer who paid 1 of 5,000 NGN yields payment.created whose record shows 5,000 asked, 1 paid, processing', async () => {
    const partial = { ...transactionEventData, amountPaid: 1, paymentStatus: 'PARTIALLY_PAID' };
    const { events } = await handler().handle(await signed('SUCCESSFUL_TRANSACTION', partial));
    expect(events[0]).toMatchObject({
      type: 'payment.created',
      data: { amount: 5000, amount_paid: 1, status: 'processing' },
    });
  });

  it('an over-payment is visible: amount asked and the larger amount paid', async () => {
    const over = { ...transactionEventData, amountPaid: 5200, paymentStatus: 'OVERPAID' };
    const { events } = await handler().handle(await signed('SUCCESSFUL_TRANSACTION', over));
    expect(events[0]?.data).toMatchObject({ amount: 5000, amount_paid: 5200, status: 'succeeded' });
  });

  it('a status the provider added is read from the amounts, never as succeeded for a partial payment', async () => {
    const partial = { ...transactionEventData, amountPaid: 1, paymentStatus: 'HALF_THERE' };
    const { events } = await handler().handle(await signed('SUCCESSFUL_TRANSACTION', partial));
    expect(events.map((event) => event.type)).toEqual([
      'payment.created',
      'providerN.SUCCESSFUL_TRANSACTION',
    ]);
    expect(events[0]?.data).toMatchObject({ status: 'processing', amount_paid: 1 });
  });

  it('records of a production adapter say livemode: true', async () => {
    const live = createPay(testAdapter({ isSandbox: false })).webhooks.setup({
      webhookSecret: WEBHOOK_SECRET,
    });
    const { events } = await live.handle(await signed('SUCCESSFUL_TRANSACTION', transactionEventData));
    expect(events[0]?.data).toMatchObject({ livemode: true });
  });

  it('REJECTED_PAYMENT raises payment.failed with status failed', async () => {
    const data = { ...transactionEventData, paymentStatus: 'PAID' };
    const { events } = await handler().handle(await signed('REJECTED_PAYMENT', data));
    expect(events.map((event) => event.type)).toEqual(['payment.failed', 'providerN.REJECTED_PAYMENT']);
    expect(events[0]?.data).toMatchObject({ status: 'failed', id: TRANSACTION_REFERENCE });
  });
});

describe('SETTLEMENT', () => {
  it('raises payment.updated per settled transaction, in order, with ids by index', async () => {
    const { events } = await handler().handle(await signed('SETTLEMENT', settlementEventData));
    expect(events.map((event) => [event.type, event.id])).toEqual([
      ['payment.updated', 'SETL-2026-11-22-0001:0:payment.updated'],
      ['payment.updated', 'SETL-2026-11-22-0001:1:payment.updated'],
      ['providerN.SETTLEMENT', 'SETL-2026-11-22-0001:providerN.SETTLEMENT'],
    ]);
    expect(events[1]?.data).toEqual({
      provider: 'providerN',
      id: 'PN|20261122111000|000124',
      amount: 2900,
      amount_paid: 3000,
      currency: 'NGN',
      status: 'succeeded',
      customer: { email: 'bo@example.com' },
      item_id: null,
      metadata: {
        paymentStatus: 'OVERPAID',
        paymentReference: 'order-1002',
        settlementReference: 'SETL-2026-11-22-0001',
      },
      requires_action: false,
      payment_url: null,
      livemode: false,
      // Built from the payload alone: no call produced it (Provider N has no status read here).
      request_id: null,
      raw: settlementEventData,
    });
  });
});

describe('refund events', () => {
  it.each([
    ['SUCCESSFUL_REFUND', 'succeeded'],
    ['FAILED_REFUND', 'failed'],
  ])('%s raises refund.created with status %s', async (eventType, status) => {
    const data = { ...refundEventData, refundStatus: eventType === 'FAILED_REFUND' ? 'FAILED' : 'COMPLETED' };
    const { events } = await handler().handle(await signed(eventType, data));
    expect(events.map((event) => event.type)).toEqual(['refund.created', `providerN.${eventType}`]);
    expect(events[0]?.data).toEqual({
      provider: 'providerN',
      id: 'rf-6a1c2d',
      payment_id: TRANSACTION_REFERENCE,
      amount: 1000,
      currency: 'NGN',
      status,
      reason: 'Damaged item',
      metadata: {},
      livemode: false,
      // Built from the payload alone: no call produced it (Provider N has no status read here).
      request_id: null,
      raw: data,
    });
    expect(events[0]?.id).toBe(`rf-6a1c2d:${data.refundStatus}:refund.created`);
  });
});

describe('MANDATE_UPDATE', () => {
  it.each([
    ['PENDING', 'subscription.created'],
    ['ACTIVE', 'subscription.created'],
    ['ACTIVATED', 'subscription.created'],
    ['CANCELLED', 'subscription.canceled'],
    ['FAILED', 'subscription.updated'],
    ['EXPIRED', 'subscription.updated'],
  ] as const)('mandate status %s raises %s', async (mandateStatus, type) => {
    const data = { ...mandateEventData, mandateStatus };
    const { events } = await handler().handle(await signed('MANDATE_UPDATE', data));
    expect(events.map((event) => [event.type, event.id])).toEqual([
      [type, `MTDD|01JX9:${mandateStatus}:${type}`],
      ['providerN.MANDATE_UPDATE', `MTDD|01JX9:${mandateStatus}:providerN.MANDATE_UPDATE`],
    ]);
    expect(events[0]?.data).toEqual({
      provider: 'providerN',
      id: 'MTDD|01JX9',
      status: MANDATE_STATUS[mandateStatus],
      customer: { email: 'ada@example.com' },
      amount: 2500,
      currency: null,
      metadata: {},
      livemode: false,
      // Built from the payload alone: no call produced it (Provider N has no status read here).
      request_id: null,
      raw: data,
    });
  });

  it('a mandate status it does not know raises subscription.updated with a pending subscription, not a 400', async () => {
    const data = { ...mandateEventData, mandateStatus: 'PAUSED' };
    const { events } = await handler().handle(await signed('MANDATE_UPDATE', data));
    expect(events.map((event) => event.type)).toEqual(['subscription.updated', 'providerN.MANDATE_UPDATE']);
    expect(events[0]?.data).toMatchObject({ status: 'pending', customer: { email: 'ada@example.com' } });
  });
});

describe('events that raise only the raw event', () => {
  it.each([
    'CUSTOMER_CREATED',
    'CUSTOMER_UPDATED',
    'CUSTOMER_DELETED',
    'SUCCESSFUL_DISBURSEMENT',
    'FAILED_DISBURSEMENT',
    'REVERSED_DISBURSEMENT',
  ])('%s', async (eventType) => {
    const data = { reference: 'DSB-778', amount: 1500, status: 'SUCCESS' };
    const { events } = await handler().handle(await signed(eventType, data));
    expect(events.map((event) => [event.type, event.id, event.data])).toEqual([
      [`providerN.${eventType}`, `DSB-778:SUCCESS:providerN.${eventType}`, data],
    ]);
  });

  it('keys a payload without any reference by a digest of its body, stable on redelivery', async () => {
    const request = await signed('CUSTOMER_UPDATED', { email: 'ada@example.com', name: 'Ada' });
    const first = await handler().handle(request);
    const again = await handler().handle(request);
    const other = await handler().handle(await signed('CUSTOMER_UPDATED', { email: 'bo@example.com' }));
    expect(first.events[0]?.id).toMatch(/^sha256-[0-9a-f]{64}:providerN\.CUSTOMER_UPDATED$/);
    expect(again.events[0]?.id).toBe(first.events[0]?.id);
    expect(other.events[0]?.id).not.toBe(first.events[0]?.id);
  });

  it('passes an event type it does not know through as its raw event only', async () => {
    const { events } = await handler().handle(await signed('NEW_THING', { reference: 'N-1' }));
    expect(events.map((event) => event.type)).toEqual(['providerN.NEW_THING']);
  });
});

describe('dispatch', () => {
  it('runs the normalised and raw callbacks once each, in that order', async () => {
    const calls: string[] = [];
    const result = await handler()
      .on('payment.created', (event) => {
        calls.push(`${event.type}:${event.data.status}`);
      })
      .on('providerN.SUCCESSFUL_TRANSACTION', (event) => {
        calls.push(`${event.type}:${event.data.transactionReference}`);
      })
      .on('payment.failed', () => {
        calls.push('never');
      })
      .handle(await signed('SUCCESSFUL_TRANSACTION', transactionEventData));
    expect(calls).toEqual([
      'payment.created:succeeded',
      `providerN.SUCCESSFUL_TRANSACTION:${TRANSACTION_REFERENCE}`,
    ]);
    expect(result.events).toHaveLength(2);
  });
});

describe('verification', () => {
  it('signs the raw body bytes: the signature is lower-case hex HMAC-SHA512', async () => {
    const request = await signed('SUCCESSFUL_TRANSACTION', transactionEventData);
    const { createHmac } = await import('node:crypto');
    expect(request.headersAsObject['providerN-signature']).toBe(
      createHmac('sha512', WEBHOOK_SECRET).update(request.body).digest('hex'),
    );
  });

  it('accepts the body as bytes and the header in any case', async () => {
    const request = await signed('SUCCESSFUL_TRANSACTION', transactionEventData);
    const signature = request.headersAsObject['providerN-signature'] as string;
    for (const name of ['PROVIDERN-SIGNATURE', 'providern-signature', 'ProviderN-Signature']) {
      const { events } = await handler().handle({
        body: new TextEncoder().encode(request.body),
        headersAsObject: { [name]: signature },
        fullUrl: request.fullUrl,
      });
      expect(events).toHaveLength(2);
    }
  });

  it('gives the same ids on redelivery', async () => {
    const request = await signed('SETTLEMENT', settlementEventData);
    const first = await handler().handle(request);
    const again = await handler().handle(request);
    expect(again.events.map((event) => event.id)).toEqual(first.events.map((event) => event.id));
  });

  it('refuses a webhook whose body was altered after signing, and runs no callback', async () => {
    const callback = vi.fn();
    const request = await signed('SUCCESSFUL_TRANSACTION', transactionEventData);
    const error = await handler()
      .on('payment.created', callback)
      .handle({ ...request, body: request.body.replace('5000', '9000') })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      code: 'webhook_verification_failed',
      reason: 'invalid_signature',
      status: 400,
    });
    expect(callback).not.toHaveBeenCalled();
  });

  it('refuses a webhook signed with another secret', async () => {
    const request = await providerNWebhookRequest(
      { eventType: 'SUCCESSFUL_TRANSACTION', eventData: transactionEventData },
      { webhookSecret: 'someone-else' },
    );
    expect((await refusal(request)).reason).toBe('invalid_signature');
  });

  it('refuses a webhook without the signature header', async () => {
    const request = await signed('SUCCESSFUL_TRANSACTION', transactionEventData);
    expect((await refusal({ ...request, headersAsObject: {} })).reason).toBe('missing_signature');
  });

  it('refuses a truncated signature', async () => {
    const request = await signed('SUCCESSFUL_TRANSACTION', transactionEventData);
    const signature = request.headersAsObject['providerN-signature'] as string;
    const error = await refusal({
      ...request,
      headersAsObject: { 'providerN-signature': signature.slice(0, 64) },
    });
    expect(error.reason).toBe('invalid_signature');
  });

  it('refuses a correctly signed body that is not JSON or lacks the fields the mapping reads', async () => {
    const notJson = 'eventType=SUCCESSFUL_TRANSACTION';
    const error = await refusal({
      body: notJson,
      headersAsObject: { 'providerN-signature': await signProviderNWebhook(notJson, WEBHOOK_SECRET) },
      fullUrl: 'https://shop.example/webhooks/provider-n',
    });
    expect(error.reason).toBe('malformed_payload');
    const { totalPayable: _drop, ...incomplete } = transactionEventData;
    const missing = await refusal(await signed('SUCCESSFUL_TRANSACTION', incomplete));
    expect(missing.reason).toBe('malformed_payload');
    expect(missing.message).toContain('amount asked');
  });

  it('refuses a null webhookSecret at setup', () => {
    expect(() => createPay(testAdapter()).webhooks.setup({ webhookSecret: null })).toThrow(
      ConfigurationError,
    );
  });

  it('refuses a blank webhookSecret at setup, so no delivery signed with white space can verify', () => {
    for (const webhookSecret of [' ', [' ', WEBHOOK_SECRET], [WEBHOOK_SECRET, '\t\n']]) {
      expect(() => createPay(testAdapter()).webhooks.setup({ webhookSecret })).toThrow(ConfigurationError);
    }
  });

  it('takes a rotated secret key with updateSecrets, no redeploy: the next delivery verifies with it', async () => {
    const live = createPay(testAdapter()).webhooks.setup({ webhookSecret: WEBHOOK_SECRET });
    const byNew = await providerNWebhookRequest(
      { eventType: 'SUCCESSFUL_REFUND', eventData: refundEventData },
      { webhookSecret: 'new-secret-key' },
    );
    await expect(live.handle(byNew)).rejects.toMatchObject({ reason: 'invalid_signature' });
    live.updateSecrets(['new-secret-key', WEBHOOK_SECRET]);
    expect((await live.handle(byNew)).events.map((event) => event.type)).toEqual([
      'refund.created',
      'providerN.SUCCESSFUL_REFUND',
    ]);
  });

  it('while the secret key is rotated, accepts deliveries signed with the old or the new key given together', async () => {
    const rotating = createPay(testAdapter()).webhooks.setup({
      webhookSecret: ['new-secret-key', WEBHOOK_SECRET],
    });
    const byOld = await signed('SUCCESSFUL_TRANSACTION', transactionEventData);
    expect((await rotating.handle(byOld)).events.map((event) => event.type)).toEqual([
      'payment.created',
      'providerN.SUCCESSFUL_TRANSACTION',
    ]);
    const byNew = await providerNWebhookRequest(
      { eventType: 'SUCCESSFUL_REFUND', eventData: refundEventData },
      { webhookSecret: 'new-secret-key' },
    );
    expect((await rotating.handle(byNew)).events.map((event) => event.type)).toEqual([
      'refund.created',
      'providerN.SUCCESSFUL_REFUND',
    ]);
    const retired = createPay(testAdapter()).webhooks.setup({ webhookSecret: ['new-secret-key'] });
    await expect(retired.handle(byOld)).rejects.toMatchObject({ reason: 'invalid_signature' });
  });

  it('refuses a callback for payment.succeeded or invoice.generated, which Provider N never raises', () => {
    for (const name of ['payment.succeeded', 'invoice.generated'] as never[])
      expect(() => handler().on(name, () => {})).toThrow(
        `'${name}' is not an event providerN raises. Known names: payment.created, payment.updated, payment.failed, refund.created,`,
      );
  });

  it('refuses a callback for a misspelt event name', () => {
    expect(() => handler().on('providerN.SUCCESSFULL_TRANSACTION' as never, () => {})).toThrow(
      ConfigurationError,
    );
  });
});
