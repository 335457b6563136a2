import { describe, expectTypeOf, it } from 'vitest';
import { defineAdapter, type HttpReply } from '../src/adapter-toolkit.js';
import {
  type AdapterTypes,
  type CaptureParams,
  createPay,
  type Invoice,
  type NetworkError,
  type Operation,
  type PayEvent,
  type Payment,
  ProviderApiError,
  type Refund,
} from '../src/index.js';
import { payment, testAdapter } from './fixtures.js';

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

  it('types onAny events as the union of the adapter’s events, narrowed by type', () => {
    handler.onAny((event) => {
      if (event.type === 'providerN.SUCCESSFUL_TRANSACTION')
        expectTypeOf(event.data.transactionReference).toEqualTypeOf<string>();
      if (event.type === 'invoice.generated') expectTypeOf(event.data).toEqualTypeOf<Invoice>();
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

describe('outcome types for reconciling (docs/architecture.md#outcomes)', () => {
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

/** An adapter whose types declare the two operations it performs. */
interface ReadOnlyTypes extends AdapterTypes {
  provider: 'providerN';
  metadata: {};
  rawEvents: {};
  checkout: null;
  operations: 'payments.create' | 'payments.retrieve';
}

const webhooks = {
  rawEventNames: [],
  secret: 'required',
  verify: async () => ({ key: 'k', events: async () => [] }),
} as const;

describe('unsupported operations are compile errors', () => {
  const adapter = defineAdapter<ReadOnlyTypes>({
    provider: 'providerN',
    operations: {
      createPayment: async () => payment('p1'),
      retrievePayment: async (id) => payment(id),
    },
    webhooks,
  });
  const pay = createPay(adapter);

  it('exposes the declared operations with their types', () => {
    expectTypeOf(pay.payments.create).returns.resolves.toEqualTypeOf<Payment>();
    expectTypeOf(pay.payments.retrieve).returns.resolves.toEqualTypeOf<Payment | null>();
    expectTypeOf(pay.supports).parameter(0).toEqualTypeOf<Operation>();
  });

  it('has no method for an operation the adapter does not perform', () => {
    // @ts-expect-error the adapter declares no payments.capture
    pay.payments.capture('p1');
    // @ts-expect-error the adapter declares no refunds at all
    pay.refunds.create({ payment_id: 'p1' });
    // @ts-expect-error nor checkouts
    pay.checkouts.create({});
    expectTypeOf(pay.refunds).toEqualTypeOf<{}>();
  });

  it('requires exactly the declared implementations', () => {
    defineAdapter<ReadOnlyTypes>({
      provider: 'providerN',
      // @ts-expect-error payments.retrieve is declared but not implemented
      operations: { createPayment: async () => payment('p1') },
      webhooks,
    });
    defineAdapter<ReadOnlyTypes>({
      provider: 'providerN',
      operations: {
        createPayment: async () => payment('p1'),
        retrievePayment: async () => null,
        // @ts-expect-error refunds.create is implemented but not declared
        createRefund: async () => null as never,
      },
      webhooks,
    });
  });

  it('requires the top-level params an adapter declares required, with no override of its method types', () => {
    interface CurrencyRequiredTypes extends ReadOnlyTypes {
      required: { 'payments.create': 'currency' | 'item_id' };
    }
    const strict = createPay(
      defineAdapter<CurrencyRequiredTypes>({
        provider: 'providerN',
        operations: {
          createPayment: async () => payment('p1'),
          retrievePayment: async () => null,
        },
        webhooks,
      }),
    );
    void strict.payments.create({ customer: { id: 'c' }, amount: 19.99, currency: 'EUR', item_id: 'i' });
    // @ts-expect-error currency is required by this adapter
    void strict.payments.create({ customer: { id: 'c' }, amount: 19.99, item_id: 'i' });
    // @ts-expect-error and so is item_id
    void strict.payments.create({ customer: { id: 'c' }, amount: 19.99, currency: 'EUR' });
    // @ts-expect-error never undefined
    void strict.payments.create({ customer: { id: 'c' }, amount: 1, currency: undefined, item_id: 'i' });
    expectTypeOf(strict.payments.create).parameter(0).toHaveProperty('currency').toEqualTypeOf<string>();
    // Another adapter's operations stay as core's contract has them.
    void createPay(adapter).payments.create({ customer: { id: 'c' }, amount: 19.99 });
  });

  it('types every operation (unsupported ones throw at run time) when the adapter declares none', () => {
    const undeclared = createPay(testAdapter());
    expectTypeOf(undeclared.refunds.create).returns.resolves.toEqualTypeOf<Refund>();
    expectTypeOf(undeclared.payments.capture).parameter(1).toEqualTypeOf<CaptureParams | undefined>();
  });
});

interface RefundEventTypes extends AdapterTypes {
  provider: 'providerN';
  metadata: {};
  rawEvents: { 'providerN.SUCCESSFUL_REFUND': { refundReference: string } };
  checkout: null;
  operations: 'refunds.create';
  events: 'refund.created' | 'payment.created';
}

describe('events an adapter never raises are compile errors', () => {
  const refundWebhooks = {
    ...webhooks,
    rawEventNames: ['providerN.SUCCESSFUL_REFUND'],
    eventNames: ['refund.created', 'payment.created'],
  } as const;
  const pay = createPay(
    defineAdapter<RefundEventTypes>({
      provider: 'providerN',
      operations: { createRefund: async () => null as never },
      webhooks: refundWebhooks,
    }),
  );
  const handler = pay.webhooks.setup({ webhookSecret: 's' });

  it('accepts the declared events and the raw ones', () => {
    handler.on('refund.created', (event) => expectTypeOf(event.data).toEqualTypeOf<Refund>());
    handler.on(['payment.created', 'providerN.SUCCESSFUL_REFUND'], () => {});
    handler.onAny((event) => {
      expectTypeOf(event.type).toEqualTypeOf<
        'refund.created' | 'payment.created' | 'providerN.SUCCESSFUL_REFUND'
      >();
    });
  });

  it('refuses a normalised event the adapter does not declare', () => {
    // @ts-expect-error the adapter never raises payment.succeeded
    handler.on('payment.succeeded', () => {});
    // @ts-expect-error nor invoice.generated, even in a list
    handler.on(['refund.created', 'invoice.generated'], () => {});
  });

  it('requires the declared events as the webhook definition’s eventNames', () => {
    defineAdapter<RefundEventTypes>({
      provider: 'providerN',
      operations: { createRefund: async () => null as never },
      // @ts-expect-error eventNames is required when the types declare events
      webhooks: { ...webhooks, rawEventNames: ['providerN.SUCCESSFUL_REFUND'] },
    });
    defineAdapter<RefundEventTypes>({
      provider: 'providerN',
      operations: { createRefund: async () => null as never },
      // @ts-expect-error payment.succeeded is not a declared event
      webhooks: { ...refundWebhooks, eventNames: ['refund.created', 'payment.succeeded'] },
    });
  });
});

describe('provider names are open', () => {
  /** An adapter from a package outside `@pay`, with a name of its own. */
  interface AcmeTypes extends AdapterTypes {
    provider: 'acmePay';
    metadata: {};
    rawEvents: { 'acmePay.CHARGE_PAID': { id: string } };
    checkout: null;
    operations: 'payments.retrieve';
  }

  it('an adapter names itself without core knowing the name; pay.adapter.provider keeps its literal', () => {
    const adapter = defineAdapter<AcmeTypes>({
      provider: 'acmePay',
      operations: { retrievePayment: async () => null },
      webhooks: { ...testAdapter().webhooks, rawEventNames: ['acmePay.CHARGE_PAID'] },
    });
    expectTypeOf(createPay(adapter).adapter.provider).toEqualTypeOf<'acmePay'>();
    // @ts-expect-error the adapter's own name, not another's
    const other: AcmeTypes['provider'] = 'providerN';
    expectTypeOf(other).toEqualTypeOf<'acmePay'>();
  });
});
