/**
 * Replays of Provider R's published replies and pushes (test/fixtures, sources in test/fixtures/SOURCE.md)
 * through nock (docs/architecture.md#lenient-reading): every reply the adapter reads and every push it normalises.
 */
import { readFileSync } from 'node:fs';
import { createPay, ProviderApiError, type WebhookRequest } from '@pay/core';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { createProviderR, PROVIDER_R_BASE_URL } from '../src/index.js';
import { rejectionOf, useNock } from './fixtures.js';

useNock();

interface ReplyFixture {
  source: string;
  request: { method: string; path: string };
  status: number;
  contentType: string;
  body: string | Record<string, unknown>;
}
interface PushFixture {
  source: string;
  contentType: string;
  body: string | Record<string, unknown>;
}

function fixture<T = ReplyFixture>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as T;
}

/** The published placeholder secret of the fixtures: the adapter is configured with it. */
const SECRET = 'example-secret-placeholder';

function adapterFor(merchant: string, isSandbox = true) {
  return createProviderR({ merchant, secret: SECRET, isSandbox, retry: 0 });
}

/** Answers the fixture's call once, as recorded (content type included). */
function replay(name: string, override?: (body: string) => string) {
  const recorded = fixture(name);
  const text = typeof recorded.body === 'string' ? recorded.body : JSON.stringify(recorded.body);
  return nock(PROVIDER_R_BASE_URL)
    .intercept(recorded.request.path, recorded.request.method)
    .reply(recorded.status, override ? override(text) : text, { 'content-type': recorded.contentType });
}

describe('every fixture names its source and holds no live credential', () => {
  const names = readFileSync(new URL('./fixtures/SOURCE.md', import.meta.url), 'utf8').match(
    /`[a-z0-9-]+\.json`/g,
  );
  it.each((names ?? []).map((name) => name.slice(1, -1)))('%s', (name) => {
    const text = readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
    expect((JSON.parse(text) as { source?: string }).source).toMatch(/\S{10,}/);
    for (const secret of text.match(/secret(?:=|%27\+%3D%3E\+%27|": ")([^&"%]+)/g) ?? []) {
      expect(secret).toContain('placeholder');
    }
  });
});

describe('published creation replies', () => {
  const paymentParams = {
    customer: { id: 'cust_42' },
    item_id: 'order-1001',
    amount: 100,
    provider_metadata: { email: 'payer@example.com' },
  };

  it('reads the documented payment creation reply into a pending test Payment', async () => {
    const scope = replay('payment-create.json');
    const payment = await adapterFor('123456').createPayment(paymentParams);
    expect(payment).toMatchObject({
      id: 'AB12-CD34-EF56',
      status: 'pending',
      amount: 100,
      amount_paid: 0,
      livemode: false,
      payment_url: 'https://payments.provider-r.example/client/instructions/index?id=AB12-CD34-EF56',
    });
    expect(scope.isDone()).toBe(true);
  });

  it('reads a form-encoded redirect creation reply', async () => {
    const scope = replay('redirect-create.json');
    const redirect = await adapterFor('123456').createCheckoutRedirect({
      customer: { email: 'payer@example.com' },
      amount: 100,
      currency: 'CZK',
      success_url: 'https://shop.example/paid',
      cancel_url: 'https://shop.example/cancelled',
    });
    expect(redirect).toEqual({
      transId: 'AB12-CD34-EF56',
      redirectUrl: 'https://payments.provider-r.example/client/instructions/index?id=AB12-CD34-EF56',
    });
    expect(scope.isDone()).toBe(true);
  });

  it('refuses a creation from an unauthorised location with the provider code, as a plain refusal', async () => {
    replay('create-unauthorized-location-1400.json');
    const error = await rejectionOf<ProviderApiError>(adapterFor('123456').createPayment(paymentParams));
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      providerCode: '1400',
      providerMessage: 'Access from unauthorized location [109.81.209.223]!',
      retryable: false,
    });
    expect(error.outcome).toBeUndefined();
  });

  it('keeps the transId of a refused creation on the error and never advises repeating it', async () => {
    replay('create-error-with-transid.json');
    const error = await rejectionOf<ProviderApiError>(
      adapterFor('123456').createPayment({
        ...paymentParams,
        provider_metadata: { email: 'a@example.com', refId: 'R-7' },
      }),
    );
    expect(error).toMatchObject({
      code: 'provider_api_error',
      providerCode: '1500',
      retryable: false,
      outcome: 'unknown',
      context: { transId: 'AB12-CD34-EF56', refId: 'R-7' },
    });
    expect(error.message).not.toContain('retry with the same input');
    expect(error.message).toContain('retrievePayment');
  });
});

describe('published status replies', () => {
  it('reads a PAID form reply with fields it does not map, without the echoed secret', async () => {
    replay('status-paid-form.json');
    const payment = await adapterFor('123456', false).retrievePayment('3IX8-NZ9I-KDTO');
    expect(payment).toMatchObject({
      id: '3IX8-NZ9I-KDTO',
      status: 'succeeded',
      amount: 129,
      amount_paid: 129,
      currency: 'CZK',
      livemode: true,
      customer: { email: 'payer1@example.com' },
      item_id: '62bdf52e1fdcdd5f02d',
    });
    expect(JSON.stringify(payment)).not.toContain(SECRET);
  });

  it('reads a PENDING form reply with empty optional fields as a test payment', async () => {
    replay('status-pending-form.json');
    await expect(adapterFor('0987').retrievePayment('AAAA-BBBB-CCCC')).resolves.toMatchObject({
      status: 'pending',
      amount: 100,
      amount_paid: 0,
      livemode: false,
      requires_action: true,
    });
  });

  it('reads a JSON status reply with a numeric price and test as text', async () => {
    replay('status-json.json');
    const payment = await adapterFor('fixture-merchant').retrievePayment('PAY-123');
    expect(payment).toMatchObject({
      status: 'succeeded',
      amount: 123.45,
      livemode: false,
      customer: { id: 'PAYER-7' },
    });
    expect(payment?.raw).not.toHaveProperty('secret');
  });

  it.each(['status-not-found-1400.json', 'status-unknown-1104.json'])(
    'resolves an unknown payment to null (%s)',
    async (name) => {
      const scope = replay(name);
      await expect(adapterFor('123456').retrievePayment('AB12-CD34-EF56')).resolves.toBeNull();
      expect(scope.isDone()).toBe(true);
    },
  );

  it.each([
    ['status-unauthorized-location-1400.json', 'Access from unauthorized location [109.81.209.223]!'],
    ['status-unauthorized-1400.json', 'Unauthorized access'],
  ])('still refuses an unauthorised caller with a ProviderApiError (%s)', async (name, message) => {
    replay(name);
    const error = await rejectionOf(adapterFor('123456').retrievePayment('AB12-CD34-EF56'));
    expect(ProviderApiError.isInstance(error)).toBe(true);
    // The portable kind (docs/architecture.md#provider-client): an unauthorised caller, whatever the HTTP status
    // (200 here).
    expect(error).toMatchObject({ providerCode: '1400', providerMessage: message, kind: 'authentication' });
  });

  it('keeps the provider code of a reply that carries `error` instead of `code`, and redacts the echoed secret', async () => {
    // The same published reply, answered to a capture's status read, where "not found" is an error.
    replay('status-not-found-1400.json');
    const error = await rejectionOf<ProviderApiError>(adapterFor('123456').capturePayment('AB12-CD34-EF56'));
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error.providerCode).toBe('1400');
    expect(error.providerMessage).toMatch(/^Payment not found \(status\)/);
    expect(error.kind).toBe('not_found');
    expect(JSON.stringify(error)).not.toContain(SECRET);
  });
});

describe('published capture, cancel and refund replies', () => {
  const authorised = (body: string) =>
    body.replace('status=PAID', 'status=AUTHORIZED').replace('3IX8-NZ9I-KDTO', 'AB12-CD34-EF56');

  it('captures with the recorded acknowledgement', async () => {
    replay('status-paid-form.json', authorised);
    const capture = replay('capture.json');
    replay('status-paid-form.json', (body) => body.replace('3IX8-NZ9I-KDTO', 'AB12-CD34-EF56'));
    const payment = await adapterFor('123456', false).capturePayment('AB12-CD34-EF56');
    expect(payment).toMatchObject({ status: 'succeeded', amount: 129, amount_paid: 129 });
    expect(capture.isDone()).toBe(true);
  });

  it('cancels a pre-authorisation and a pending payment with the recorded acknowledgements', async () => {
    const cancelledReply = (body: string) =>
      body.replace('status=PAID', 'status=CANCELLED').replace('3IX8-NZ9I-KDTO', 'AB12-CD34-EF56');
    replay('status-paid-form.json', authorised);
    const preauth = replay('cancel-preauth.json');
    replay('status-paid-form.json', cancelledReply);
    await expect(adapterFor('123456', false).cancelPayment('AB12-CD34-EF56')).resolves.toMatchObject({
      status: 'canceled',
      amount_paid: 0,
    });
    expect(preauth.isDone()).toBe(true);

    replay('status-paid-form.json', (body) =>
      authorised(body).replace('status=AUTHORIZED', 'status=PENDING'),
    );
    const pending = replay('cancel-payment.json');
    replay('status-paid-form.json', cancelledReply);
    await expect(adapterFor('123456', false).cancelPayment('AB12-CD34-EF56')).resolves.toMatchObject({
      status: 'canceled',
    });
    expect(pending.isDone()).toBe(true);
  });

  it('refunds with the recorded acknowledgement, and passes a 1402 refusal on as a plain refusal', async () => {
    replay('status-paid-form.json', (body) => body.replace('3IX8-NZ9I-KDTO', 'AB12-CD34-EF56'));
    replay('refund.json');
    await expect(
      adapterFor('123456', false).createRefund({ payment_id: 'AB12-CD34-EF56', amount: 9 }),
    ).resolves.toMatchObject({ amount: 9, currency: 'CZK', status: 'succeeded', livemode: true });

    replay('status-paid-form.json', (body) => body.replace('3IX8-NZ9I-KDTO', 'AB12-CD34-EF56'));
    replay('refund-too-high-1402.json');
    const error = await rejectionOf<ProviderApiError>(
      adapterFor('123456', false).createRefund({ payment_id: 'AB12-CD34-EF56', amount: 999 }),
    );
    expect(error).toMatchObject({ providerCode: '1402', retryable: false });
    expect(error.outcome).toBeUndefined();
  });
});

describe('published pushes', () => {
  function pushRequest(name: string): WebhookRequest {
    const push = fixture<PushFixture>(name);
    return {
      body: typeof push.body === 'string' ? push.body : JSON.stringify(push.body),
      headersAsObject: { 'Content-Type': push.contentType },
      fullUrl: 'https://shop.example/webhooks/provider-r',
    };
  }

  it('confirms the documented live PAID push on a production handler', async () => {
    // The status confirmation of that push: the recorded PAID reply, for the push's merchant and transaction.
    replay('status-paid-form.json', (body) =>
      body.replace('merchant=123456', 'merchant=merchant_com').replace('3IX8-NZ9I-KDTO', 'AB12-EF34-IJ56'),
    );
    const pay = createPay(adapterFor('merchant_com', false));
    const { events } = await pay.webhooks
      .setup({ webhookSecret: SECRET })
      .handle(pushRequest('push-paid-form.json'));
    expect(events.map((event) => event.type)).toEqual([
      'payment.succeeded',
      'invoice.generated',
      'providerR.PAID',
    ]);
    expect(events[0]?.data).toMatchObject({ id: 'AB12-EF34-IJ56', livemode: true, amount_paid: 129 });
  });

  it('refuses the documented live push on a sandbox handler before any status call', async () => {
    const pay = createPay(adapterFor('merchant_com', true));
    const error = await rejectionOf(
      pay.webhooks.setup({ webhookSecret: SECRET }).handle(pushRequest('push-paid-form.json')),
    );
    expect(error).toMatchObject({
      code: 'webhook_verification_failed',
      reason: 'mode_mismatch',
      status: 400,
    });
  });

  it('reads a JSON push with a numeric merchant and a boolean test flag', async () => {
    replay('status-paid-form.json', (body) =>
      body
        .replace('status=PAID', 'status=AUTHORIZED')
        .replace('test=false', 'test=true')
        .replace('3IX8-NZ9I-KDTO', 'AB12-CD34-EF56'),
    );
    const pay = createPay(adapterFor('123456', true));
    const { events } = await pay.webhooks
      .setup({ webhookSecret: SECRET })
      .handle(pushRequest('push-authorized-json.json'));
    expect(events.map((event) => event.type)).toEqual(['payment.updated', 'providerR.AUTHORIZED']);
    expect(events[0]?.data).toMatchObject({ status: 'requires_capture', livemode: false, amount_paid: 0 });
  });
});
