import {
  type AdapterTypes,
  defineAdapter,
  hmacSha512Hex,
  type Payment,
  timingSafeEqual,
  WebhookVerificationError,
  webhookEvent,
} from '../src/index.js';

/**
 * A Provider N-style adapter for core's webhook tests, with the two-phase `verify` of issue 10 §3: an
 * HMAC-SHA512 of the raw body in `x-signature`, a JSON body `{ ref, items }`; the delivery key is `ref`, and
 * `events()` stands for the upstream status read (counted in `upstreamReads`).
 */
export interface IngressTypes extends AdapterTypes {
  provider: 'providerN';
  rawEvents: { 'providerN.SUCCESSFUL_TRANSACTION': { transactionReference: string; items: number } };
}

export const INGRESS_SECRET = 'whsec_core_ingress_test';

/** A settled Provider N-style payment. */
export function settledPayment(id: string): Payment {
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

export interface IngressAdapterOptions {
  /** Runs inside `events()` before the events are built (an upstream read that may wait or fail). */
  upstreamRead?: () => Promise<void>;
  /** Runs inside `verify()` after the signature check (to throw something unexpected). */
  afterSignature?: (body: string) => void;
}

export function ingressAdapter(options: IngressAdapterOptions = {}) {
  const counters = { upstreamReads: 0, fullUrls: [] as string[] };
  const adapter = defineAdapter<IngressTypes>({
    provider: 'providerN',
    operations: {},
    webhooks: {
      rawEventNames: ['providerN.SUCCESSFUL_TRANSACTION'],
      secret: 'required',
      async verify(delivery, webhookSecret) {
        counters.fullUrls.push(delivery.fullUrl);
        const expected = await hmacSha512Hex(webhookSecret ?? '', delivery.rawBody);
        if (!timingSafeEqual(expected, delivery.headers['x-signature'] ?? '')) {
          throw new WebhookVerificationError('bad signature', { reason: 'invalid_signature' });
        }
        options.afterSignature?.(delivery.body);
        let body: { ref: string; items: number };
        try {
          body = JSON.parse(delivery.body) as { ref: string; items: number };
        } catch (cause) {
          throw new WebhookVerificationError('not JSON', { reason: 'malformed_payload', cause });
        }
        return {
          key: body.ref,
          async events() {
            counters.upstreamReads += 1;
            await options.upstreamRead?.();
            const created = 1_700_000_000_000;
            return [
              ...Array.from({ length: body.items }, (_, index) =>
                webhookEvent({
                  key: [body.ref, index],
                  type: 'payment.updated',
                  provider: 'providerN',
                  data: settledPayment(`${body.ref}-${index}`),
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
          },
        };
      },
    },
  });
  return { adapter, counters };
}

/** A delivery signed like Provider N signs: HMAC-SHA512 over the exact body bytes. */
export async function signedIngressDelivery<Body extends string | Uint8Array>(
  body: Body,
  fullUrl = 'https://shop.example/hooks',
): Promise<{ body: Body; headersAsObject: { 'x-signature': string }; fullUrl: string }> {
  return {
    body,
    headersAsObject: { 'x-signature': await hmacSha512Hex(INGRESS_SECRET, body) },
    fullUrl,
  };
}
