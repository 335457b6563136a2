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
  type OperationOptions,
  type Payment,
  ProviderApiError,
  parseInput,
  type Refund,
  redactingErrors,
  ValidationError,
} from '@pay/core';
import type { ProviderRConfig } from './config.js';
import {
  checkpointBeforeSending,
  idempotencyKeyOf,
  idempotencyRefId,
  resolveCall,
  resumeCreation,
  sendCreation,
} from './idempotency.js';
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
import { createUpstream, isUnknownTransaction, type ProviderRUpstream } from './upstream.js';
import { createWebhookDefinition } from './webhooks.js';
import type { ProviderRStatus, ProviderRStatusReply } from './wire.js';

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

type Cancellation = 'cancelPending' | 'cancelPreauthorisation' | 'already-cancelled' | 'refund-instead';

/**
 * How `payments.cancel` treats each current status: which call cancels it, or why none is made. Read through a
 * `Map`: a status the wire contract does not list cancels nothing.
 */
const CANCELLATION: ReadonlyMap<string, Cancellation> = new Map(
  Object.entries({
    PENDING: 'cancelPending',
    AUTHORIZED: 'cancelPreauthorisation',
    CANCELLED: 'already-cancelled',
    PAID: 'refund-instead',
  } as const satisfies Record<ProviderRStatus, Cancellation>),
);

/** A `ValidationError` about the payment's state, raised after its status read and before any call that moves money. */
function stateError(operation: Operation, path: string, message: string): ValidationError {
  return new ValidationError([{ path, message }], { operation });
}

function operations(
  config: ProviderRConfig,
  upstream: ProviderRUpstream,
): Partial<OperationImplementations<ProviderRTypes>> {
  const toPayment = (reply: ProviderRStatusReply): Payment => paymentFromStatus(reply, config.isSandbox);
  const readPayment = async (transId: string, options: CallOptions): Promise<Payment> =>
    toPayment(await upstream.status(transId, options));

  /**
   * A payment found captured when a capture was asked for (issue 11 §1): it is the answer only when the captured
   * amount is the one asked for. Any other amount means this capture did not make it, so the caller is told,
   * never handed a success for money it did not capture.
   */
  function alreadyCaptured(
    current: ProviderRStatusReply,
    asked: number,
    refusal?: ProviderApiError,
  ): Payment {
    if (current.price === asked) return toPayment(current);
    const message = `payment ${current.transId} is already captured for ${current.price} (minor units), not the ${asked} asked for; check it with payments.retrieve before capturing or refunding anything`;
    if (refusal === undefined) throw stateError('payments.capture', 'amount', message);
    throw refusal.withDetails({
      message: `The capture was refused and ${message}.`,
      context: {
        ...refusal.context,
        transId: current.transId,
        capturedAmount: current.price,
        requestedAmount: asked,
      },
    });
  }

  /**
   * Runs a cancel and returns the payment. Cancels are retried (design §6); when the first attempt landed but
   * its reply was lost, the provider refuses the retry (the payment is no longer pending or pre-authorised). The
   * status then tells the truth: a payment already CANCELLED is the answer; anything else passes the refusal on
   * (with `outcome: 'unknown'` when an earlier attempt may have landed).
   */
  async function cancelled(
    id: string,
    options: CallOptions,
    cancel: () => Promise<unknown>,
  ): Promise<Payment> {
    try {
      await cancel();
    } catch (error) {
      if (!ProviderApiError.isInstance(error)) throw error;
      const current = await upstream.status(id, options).catch(() => undefined);
      if (current?.status !== 'CANCELLED') throw error;
      return toPayment(current);
    }
    return readPayment(id, options);
  }

  /** The refId a keyed call derives from its key (`undefined` without a key). */
  const keyedRefId = async (options: OperationOptions): Promise<string | undefined> => {
    const key = idempotencyKeyOf(options);
    return key === undefined ? undefined : idempotencyRefId(key);
  };

  return {
    async createCheckout(params, options) {
      const body = checkoutBody(params, config.isSandbox, await keyedRefId(options));
      const resumed = resumeCreation('checkouts.create', options.idempotency);
      if (resumed) return null;
      // With a ledger there is a key, so the refId is the caller's or the key's (never absent).
      return sendCreation(
        'checkouts.create',
        options.idempotency,
        { refId: body.refId as string },
        async () => ({
          transId: (await upstream.createCheckout(body, options)).transId,
          result: null,
        }),
      );
    },

    async createPayment(params, options) {
      const body = paymentBody(params, config.isSandbox, await keyedRefId(options));
      const resumed = resumeCreation('payments.create', options.idempotency);
      if (resumed) return resumed.result as Payment;
      // With a ledger there is a key, so the refId is the caller's or the key's (never absent).
      return sendCreation(
        'payments.create',
        options.idempotency,
        { refId: body.refId as string },
        async () => {
          const payment = paymentFromCreate(
            {
              amount: body.price,
              currency: body.curr,
              payerId: body.payerId,
              itemId: params.item_id,
              metadata: params.metadata,
              test: body.test,
            },
            await upstream.createPayment(body, options),
          );
          return { transId: payment.id, result: payment };
        },
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
      const requested = captureAmount(params);
      // The status first: what is authorised (a capture without an amount takes it all) and whether it is
      // already captured, so a success is only ever reported for the amount asked for.
      const current = await upstream.status(id, options);
      const asked = requested ?? current.price;
      if (current.status === 'PAID') return alreadyCaptured(current, asked);
      if (current.status !== 'AUTHORIZED') {
        throw stateError(
          'payments.capture',
          'id',
          `the payment is ${current.status}; only a pre-authorised (AUTHORIZED) payment can be captured`,
        );
      }
      if (asked > current.price) {
        throw stateError(
          'payments.capture',
          'amount',
          `must be at most ${current.price}, the amount pre-authorised`,
        );
      }
      await checkpointBeforeSending('payments.capture', options.idempotency, {
        step: 'capture_sent',
        transId: id,
        ...(requested === undefined ? {} : { amount: requested }),
      });
      try {
        await upstream.capture(id, requested, options);
      } catch (error) {
        if (!ProviderApiError.isInstance(error)) throw error;
        // The first attempt may have captured with its reply lost, and the retry was refused: read what happened.
        const now = await upstream.status(id, options).catch(() => undefined);
        if (now?.status !== 'PAID') throw error;
        return alreadyCaptured(now, asked, error);
      }
      return readPayment(id, options);
    },

    async cancelPayment(id, options) {
      const current = await upstream.status(id, options);
      const action = CANCELLATION.get(current.status);
      if (action === 'already-cancelled') return toPayment(current);
      if (action === 'refund-instead') {
        throw stateError(
          'payments.cancel',
          'id',
          'the payment is PAID and can no longer be cancelled; refund it with refunds.create({ payment_id })',
        );
      }
      if (action === undefined) {
        throw stateError(
          'payments.cancel',
          'id',
          `the payment is ${current.status}, a status this adapter does not know how to cancel; check it in the provider's portal`,
        );
      }
      await checkpointBeforeSending('payments.cancel', options.idempotency, {
        step: 'cancel_sent',
        transId: id,
      });
      return cancelled(id, options, () => upstream[action](id, options));
    },

    async createRefund(params, options) {
      const request = refundRequest(params, await keyedRefId(options));
      const resumed = resumeCreation('refunds.create', options.idempotency);
      if (resumed) return resumed.result as Refund;
      // The refund body needs the payment's currency, and a refund without an amount refunds its full price.
      const payment = await upstream.status(params.payment_id, options);
      if (request.currency !== undefined && request.currency !== payment.curr) {
        throw stateError(
          'refunds.create',
          'currency',
          `must be ${payment.curr}, the currency of the payment`,
        );
      }
      const sent = {
        refId: request.refId,
        transId: payment.transId,
        amount: request.amount ?? payment.price,
        currency: payment.curr,
        reason: params.reason,
        metadata: params.metadata,
        test: config.isSandbox,
      };
      const reference = { refId: sent.refId, transId: sent.transId };
      return sendCreation('refunds.create', options.idempotency, reference, async () => {
        const reply = await upstream.refund(
          {
            transId: sent.transId,
            amount: sent.amount,
            curr: sent.currency,
            refId: sent.refId,
            test: sent.test,
          },
          options,
        );
        return { transId: sent.transId, result: refundFromReply(sent, reply) };
      });
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
    resolve: (lookup, options) => resolveCall(lookup, options, upstream, config.isSandbox),
  });
  // `Object.assign` keeps the adapter itself, with core's non-enumerable mark that it runs the ledger on validated
  // input and hands the operations their idempotency context (a spread copy would lose it).
  return Object.assign(adapter, {
    createCheckoutRedirect: redactingErrors(
      async (
        params: CheckoutCreateParams<ProviderRCheckoutMetadata>,
        options: CallOptions = {},
      ): Promise<ProviderRCheckoutRedirect> => {
        const input = parseInput(checkoutCreateSchema, params ?? {}, { operation: 'checkouts.create' });
        if (options?.idempotencyKey !== undefined) {
          // This method is not one of core's operations, so createPay's ledger never sees it: a key here would
          // protect nothing, and a retry would open a second checkout. Refused before any call.
          throw new ValidationError(
            [
              {
                path: 'options.idempotencyKey',
                message:
                  "is not supported by createCheckoutRedirect (createPay's idempotency ledger does not cover it); use pay.checkouts.create with the key, or send it without a key and never repeat it blindly",
              },
            ],
            { operation: 'checkouts.create' },
          );
        }
        const reply = await upstream.createCheckout(checkoutBody(input, config.isSandbox), options);
        return { transId: reply.transId, redirectUrl: reply.redirect };
      },
    ),
  });
}
