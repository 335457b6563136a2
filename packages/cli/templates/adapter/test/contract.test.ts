/**
 * The @pay conformance suite for this adapter (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#conformance-suite):
 * configuration, unsupported operations, webhook authentication, and money safety end to end against the
 * simulator (statuses never misread as paid, each money-moving call sent once under faults, exact amounts, `null`
 * for an unknown id, no credential in any error). While the skeleton's TODOs are open, the first test names them.
 */
import { type AdapterContract, runAdapterContract, type SimulatorContext } from '@pay/core/testing/contract';
import { describe, expect, it } from 'vitest';
import { createProviderXyz, providerXyz } from '../src/index.js';
import { PAYMENT_STATUS } from '../src/mapping.js';
import {
  simulator as descriptor,
  type ProviderXyzSimulator,
  PROVIDER_XYZ_SIMULATOR_SECRET_KEY as SECRET,
  signProviderXyzWebhook,
  startProviderXyzSimulator,
} from '../src/testing/index.js';
import { EVENT_TYPES } from '../src/webhooks.js';

type Adapter = ReturnType<typeof createProviderXyz>;
type Context = SimulatorContext<ProviderXyzSimulator, Adapter>;

/** The operations this adapter is built to perform (TODO: yours). */
const PLANNED = ['checkouts.create', 'payments.retrieve', 'refunds.create'] as const;

/** A genuine delivery's body (TODO: a payload your provider publishes). */
const EVENT = JSON.stringify({
  id: 'evt_1',
  type: 'paid',
  data: { id: 'pay_1', amount: 1999, currency: 'USD', status: 'paid' },
});

/** Opens a checkout of `amount` `currency` through `pay`. */
const checkout = (context: Pick<Context, 'pay'>, amount = 50, currency = 'USD', options = {}) =>
  context.pay.checkouts.create(
    { amount, currency, provider_metadata: { email: 'ada@example.com' } },
    options,
  );

describe('the skeleton', () => {
  it('has no TODO left: every planned operation, status and event type is filled in', () => {
    const { capabilities } = createProviderXyz({ secretKey: SECRET, isSandbox: true });
    const missing = [
      ...PLANNED.filter((operation) => !capabilities.includes(operation)).map(
        (operation) => `operation ${operation} (src/adapter.ts, src/requests.ts)`,
      ),
      ...(PAYMENT_STATUS.size === 0 ? ['PAYMENT_STATUS (src/mapping.ts)'] : []),
      ...((EVENT_TYPES as readonly string[]).length === 0 ? ['EVENT_TYPES (src/webhooks.ts)'] : []),
    ];
    expect(missing, 'still TODO').toEqual([]);
  });
});

const contract: AdapterContract<ProviderXyzSimulator, Adapter> = {
  name: '@scope/pay-provider-xyz',
  createAdapter: (fetch) =>
    createProviderXyz({
      secretKey: SECRET,
      isSandbox: true,
      baseUrl: 'https://provider-xyz.invalid',
      retry: 0,
      fetch,
    }),
  defaultFactory: () => providerXyz(),
  requiredEnv: ['PROVIDER_XYZ_SECRET_KEY', 'PROVIDER_XYZ_SANDBOX'],
  webhookSecret: SECRET,
  genuineWebhook: async () => ({
    body: EVENT,
    headersAsObject: await signProviderXyzWebhook(EVENT, SECRET),
    fullUrl: 'https://shop.example/webhooks/provider-xyz',
  }),
  tamperedWebhooks: [
    {
      name: 'amount changed after signing',
      tamper: (genuine) => ({ ...genuine, body: EVENT.replace('1999', '1') }),
    },
    { name: 'signature removed', tamper: (genuine) => ({ ...genuine, headersAsObject: {} }) },
    {
      name: 'signed with another secret',
      tamper: async (genuine) => ({
        ...genuine,
        headersAsObject: await signProviderXyzWebhook(EVENT, 'sk_test_forger'),
      }),
    },
  ],
  simulator: {
    start: () => startProviderXyzSimulator(),
    // The simulator's books, statuses and wire, normalised: the suite compares every record and event with them.
    descriptor,
    webhookSecret: () => SECRET,
    liveSettings: { isSandbox: false },
    createAdapter: (simulator, settings) => createProviderXyz(simulator.adapterConfig(settings)),
    credentials: () => [SECRET],
    async produceRecords(context) {
      const opened = await checkout(context);
      return [opened, await context.pay.payments.retrieve(opened.id)];
    },
    async refusedCall(context) {
      // TODO: a call your provider refuses (here: a refund of a payment nobody paid).
      const opened = await checkout(context);
      return context.pay.refunds.create({ payment_id: opened.id, amount: 10, currency: 'USD' });
    },
    statuses: {
      // TODO: every status word your provider documents, sorted by meaning.
      paid: ['paid'],
      failed: ['failed', 'canceled'],
      notPaid: ['pending'],
      async read(context, status) {
        const opened = await checkout(context);
        context.simulator.setStatus(opened.id, status);
        return context.pay.payments.retrieve(opened.id);
      },
    },
    moneyMovingCalls: [
      {
        name: 'checkouts.create',
        method: 'POST',
        path: /^\/checkouts$/,
        send: (context, _prepared, options) => checkout(context, 50, 'USD', options),
        moved: (simulator) => simulator.books().payments.length,
      },
      {
        name: 'refunds.create',
        method: 'POST',
        path: /^\/refunds$/,
        async prepare(context) {
          const opened = await checkout(context);
          await context.simulator.payer.pay(opened.id);
          return opened.id;
        },
        send: (context, prepared, options) =>
          context.pay.refunds.create(
            { payment_id: prepared as string, amount: 10, currency: 'USD' },
            options,
          ),
        moved: (simulator) => simulator.books().refunds.length,
      },
    ],
    amounts: {
      unit: 'minor',
      // The records' amounts are in the currency's standard unit (mapping.ts' `fromWire`).
      recordUnit: 'major',
      // TODO: the currencies your provider takes, with their minor digits.
      currencies: [{ currency: 'USD', decimals: 2 }],
      send: (context, amount, currency) => checkout(context, amount, currency),
      path: /^\/checkouts$/,
      wireAmount: (request) => (JSON.parse(request.body) as { amount: unknown }).amount,
    },
    unknownIds: { 'payments.retrieve': 'pay_never_issued' },
  },
};

runAdapterContract(contract);
