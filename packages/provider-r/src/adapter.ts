/** The Provider R adapter: one function per operation, wiring requests (checks + wire call) → client → mapping. */
import {
  type CallOptions,
  checkoutCreateSchema,
  defineAdapter,
  type ErrorContext,
  keyedReference,
  type Operation,
  type Payment,
  parseInput,
  type ResolvedRecord,
  type ResolveLookup,
  redactingErrors,
} from '@pay/core/adapter';
import { createClient, type ProviderRClient } from './client.js';
import type { ProviderRConfig, ProviderRCredentials } from './config.js';
import { readRecoveryPoint, resumeCreation, sendCreation, text } from './flows/create-once.js';
import { createRefund } from './flows/refund.js';
import { cancel, capture } from './flows/settle.js';
import { toCheckout, toCreatedPayment, toPayment } from './mapping.js';
import {
  captureAmount,
  checkoutRequest,
  invalid,
  paymentRequest,
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
import type { ProviderRStatus } from './wire.js';

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

/** Builds the adapter from a checked configuration. */
export function createProviderRAdapter(config: ProviderRConfig): ProviderRAdapter {
  const client = createClient(config);
  const settlement = { config, client };
  const adapter = defineAdapter<ProviderRTypes>({
    provider: 'providerR',
    // The adapter contract this release is built for (docs/architecture.md#adapter-contract-version).
    contract: 1,
    operations: {
      async createCheckout(params, options) {
        const request = checkoutRequest(params, config, await keyedReference(options));
        if (resumeCreation('checkouts.create', options.idempotency)) return null;
        // With a ledger there is a key, so a refId. Resolves to null; the Checkout is kept for pay.resolve.
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

      capturePayment: (id, params, options) => capture(settlement, id, captureAmount(params), options),
      cancelPayment: (id, options) => cancel(settlement, id, options),

      createRefund: (params, options) => createRefund(settlement, params, options),
    },
    // The operations' own checks, before the idempotency ledger is touched (docs/architecture.md#idempotency).
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
  // `Object.assign` keeps core's non-enumerable mark on the adapter (a spread copy would lose it).
  return Object.assign(adapter, {
    createCheckoutRedirect: checkoutRedirect(config, client),
    updateCredentials: (credentials: ProviderRCredentials) => client.updateCredentials(credentials),
  });
}

/**
 * `createCheckoutRedirect`: a checkout's transaction and redirect URL, without the idempotency ledger
 * (docs/providers/provider-r.md#create-checkout).
 */
function checkoutRedirect(config: ProviderRConfig, client: ProviderRClient) {
  return redactingErrors(
    async (
      params: ProviderRCheckoutParams,
      options: CallOptions = {},
    ): Promise<ProviderRCheckoutRedirect> => {
      const input = parseInput(checkoutCreateSchema, params ?? {}, { operation: 'checkouts.create' });
      if (options?.idempotencyKey !== undefined) {
        // createPay's ledger never sees this method: a key would protect nothing
        // (docs/providers/provider-r.md#create-checkout).
        throw invalid(
          'checkouts.create',
          'options.idempotencyKey',
          "is not supported by createCheckoutRedirect (createPay's idempotency ledger does not cover it); with a key, call pay.checkouts.create(params, { idempotencyKey }) and then pay.resolve(key): its record is the Checkout, id the transId and payment_url the redirect. Without a key, never repeat this call blindly",
        );
      }
      const { body } = await client.send(checkoutRequest(input, config), options);
      return { transId: body.transId, redirectUrl: body.redirect };
    },
  );
}

/** A string member of an error context, if present. */
function contextText(context: ErrorContext | undefined, member: string): string | undefined {
  const value = context && Object.hasOwn(context, member) ? context[member] : undefined;
  return text(value) ? value : undefined;
}

/**
 * What a status read proves about each operation: `done`, or `not_done` (safe to send again); a status the wire
 * contract (docs/providers/provider-r.md#status) does not list proves nothing.
 */
type Proof = 'done' | 'not_done';
const STATUS_PROVES: ReadonlyMap<string, ReadonlyMap<string, Proof>> = new Map(
  Object.entries({
    // A creation that exists: whatever its status, the transaction is the record.
    create: { PENDING: 'done', AUTHORIZED: 'done', PAID: 'done', CANCELLED: 'done' },
    // Capture: PAID is captured (for the amount asked, checked apart); anything else is not.
    'payments.capture': { PAID: 'done', AUTHORIZED: 'not_done', PENDING: 'not_done', CANCELLED: 'not_done' },
    // Cancel: CANCELLED is cancelled; anything else was not (a PAID payment is refunded, never cancelled).
    'payments.cancel': { CANCELLED: 'done', PENDING: 'not_done', AUTHORIZED: 'not_done', PAID: 'not_done' },
  } satisfies Record<string, Record<ProviderRStatus, Proof>>).map(([kind, row]) => [
    kind,
    new Map(Object.entries(row)),
  ]),
);

/**
 * `pay.resolve` (docs/architecture.md#createpay) through the only lookup, the status read by `transId`: a creation
 * ⇒ the Payment; a capture / cancel ⇒ the Payment when visibly done, `null` when visibly not; a refund or an
 * answered checkout ⇒ the recorded result.
 */
async function resolveCall(
  lookup: ResolveLookup,
  options: CallOptions,
  client: ProviderRClient,
  config: ProviderRConfig,
): Promise<ResolvedRecord> {
  const point = readRecoveryPoint(lookup.recoveryPoint) ?? undefined;
  if (lookup.operation === 'refunds.create')
    return point?.step === 'created' ? (point.result ?? undefined) : undefined;
  // A keyed checkout that answered: the Checkout it opened, with the redirect no read returns.
  if (lookup.operation === 'checkouts.create' && point?.step === 'created' && point.result !== null)
    return point.result;
  const kind =
    lookup.operation === 'payments.create' || lookup.operation === 'checkouts.create'
      ? 'create'
      : lookup.operation;
  const proves = STATUS_PROVES.get(kind);
  if (!proves) return undefined;
  // A creation's recovery point names a transaction only once it answered; before, only an error's transId can.
  const transId =
    contextText(lookup.context, 'transId') ??
    (point !== undefined && point.step !== 'create_sent' ? point.transId : undefined);
  if (transId === undefined) return undefined;
  const read = await client.find(statusRequest(transId, config), options);
  if (read === null) return null;
  const current = read.body;
  const proof = proves.get(current.status);
  if (proof === 'not_done') return null;
  if (proof !== 'done') return undefined;
  if (kind === 'payments.capture') {
    const asked = point?.step === 'capture_sent' ? point.amount : undefined;
    // Captured for another amount than asked (both wire minor units): this capture is not the one that happened.
    if (asked !== undefined && asked !== current.price) return undefined;
  }
  const payment = toPayment(current, config.isSandbox, read.requestId);
  if (
    lookup.operation === 'payments.create' &&
    point?.step === 'created' &&
    point.transId === payment.id &&
    point.result !== null
  ) {
    // The status read has no payment page URL nor the caller's metadata: keep those of the recorded result.
    const recorded = point.result as Payment;
    return { ...recorded, ...payment, payment_url: recorded.payment_url, metadata: recorded.metadata };
  }
  return payment;
}
