/** The Provider R adapter: one function per operation, wiring requests (checks + wire call) → client → mapping. */
import {
  type AdapterDefinition,
  type CallOptions,
  checkoutCreateSchema,
  defineAdapter,
  keyedReference,
  type Operation,
  type Payment,
  parseInput,
  type Refund,
  redactingErrors,
  toMinorUnits,
} from '@pay/core/adapter';
import { createClient, type ProviderRClient } from './client.js';
import type { ProviderRConfig, ProviderRCredentials } from './config.js';
import { resumeCreation, sendCreation } from './flows/create-once.js';
import { resolveCall } from './flows/resolve.js';
import { settlementFlows } from './flows/settle.js';
import { toCheckout, toCreatedPayment, toPayment, toRefund } from './mapping.js';
import {
  captureAmount,
  checkoutRequest,
  invalid,
  paymentRequest,
  refundCall,
  refundRequest,
  statusRequest,
} from './requests.js';
import type {
  ProviderRAdapter,
  ProviderRCheckoutParams,
  ProviderRCheckoutRedirect,
  ProviderRTypes,
} from './types.js';
import { createWebhooks } from './webhooks.js';

/** Why each operation the provider cannot do is unsupported (the `reason` of `ProviderNotSupportedError`). */
const UNSUPPORTED: { [K in Operation]?: string } = {
  'checkouts.retrieve':
    'the provider keeps no checkout object (spec matrix); read the transaction with payments.retrieve(transId)',
  'checkouts.update': 'the provider offers no call to change a redirect checkout',
  'checkouts.delete':
    'the provider offers no call to delete a checkout; cancel its transaction with payments.cancel(transId)',
  'payments.update': 'the provider offers no call to change a created payment',
  'payments.delete': 'the provider cannot delete a transaction; cancel it with payments.cancel(transId)',
  'customers.create': 'the provider has no customer storage; the payer travels with each payment',
  'customers.retrieve': 'the provider has no customer storage',
  'customers.update': 'the provider has no customer storage',
  'customers.delete': 'the provider has no customer storage',
  'subscriptions.create': 'the provider offers no subscriptions (spec matrix)',
  'subscriptions.retrieve': 'the provider offers no subscriptions',
  'subscriptions.update': 'the provider offers no subscriptions',
  'subscriptions.cancel': 'the provider offers no subscriptions',
  'subscriptions.delete': 'the provider offers no subscriptions',
};

function operations(
  config: ProviderRConfig,
  client: ProviderRClient,
): AdapterDefinition<ProviderRTypes>['operations'] {
  const settlement = settlementFlows(config, client);
  return {
    async createCheckout(params, options) {
      const request = checkoutRequest(params, config, await keyedReference(options));
      if (resumeCreation('checkouts.create', options.idempotency)) return null;
      // With a ledger there is a key, so the refId is never absent. The call resolves to null (the spec); the
      // Checkout with its redirect is recorded for `pay.resolve(key)`.
      await sendCreation(
        'checkouts.create',
        options.idempotency,
        { refId: request.refId as string },
        async () => {
          const { body, requestId } = await client.send(request, options);
          return { transId: body.transId, result: toCheckout(request.body, params, body, requestId) };
        },
      );
      return null;
    },

    async createPayment(params, options) {
      const request = paymentRequest(params, config, await keyedReference(options));
      const resumed = resumeCreation('payments.create', options.idempotency);
      if (resumed) return resumed.result as Payment;
      return sendCreation(
        'payments.create',
        options.idempotency,
        { refId: request.refId as string },
        async () => {
          const { body, requestId } = await client.send(request, options);
          const payment = toCreatedPayment(request.body, params, body, requestId);
          return { transId: payment.id, result: payment };
        },
      );
    },

    async retrievePayment(id, options) {
      const read = await client.find(statusRequest(id, config), options);
      return read && toPayment(read.body, config.isSandbox, read.requestId);
    },

    capturePayment: (id, params, options) => settlement.capture(id, captureAmount(params), options),
    cancelPayment: (id, options) => settlement.cancel(id, options),

    async createRefund(params, options) {
      const request = refundRequest(params, await keyedReference(options));
      const resumed = resumeCreation('refunds.create', options.idempotency);
      if (resumed) return resumed.result as Refund;
      // The refund body needs the payment's currency, and a refund without an amount refunds its full price.
      const { body: payment } = await client.send(statusRequest(params.payment_id, config), options);
      if (request.currency !== undefined && request.currency !== payment.curr) {
        throw invalid('refunds.create', 'currency', `must be ${payment.curr}, the currency of the payment`);
      }
      const sent = {
        refId: request.refId,
        transId: payment.transId,
        price: request.amount === undefined ? payment.price : toMinorUnits(request.amount, payment.curr),
        currency: payment.curr,
        reason: params.reason,
        metadata: params.metadata,
        test: config.isSandbox,
      };
      const reference = { refId: sent.refId, transId: sent.transId };
      return sendCreation('refunds.create', options.idempotency, reference, async () => {
        const { body, requestId } = await client.send(refundCall(sent), options);
        return { transId: sent.transId, result: toRefund(sent, body, requestId) };
      });
    },
  };
}

/** Builds the adapter from a checked configuration. */
export function createProviderRAdapter(config: ProviderRConfig): ProviderRAdapter {
  const client = createClient(config);
  const adapter = defineAdapter<ProviderRTypes>({
    provider: 'providerR',
    operations: operations(config, client),
    // The operations' own checks, run before core's idempotency ledger is touched (docs/architecture.md#idempotency).
    checks: {
      createCheckout: (params) => void checkoutRequest(params, config),
      createPayment: (params) => void paymentRequest(params, config),
      capturePayment: (_id, params) => void captureAmount(params),
      createRefund: (params) => void refundRequest(params),
    },
    unsupported: UNSUPPORTED,
    webhooks: createWebhooks(config, client),
    resolve: (lookup, options) => resolveCall(lookup, options, client, config),
  });
  // `Object.assign` keeps the adapter itself, with core's non-enumerable mark that it runs the ledger on validated
  // input (a spread copy would lose it).
  return Object.assign(adapter, {
    createCheckoutRedirect: redactingErrors(
      async (
        params: ProviderRCheckoutParams,
        options: CallOptions = {},
      ): Promise<ProviderRCheckoutRedirect> => {
        const input = parseInput(checkoutCreateSchema, params ?? {}, { operation: 'checkouts.create' });
        if (options?.idempotencyKey !== undefined) {
          // createPay's ledger never sees this method: a key here would protect nothing, and a retry would open a
          // second checkout (docs/providers/provider-r.md#create-checkout).
          throw invalid(
            'checkouts.create',
            'options.idempotencyKey',
            "is not supported by createCheckoutRedirect (createPay's idempotency ledger does not cover it); with a key, call pay.checkouts.create(params, { idempotencyKey }) and then pay.resolve(key): its record is the Checkout, id the transId and payment_url the redirect. Without a key, never repeat this call blindly",
          );
        }
        const { body } = await client.send(checkoutRequest(input, config), options);
        return { transId: body.transId, redirectUrl: body.redirect };
      },
    ),
    updateCredentials: (credentials: ProviderRCredentials) => client.updateCredentials(credentials),
  });
}
