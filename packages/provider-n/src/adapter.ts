/**
 * The Provider N adapter (spec §1 capability matrix, wire contract "Calls"): checkouts through
 * init-transaction, payment and checkout reads through the v1 status query, refunds through initiate-refund.
 * Each operation checks its input, sends one call (after the token) and maps the reply. A caller's idempotency
 * key becomes the call's paymentReference / refundReference (issue 14 §1): the provider refuses a reused
 * reference, and that refusal is then resolved to the checkout or refund the key already opened.
 */
import {
  type Adapter,
  type AdapterTypes,
  type CallOptions,
  type Checkout,
  defineAdapter,
  type ErrorContext,
  type JsonValue,
  type OperationOptions,
  type ProviderApiError,
  parseReply,
  type Refund,
  type ResolvedRecord,
  type ResolveLookup,
  toMinorUnits,
} from '@pay/core';
import { createProviderNClient, type Outcome, type ProviderNClient, withAdvice } from './client.js';
import type { ProviderNConfig } from './config.js';
import {
  CHECKOUT_LIFETIME_MS,
  DEFAULT_CURRENCY,
  type ProviderNCheckout,
  refundStatus,
  toPayment,
  toRefund,
  toRetrievedCheckout,
  transactionStatus,
  withoutCredentials,
} from './mapping.js';
import {
  idempotencyReference,
  initTransactionRequest,
  type ProviderNCheckoutMetadata,
  type ProviderNRefundMetadata,
  refundRequest,
  uniqueReference,
} from './requests.js';
import { type ProviderNRawEvents, providerNWebhooks } from './webhooks.js';
import {
  initTransactionBodySchema,
  type RefundBody,
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
 * A refusal naming our reference as already used: init-transaction's published "Duplicate payment reference"
 * (code 99) and initiate-refund's `R9` "Supplied refund reference already exists for the merchant". A call without
 * a key sends a fresh reference (requests.ts), so the provider holds it only if an earlier delivery of this same
 * request landed; a keyed call's reference is the key's, so the provider holds what that key already opened.
 */
const DUPLICATE_REFERENCE_MESSAGE = /duplicate|already exists/i;
const DUPLICATE_REFUND_REFERENCE_CODE = 'R9';

/** Whether a refusal says the reference we sent is already taken. */
function isDuplicateReference(outcome: Extract<Outcome, { ok: false }>): boolean {
  return (
    outcome.responseCode === DUPLICATE_REFUND_REFERENCE_CODE ||
    DUPLICATE_REFERENCE_MESSAGE.test(outcome.error.providerMessage ?? '')
  );
}

/** The published refund status read's "no refund was initiated with the supplied refund reference". */
const REFUND_NOT_FOUND_CODE = 'R7';

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
    isDuplicateReference(outcome);
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
        const read = await queryTransaction(client, { transactionReference: id }, options);
        return read && toRetrievedCheckout(read.transaction, livemode, read.raw);
      },
      retrievePayment: async (id, options) => {
        const read = await queryTransaction(client, { transactionReference: id }, options);
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
    resolve: (lookup, options) => resolveCall(client, lookup, livemode, options),
  });
}

/** The caller's idempotency key: the ledger's (through `createPay`), else the option (the adapter used alone). */
function keyOf(options: OperationOptions): string | undefined {
  return options.idempotency?.key ?? options.idempotencyKey;
}

/**
 * What the adapter records in the ledger once init-transaction answered (the reply's checkout URL is the one
 * thing a later read cannot give back): `{ transactionReference, checkoutUrl, expiresAt }`.
 */
interface CheckoutRecoveryPoint {
  transactionReference: string;
  checkoutUrl: string;
  expiresAt: string;
}

function checkoutRecoveryPoint(point: JsonValue | null | undefined): CheckoutRecoveryPoint | undefined {
  if (point === null || typeof point !== 'object' || Array.isArray(point)) return undefined;
  const { transactionReference, checkoutUrl, expiresAt } = point;
  return typeof transactionReference === 'string' &&
    typeof checkoutUrl === 'string' &&
    typeof expiresAt === 'string'
    ? { transactionReference, checkoutUrl, expiresAt }
    : undefined;
}

/** `POST /v1/merchant/transactions/init-transaction`, never retried: a repeat would open a second checkout. */
async function createCheckout(
  client: ProviderNClient,
  config: ProviderNConfig,
  params: Parameters<typeof initTransactionRequest>[0],
  options: OperationOptions,
): Promise<ProviderNCheckout> {
  const key = keyOf(options);
  const paymentReference = key === undefined ? uniqueReference() : await idempotencyReference(key);
  const body = initTransactionRequest(params, config.contractCode, paymentReference);
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
  if (!outcome.ok) {
    if (key !== undefined && isDuplicateReference(outcome))
      return existingCheckout(client, config, params, body, outcome, options);
    throw moneyMovingRefusal(outcome, undefined);
  }
  const reply = parseReply(initTransactionBodySchema, outcome.body, {
    provider: PROVIDER,
    call: 'init-transaction',
  });
  const opened = {
    transactionReference: reply.transactionReference,
    checkoutUrl: reply.checkoutUrl,
    expiresAt: new Date(Date.now() + CHECKOUT_LIFETIME_MS).toISOString(),
  };
  if (options.idempotency) {
    // The checkout exists and nothing more is sent, so a store failure here cannot move money: the result still
    // goes back (core's `complete` reports the store). Recorded so that a repeat after a crash before `complete`
    // can hand back the checkout URL, which no read returns.
    await options.idempotency.checkpoint({ ...opened }).catch(() => undefined);
  }
  return checkoutRecord(params, body, opened, config, withoutCredentials(outcome.body));
}

/** The Checkout (plus `checkoutUrl`) of an opened transaction. */
function checkoutRecord(
  params: Parameters<typeof initTransactionRequest>[0],
  body: ReturnType<typeof initTransactionRequest>,
  opened: CheckoutRecoveryPoint,
  config: ProviderNConfig,
  raw: unknown,
): ProviderNCheckout {
  const checkout: Checkout = {
    provider: PROVIDER,
    id: opened.transactionReference,
    payment_url: opened.checkoutUrl,
    amount: body.amount,
    currency: body.currencyCode,
    customer: { email: body.customerEmail },
    session_type: 'one_time',
    products: params.item_id ? [{ id: params.item_id, quantity: params.quantity ?? 1 }] : [],
    metadata: body.metaData,
    expires_at: opened.expiresAt,
    livemode: !config.isSandbox,
    raw,
  };
  return { ...checkout, checkoutUrl: opened.checkoutUrl };
}

/** Equal amounts in one currency, compared in minor units (the provider reads `"5000.50"` as 5000.5). */
function sameMoney(
  a: { amount: number; currency: string },
  b: { amount: number; currency: string },
): boolean {
  if (a.currency.toUpperCase() !== b.currency.toUpperCase()) return false;
  try {
    return toMinorUnits(a.amount, a.currency) === toMinorUnits(b.amount, b.currency);
  } catch {
    return a.amount === b.amount;
  }
}

/**
 * The refusal of a keyed call as a duplicate, when what the provider holds under the reference cannot be read
 * back: the earlier attempt with this key may have landed, so the outcome stays unknown (issue 11 §1).
 */
function unknownAfterDuplicate(
  outcome: Extract<Outcome, { ok: false }>,
  why: string,
  readError?: unknown,
): ProviderApiError {
  const error = moneyMovingRefusal(outcome, undefined);
  const detail = readError instanceof Error ? ` (${readError.message})` : '';
  return error.withDetails({
    message: `${error.message} The reference comes from the idempotency key, so an earlier attempt with this key holds it, but ${why}${detail}.`,
    outcome: 'unknown',
  });
}

/**
 * A keyed init-transaction refused as a duplicate: the provider already holds the transaction this key opened.
 * Read it by paymentReference (the published v1 query takes it): the same amount and currency ⇒ that checkout
 * (its URL from the ledger's recovery point); another amount or currency ⇒ the key was used for another
 * checkout, and nothing new was opened.
 */
async function existingCheckout(
  client: ProviderNClient,
  config: ProviderNConfig,
  params: Parameters<typeof initTransactionRequest>[0],
  body: ReturnType<typeof initTransactionRequest>,
  duplicate: Extract<Outcome, { ok: false }>,
  options: OperationOptions,
): Promise<ProviderNCheckout> {
  const { paymentReference } = body;
  let read: Awaited<ReturnType<typeof queryTransaction>>;
  try {
    read = await queryTransaction(client, { paymentReference }, options);
  } catch (error) {
    throw unknownAfterDuplicate(duplicate, 'reading the transaction back by paymentReference failed', error);
  }
  if (!read) {
    throw unknownAfterDuplicate(duplicate, 'the read by paymentReference does not find it (yet)');
  }
  const { transaction } = read;
  const held = { amount: transaction.amountAsked, currency: transaction.currency ?? DEFAULT_CURRENCY };
  const context: ErrorContext = {
    paymentReference,
    transactionReference: transaction.transactionReference,
    ...(transaction.paymentStatus ? { paymentStatus: transaction.paymentStatus } : {}),
  };
  if (!sameMoney(held, { amount: body.amount, currency: body.currencyCode })) {
    throw duplicate.error.withDetails({
      message: `providerN already holds transaction ${transaction.transactionReference} under the paymentReference of this idempotency key, for ${held.currency} ${held.amount}; this request asks ${body.currencyCode} ${body.amount}. The key belongs to another checkout and no new one was opened: use a new idempotency key for a new checkout.`,
      context,
    });
  }
  const recorded = checkoutRecoveryPoint(options.idempotency?.recoveryPoint);
  if (recorded && recorded.transactionReference === transaction.transactionReference) {
    return checkoutRecord(params, body, recorded, config, read.raw);
  }
  // The reply of the attempt that opened it was lost, and Provider N has no call that returns a checkout URL:
  // inventing one could send the payer to a wrong page, and opening a second checkout could take the money twice.
  throw duplicate.error.withDetails({
    message: `providerN already holds transaction ${transaction.transactionReference} (${transaction.paymentStatus ?? 'status not given'}) for this idempotency key, opened by an earlier attempt whose reply was lost; Provider N has no call that returns its checkoutUrl. pay.resolve(key) or checkouts.retrieve('${transaction.transactionReference}') read it; if it is still unpaid and you need a payment page, open a new checkout with a new idempotency key (the unseen one expires unpaid after 40 minutes).`,
    context,
  });
}

/**
 * `GET /v1/merchant/transactions/query?transactionReference=…` (design §8: v1), or `?paymentReference=…` (the
 * published v1 read takes either). An unknown reference (404 with code 99) is `null`; any other refusal throws.
 */
async function queryTransaction(
  client: ProviderNClient,
  reference: { transactionReference: string } | { paymentReference: string },
  options: CallOptions,
): Promise<{ transaction: TransactionBody; raw: unknown } | null> {
  const outcome = await client.send({
    call: 'transaction query',
    method: 'GET',
    path: '/v1/merchant/transactions/query',
    query: { ...reference },
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
  options: OperationOptions,
): Promise<Refund> {
  const key = keyOf(options);
  const refundReference = key === undefined ? uniqueReference() : await idempotencyReference(key);
  const request = refundRequest(params, refundReference);
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
    if (key !== undefined && isDuplicateReference(outcome))
      return existingRefund(client, request, outcome, livemode, options);
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

/**
 * A keyed initiate-refund refused with R9: the provider already holds the refund this key started. Read it
 * (`GET /v1/refunds/{refundReference}`): the same transaction and amount ⇒ that refund (no money moves again);
 * otherwise the key belongs to another refund and nothing was refunded by this call.
 */
async function existingRefund(
  client: ProviderNClient,
  request: ReturnType<typeof refundRequest>,
  duplicate: Extract<Outcome, { ok: false }>,
  livemode: boolean,
  options: CallOptions,
): Promise<Refund> {
  const { refundReference, transactionReference, refundAmount } = request.body;
  let read: Awaited<ReturnType<typeof readRefund>>;
  try {
    read = await readRefund(client, refundReference, options);
  } catch (error) {
    throw unknownAfterDuplicate(duplicate, 'reading the refund back by refundReference failed', error);
  }
  if (!read) throw unknownAfterDuplicate(duplicate, 'the refund read answers R7 (no such refund)');
  const { refund } = read;
  const sameRefund =
    refund.transactionReference === transactionReference &&
    sameMoney(
      { amount: refund.refundAmount, currency: request.currency },
      { amount: refundAmount, currency: request.currency },
    );
  if (!sameRefund) {
    throw duplicate.error.withDetails({
      message: `providerN already holds refund ${refundReference} for this idempotency key: ${refund.refundAmount} of transaction ${refund.transactionReference}; this request asks ${refundAmount} of ${transactionReference}. The key belongs to another refund and this call refunded nothing: use a new idempotency key for a new refund.`,
    });
  }
  return toRefund(
    refund,
    { currency: request.currency, status: refundStatus(refund.refundStatus), livemode },
    read.raw,
  );
}

/**
 * `GET /v1/refunds/{refundReference}` (the provider's published refund status read): the refund, or `null` for its
 * documented "no refund was initiated with the supplied refund reference" (`R7`); any other refusal throws.
 */
async function readRefund(
  client: ProviderNClient,
  refundReference: string,
  options: CallOptions,
): Promise<{ refund: RefundBody; raw: unknown } | null> {
  const outcome = await client.send({
    call: 'refund status',
    method: 'GET',
    path: `/v1/refunds/${encodeURIComponent(refundReference)}`,
    retrySafe: true,
    context: { refundReference },
    ...signalOf(options),
  });
  if (!outcome.ok) {
    if (outcome.reply.status < 500 && outcome.responseCode === REFUND_NOT_FOUND_CODE) return null;
    throw outcome.error;
  }
  const refund = parseReply(refundBodySchema, outcome.body, { provider: PROVIDER, call: 'refund status' });
  return { refund, raw: withoutCredentials(outcome.body) };
}

/** A string member of an error context, if present. */
function contextString(context: ErrorContext | undefined, member: string): string | undefined {
  const value = context && Object.hasOwn(context, member) ? context[member] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * `pay.resolve` for Provider N (issue 14 §1): reads what the provider holds for a checkout or refund whose
 * outcome the caller does not know, by the reference its idempotency key maps to, else by the reference an
 * error with outcome `'unknown'` names. `null` only on the provider's documented not-found answers (404 / `99`
 * for the transaction query, `R7` for the refund read); `undefined` when there is nothing to look up by, or for an
 * operation Provider N does not perform. A failed read throws its error (nothing is known; ask again later).
 */
async function resolveCall(
  client: ProviderNClient,
  lookup: ResolveLookup,
  livemode: boolean,
  options: CallOptions,
): Promise<ResolvedRecord> {
  const key = lookup.idempotencyKey;
  if (lookup.operation === 'checkouts.create') {
    const paymentReference =
      key === undefined ? contextString(lookup.context, 'paymentReference') : await idempotencyReference(key);
    const transactionReference = contextString(lookup.context, 'transactionReference');
    const reference = paymentReference
      ? { paymentReference }
      : transactionReference
        ? { transactionReference }
        : undefined;
    if (!reference) return undefined;
    const read = await queryTransaction(client, reference, options);
    if (!read) return null;
    const checkout = toRetrievedCheckout(read.transaction, livemode, read.raw);
    const recorded = checkoutRecoveryPoint(lookup.recoveryPoint);
    // With the URL the ledger kept, the record is the one checkouts.create returned (checkoutUrl included).
    if (!recorded || recorded.transactionReference !== checkout.id) return checkout;
    const complete: ProviderNCheckout = {
      ...checkout,
      payment_url: recorded.checkoutUrl,
      expires_at: recorded.expiresAt,
      checkoutUrl: recorded.checkoutUrl,
    };
    return complete;
  }
  if (lookup.operation === 'refunds.create') {
    const refundReference =
      key === undefined ? contextString(lookup.context, 'refundReference') : await idempotencyReference(key);
    if (!refundReference) return undefined;
    const read = await readRefund(client, refundReference, options);
    if (!read) return null;
    // Neither the refund read nor its request carries a currency: the provider's home currency (wire contract).
    return toRefund(
      read.refund,
      { currency: DEFAULT_CURRENCY, status: refundStatus(read.refund.refundStatus), livemode },
      read.raw,
    );
  }
  return undefined;
}

function signalOf(options: CallOptions): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}
