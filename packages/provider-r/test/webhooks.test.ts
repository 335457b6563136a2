import { createPay, type WebhookRequest, type WebhookVerificationError } from '@pay/core';
import nock from 'nock';
import { describe, expect, it, vi } from 'vitest';
import {
  BASE_URL,
  FORM,
  MERCHANT,
  pushFields,
  rejectionOf as rejectionOfAny,
  SECRET,
  statusReply,
  statusRequest,
  TRANS_ID,
  testAdapter,
  useNock,
} from './fixtures.js';

useNock();

const rejectionOf = (promise: Promise<unknown>) => rejectionOfAny<WebhookVerificationError>(promise);

const URL_ = 'https://shop.example/webhooks/provider-r';

function formPush(overrides: Record<string, string> = {}): WebhookRequest {
  return {
    body: new URLSearchParams(pushFields(overrides)).toString(),
    headersAsObject: { 'Content-Type': 'application/x-www-form-urlencoded' },
    fullUrl: URL_,
  };
}

function confirmWith(status: string, overrides: Record<string, string> = {}) {
  return nock(BASE_URL)
    .post('/v1.0/status', statusRequest())
    .reply(200, statusReply({ status, ...overrides }), FORM);
}

function handlerFor(webhookSecret = SECRET) {
  return createPay(testAdapter()).webhooks.setup({ webhookSecret });
}

describe('Provider R push notifications', () => {
  it('confirms a PAID push and raises payment.succeeded, invoice.generated and providerR.PAID, in that order', async () => {
    const scope = confirmWith('PAID');
    const order: string[] = [];
    const handler = handlerFor()
      .on('payment.succeeded', (event) => {
        order.push(event.type);
        expect(event.data).toMatchObject({
          id: TRANS_ID,
          status: 'succeeded',
          amount: 10000,
          currency: 'CZK',
        });
      })
      .on('invoice.generated', (event) => {
        order.push(event.type);
        expect(event.data).toMatchObject({
          id: TRANS_ID,
          payment_id: TRANS_ID,
          amount_paid: 10000,
          currency: 'CZK',
          status: 'paid',
          customer: { id: 'cust_42' },
          metadata: { refId: 'order-1001', label: 'Order from Eshop' },
        });
        expect(new Date(event.data.paid_at ?? '').getTime()).toBe(event.created);
      })
      .on('providerR.PAID', (event) => {
        order.push(event.type);
        expect(event.data.price).toBe(10000);
        expect(event.data).not.toHaveProperty('secret');
      });
    const result = await handler.handle(formPush());
    expect(order).toEqual(['payment.succeeded', 'invoice.generated', 'providerR.PAID']);
    expect(result.events.map((event) => [event.id, event.is_raw])).toEqual([
      [`${TRANS_ID}:PAID:payment.succeeded`, false],
      [`${TRANS_ID}:PAID:invoice.generated`, false],
      [`${TRANS_ID}:PAID:providerR.PAID`, true],
    ]);
    expect(JSON.stringify(result.events)).not.toContain(SECRET);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    ['PENDING', ['payment.created', 'providerR.PENDING']],
    ['AUTHORIZED', ['payment.updated', 'providerR.AUTHORIZED']],
    ['CANCELLED', ['payment.failed', 'providerR.CANCELLED']],
  ])('maps a confirmed %s to its events', async (status, types) => {
    confirmWith(status);
    const { events } = await handlerFor().handle(formPush({ status }));
    expect(events.map((event) => event.type)).toEqual(types);
  });

  it('reads a JSON push whose content type has another letter case and a charset, with numeric values', async () => {
    confirmWith('PAID');
    const body = JSON.stringify({ ...pushFields(), merchant: Number(MERCHANT), price: 10000, test: true });
    const { events } = await handlerFor().handle({
      body,
      headersAsObject: { 'content-type': 'Application/JSON; charset=UTF-8' },
      fullUrl: URL_,
    });
    expect(events).toHaveLength(3);
  });

  it('reports the confirmed status, not the pushed one', async () => {
    confirmWith('PAID');
    const { events } = await handlerFor().handle(formPush({ status: 'AUTHORIZED' }));
    expect(events.map((event) => event.id)).toEqual([
      `${TRANS_ID}:PAID:payment.succeeded`,
      `${TRANS_ID}:PAID:invoice.generated`,
      `${TRANS_ID}:PAID:providerR.PAID`,
    ]);
  });

  it('refuses a final push the status call still reports as PENDING, as retryable, and runs nothing', async () => {
    confirmWith('PENDING');
    const callback = vi.fn();
    const error = await rejectionOf(
      handlerFor()
        .on(['payment.succeeded', 'payment.created'], callback)
        .handle(formPush({ status: 'PAID' })),
    );
    expect(error).toMatchObject({
      code: 'webhook_verification_failed',
      reason: 'unconfirmed_status',
      retryable: true,
      status: 503,
    });
    expect(callback).not.toHaveBeenCalled();
  });

  it('refuses a wrong secret without calling the provider', async () => {
    const scope = confirmWith('PAID');
    const error = await rejectionOf(handlerFor().handle(formPush({ secret: 'guessed' })));
    expect(error).toMatchObject({ reason: 'invalid_secret', status: 400 });
    expect(scope.isDone()).toBe(false);
  });

  it('refuses a push without a secret', async () => {
    const { secret: _secret, ...fields } = pushFields();
    const error = await rejectionOf(
      handlerFor().handle({
        body: new URLSearchParams(fields).toString(),
        headersAsObject: {},
        fullUrl: URL_,
      }),
    );
    expect(error.reason).toBe('invalid_secret');
  });

  it('refuses another merchant without calling the provider', async () => {
    const scope = confirmWith('PAID');
    const error = await rejectionOf(handlerFor().handle(formPush({ merchant: '999999' })));
    expect(error).toMatchObject({ reason: 'merchant_mismatch', retryable: false });
    expect(scope.isDone()).toBe(false);
  });

  it('refuses a push without transId or with an unknown status as malformed', async () => {
    expect((await rejectionOf(handlerFor().handle(formPush({ transId: '' })))).reason).toBe(
      'malformed_payload',
    );
    expect((await rejectionOf(handlerFor().handle(formPush({ status: 'REFUNDED' })))).reason).toBe(
      'malformed_payload',
    );
  });

  it('refuses a JSON push whose body is not a JSON object', async () => {
    const error = await rejectionOf(
      handlerFor().handle({
        body: '{"merchant":',
        headersAsObject: { 'content-type': 'application/json' },
        fullUrl: URL_,
      }),
    );
    expect(error.reason).toBe('malformed_payload');
  });

  it('refuses an unknown transaction (1104) for good, and asks for redelivery when the status call fails', async () => {
    nock(BASE_URL).post('/v1.0/status').reply(200, 'code=1104&message=Not+found', FORM);
    expect(await rejectionOf(handlerFor().handle(formPush()))).toMatchObject({
      reason: 'confirmation_failed',
      retryable: false,
    });
    nock(BASE_URL).post('/v1.0/status').reply(502, 'Bad gateway');
    expect(await rejectionOf(handlerFor().handle(formPush()))).toMatchObject({
      reason: 'confirmation_failed',
      retryable: true,
      status: 503,
    });
  });

  it('refuses a confirmation that answers for another transaction', async () => {
    confirmWith('PAID', { transId: 'ZZ99-ZZ99-ZZ99' });
    expect((await rejectionOf(handlerFor().handle(formPush()))).reason).toBe('confirmation_failed');
  });

  it('gives a redelivery the same event ids', async () => {
    confirmWith('CANCELLED');
    confirmWith('CANCELLED');
    const handler = handlerFor();
    const first = await handler.handle(formPush({ status: 'CANCELLED' }));
    const again = await handler.handle(formPush({ status: 'CANCELLED' }));
    expect(again.events.map((event) => event.id)).toEqual(first.events.map((event) => event.id));
  });
});
