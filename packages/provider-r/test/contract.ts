import type { CallOptions, Pay } from '@pay/core';
import { ProviderApiError } from '@pay/core';
import type { AdapterContract, FaultedStep } from '@pay/core/testing/contract';
import { expect } from 'vitest';
import { createProviderR, type ProviderRAdapter, providerR } from '../src/index.js';
import {
  buildProviderRPush,
  type ProviderRSimulator,
  simulator as simulatorDescriptor,
  startProviderRSimulator,
} from '../src/testing/index.js';
import {
  checkoutParams,
  FORM,
  MERCHANT,
  pushFields,
  SECRET,
  statusFields,
  statusReply,
  TRANS_ID,
} from './fixtures.js';

/** Answers the status call the verification makes: PAID for TRANS_ID, 1104 for any other transaction. */
const statusFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const form = new URLSearchParams(await request.text());
  const body =
    form.get('transId') === TRANS_ID ? statusReply() : 'code=1104&message=Transaction+cannot+be+loaded';
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
};

const genuine = () => ({
  body: new URLSearchParams(pushFields()).toString(),
  headersAsObject: { 'content-type': 'application/x-www-form-urlencoded' },
  fullUrl: 'https://shop.example/webhooks/provider-r',
});

/** A push with some fields replaced, as an attacker would send it. */
const withFields = (overrides: Record<string, string>) => () => ({
  ...genuine(),
  body: new URLSearchParams(pushFields(overrides)).toString(),
});

/** Creates a payment of `amount` `currency` through `pay`. */
const createPayment = (
  pay: Pay<ProviderRAdapter>,
  amount = 100,
  currency = 'CZK',
  options: CallOptions = {},
) =>
  pay.payments.create(
    { customer: { id: 'cust_42' }, amount, currency, provider_metadata: { email: 'payer@example.com' } },
    options,
  );

const STATUS = /^\/v1\.0\/status$/;
const CHECKOUT = /^\/v2\.0\/paymentRedirect\/merchant\/[^/]+$/;
const PAYMENT = /^\/v2\.0\/payment$/;
const REFUND = /^\/v2\.0\/refund\.json$/;
const PREAUTH = /^\/v2\.0\/preauth\/transId\/[^/]+\.json$/;
const PENDING_PAYMENT = /^\/v2\.0\/payment\/transId\/[^/]+\.json$/;

/** Faults after which the provider acted on the call although its answer was lost. */
const ACTED = new Set(['drop-after', 'delay', 'malformed']);

/**
 * What every failed call of Provider R shows: creations are sent once, every other call (the status POST, the
 * capture and the cancel) is retried with one request id, which the error names; the operation stopped at the
 * failed call, but for the one status read that reconciles a refused capture or cancel (its first attempt may have
 * landed with the reply lost); a failed status read is retryable; then `books`, what the provider holds after the
 * failed step (by its index), given whether the provider acted on the faulted call.
 */
function providerRFailure(
  books: (simulator: ProviderRSimulator, step: number, acted: boolean, id: string) => void,
) {
  return (failure: FaultedStep<ProviderRSimulator>) => {
    const { attempts, sent, fault, error } = failure;
    const [first] = attempts;
    const path = first?.path ?? '';
    const creation = CHECKOUT.test(path) || PAYMENT.test(path) || REFUND.test(path);
    expect(attempts).toHaveLength(creation || fault.kind === 'malformed' ? 1 : failure.settings.retry + 1);
    expect(first?.requestId).toMatch(/^[0-9a-f-]{36}$/);
    if (fault.kind === 'drop' || fault.kind === 'drop-after' || fault.kind === 'delay')
      expect((error as { context?: { requestId?: string } }).context?.requestId).toBe(first?.requestId);
    if (fault.kind === 'status' && STATUS.test(path)) expect(error).toMatchObject({ retryable: true });
    const reconciled =
      (PREAUTH.test(path) || PENDING_PAYMENT.test(path)) && ProviderApiError.isInstance(error);
    expect(sent.at(reconciled ? -2 : -1)?.requestId).toBe(first?.requestId);
    if (reconciled) expect(sent.at(-1)?.path).toMatch(STATUS);
    books(failure.simulator, failure.step, ACTED.has(fault.kind), failure.prepared ?? '');
  };
}

/** A creation adds one transaction at most (the suite counts them) and refunds nothing. */
const createdOnce = providerRFailure((simulator) => expect(simulator.refunds).toHaveLength(0));

/** Provider R's declaration to the conformance suite (docs/architecture.md#conformance-suite): run by contract.test.ts, mutated by mutations.test.ts. */
export const providerRContract: AdapterContract<ProviderRSimulator, ProviderRAdapter> = {
  name: '@pay/provider-r',
  createAdapter: (fetch) =>
    createProviderR({ merchant: MERCHANT, secret: SECRET, isSandbox: true, fetch, retry: 0 }),
  defaultFactory: () => providerR(),
  requiredEnv: ['PROVIDER_R_MERCHANT', 'PROVIDER_R_SECRET', 'PROVIDER_R_SANDBOX'],
  webhookSecret: SECRET,
  genuineWebhook: async () => genuine(),
  webhookFetch: statusFetch,
  unsignedBody: {
    because:
      'the push carries the shared secret among its fields and every push is confirmed by a status read',
  },
  tamperedWebhooks: [
    { name: 'wrong secret', tamper: withFields({ secret: 'not-the-secret' }) },
    { name: 'secret differing in one character', tamper: withFields({ secret: `${SECRET.slice(0, -1)}0` }) },
    { name: 'another merchant', tamper: withFields({ merchant: '654321' }) },
    { name: 'a transaction the provider does not know', tamper: withFields({ transId: 'FAKE-FAKE-FAKE' }) },
    {
      name: 'secret removed',
      tamper: () => {
        const { secret: _secret, ...fields } = pushFields();
        return { ...genuine(), body: new URLSearchParams(fields).toString() };
      },
    },
    {
      name: 'JSON push with the wrong secret',
      tamper: () => {
        const push = buildProviderRPush(
          {
            merchant: MERCHANT,
            secret: 'nope',
            transId: TRANS_ID,
            status: 'PAID',
            price: 10000,
            curr: 'CZK',
          },
          { format: 'json' },
        );
        return { ...genuine(), body: push.body, headersAsObject: push.headers };
      },
    },
  ],
  simulator: {
    start: () => startProviderRSimulator(),
    descriptor: simulatorDescriptor,
    webhookSecret: ({ credentials }) => credentials.secret,
    liveSettings: { isSandbox: false },
    createAdapter: (simulator, settings) => createProviderR(simulator.adapterConfig(settings)),
    // The merchant id is an account number, shown to payers; the secret is the credential.
    credentials: ({ credentials }) => [credentials.secret],
    async produceRecords({ pay }) {
      const payment = await createPayment(pay);
      return [payment, await pay.payments.retrieve(payment.id)];
    },
    // The simulator refuses to refund a cancelled payment (code 1401), as the provider does.
    async refusedCall({ pay }) {
      const pending = await createPayment(pay);
      await pay.payments.cancel(pending.id);
      return pay.refunds.create({ payment_id: pending.id, amount: 1 });
    },
    statuses: {
      paid: ['PAID'],
      failed: ['CANCELLED'],
      notPaid: ['PENDING', 'AUTHORIZED'],
      // The status reply of the payment, as the simulator sends it, with the status replaced.
      async read({ pay, simulator }, status) {
        const { id } = await createPayment(pay);
        const held = simulator.transaction(id);
        const fields = {
          ...statusFields({ merchant: simulator.credentials.merchant, secret: simulator.credentials.secret }),
          transId: id,
          price: String(held?.price),
          curr: String(held?.curr),
          status,
        };
        simulator.faults.inject({
          method: 'POST',
          path: '/v1.0/status',
          fault: { kind: 'status', status: 200, body: new URLSearchParams(fields).toString(), headers: FORM },
        });
        return pay.payments.retrieve(id);
      },
    },
    moneyMovingCalls: [
      {
        name: 'checkouts.create',
        method: 'POST',
        path: CHECKOUT,
        // Provider R has no lookup by merchant reference (docs/providers/provider-r.md#calls): a keyed repeat of
        // a creation whose answer never arrived is not sent again.
        noLookup: { because: 'the provider has no lookup by merchant reference' },
        send: ({ pay }, _prepared, options) => pay.checkouts.create({ ...checkoutParams }, options),
        moved: (simulator) => simulator.transactions.length,
        expectFailure: createdOnce,
      },
      {
        name: 'payments.create',
        method: 'POST',
        path: PAYMENT,
        // Provider R has no lookup by merchant reference (docs/providers/provider-r.md#calls): a keyed repeat of
        // a creation whose answer never arrived is not sent again.
        noLookup: { because: 'the provider has no lookup by merchant reference' },
        send: ({ pay }, _prepared, options) => createPayment(pay, 100, 'CZK', options),
        moved: (simulator) => simulator.transactions.length,
        expectFailure: createdOnce,
      },
      {
        name: 'refunds.create',
        method: 'POST',
        path: REFUND,
        // Provider R has no lookup by merchant reference (docs/providers/provider-r.md#calls): a keyed repeat of
        // a creation whose answer never arrived is not sent again.
        noLookup: { because: 'the provider has no lookup by merchant reference' },
        async prepare({ pay, simulator }) {
          const { id } = await createPayment(pay);
          simulator.pay(id);
          return id;
        },
        send: ({ pay }, id, options) => pay.refunds.create({ payment_id: id as string, amount: 10 }, options),
        moved: (simulator) => simulator.refunds.length,
        // Status read, then the refund of 10 of the 100 paid.
        expectFailure: providerRFailure((simulator, step, acted, id) => {
          const refunded = step === 1 && acted;
          expect(simulator.refunds).toHaveLength(refunded ? 1 : 0);
          expect(simulator.refundable(id)).toBe(refunded ? 9000 : 10000);
        }),
      },
      {
        name: 'payments.capture',
        method: 'PUT',
        path: PREAUTH,
        // The provider refuses a second capture of one pre-authorisation (docs/providers/provider-r.md#status).
        resendable: { because: 'the provider refuses a second capture' },
        async prepare({ pay, simulator }) {
          const { id } = await createPayment(pay);
          simulator.authorize(id);
          return id;
        },
        // A partial capture (60 of the 100 authorised), applied once at most.
        send: ({ pay }, id, options) => pay.payments.capture(id as string, { amount: 60 }, options),
        moved: (simulator) => simulator.transactions.filter(({ status }) => status === 'PAID').length,
        // Status read, the capture, status read.
        expectFailure: providerRFailure((simulator, step, acted, id) =>
          expect(simulator.transaction(id)).toMatchObject(
            step === 2 || (step === 1 && acted)
              ? { status: 'PAID', price: 6000 }
              : { status: 'AUTHORIZED', price: 10000 },
          ),
        ),
      },
      {
        name: 'payments.cancel',
        method: 'DELETE',
        path: PENDING_PAYMENT,
        resendable: { because: 'the provider refuses to cancel a payment twice' },
        prepare: async ({ pay }) => (await createPayment(pay)).id,
        send: ({ pay }, id, options) => pay.payments.cancel(id as string, options),
        moved: (simulator) => simulator.transactions.filter(({ status }) => status === 'CANCELLED').length,
        // Status read, the cancel, status read.
        expectFailure: providerRFailure((simulator, step, acted, id) =>
          expect(simulator.transaction(id)?.status).toBe(
            step === 2 || (step === 1 && acted) ? 'CANCELLED' : 'PENDING',
          ),
        ),
      },
    ],
    amounts: {
      unit: 'minor',
      recordUnit: 'major',
      currencies: [
        { currency: 'CZK', decimals: 2, minimum: 1 },
        { currency: 'EUR', decimals: 2, minimum: 0.1 },
      ],
      send: ({ pay }, amount, currency) => createPayment(pay, amount, currency),
      path: /^\/v2\.0\/payment$/,
      wireAmount: (request) => (JSON.parse(request.body) as { price: unknown }).price,
    },
    unknownIds: { 'payments.retrieve': 'FAKE-FAKE-FAKE' },
  },
};
