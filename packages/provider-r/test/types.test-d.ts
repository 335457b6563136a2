import { createPay, type Invoice, type Payment } from '@pay/core';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createProviderR,
  type ProviderRCheckoutRedirect,
  type ProviderRPaymentMetadata,
  type ProviderRStatusReply,
} from '../src/index.js';

const pay = createPay(createProviderR({ merchant: 'm', secret: 's', isSandbox: true }));
const handler = pay.webhooks.setup({ webhookSecret: 's' });
const urls = { success_url: 'https://shop.example/paid', cancel_url: 'https://shop.example/cancelled' };

describe('Provider R types', () => {
  it('types raw events and their data', () => {
    handler.on('providerR.PAID', (event) => {
      expectTypeOf(event.data).toEqualTypeOf<ProviderRStatusReply>();
      expectTypeOf(event.data.price).toEqualTypeOf<number>();
      // The four statuses of the wire contract (docs/providers/provider-r.md#status), and any the provider adds
      // later (docs/architecture.md#lenient-reading).
      expectTypeOf(event.data.status).toEqualTypeOf<
        'PENDING' | 'AUTHORIZED' | 'PAID' | 'CANCELLED' | (string & {})
      >();
    });
    handler.on('payment.succeeded', (event) => expectTypeOf(event.data).toEqualTypeOf<Payment>());
    handler.on('invoice.generated', (event) => expectTypeOf(event.data).toEqualTypeOf<Invoice>());
    // @ts-expect-error a misspelt raw event name
    handler.on('providerR.PAYED', () => {});
    // @ts-expect-error another provider's raw event
    handler.on('providerN.SUCCESSFUL_TRANSACTION', () => {});
    // @ts-expect-error Provider R raises no refund event
    handler.on('refund.created', () => {});
    // @ts-expect-error nor subscription events
    handler.on('subscription.updated', () => {});
  });

  it('types provider_metadata per operation', () => {
    void pay.payments.create({
      customer: { id: 'c' },
      amount: 100,
      provider_metadata: { email: 'a@b.c', paymentLabel: 'x' },
    });
    const withoutEmail = { customer: { id: 'c' }, amount: 100, provider_metadata: { paymentLabel: 'x' } };
    // @ts-expect-error provider_metadata.email is required for a payment
    void pay.payments.create(withoutEmail);
    // @ts-expect-error provider_metadata is required for a payment
    void pay.payments.create({ customer: { id: 'c' }, amount: 100 });
    void pay.payments.create({
      customer: { id: 'c' },
      amount: 100,
      // @ts-expect-error a misspelt member
      provider_metadata: { email: 'a@b.c', lable: 'x' },
    });
    void pay.checkouts.create({
      ...urls,
      amount: 100,
      currency: 'CZK',
      provider_metadata: { label: 'Tickets' },
    });
    // @ts-expect-error label is a string
    void pay.checkouts.create({ ...urls, amount: 100, currency: 'CZK', provider_metadata: { label: 5 } });
  });

  it('puts the amount at top level and requires it where the spec does (docs/architecture.md#money)', () => {
    // The standard currency unit: 250.50 CZK.
    void pay.checkouts.create({ ...urls, amount: 250.5, currency: 'CZK', customer: { email: 'a@b.c' } });
    // @ts-expect-error a checkout without an amount
    void pay.checkouts.create({ ...urls, currency: 'CZK', customer: { email: 'a@b.c' } });
    // @ts-expect-error a checkout without a currency
    void pay.checkouts.create({ ...urls, amount: 250.5, customer: { email: 'a@b.c' } });
    // @ts-expect-error a checkout without the URLs the payer returns to
    void pay.checkouts.create({ amount: 250.5, currency: 'CZK', customer: { email: 'a@b.c' } });
    // @ts-expect-error the amount is top level for Provider R, never in provider_metadata
    void pay.checkouts.create({ ...urls, currency: 'CZK', provider_metadata: { amount: 250.5 } });
    const withoutAmount = { customer: { id: 'c' }, provider_metadata: { email: 'a@b.c' } };
    // @ts-expect-error a payment without an amount
    void pay.payments.create(withoutAmount);
    // @ts-expect-error the redirect method takes the same params
    void pay.adapter.createCheckoutRedirect({ ...urls, currency: 'CZK' });
    expectTypeOf<Parameters<typeof pay.payments.create>[0]['amount']>().toEqualTypeOf<number>();
    expectTypeOf<ProviderRPaymentMetadata>().toEqualTypeOf<{
      email: string;
      paymentLabel?: string | undefined;
      refId?: string | undefined;
    }>();
  });

  it('offers only the operations Provider R performs', () => {
    // @ts-expect-error the provider keeps no checkout object
    void pay.checkouts.retrieve('t');
    // @ts-expect-error the provider has no customer storage
    void pay.customers.create({});
    // @ts-expect-error the provider offers no subscriptions
    void pay.subscriptions.create({});
    expectTypeOf(pay.payments.capture).toBeFunction();
    expectTypeOf(pay.refunds.create).toBeFunction();
  });

  it('says which records carry a request id', async () => {
    const payment = await pay.payments.retrieve('t');
    expectTypeOf(payment).toEqualTypeOf<Payment | null>();
    expectTypeOf<Payment['request_id']>().toEqualTypeOf<string | null>();
  });

  it('resolves checkouts.create to null and exposes createCheckoutRedirect', () => {
    expectTypeOf(pay.checkouts.create).returns.resolves.toEqualTypeOf<null>();
    expectTypeOf(
      pay.adapter.createCheckoutRedirect,
    ).returns.resolves.toEqualTypeOf<ProviderRCheckoutRedirect>();
  });
});
