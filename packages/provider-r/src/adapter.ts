/**
 * The Provider R adapter: each operation checks its input, makes the upstream calls and maps the replies.
 * Operations the provider cannot do throw `ProviderNotSupportedError` before any I/O (core's `defineAdapter`).
 */
import {
  type Adapter,
  type AdapterTypes,
  type CallOptions,
  type CheckoutCreateParams,
  checkoutCreateSchema,
  defineAdapter,
  type Operation,
  type OperationImplementations,
  type Payment,
  ProviderApiError,
  parseInput,
  ValidationError,
} from '@pay/core';
import type { ProviderRConfig } from './config.js';
import { paymentFromCreate, paymentFromStatus, refundFromReply } from './mapping.js';
import {
  captureAmount,
  checkoutBody,
  type ProviderRCaptureMetadata,
  type ProviderRCheckoutMetadata,
  type ProviderRPaymentMetadata,
  type ProviderRRefundMetadata,
  paymentBody,
  refundRequest,
} from './requests.js';
import { createUpstream, type ProviderRUpstream } from './upstream.js';
import { createWebhookDefinition } from './webhooks.js';
import { type ProviderRStatus, type ProviderRStatusReply, UNKNOWN_TRANSACTION_CODE } from './wire.js';

/** Raw webhook events: `providerR.<STATUS>`, each carrying the verified status reply. */
export type ProviderRRawEvents = { [S in ProviderRStatus as `providerR.${S}`]: ProviderRStatusReply };

/** The declared types of the Provider R adapter: metadata per operation, raw events, checkout result. */
export interface ProviderRTypes extends AdapterTypes {
  provider: 'providerR';
  metadata: {
    'checkouts.create': ProviderRCheckoutMetadata;
    'payments.create': ProviderRPaymentMetadata;
    'payments.capture': ProviderRCaptureMetadata;
    'refunds.create': ProviderRRefundMetadata;
  };
  rawEvents: ProviderRRawEvents;
  /** `checkouts.create` resolves to `null`: the redirect is the provider's (spec §2). */
  checkout: null;
}

/** What `createCheckoutRedirect` resolves to: the transaction and the hosted page to send the payer to. */
export interface ProviderRCheckoutRedirect {
  transId: string;
  redirectUrl: string;
}

/** The Provider R adapter: the unified operations plus `createCheckoutRedirect`. */
export type ProviderRAdapter = Adapter<ProviderRTypes> & {
  /**
   * The same call as `checkouts.create`, resolving to `{ transId, redirectUrl }` for callers who redirect the
   * payer themselves (reachable as `pay.adapter.createCheckoutRedirect`).
   */
  createCheckoutRedirect(
    params: CheckoutCreateParams<ProviderRCheckoutMetadata>,
    options?: CallOptions,
  ): Promise<ProviderRCheckoutRedirect>;
};

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

/** How `payments.cancel` treats each current status: which call cancels it, or why none is made. */
const CANCELLATION = {
  PENDING: 'cancelPending',
  AUTHORIZED: 'cancelPreauthorisation',
  CANCELLED: 'already-cancelled',
  PAID: 'refund-instead',
} as const satisfies Record<
  ProviderRStatus,
  'cancelPending' | 'cancelPreauthorisation' | 'already-cancelled' | 'refund-instead'
>;

function isUnknownTransaction(error: unknown): boolean {
  return ProviderApiError.isInstance(error) && error.providerCode === UNKNOWN_TRANSACTION_CODE;
}

function operations(
  config: ProviderRConfig,
  upstream: ProviderRUpstream,
): Partial<OperationImplementations<ProviderRTypes>> {
  const readPayment = async (transId: string, options: CallOptions): Promise<Payment> =>
    paymentFromStatus(await upstream.status(transId, options));

  /**
   * Runs a capture or cancel and returns the payment. Both are retried (design §6); when the first attempt
   * landed but its reply was lost, the provider refuses the retry (the payment is no longer pre-authorised or
   * pending). The status then tells the truth: a payment already in the state asked for is the answer.
   */
  async function settledAs(
    expected: ProviderRStatus,
    id: string,
    options: CallOptions,
    action: () => Promise<unknown>,
  ): Promise<Payment> {
    try {
      await action();
    } catch (error) {
      if (!ProviderApiError.isInstance(error)) throw error;
      const current = await upstream.status(id, options).catch(() => undefined);
      if (current?.status !== expected) throw error;
      return paymentFromStatus(current);
    }
    return readPayment(id, options);
  }

  return {
    async createCheckout(params, options) {
      await upstream.createCheckout(checkoutBody(params, config.isSandbox), options);
      return null;
    },

    async createPayment(params, options) {
      const body = paymentBody(params, config.isSandbox);
      const reply = await upstream.createPayment(body, options);
      return paymentFromCreate(
        {
          amount: body.price,
          currency: body.curr,
          payerId: body.payerId,
          itemId: params.item_id,
          metadata: params.metadata,
        },
        reply,
      );
    },

    async retrievePayment(id, options) {
      try {
        return await readPayment(id, options);
      } catch (error) {
        if (isUnknownTransaction(error)) return null;
        throw error;
      }
    },

    async capturePayment(id, params, options) {
      const amount = captureAmount(params);
      return settledAs('PAID', id, options, () => upstream.capture(id, amount, options));
    },

    async cancelPayment(id, options) {
      const current = await upstream.status(id, options);
      const action = CANCELLATION[current.status];
      if (action === 'already-cancelled') return paymentFromStatus(current);
      if (action === 'refund-instead') {
        throw new ValidationError(
          [
            {
              path: 'id',
              message:
                'the payment is PAID and can no longer be cancelled; refund it with refunds.create({ payment_id })',
            },
          ],
          { operation: 'payments.cancel' },
        );
      }
      return settledAs('CANCELLED', id, options, () => upstream[action](id, options));
    },

    async createRefund(params, options) {
      const request = refundRequest(params);
      // The refund body needs the payment's currency, and a refund without an amount refunds its full price.
      const payment = await upstream.status(params.payment_id, options);
      if (request.currency !== undefined && request.currency !== payment.curr) {
        throw new ValidationError(
          [{ path: 'currency', message: `must be ${payment.curr}, the currency of the payment` }],
          {
            operation: 'refunds.create',
          },
        );
      }
      const sent = {
        refId: request.refId,
        transId: payment.transId,
        amount: request.amount ?? payment.price,
        currency: payment.curr,
        reason: params.reason,
        metadata: params.metadata,
      };
      const reply = await upstream.refund(
        {
          transId: sent.transId,
          amount: sent.amount,
          curr: sent.currency,
          refId: sent.refId,
          test: config.isSandbox,
        },
        options,
      );
      return refundFromReply(sent, reply);
    },
  };
}

/** Builds the adapter from a checked configuration. */
export function buildProviderRAdapter(config: ProviderRConfig): ProviderRAdapter {
  const upstream = createUpstream(config);
  const adapter = defineAdapter<ProviderRTypes>({
    provider: 'providerR',
    operations: operations(config, upstream),
    unsupported: UNSUPPORTED,
    webhooks: createWebhookDefinition(config, upstream),
  });
  return {
    ...adapter,
    async createCheckoutRedirect(params, options = {}) {
      const input = parseInput(checkoutCreateSchema, params ?? {}, { operation: 'checkouts.create' });
      const reply = await upstream.createCheckout(checkoutBody(input, config.isSandbox), options);
      return { transId: reply.transId, redirectUrl: reply.redirect };
    },
  };
}
