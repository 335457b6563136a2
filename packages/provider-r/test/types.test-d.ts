import { createPay, type Invoice, type Payment } from '@pay/core';
import { describe, expectTypeOf, it } from 'vitest';
import { createProviderR, type ProviderRCheckoutRedirect, type ProviderRStatusReply } from '../src/index.js';

const pay = createPay(createProviderR({ merchant: 'm', secret: 's', isSandbox: true }));
const handler = pay.webhooks.setup({ webhookSecret: 's' });

describe('Provider R types', () => {
  it('types raw events and their data', () => {
    handler.on('providerR.PAID', (event) => {
      expectTypeOf(event.data).toEqualTypeOf<ProviderRStatusReply>();
      expectTypeOf(event.data.price).toEqualTypeOf<number>();
      // The four statuses of the wire contract, and any the provider adds later (issue 12 rule).
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
    void pay.checkouts.create({ amount: 100, currency: 'CZK', provider_metadata: { label: 'Tickets' } });
    // @ts-expect-error label is a string
    void pay.checkouts.create({ amount: 100, currency: 'CZK', provider_metadata: { label: 5 } });
  });

  it('resolves checkouts.create to null and exposes createCheckoutRedirect', () => {
    expectTypeOf(pay.checkouts.create).returns.resolves.toEqualTypeOf<null>();
    expectTypeOf(
      pay.adapter.createCheckoutRedirect,
    ).returns.resolves.toEqualTypeOf<ProviderRCheckoutRedirect>();
  });
});
