import { createPay } from '@pay/core';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createProviderT,
  type ProviderTCheckoutMetadata,
  type ProviderTSender,
  type ProviderTStatusEvent,
} from '../src/index.js';

const pay = createPay(
  createProviderT({
    clientId: 'c',
    clientSecret: 's',
    agentPartnerId: 'a',
    operatorId: 'o',
    isSandbox: true,
  }),
);

describe('Provider T types', () => {
  it('types the raw event and its data', () => {
    pay.webhooks.setup({ webhookSecret: null }).on('providerT.TRANSACTION_STATUS_EVENT', (event) => {
      expectTypeOf(event.data).toEqualTypeOf<ProviderTStatusEvent>();
      expectTypeOf(event.data.eventPayload.transactionStatus).toEqualTypeOf<string>();
    });
  });

  it('refuses a misspelt raw event name', () => {
    // @ts-expect-error: not an event Provider T raises
    pay.webhooks.setup({ webhookSecret: null }).on('providerT.TRANSACTION_STATUS', () => {});
  });

  it('accepts only the normalised events Provider T raises', () => {
    const handler = pay.webhooks.setup({ webhookSecret: null });
    handler.on(
      ['payment.created', 'payment.succeeded', 'payment.updated', 'payment.failed', 'refund.created'],
      () => {},
    );
    // @ts-expect-error: Provider T raises no invoice event
    handler.on('invoice.generated', () => {});
    // @ts-expect-error: nor subscription events
    handler.on('subscription.canceled', () => {});
  });

  it('requires sender and receiver in a transfer provider_metadata', () => {
    // @ts-expect-error: provider_metadata is required
    void pay.payments.create({ amount: 10, currency: 'USD' });
    // @ts-expect-error: receiver is missing
    void pay.payments.create({ amount: 10, currency: 'USD', provider_metadata: { sender: {} as never } });
  });

  it('requires amount and currency in a checkout provider_metadata', () => {
    void pay.checkouts.create({
      // @ts-expect-error: amount and currency are missing
      provider_metadata: { sender: {} as never, receiver: { name: { firstName: 'J', lastName: 'L' } } },
    });
  });

  it('makes a missing checkout amount or currency in provider_metadata a type error (docs/architecture.md#request-fields)', () => {
    const transfer = { sender: {} as never, receiver: { name: { firstName: 'J', lastName: 'L' } } };
    void pay.checkouts.create({ provider_metadata: { ...transfer, amount: 250.5, currency: 'CZK' } });
    // @ts-expect-error: amount is missing
    void pay.checkouts.create({ provider_metadata: { ...transfer, currency: 'CZK' } });
    // @ts-expect-error: currency is missing
    void pay.checkouts.create({ provider_metadata: { ...transfer, amount: 250.5 } });
    // @ts-expect-error: the amount is a number in the standard unit, not text
    void pay.checkouts.create({ provider_metadata: { ...transfer, amount: '250.50', currency: 'CZK' } });
  });

  it('types the sender and receiver fields from their schemas', () => {
    void pay.payments.create({
      amount: 10,
      currency: 'USD',
      provider_metadata: {
        sender: {} as never,
        // @ts-expect-error: a receiver needs a name with first and last name
        receiver: { name: { firstName: 'J' } },
      },
    });
    expectTypeOf<ProviderTCheckoutMetadata['amount']>().toEqualTypeOf<number>();
    expectTypeOf<ProviderTSender['personalDetails']['dateOfBirth']>().toEqualTypeOf<string>();
  });

  it('has no operation Provider T cannot perform', () => {
    // @ts-expect-error: Provider T stores no customers
    void pay.customers.create;
    // @ts-expect-error: a committed transfer cannot be cancelled
    void pay.payments.cancel;
  });

  it('types the amendment members and refuses others', () => {
    void pay.payments.update('id', { provider_metadata: { receiverFirstName: 'José' } });
    // @ts-expect-error: misspelt member
    void pay.payments.update('id', { provider_metadata: { receiverFirstname: 'José' } });
  });

  it('resolves checkouts.create to a Checkout', () => {
    expectTypeOf(pay.checkouts.create).returns.resolves.toHaveProperty('payment_url');
  });
});
