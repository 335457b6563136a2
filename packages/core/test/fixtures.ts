import {
  type AdapterTypes,
  defineAdapter,
  hmacSha512Hex,
  type Payment,
  timingSafeEqual,
  WebhookVerificationError,
  webhookEvent,
} from '../src/index.js';

/** A small adapter for core's own tests: a signed JSON webhook and two operations. */
export interface TestTypes extends AdapterTypes {
  provider: 'providerN';
  metadata: { 'checkouts.create': { amount: number; currency: string } };
  rawEvents: { 'providerN.SUCCESSFUL_TRANSACTION': { transactionReference: string; items: number } };
  checkout: null;
}

export const SECRET = 'whsec_core_test';

export function payment(id: string): Payment {
  return {
    id,
    amount: 10,
    amount_paid: 10,
    currency: 'NGN',
    status: 'succeeded',
    customer: null,
    item_id: null,
    metadata: {},
    requires_action: false,
    payment_url: null,
    provider: 'providerN',
    livemode: false,
    raw: {},
  };
}

export function testAdapter(calls: unknown[] = []) {
  return defineAdapter<TestTypes>({
    provider: 'providerN',
    operations: {
      async createPayment(params) {
        calls.push(params);
        return payment('p1');
      },
      async retrievePayment(id) {
        calls.push(id);
        return id === 'missing' ? null : payment(id);
      },
    },
    unsupported: { 'customers.create': 'the provider has no customer storage' },
    webhooks: {
      rawEventNames: ['providerN.SUCCESSFUL_TRANSACTION'],
      secret: 'required',
      async verify(delivery, webhookSecret) {
        const expected = await hmacSha512Hex(webhookSecret ?? '', delivery.rawBody);
        if (!timingSafeEqual(expected, delivery.headers['x-signature'] ?? '')) {
          throw new WebhookVerificationError('bad signature', { reason: 'invalid_signature' });
        }
        const body = JSON.parse(delivery.body) as { ref: string; items: number };
        const created = 1_700_000_000_000;
        const events = [
          ...Array.from({ length: body.items }, (_, index) =>
            webhookEvent({
              key: [body.ref, index],
              type: 'payment.updated',
              provider: 'providerN',
              data: payment(`${body.ref}-${index}`),
              created,
            }),
          ),
          webhookEvent({
            key: [body.ref],
            type: 'providerN.SUCCESSFUL_TRANSACTION',
            provider: 'providerN',
            data: { transactionReference: body.ref, items: body.items },
            created,
          }),
        ];
        return { key: body.ref, events: async () => events };
      },
    },
  });
}

export async function signedDelivery(body: string, headerName = 'X-Signature') {
  return {
    body,
    headersAsObject: { [headerName]: await hmacSha512Hex(SECRET, body) },
    fullUrl: 'https://shop.example/webhooks',
  };
}
