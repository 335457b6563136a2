// The one test adapter of core's own tests. It imports nothing but core's sources (no vitest, no `node:`), because
// test/bridge-process.test.ts transpiles it with core and runs it in a plain Node child process.

import { defineAdapter, timingSafeIndexOf, webhookEvent } from '../src/adapter-toolkit.js';
import { hmacSha512Hex } from '../src/crypto.js';
import { type AdapterTypes, type Payment, WebhookVerificationError } from '../src/index.js';

/**
 * A Provider N-style adapter: two payment operations, one declared unsupported operation, and a signed JSON
 * webhook with the two-phase `verify` (docs/architecture.md#webhook-verification).
 */
export interface TestTypes extends AdapterTypes {
  provider: 'providerN';
  metadata: { 'checkouts.create': { amount: number; currency: string } };
  rawEvents: { 'providerN.SUCCESSFUL_TRANSACTION': { transactionReference: string; items: number } };
  checkout: null;
}

export const WEBHOOK_SECRET = 'whsec_core_test';

/** A settled Provider N-style payment. */
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
    request_id: null,
    raw: {},
  };
}

export interface TestAdapterOptions {
  /** Receives the parameters of every operation call (the create params, the retrieved id). */
  calls?: unknown[];
  /** Runs inside `events()` before the events are built (an upstream read that may wait or fail). */
  upstreamRead?: () => Promise<void>;
  /** Runs inside `verify()` after the signature check (to throw something unexpected). */
  afterSignature?: (body: string) => void;
}

/**
 * The test adapter and what it saw. Webhooks: an HMAC-SHA512 of the raw body in `x-signature`, a JSON body
 * `{ ref, items }`; the delivery key is `ref`, and `events()` stands for the upstream status read (counted in
 * `counters.upstreamReads`): `items` payment updates, then the raw `providerN.SUCCESSFUL_TRANSACTION`.
 */
export function createTestAdapter(options: TestAdapterOptions = {}) {
  const calls = options.calls ?? [];
  const counters = { upstreamReads: 0, fullUrls: [] as string[] };
  const adapter = defineAdapter<TestTypes>({
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
      async verify(delivery, webhookSecrets) {
        counters.fullUrls.push(delivery.fullUrl);
        const expected = await Promise.all(
          webhookSecrets.map((webhookSecret) => hmacSha512Hex(webhookSecret, delivery.rawBody)),
        );
        const secretIndex = timingSafeIndexOf(delivery.headers['x-signature'] ?? '', expected);
        if (secretIndex < 0) {
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
          secretIndex,
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
          },
        };
      },
    },
  });
  return { adapter, counters };
}

/** The test adapter alone, recording its operation calls in `calls`. */
export function testAdapter(calls: unknown[] = []) {
  return createTestAdapter({ calls }).adapter;
}

/** A delivery signed like Provider N signs: HMAC-SHA512 over the exact body bytes. */
export async function signedDelivery<Body extends string | Uint8Array>(
  body: Body,
  fullUrl = 'https://shop.example/hooks',
): Promise<{ body: Body; headersAsObject: { 'x-signature': string }; fullUrl: string }> {
  return {
    body,
    headersAsObject: { 'x-signature': await hmacSha512Hex(WEBHOOK_SECRET, body) },
    fullUrl,
  };
}
