// A provider in memory for the reconciler's tests: payments, checkouts (read as the payment of the same id) and
// refunds whose statuses a test moves, a signed webhook that raises the event of a status as Provider R and
// Provider T do, and `resolve` by idempotency key (the provider keeps the key as its reference).

import { defineAdapter, timingSafeIndexOf, webhookEvent } from '../src/adapter-toolkit.js';
import { hmacSha512Hex } from '../src/crypto.js';
import {
  type AdapterTypes,
  NetworkError,
  type Payment,
  type PaymentStatus,
  type Refund,
  type RefundStatus,
  WebhookVerificationError,
} from '../src/index.js';
import { transfer } from './ledger-fixtures.js';

export interface BookTypes extends AdapterTypes {
  provider: 'providerT';
  metadata: Record<never, object>;
  rawEvents: Record<never, unknown>;
  checkout: import('../src/index.js').Checkout;
}

export const BOOK_SECRET = 'whsec_book_test';

function paymentRecord(id: string, status: PaymentStatus): Payment {
  return { ...transfer(id, 10), status, amount_paid: status === 'succeeded' ? 10 : 0 };
}

function refundRecord(id: string, status: RefundStatus): Refund {
  return {
    id,
    payment_id: 'p1',
    amount: 5,
    currency: 'EUR',
    status,
    reason: null,
    metadata: {},
    provider: 'providerT',
    livemode: false,
    request_id: null,
    raw: {},
  };
}

/** The provider's books and the adapter over them; `reads` counts every status read. */
export function createBook(
  options: { refunds?: boolean; crashAfterCreate?: boolean; noLookupByKey?: boolean } = {},
) {
  const payments = new Map<string, PaymentStatus>();
  const refunds = new Map<string, RefundStatus>();
  const byKey = new Map<string, string>();
  const counters = { reads: 0 };
  let sequence = 0;
  const adapter = defineAdapter<BookTypes>({
    provider: 'providerT',
    operations: {
      async createPayment(_params, context) {
        const id = `p${++sequence}`;
        payments.set(id, 'pending');
        if (context.idempotencyKey) byKey.set(context.idempotencyKey, id);
        // The reply is lost after the provider booked the payment: the outcome is unknown to the caller.
        if (options.crashAfterCreate) throw new NetworkError('reply lost', { outcome: 'unknown' });
        return paymentRecord(id, 'pending');
      },
      async createCheckout(params) {
        const id = `c${++sequence}`;
        payments.set(id, 'pending');
        return {
          id,
          payment_url: `https://pay.example/${id}`,
          amount: params.amount ?? 0,
          currency: params.currency ?? 'EUR',
          customer: null,
          session_type: 'one_time',
          products: [],
          expires_at: null,
          provider: 'providerT',
          livemode: false,
          request_id: null,
          metadata: {},
          raw: {},
        };
      },
      async createRefund() {
        const id = `r${++sequence}`;
        refunds.set(id, 'pending');
        return refundRecord(id, 'pending');
      },
      async retrievePayment(id) {
        counters.reads += 1;
        const status = payments.get(id);
        return status === undefined ? null : paymentRecord(id, status);
      },
    },
    ...(options.refunds === false
      ? {}
      : {
          reconcile: {
            async retrieveRefund(id: string) {
              counters.reads += 1;
              const status = refunds.get(id);
              return status === undefined ? null : refundRecord(id, status);
            },
          },
        }),
    async resolve(lookup) {
      counters.reads += 1;
      // Like Provider R: nothing to look a lost creation up by, so nothing proves either way.
      if (options.noLookupByKey) return undefined;
      const id = lookup.idempotencyKey === undefined ? undefined : byKey.get(lookup.idempotencyKey);
      const status = id === undefined ? undefined : payments.get(id);
      return id === undefined || status === undefined ? null : paymentRecord(id, status);
    },
    webhooks: {
      rawEventNames: [],
      eventNames: [
        'payment.created',
        'payment.updated',
        'payment.succeeded',
        'payment.failed',
        'refund.created',
      ],
      secret: 'required',
      async verify(delivery, secrets) {
        const expected = await Promise.all(secrets.map((secret) => hmacSha512Hex(secret, delivery.rawBody)));
        const secretIndex = timingSafeIndexOf(delivery.headers['x-signature'] ?? '', expected);
        if (secretIndex < 0)
          throw new WebhookVerificationError('bad signature', { reason: 'invalid_signature' });
        const { id, status, type, push } = JSON.parse(delivery.body) as {
          id: string;
          status: string;
          type: string;
          push?: string;
        };
        const data = id.startsWith('r')
          ? refundRecord(id, status as RefundStatus)
          : paymentRecord(id, status as PaymentStatus);
        return {
          // Like Provider N's keys, which name the push: two pushes of one status are two deliveries.
          key: `${id}:${status}${push === undefined ? '' : `:${push}`}`,
          secretIndex,
          events: async () => [
            webhookEvent({ key: [id, status], type, provider: 'providerT', data, created: 1 }),
          ],
        };
      },
    },
  });
  /** A signed webhook for `id` now in `status`, raising `type`; `push` makes it another delivery of it. */
  const webhook = async (id: string, status: string, type: string, push?: string) => {
    const body = JSON.stringify({ id, status, type, push });
    return {
      body,
      headersAsObject: { 'x-signature': await hmacSha512Hex(BOOK_SECRET, body) },
      fullUrl: 'https://shop.example/hooks',
    };
  };
  return { adapter, payments, refunds, counters, webhook };
}
