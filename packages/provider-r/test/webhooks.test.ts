import {
  createMemoryDeduplicationStore,
  createPay,
  type WebhookRequest,
  type WebhookVerificationError,
} from '@pay/core';
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
    const confirmation = { requestId: '' };
    const scope = nock(BASE_URL)
      .post('/v1.0/status', statusRequest())
      .reply(
        200,
        function () {
          confirmation.requestId = String(this.req.headers['x-request-id']);
          return statusReply({ status: 'PAID' });
        },
        FORM,
      );
    const order: string[] = [];
    const handler = handlerFor()
      .on('payment.succeeded', (event) => {
        order.push(event.type);
        expect(event.data).toMatchObject({
          id: TRANS_ID,
          status: 'succeeded',
          // The wire price 10000 is 100.00 CZK in the standard unit.
          amount: 100,
          currency: 'CZK',
          // The request id of the status read that confirmed the push.
          request_id: confirmation.requestId,
        });
      })
      .on('invoice.generated', (event) => {
        order.push(event.type);
        expect(event.data).toMatchObject({
          id: TRANS_ID,
          payment_id: TRANS_ID,
          amount_paid: 100,
          currency: 'CZK',
          status: 'paid',
          request_id: confirmation.requestId,
          customer: { id: 'cust_42' },
          metadata: { refId: 'order-1001', label: 'Order from Eshop' },
        });
        expect(new Date(event.data.paid_at ?? '').getTime()).toBe(event.created);
      })
      .on('providerR.PAID', (event) => {
        order.push(event.type);
        // The raw event is the provider's own reply: its price stays in minor units.
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

  it('while the secret is rotated, accepts a push carrying the old or the new one given together', async () => {
    const rotating = createPay(testAdapter()).webhooks.setup({ webhookSecret: ['rotated-secret', SECRET] });
    confirmWith('PAID');
    const byOld = await rotating.handle(formPush());
    expect(byOld.events.map((event) => event.type)).toEqual([
      'payment.succeeded',
      'invoice.generated',
      'providerR.PAID',
    ]);
    confirmWith('PAID');
    const byNew = await rotating.handle(formPush({ secret: 'rotated-secret' }));
    expect(byNew.events.map((event) => event.id)).toEqual(byOld.events.map((event) => event.id));
    const scope = confirmWith('PAID');
    const error = await rejectionOf(rotating.handle(formPush({ secret: 'guessed' })));
    expect(error).toMatchObject({ reason: 'invalid_secret', status: 400 });
    expect(scope.isDone()).toBe(false);
  });

  it('refuses a callback for an event Provider R never raises (refunds, subscriptions)', () => {
    for (const name of ['refund.created', 'subscription.created'] as never[])
      expect(() => handlerFor().on(name, () => {})).toThrow(`'${name}' is not an event providerR raises.`);
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

  it('refuses a push without transId or status as malformed', async () => {
    expect((await rejectionOf(handlerFor().handle(formPush({ transId: '' })))).reason).toBe(
      'malformed_payload',
    );
    expect((await rejectionOf(handlerFor().handle(formPush({ status: '' })))).reason).toBe(
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

describe('a delivery is bound to this merchant and this mode (docs/providers/provider-r.md#webhooks)', () => {
  function productionHandler() {
    return createPay(testAdapter({ isSandbox: false })).webhooks.setup({ webhookSecret: SECRET });
  }

  it('refuses a push for a test payment on a production handler, before any status call', async () => {
    const scope = confirmWith('PAID');
    const callback = vi.fn();
    const error = await rejectionOf(productionHandler().on('payment.succeeded', callback).handle(formPush()));
    expect(error).toMatchObject({ reason: 'mode_mismatch', retryable: false, status: 400 });
    expect(error.message).toContain('test (sandbox)');
    expect(scope.isDone()).toBe(false);
    expect(callback).not.toHaveBeenCalled();
  });

  it('refuses a push for a live payment on a sandbox handler, before any status call', async () => {
    const scope = confirmWith('PAID', { test: 'false' });
    const error = await rejectionOf(handlerFor().handle(formPush({ test: 'false' })));
    expect(error).toMatchObject({ reason: 'mode_mismatch', status: 400 });
    expect(scope.isDone()).toBe(false);
  });

  it('refuses on a production handler a push without a test flag whose confirmation says test', async () => {
    const { test: _test, ...fields } = pushFields();
    confirmWith('PAID', { test: 'true' });
    const error = await rejectionOf(
      productionHandler().handle({
        body: new URLSearchParams(fields).toString(),
        headersAsObject: { 'content-type': 'application/x-www-form-urlencoded' },
        fullUrl: URL_,
      }),
    );
    expect(error.reason).toBe('mode_mismatch');
  });

  it('refuses a push whose confirmation contradicts its test flag', async () => {
    confirmWith('PAID', { test: 'false' });
    const error = await rejectionOf(handlerFor().handle(formPush({ test: 'true' })));
    expect(error.reason).toBe('confirmation_failed');
  });

  it('refuses a confirmation that names another merchant', async () => {
    const scope = confirmWith('PAID', { merchant: '999999' });
    const callback = vi.fn();
    const error = await rejectionOf(handlerFor().on('payment.succeeded', callback).handle(formPush()));
    expect(error).toMatchObject({ reason: 'merchant_mismatch', retryable: false });
    expect(scope.isDone()).toBe(true);
    expect(callback).not.toHaveBeenCalled();
  });

  it('marks records of a live payment livemode true and of a test payment false, with what was paid', async () => {
    confirmWith('PAID', { test: 'false' });
    const live = await productionHandler().handle(formPush({ test: 'false' }));
    expect(live.events[0]?.data).toMatchObject({ livemode: true, amount: 100, amount_paid: 100 });
    expect(live.events[1]?.data).toMatchObject({ livemode: true, amount_paid: 100 });
    confirmWith('PENDING');
    const test = await handlerFor().handle(formPush({ status: 'PENDING' }));
    expect(test.events[0]?.data).toMatchObject({ livemode: false, status: 'pending', amount_paid: 0 });
  });
});

describe('deduplication before any upstream work (docs/architecture.md#webhook-deduplication)', () => {
  it('makes one status read for a delivery replayed ten times through a handler with a store', async () => {
    const scope = nock(BASE_URL)
      .post('/v1.0/status', statusRequest())
      .once()
      .reply(200, statusReply({ status: 'PAID' }), FORM);
    const succeeded = vi.fn();
    const handler = createPay(testAdapter()).webhooks.setup({
      webhookSecret: SECRET,
      deduplicate: createMemoryDeduplicationStore(),
    });
    handler.on('payment.succeeded', succeeded);
    const results = [];
    for (let replay = 0; replay < 10; replay++) results.push(await handler.handle(formPush()));
    expect(scope.isDone()).toBe(true);
    expect(succeeded).toHaveBeenCalledTimes(1);
    expect(results.slice(1).every((result) => result.events.length === 0)).toBe(true);
    expect(results[1]?.duplicates).toEqual([`${TRANS_ID}:PAID`]);
  });

  it('runs the status read again for a redelivery after a failed confirmation', async () => {
    nock(BASE_URL).post('/v1.0/status').reply(502, 'Bad gateway');
    confirmWith('PAID');
    const handler = createPay(testAdapter()).webhooks.setup({
      webhookSecret: SECRET,
      deduplicate: createMemoryDeduplicationStore(),
    });
    expect((await rejectionOf(handler.handle(formPush()))).retryable).toBe(true);
    expect((await handler.handle(formPush())).events).toHaveLength(3);
  });
});

describe('odd but authentic input never crashes the normaliser (docs/architecture.md#events, docs/architecture.md#lenient-reading)', () => {
  it('maps a confirmed status the wire contract does not list to processing, plus its raw event', async () => {
    confirmWith('REFUNDED');
    const { events } = await handlerFor().handle(formPush({ status: 'REFUNDED' }));
    expect(events.map((event) => [event.type, event.is_raw])).toEqual([
      ['payment.updated', false],
      ['providerR.REFUNDED', true],
    ]);
    expect(events[0]?.data).toMatchObject({
      status: 'processing',
      amount_paid: null,
      requires_action: false,
    });
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'treats a status named %s as an unknown status',
    async (odd) => {
      confirmWith(odd);
      const { events } = await handlerFor().handle(formPush({ status: odd }));
      expect(events.map((event) => event.type)).toEqual([
        'payment.updated',
        `providerR.${odd.toUpperCase()}`,
      ]);
      expect(events[0]?.data).toMatchObject({ status: 'processing' });
    },
  );

  it('reports the confirmed PAID for a push whose status is an odd name', async () => {
    confirmWith('PAID');
    const { events } = await handlerFor().handle(formPush({ status: '__proto__' }));
    expect(events.map((event) => event.type)).toEqual([
      'payment.succeeded',
      'invoice.generated',
      'providerR.PAID',
    ]);
  });
});
