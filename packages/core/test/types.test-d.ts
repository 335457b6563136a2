import { describe, expectTypeOf, it } from 'vitest';
import {
  createPay,
  type HttpReply,
  type Invoice,
  type NetworkError,
  type PayEvent,
  type Payment,
  ProviderApiError,
} from '../src/index.js';
import { testAdapter } from './fixtures.js';

describe('types follow the adapter', () => {
  const pay = createPay(testAdapter());
  const handler = pay.webhooks.setup({ webhookSecret: 's' });

  it('types normalised event data as the record', () => {
    handler.on('payment.succeeded', (event) => {
      expectTypeOf(event.data).toEqualTypeOf<Payment>();
      expectTypeOf(event.type).toEqualTypeOf<'payment.succeeded'>();
    });
    handler.on('invoice.generated', (event) => {
      expectTypeOf(event.data).toEqualTypeOf<Invoice>();
    });
  });

  it("types raw event data as the provider's payload", () => {
    handler.on('providerN.SUCCESSFUL_TRANSACTION', (event) => {
      expectTypeOf(event.data.transactionReference).toEqualTypeOf<string>();
      expectTypeOf(event).toMatchTypeOf<PayEvent>();
    });
  });

  it('refuses a misspelt or foreign event name', () => {
    // @ts-expect-error misspelt normalised name
    handler.on('payment.succeded', () => {});
    // @ts-expect-error raw event of another provider
    handler.on('providerR.PAID', () => {});
  });

  it("types provider_metadata per operation and checkouts.create's result per provider", () => {
    expectTypeOf(pay.checkouts.create)
      .parameter(0)
      .toHaveProperty('provider_metadata')
      .toEqualTypeOf<{ amount: number; currency: string }>();
    expectTypeOf(pay.checkouts.create).returns.resolves.toEqualTypeOf<null>();
    // @ts-expect-error provider_metadata is required for this adapter's checkouts
    pay.checkouts.create({ item_id: 'i' });
    expectTypeOf(pay.payments.retrieve).returns.resolves.toEqualTypeOf<Payment | null>();
  });
});

describe('outcome types for reconciling (issue 11 §1)', () => {
  it('puts the earlier-attempt fact on every reply and an optional unknown outcome on provider errors', () => {
    expectTypeOf<HttpReply['earlierAttemptMayHaveReached']>().toEqualTypeOf<boolean>();
    expectTypeOf<ProviderApiError['outcome']>().toEqualTypeOf<'unknown' | undefined>();
    expectTypeOf<NetworkError['outcome']>().toEqualTypeOf<'not_sent' | 'unknown'>();
    expectTypeOf(ProviderApiError).constructorParameters.toMatchTypeOf<
      [ConstructorParameters<typeof ProviderApiError>[0], { outcome?: 'unknown' | undefined }?]
    >();
  });
});

describe('records', () => {
  it('carry the request id of the call that produced them (null when none)', () => {
    expectTypeOf<Payment['request_id']>().toEqualTypeOf<string | null>();
    expectTypeOf<Invoice['request_id']>().toEqualTypeOf<string | null>();
  });
});
