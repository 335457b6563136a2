/**
 * The Provider N adapter (spec §1 capability matrix, wire contract "Calls"): checkouts through
 * init-transaction, payment and checkout reads through the v1 status query, refunds through initiate-refund.
 * Each operation checks its input, sends one call (after the token) and maps the reply.
 */
import {
  type Adapter,
  type AdapterTypes,
  type CallOptions,
  type Checkout,
  defineAdapter,
  type ProviderApiError,
  parseReply,
  type Refund,
} from '@pay/core';
import { createProviderNClient, type Outcome, type ProviderNClient, withAdvice } from './client.js';
import type { ProviderNConfig } from './config.js';
import {
  CHECKOUT_LIFETIME_MS,
  type ProviderNCheckout,
  refundStatus,
  toPayment,
  toRefund,
  toRetrievedCheckout,
  transactionStatus,
  withoutCredentials,
} from './mapping.js';
import {
  initTransactionRequest,
  type ProviderNCheckoutMetadata,
  type ProviderNRefundMetadata,
  refundRequest,
} from './requests.js';
import { type ProviderNRawEvents, providerNWebhooks } from './webhooks.js';
import {
  initTransactionBodySchema,
  refundBodySchema,
  type TransactionBody,
  transactionBodySchema,
} from './wire.js';

/** Provider N's declared types: typed `provider_metadata`, raw events and the checkout result. */
export interface ProviderNTypes extends AdapterTypes {
  provider: 'providerN';
  metadata: {
    'checkouts.create': ProviderNCheckoutMetadata;
    'refunds.create': ProviderNRefundMetadata;
  };
  rawEvents: ProviderNRawEvents;
  checkout: ProviderNCheckout;
}

/** A configured Provider N adapter. */
export type ProviderNAdapter = Adapter<ProviderNTypes>;

const PROVIDER = 'providerN';

/** Advice per refund error code (wire contract: R1–R5), a `Map` so only these codes have advice. */
const REFUND_ERROR_ADVICE = new Map<string, string>([
  ['R1', 'the transaction to refund was not found; check payment_id (the transactionReference).'],
  ['R2', 'this transaction cannot be refunded (not paid, or already fully refunded).'],
  ['R3', 'the refund is above what remains refundable on the transaction; lower amount.'],
  ['R4', 'the refund is below the minimum refund amount (10.00 NGN); raise amount.'],
  ['R5', 'the merchant balance is too low for this refund; fund the wallet and try again.'],
]);

/**
 * A refusal naming our reference as a duplicate. Every call sends a fresh reference (requests.ts), so the only
 * way the provider already holds it is that an earlier delivery of this same request landed.
 */
const DUPLICATE_REFERENCE = /duplicate/i;

/**
 * The error of a refused money-moving call (issue 11 §1). A refusal proves that nothing happened only when it is
 * a 4xx, no earlier attempt of the call may have reached the provider, and it is not "duplicate reference" (which
 * says one did). Otherwise (including a 5xx or 408, which a gateway can send after the provider processed the
 * call) the error carries `outcome: 'unknown'` (not retryable, with reconcile advice) and the reference in its
 * context, so the caller reconciles instead of moving money twice.
 */
export function moneyMovingRefusal(
  outcome: Extract<Outcome, { ok: false }>,
  advice: string | undefined,
): ProviderApiError {
  const { error, reply } = outcome;
  const mayHaveLanded =
    reply.earlierAttemptMayHaveReached ||
    error.status >= 500 ||
    error.status === 408 ||
    DUPLICATE_REFERENCE.test(error.providerMessage ?? '');
  if (mayHaveLanded) {
    const code = error.providerCode ? ` (code ${error.providerCode})` : '';
    return error.withDetails({
      message: `providerN answered HTTP ${error.status}${code} to a call that moves money, and the call (or an earlier attempt of it) may have been processed.`,
      outcome: 'unknown',
    });
  }
  return advice ? withAdvice(error, advice) : error;
}

/** Operations the provider has no call for, with the reason the error gives. */
const UNSUPPORTED = {
  'payments.create': 'Provider N takes payments only through its hosted checkout: use checkouts.create',
  'customers.create': 'the adapter does not manage Provider N customers (spec: not supported)',
  'subscriptions.create': 'Provider N subscriptions are mandates set up by the payer (spec: not supported)',
} as const;

/** Builds the adapter over one authenticated client. No I/O until the first operation. */
export function buildProviderNAdapter(config: ProviderNConfig): ProviderNAdapter {
  const client = createProviderNClient(config);
  // Provider N payloads carry no test flag: a sandbox adapter's records are test records (contract 3).
  const livemode = !config.isSandbox;
  return defineAdapter<ProviderNTypes>({
    provider: PROVIDER,
    operations: {
      createCheckout: (params, options) => createCheckout(client, config, params, options),
      retrieveCheckout: async (id, options) => {
        const read = await queryTransaction(client, id, options);
        return read && toRetrievedCheckout(read.transaction, livemode, read.raw);
      },
      retrievePayment: async (id, options) => {
        const read = await queryTransaction(client, id, options);
        return (
          read &&
          toPayment(read.transaction, { status: transactionStatus(read.transaction), livemode }, read.raw)
        );
      },
      createRefund: (params, options) => createRefund(client, params, livemode, options),
    },
    unsupported: UNSUPPORTED,
    fallbackReason: 'the Provider N API has no such call',
    webhooks: providerNWebhooks({ livemode }),
  });
}

/** `POST /v1/merchant/transactions/init-transaction`, never retried: a repeat would open a second checkout. */
async function createCheckout(
  client: ProviderNClient,
  config: ProviderNConfig,
  params: Parameters<typeof initTransactionRequest>[0],
  options: CallOptions,
): Promise<ProviderNCheckout> {
  const body = initTransactionRequest(params, config.contractCode);
  const outcome = await client.send({
    call: 'init-transaction',
    method: 'POST',
    path: '/v1/merchant/transactions/init-transaction',
    json: body,
    retrySafe: false,
    // Any error after sending names the reference, so a caller can match a checkout whose reply was lost.
    context: { paymentReference: body.paymentReference },
    ...signalOf(options),
  });
  if (!outcome.ok) throw moneyMovingRefusal(outcome, undefined);
  const reply = parseReply(initTransactionBodySchema, outcome.body, {
    provider: PROVIDER,
    call: 'init-transaction',
  });
  const checkout: Checkout = {
    provider: PROVIDER,
    id: reply.transactionReference,
    payment_url: reply.checkoutUrl,
    amount: body.amount,
    currency: body.currencyCode,
    customer: { email: body.customerEmail },
    session_type: 'one_time',
    products: params.item_id ? [{ id: params.item_id, quantity: params.quantity ?? 1 }] : [],
    metadata: body.metaData,
    expires_at: new Date(Date.now() + CHECKOUT_LIFETIME_MS).toISOString(),
    livemode: !config.isSandbox,
    raw: withoutCredentials(outcome.body),
  };
  return { ...checkout, checkoutUrl: reply.checkoutUrl };
}

/**
 * `GET /v1/merchant/transactions/query?transactionReference=…` (design §8: v1). An unknown reference (404 with
 * code 99) is `null`; any other refusal throws.
 */
async function queryTransaction(
  client: ProviderNClient,
  transactionReference: string,
  options: CallOptions,
): Promise<{ transaction: TransactionBody; raw: unknown } | null> {
  const outcome = await client.send({
    call: 'transaction query',
    method: 'GET',
    path: '/v1/merchant/transactions/query',
    query: { transactionReference },
    retrySafe: true,
    ...signalOf(options),
  });
  if (!outcome.ok) {
    if (outcome.reply.status === 404 && outcome.responseCode === '99') return null;
    throw outcome.error;
  }
  const transaction = parseReply(transactionBodySchema, outcome.body, {
    provider: PROVIDER,
    call: 'transaction query',
  });
  return { transaction, raw: withoutCredentials(outcome.body) };
}

/** `POST /v1/refunds/initiate-refund`, never retried: a repeat with a new reference would refund twice. */
async function createRefund(
  client: ProviderNClient,
  params: Parameters<typeof refundRequest>[0],
  livemode: boolean,
  options: CallOptions,
): Promise<Refund> {
  const request = refundRequest(params);
  const outcome = await client.send({
    call: 'initiate-refund',
    method: 'POST',
    path: '/v1/refunds/initiate-refund',
    json: request.body,
    retrySafe: false,
    context: {
      refundReference: request.body.refundReference,
      transactionReference: request.body.transactionReference,
    },
    ...signalOf(options),
  });
  if (!outcome.ok) {
    const advice = outcome.responseCode ? REFUND_ERROR_ADVICE.get(outcome.responseCode) : undefined;
    throw moneyMovingRefusal(outcome, advice);
  }
  const refund = parseReply(refundBodySchema, outcome.body, { provider: PROVIDER, call: 'initiate-refund' });
  return toRefund(
    refund,
    { currency: request.currency, status: refundStatus(refund.refundStatus), livemode },
    withoutCredentials(outcome.body),
  );
}

function signalOf(options: CallOptions): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}
