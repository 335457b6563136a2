/**
 * One scenario per simulator with a hosted page: start it, point its webhooks at the shop, wire the shop's webhook
 * endpoint to the adapter's real handler, and open a checkout through `createPay` + the adapter, as an app does.
 */
import { createPay, type PayEvent, type Payment, toNodeListener } from '@pay/core';
import type { PayerAction, WebhookDelivery } from '@pay/core/testing';
import { createProviderN } from '@pay/provider-n';
import { startProviderNSimulator } from '@pay/provider-n/testing';
import { createProviderR } from '@pay/provider-r';
import { startProviderRSimulator } from '@pay/provider-r/testing';
import { createProviderT } from '@pay/provider-t';
import { sampleTransferMetadata, startProviderTSimulator } from '@pay/provider-t/testing';
import type { Shop } from './shop.js';

/** An open checkout on a running simulator. */
export interface OpenCheckout {
  /** The hosted page (N `checkoutUrl`, R redirect URL, T receipt link). */
  pageUrl: string;
  /** The id the payment's records and events carry. */
  paymentId: string;
  /** Where the browser lands after each action. */
  landing: Readonly<Record<PayerAction, string>>;
  /** The payment as the adapter reads it now. */
  retrieve(): Promise<Payment | null>;
  /** The simulator's books now (`PaymentSimulator.books()`). */
  books(): unknown;
  /** The webhooks the simulator forwarded so far (`PaymentSimulator.deliveries`). */
  deliveries(): readonly WebhookDelivery[];
  close(): Promise<void>;
}

/** A simulator with a hosted page. */
export interface Scenario {
  provider: 'provider-n' | 'provider-r' | 'provider-t';
  /** The brand on the page (`Provider N`). */
  label: string;
  /** The page's heading: what the payer is asked to pay. */
  heading: RegExp;
  /** The payment status each action leads to. */
  outcomes: Readonly<Record<PayerAction, Payment['status']>>;
  /** Actions the provider sends no webhook for (the app learns them from the status read). */
  silent?: readonly PayerAction[];
  open(shop: Shop): Promise<OpenCheckout>;
}

const record = (shop: Shop) => (event: PayEvent) => void shop.events.push(event);

export const SCENARIOS: readonly Scenario[] = [
  {
    provider: 'provider-n',
    label: 'Provider N',
    heading: /^Pay NGN 5000\.00$/,
    outcomes: { pay: 'succeeded', fail: 'failed', cancel: 'canceled' },
    // Provider N's wire has no event for a checkout the payer cancels.
    silent: ['cancel'],
    async open(shop) {
      const simulator = await startProviderNSimulator();
      simulator.forwardWebhooks(shop.webhookUrl);
      const pay = createPay(createProviderN(simulator.adapterConfig()));
      const handler = pay.webhooks
        .setup({ webhookSecret: simulator.credentials.webhookSecret })
        .onAny(record(shop));
      shop.useWebhooks(toNodeListener(handler));
      const checkout = await pay.checkouts.create({
        customer: { email: 'ada@shop.test' },
        item_id: 'blue-mug',
        success_url: shop.returnedUrl,
        provider_metadata: { amount: 5000, currency: 'NGN', customerName: 'Ada Obi' },
      });
      // Provider N has one redirect URL for every outcome: the shop reads the status when the payer is back.
      const back = shop.returnedUrl;
      return {
        pageUrl: checkout.payment_url ?? '',
        paymentId: checkout.id,
        landing: { pay: back, fail: back, cancel: back },
        retrieve: () => pay.payments.retrieve(checkout.id),
        books: () => simulator.books(),
        // Typed optional by the kit's interface; this simulator always has it (the test would see no delivery grow).
        deliveries: () => simulator.deliveries ?? [],
        close: () => simulator.close(),
      };
    },
  },
  {
    provider: 'provider-r',
    label: 'Provider R',
    heading: /^Pay CZK 250\.00$/,
    // Provider R has no failed status: a failed payment is cancelled (docs/providers/provider-r.md#status, payment statuses).
    outcomes: { pay: 'succeeded', fail: 'canceled', cancel: 'canceled' },
    async open(shop) {
      const simulator = await startProviderRSimulator();
      simulator.forwardWebhooks(shop.webhookUrl);
      const pay = createPay(createProviderR(simulator.adapterConfig()));
      const handler = pay.webhooks.setup({ webhookSecret: simulator.credentials.secret }).onAny(record(shop));
      shop.useWebhooks(toNodeListener(handler));
      const { transId, redirectUrl } = await pay.adapter.createCheckoutRedirect({
        customer: { email: 'ada@shop.test' },
        item_id: 'order-1001',
        amount: 250,
        currency: 'CZK',
        success_url: shop.paidUrl,
        cancel_url: shop.cancelledUrl,
      });
      return {
        pageUrl: redirectUrl,
        paymentId: transId,
        landing: { pay: shop.paidUrl, fail: shop.cancelledUrl, cancel: shop.cancelledUrl },
        retrieve: () => pay.payments.retrieve(transId),
        books: () => simulator.books(),
        deliveries: () => simulator.deliveries,
        close: () => simulator.close(),
      };
    },
  },
  {
    provider: 'provider-t',
    label: 'Provider T',
    heading: /^Transfer \d+$/,
    outcomes: { pay: 'succeeded', fail: 'failed', cancel: 'canceled' },
    async open(shop) {
      const simulator = await startProviderTSimulator();
      simulator.forwardWebhooks(shop.webhookUrl);
      const pay = createPay(createProviderT({ ...simulator.adapterConfig(), retry: 0 }));
      const handler = pay.webhooks.setup({ webhookSecret: null }).onAny(record(shop));
      shop.useWebhooks(toNodeListener(handler));
      const checkout = await pay.checkouts.create({
        provider_metadata: { ...sampleTransferMetadata, amount: 100, currency: 'USD' },
      });
      // Provider T's wire contract (docs/providers/provider-t.md) carries no merchant return URL: the receipt page shows the outcome.
      const receipt = checkout.payment_url ?? '';
      return {
        pageUrl: receipt,
        paymentId: checkout.id,
        landing: { pay: receipt, fail: receipt, cancel: receipt },
        retrieve: () => pay.payments.retrieve(checkout.id),
        books: () => simulator.books(),
        deliveries: () => simulator.deliveries,
        close: () => simulator.close(),
      };
    },
  },
];
