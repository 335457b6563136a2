import type { CallOptions, Pay } from '@pay/core';
import { keyedReference } from '@pay/core/adapter';
import type { AdapterContract, FaultedStep } from '@pay/core/testing/contract';
import { expect } from 'vitest';
import { createProviderN, type ProviderNAdapter, providerN } from '../src/index.js';
import type { ProviderNPaymentStatus } from '../src/mapping.js';
import {
  type ProviderNSimulator,
  providerNWebhookRequest,
  signProviderNWebhook,
  simulator as simulatorDescriptor,
  startProviderNSimulator,
} from '../src/testing/index.js';
import { API_KEY, SECRET_KEY, transactionEventData, WEBHOOK_SECRET } from './fixtures.js';

/** Opens a checkout for `amount` of `currency` through `pay`. */
const openCheckout = (
  pay: Pay<ProviderNAdapter>,
  amount = 5000,
  options: CallOptions = {},
  currency = 'NGN',
) =>
  pay.checkouts.create(
    {
      customer: { email: 'ada@example.com' },
      item_id: 'blue-mug',
      success_url: 'https://shop.example/thanks',
      provider_metadata: { amount, currency },
    },
    options,
  );

const LOGIN = /^\/v1\/auth\/login$/;
const INIT = /^\/v1\/merchant\/transactions\/init-transaction$/;
const REFUND = /^\/v1\/refunds\/initiate-refund$/;

/** Faults after which the provider acted on the call although its answer was lost. */
const ACTED = new Set(['drop-after', 'delay', 'malformed']);

/**
 * Provider N's side of a failed checkout or refund: a login is retried and, when it could not connect, proves the
 * API call was never sent; a failed init-transaction or initiate-refund names the `paymentReference` /
 * `refundReference` it was sent with, which finds it in the books when the provider acted on it, and the
 * `transactionReference` refunded; nothing is opened or refunded twice.
 */
async function expectProviderNFailure({
  attempts,
  fault,
  error,
  simulator,
  prepared,
  idempotencyKey,
  settings,
}: FaultedStep<ProviderNSimulator>) {
  const [first] = attempts;
  const acted = ACTED.has(fault.kind);
  const context = (error as { context?: Record<string, unknown> }).context ?? {};
  const { transactions, refunds } = simulator.books();
  if (LOGIN.test(first?.path ?? '')) {
    expect(attempts).toHaveLength(fault.kind === 'malformed' ? 1 : settings.retry + 1);
    if (fault.kind === 'drop' || fault.kind === 'drop-after' || fault.kind === 'delay')
      expect(error).toMatchObject({ outcome: 'not_sent' });
    expect([transactions.length, refunds.length]).toEqual([0, 0]);
  } else if (INIT.test(first?.path ?? '')) {
    expect(context.paymentReference).toBe(await keyedReference(idempotencyKey));
    expect([transactions.length, refunds.length]).toEqual([acted ? 1 : 0, 0]);
    if (acted) expect(transactions[0]?.paymentReference).toBe(context.paymentReference);
  } else if (REFUND.test(first?.path ?? '')) {
    expect(context).toMatchObject({
      transactionReference: prepared,
      refundReference: await keyedReference(idempotencyKey),
    });
    expect(refunds).toHaveLength(acted ? 1 : 0);
    expect(transactions[0]?.refundableAmount).toBe(acted ? 4000 : 5000);
    if (acted) expect(refunds[0]?.refundReference).toBe(context.refundReference);
  } else throw new Error(`no Provider N step for ${first?.method} ${first?.path}`);
}

/** Provider N's declaration to the conformance suite (docs/architecture.md#conformance-suite): run by contract.test.ts, mutated by mutations.test.ts. */
export const providerNContract: AdapterContract<ProviderNSimulator, ProviderNAdapter> = {
  name: '@pay/provider-n',
  createAdapter: (fetch) =>
    createProviderN({ apiKey: API_KEY, secretKey: SECRET_KEY, isSandbox: true, fetch }),
  defaultFactory: () => providerN(),
  requiredEnv: ['PROVIDER_N_API_KEY', 'PROVIDER_N_SECRET_KEY', 'PROVIDER_N_SANDBOX'],
  webhookSecret: WEBHOOK_SECRET,
  genuineWebhook: () =>
    providerNWebhookRequest(
      { eventType: 'SUCCESSFUL_TRANSACTION', eventData: transactionEventData },
      { webhookSecret: WEBHOOK_SECRET },
    ),
  tamperedWebhooks: [
    {
      name: 'amount changed after signing',
      tamper: (genuine) => ({
        ...genuine,
        body: String(genuine.body).replace('"totalPayable":5000', '"totalPayable":1'),
      }),
    },
    { name: 'signature header removed', tamper: (genuine) => ({ ...genuine, headersAsObject: {} }) },
    {
      name: 'signed with another secret',
      tamper: async (genuine) => ({
        ...genuine,
        headersAsObject: {
          'providerN-signature': await signProviderNWebhook(String(genuine.body), 'not-the-secret'),
        },
      }),
    },
    {
      name: 'signature of a different body',
      tamper: async (genuine) => ({
        ...genuine,
        headersAsObject: { 'providerN-signature': await signProviderNWebhook('{}', WEBHOOK_SECRET) },
      }),
    },
    {
      name: 'signature as base64 instead of hex',
      tamper: async (genuine) => {
        const hex = await signProviderNWebhook(String(genuine.body), WEBHOOK_SECRET);
        return {
          ...genuine,
          headersAsObject: { 'providerN-signature': Buffer.from(hex, 'hex').toString('base64') },
        };
      },
    },
  ],
  simulator: {
    start: () => startProviderNSimulator(),
    descriptor: simulatorDescriptor,
    webhookSecret: ({ credentials }) => credentials.webhookSecret,
    liveSettings: { isSandbox: false },
    createAdapter: (simulator, settings) => createProviderN(simulator.adapterConfig(settings)),
    credentials: ({ credentials }) => [credentials.apiKey, credentials.secretKey, credentials.webhookSecret],
    async produceRecords({ pay }) {
      const checkout = await openCheckout(pay);
      return [checkout, await pay.payments.retrieve(checkout.id)];
    },
    // The simulator answers a refund of a transaction it does not hold with the provider's refusal.
    refusedCall: ({ pay }) => pay.refunds.create({ payment_id: 'MNFY|00|NOT-A-TRANSACTION', amount: 10 }),
    statuses: {
      paid: ['PAID', 'OVERPAID'],
      failed: ['FAILED', 'EXPIRED', 'ABANDONED', 'CANCELLED', 'REVERSED'],
      notPaid: ['PENDING', 'PARTIALLY_PAID'],
      async read({ pay, simulator }, status) {
        const checkout = await openCheckout(pay);
        // An undocumented status reaches the simulator's books as any other: the adapter must not read it as paid.
        simulator.complete(checkout.id, { status: status as ProviderNPaymentStatus });
        return pay.payments.retrieve(checkout.id);
      },
    },
    moneyMovingCalls: [
      {
        name: 'checkouts.create',
        method: 'POST',
        path: INIT,
        send: ({ pay }, _prepared, options) => openCheckout(pay, 5000, options),
        moved: (simulator) => simulator.books().transactions.length,
        expectFailure: expectProviderNFailure,
      },
      {
        name: 'refunds.create',
        method: 'POST',
        path: REFUND,
        async prepare({ pay, simulator }) {
          const checkout = await openCheckout(pay);
          simulator.complete(checkout.id);
          return checkout.id;
        },
        send: ({ pay }, transactionReference, options) =>
          pay.refunds.create({ payment_id: transactionReference as string, amount: 1000 }, options),
        moved: (simulator) => simulator.books().refunds.length,
        expectFailure: expectProviderNFailure,
      },
    ],
    amounts: {
      unit: 'major',
      currencies: [{ currency: 'NGN', decimals: 2 }],
      send: ({ pay }, amount, currency) => openCheckout(pay, amount, {}, currency),
      path: /^\/v1\/merchant\/transactions\/init-transaction$/,
      wireAmount: (request) => (JSON.parse(request.body) as { amount: unknown }).amount,
    },
    unknownIds: {
      'payments.retrieve': 'MNFY|00|NOT-A-TRANSACTION',
      'checkouts.retrieve': 'MNFY|00|NOT-A-TRANSACTION',
    },
  },
};
