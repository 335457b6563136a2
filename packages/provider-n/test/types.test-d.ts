import { createPay } from '@pay/core';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createProviderN,
  type ProviderNCheckout,
  type ProviderNCheckoutMetadata,
  type ProviderNRefundMetadata,
  type ProviderNTransactionEventData,
} from '../src/index.js';

const pay = createPay(createProviderN({ apiKey: 'k', secretKey: 's', isSandbox: true }));

describe('Provider N types', () => {
  it('types raw events and their data', () => {
    pay.webhooks
      .setup({ webhookSecret: 'whsec' })
      .on('providerN.SUCCESSFUL_TRANSACTION', (event) => {
        expectTypeOf(event.data).toEqualTypeOf<ProviderNTransactionEventData>();
        expectTypeOf(event.data.transactionReference).toBeString();
      })
      .on('providerN.SETTLEMENT', (event) => {
        expectTypeOf(event.data.transactions[0]!.transactionReference).toBeString();
      })
      .on('providerN.MANDATE_UPDATE', (event) => {
        expectTypeOf(event.data.mandateCode).toBeString();
      })
      .on('refund.created', (event) => {
        expectTypeOf(event.data.status).toEqualTypeOf<'pending' | 'succeeded' | 'failed'>();
      });
  });

  it('refuses a misspelt event name', () => {
    // @ts-expect-error: not an event Provider N raises
    pay.webhooks.setup({ webhookSecret: 'whsec' }).on('providerN.SUCCESSFULL_TRANSACTION', () => {});
  });

  it('accepts only the normalised events Provider N raises', () => {
    const handler = pay.webhooks.setup({ webhookSecret: ['whsec_new', 'whsec_old'] });
    handler.on(['payment.created', 'payment.updated', 'payment.failed', 'refund.created'], () => {});
    handler.on(['subscription.created', 'subscription.canceled', 'subscription.updated'], () => {});
    // @ts-expect-error: a received payment is payment.created (its data.status says succeeded), never payment.succeeded
    handler.on('payment.succeeded', () => {});
    // @ts-expect-error: Provider N raises no invoice event
    handler.on('invoice.generated', () => {});
  });

  it('offers only the operations Provider N performs', () => {
    expectTypeOf(pay.checkouts.retrieve).toBeFunction();
    expectTypeOf(pay.payments.retrieve).toBeFunction();
    // @ts-expect-error: Provider N takes payments only through its hosted checkout
    void pay.payments.create({ amount: 100 });
    // @ts-expect-error: the adapter does not manage Provider N customers
    void pay.customers.create({});
    // @ts-expect-error: Provider N has no cancel call
    void pay.payments.cancel('PN|1');
    // @ts-expect-error: nor subscriptions
    void pay.subscriptions.create({});
  });

  it('resolves checkouts.create to a Checkout with checkoutUrl', () => {
    expectTypeOf(pay.checkouts.create).returns.resolves.toEqualTypeOf<ProviderNCheckout>();
    expectTypeOf<ProviderNCheckout['checkoutUrl']>().toBeString();
  });

  it('requires amount and currency in provider_metadata of checkouts.create', () => {
    void pay.checkouts.create({
      customer: { email: 'a@example.com' },
      provider_metadata: { amount: 100, currency: 'NGN' },
    });
    // @ts-expect-error: provider_metadata is required
    void pay.checkouts.create({ customer: { email: 'a@example.com' } });
    // @ts-expect-error: currency is required
    void pay.checkouts.create({ customer: { email: 'a@example.com' }, provider_metadata: { amount: 100 } });
    void pay.checkouts.create({
      customer: { email: 'a@example.com' },
      // @ts-expect-error: the amount is required, in provider_metadata (docs/architecture.md#request-fields), not at the top level
      provider_metadata: { currency: 'NGN' },
    });
    void pay.checkouts.create({
      customer: { email: 'a@example.com' },
      // @ts-expect-error: provider_metadata is strict: an unknown member is a compile error
      provider_metadata: { amount: 100, currency: 'NGN', colour: 'blue' },
    });
    void pay.checkouts.create({
      customer: { email: 'a@example.com' },
      // @ts-expect-error: amount must be a number
      provider_metadata: { amount: '100', currency: 'NGN' },
    });
  });

  it('forwards extra refund members but not the ones the adapter sets', () => {
    void pay.refunds.create({
      payment_id: 'PN|1',
      amount: 10,
      provider_metadata: { customerNote: 'sorry', destinationAccountNumber: '0123456789' },
    });
    void pay.refunds.create({
      payment_id: 'PN|1',
      amount: 10,
      // @ts-expect-error: set by the adapter
      provider_metadata: { refundReference: 'mine' },
    });
    void pay.refunds.create({
      payment_id: 'PN|1',
      amount: 10,
      // @ts-expect-error: set by the adapter from amount
      provider_metadata: { refundAmount: 10 },
    });
    void pay.refunds.create({
      payment_id: 'PN|1',
      amount: 10,
      // @ts-expect-error: customerNote is text
      provider_metadata: { customerNote: 16 },
    });
  });

  it('exports the provider_metadata types inferred from the request schemas', () => {
    expectTypeOf<ProviderNCheckoutMetadata['amount']>().toEqualTypeOf<number>();
    expectTypeOf<ProviderNCheckoutMetadata['currency']>().toEqualTypeOf<string>();
    expectTypeOf<ProviderNRefundMetadata['customerNote']>().toEqualTypeOf<string | undefined>();
  });
});
