import { createPay } from '@pay/core';
import { describe, expectTypeOf, it } from 'vitest';
import { createProviderT, type ProviderTStatusEvent } from '../src/index.js';

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

  it('types the amendment members and refuses others', () => {
    void pay.payments.update('id', { provider_metadata: { receiverFirstName: 'José' } });
    // @ts-expect-error: misspelt member
    void pay.payments.update('id', { provider_metadata: { receiverFirstname: 'José' } });
  });

  it('resolves checkouts.create to a Checkout', () => {
    expectTypeOf(pay.checkouts.create).returns.resolves.toHaveProperty('payment_url');
  });
});
