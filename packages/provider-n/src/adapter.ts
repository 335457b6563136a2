/**
 * The Provider N adapter (docs/architecture.md#capabilities capability matrix, docs/providers/provider-n.md#calls): checkouts through
 * init-transaction, payment and checkout reads through the v1 status query, refunds through initiate-refund.
 * Each operation builds its request (requests.ts), sends it (client.ts) and maps the reply (mapping.ts). A
 * caller's idempotency key becomes the call's paymentReference / refundReference
 * (docs/architecture.md#idempotency): the provider refuses a reused reference, and that refusal is then resolved
 * to the checkout or refund the key already opened.
 */
import {
  type CallOptions,
  defineAdapter,
  idempotencyKeyOf,
  keyedReference,
  type OperationContext,
  type ProviderApiError,
  type ProviderCall,
  parseReply,
  type Refund,
  type ResolvedRecord,
  type ResolveLookup,
} from '@pay/core/adapter';
import type * as v from '@pay/core/schema';
import {
  createClient,
  isDuplicateReference,
  moneyMovingRefusal,
  type Refusal,
  requestIdOfReply,
} from './client.js';
import type { ProviderNConfig, ProviderNCredentials } from './config.js';
import {
  checkoutRecoveryPoint,
  openedCheckout,
  type RecordFacts,
  refundStatus,
  sameMoney,
  toCheckout,
  toPayment,
  toRefund,
  toRetrievedCheckout,
  transactionStatus,
  withCheckoutUrl,
  withoutCredentials,
} from './mapping.js';
import {
  initiateRefundCall,
  initTransactionCall,
  initTransactionRequest,
  type RefundRequest,
  referenceFor,
  refundRequest,
  refundStatusCall,
  type TransactionLookup,
  transactionQueryCall,
} from './requests.js';
import type { ProviderNAdapter, ProviderNCheckout, ProviderNTypes } from './types.js';
import { providerNWebhooks } from './webhooks.js';
import {
  DEFAULT_CURRENCY,
  initTransactionBodySchema,
  type RefundBody,
  refundBodySchema,
  transactionBodySchema,
} from './wire.js';

const PROVIDER = 'providerN';

/** Operations the provider has no call for, with the reason the error gives. */
const UNSUPPORTED = {
  'payments.create': 'Provider N takes payments only through its hosted checkout: use checkouts.create',
  'customers.create': 'the adapter does not manage Provider N customers (spec: not supported)',
  'subscriptions.create': 'Provider N subscriptions are mandates set up by the payer (spec: not supported)',
} as const;

/** What one read returned: the parsed body, the raw body for the record, and the call's request id. */
interface Read<T> {
  body: T;
  raw: unknown;
  requestId: string;
}

/** Builds the adapter over one authenticated client. No I/O until the first operation. */
export function buildProviderNAdapter(config: ProviderNConfig): ProviderNAdapter {
  const client = createClient(config);
  // Provider N payloads carry no test flag: a sandbox adapter's records are test records (contract 3).
  const livemode = !config.isSandbox;
  /**
   * What every record carries besides the payload: `livemode` and the request id of its call
   * (docs/architecture.md#records).
   */
  const facts = (requestId: string): RecordFacts => ({ livemode, requestId });

  /**
   * A read through core's `findReplied`: `null` only for what `PROVIDER_N_ERRORS` calls not found (the status
   * query's 404 / `99`, the refund read's `R7`) below HTTP 500; any other refusal throws, a proxy's 404 page included.
   */
  async function read<S extends v.GenericSchema>(
    schema: S,
    call: ProviderCall,
    options: CallOptions,
  ): Promise<Read<v.InferOutput<S>> | null> {
    const found = await client.findReplied(schema, call, options);
    return found && { body: found.body, raw: withoutCredentials(found.raw), requestId: found.requestId };
  }

  /** The status query by either reference (404 / `99` is `null`). */
  const queryTransaction = (lookup: TransactionLookup, options: CallOptions) =>
    read(transactionBodySchema, transactionQueryCall(lookup), options);

  /** The refund status read (`R7` is `null`). */
  const readRefund = (refundReference: string, options: CallOptions) =>
    read(refundBodySchema, refundStatusCall(refundReference), options);

  /** A refund read or reply → Refund; neither carries a currency, so the caller names it. */
  const refundRecord = (refund: Read<RefundBody>, currency: string): Refund =>
    toRefund(
      refund.body,
      { ...facts(refund.requestId), currency, status: refundStatus(refund.body.refundStatus) },
      refund.raw,
    );

  /** `checkouts.create`: one init-transaction, never retried (a repeat would open a second checkout). */
  async function createCheckout(
    params: Parameters<typeof initTransactionRequest>[0],
    options: OperationContext,
  ): Promise<ProviderNCheckout> {
    const body = initTransactionRequest(params, config.contractCode, await referenceFor(options));
    const outcome = await client.send(initTransactionCall(body), options);
    if (!outcome.ok) {
      if (idempotencyKeyOf(options) === undefined || !isDuplicateReference(outcome))
        throw moneyMovingRefusal(outcome);
      return existingCheckout(params, body, outcome, options);
    }
    const reply = parseReply(initTransactionBodySchema, outcome.body, {
      provider: PROVIDER,
      call: 'init-transaction',
    });
    const opened = openedCheckout(reply);
    // The checkout exists and nothing more is sent, so a store failure here cannot move money: the result still
    // goes back (core's `complete` reports the store). Recorded so that a repeat after a crash before `complete`
    // can hand back the checkout URL, which no read returns.
    await options.idempotency?.checkpoint({ ...opened }).catch(() => undefined);
    return toCheckout(
      params,
      body,
      opened,
      facts(requestIdOfReply(outcome.reply)),
      withoutCredentials(outcome.body),
    );
  }

  /**
   * A keyed init-transaction refused as a duplicate: the provider already holds the transaction this key opened.
   * Read it by paymentReference: the same amount and currency ⇒ that checkout (its URL from the ledger's recovery
   * point); another amount or currency ⇒ the key was used for another checkout, and nothing new was opened.
   */
  async function existingCheckout(
    params: Parameters<typeof initTransactionRequest>[0],
    body: ReturnType<typeof initTransactionRequest>,
    duplicate: Refusal,
    options: OperationContext,
  ): Promise<ProviderNCheckout> {
    const { paymentReference } = body;
    const read = await readBack(duplicate, 'reading the transaction back by paymentReference failed', () =>
      queryTransaction({ paymentReference }, options),
    );
    if (!read) throw unknownAfterDuplicate(duplicate, 'the read by paymentReference does not find it (yet)');
    const transaction = read.body;
    const held = { amount: transaction.amountAsked, currency: transaction.currency ?? DEFAULT_CURRENCY };
    const reference = transaction.transactionReference;
    const context = {
      paymentReference,
      transactionReference: reference,
      ...(transaction.paymentStatus ? { paymentStatus: transaction.paymentStatus } : {}),
    };
    if (!sameMoney(held, { amount: body.amount, currency: body.currencyCode })) {
      throw duplicate.error.withDetails({
        message: `providerN already holds transaction ${reference} under the paymentReference of this idempotency key, for ${held.currency} ${held.amount}; this request asks ${body.currencyCode} ${body.amount}. The key belongs to another checkout and no new one was opened: use a new idempotency key for a new checkout.`,
        context,
      });
    }
    const recorded = checkoutRecoveryPoint(options.idempotency?.recoveryPoint);
    if (recorded?.transactionReference === reference) {
      return toCheckout(params, body, recorded, facts(read.requestId), read.raw);
    }
    // The reply of the attempt that opened it was lost, and Provider N has no call that returns a checkout URL:
    // inventing one could send the payer to a wrong page, and opening a second checkout could take the money twice.
    // The checkout exists under the key, so this refusal proves nothing about it (`outcome: 'unknown'`): the
    // ledger keeps the key, and pay.resolve(key) answers the checkout (docs/architecture.md#outcomes).
    throw duplicate.error.withDetails({
      outcome: 'unknown',
      message: `providerN already holds transaction ${reference} (${transaction.paymentStatus ?? 'status not given'}) for this idempotency key, opened by an earlier attempt whose reply was lost; Provider N has no call that returns its checkoutUrl. pay.resolve(key) or checkouts.retrieve('${reference}') read it; if it is still unpaid and you need a payment page, open a new checkout with a new idempotency key (the unseen one expires unpaid after 40 minutes).`,
      context,
    });
  }

  /** `refunds.create`: one initiate-refund, never retried (a repeat with a new reference would refund twice). */
  async function createRefund(
    params: Parameters<typeof refundRequest>[0],
    options: OperationContext,
  ): Promise<Refund> {
    const request = refundRequest(params, await referenceFor(options));
    const outcome = await client.send(initiateRefundCall(request), options);
    if (!outcome.ok) {
      if (idempotencyKeyOf(options) === undefined || !isDuplicateReference(outcome))
        throw moneyMovingRefusal(outcome);
      return existingRefund(request, outcome, options);
    }
    const refund = parseReply(refundBodySchema, outcome.body, {
      provider: PROVIDER,
      call: 'initiate-refund',
    });
    return refundRecord(
      { body: refund, raw: withoutCredentials(outcome.body), requestId: requestIdOfReply(outcome.reply) },
      request.currency,
    );
  }

  /**
   * A keyed initiate-refund refused with R9: the provider already holds the refund this key started. Read it: the
   * same transaction and amount ⇒ that refund (no money moves again); otherwise the key belongs to another refund
   * and nothing was refunded by this call.
   */
  async function existingRefund(
    request: RefundRequest,
    duplicate: Refusal,
    options: CallOptions,
  ): Promise<Refund> {
    const { refundReference, transactionReference, refundAmount } = request.body;
    const read = await readBack(duplicate, 'reading the refund back by refundReference failed', () =>
      readRefund(refundReference, options),
    );
    if (!read) throw unknownAfterDuplicate(duplicate, 'the refund read answers R7 (no such refund)');
    const refund = read.body;
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
    return refundRecord(read, request.currency);
  }

  /**
   * `pay.resolve` (docs/architecture.md#createpay): reads what the provider holds for a checkout or refund whose
   * outcome the caller does not know, by the reference its idempotency key maps to, else by the reference an error
   * with outcome `'unknown'` names. `null` only on the provider's documented not-found answers; `undefined` when
   * there is nothing to look up by, or for an operation Provider N does not perform. A failed read throws.
   */
  async function resolve(lookup: ResolveLookup, options: CallOptions): Promise<ResolvedRecord> {
    const key = lookup.idempotencyKey;
    const reference = async (member: string) =>
      key === undefined ? contextString(lookup, member) : await keyedReference(key);
    if (lookup.operation === 'checkouts.create') {
      const paymentReference = await reference('paymentReference');
      const transactionReference = contextString(lookup, 'transactionReference');
      const by = paymentReference
        ? { paymentReference }
        : transactionReference
          ? { transactionReference }
          : undefined;
      if (!by) return undefined;
      const read = await queryTransaction(by, options);
      if (!read) return null;
      const checkout = toRetrievedCheckout(read.body, facts(read.requestId), read.raw);
      const recorded = checkoutRecoveryPoint(lookup.recoveryPoint);
      // With the URL the ledger kept, the record is the one checkouts.create returned (checkoutUrl included).
      return recorded?.transactionReference === checkout.id ? withCheckoutUrl(checkout, recorded) : checkout;
    }
    if (lookup.operation === 'refunds.create') {
      const refundReference = await reference('refundReference');
      if (!refundReference) return undefined;
      const read = await readRefund(refundReference, options);
      // Neither the refund read nor its request carries a currency: the provider's home currency (docs/providers/provider-n.md#refunds).
      return read && refundRecord(read, DEFAULT_CURRENCY);
    }
    return undefined;
  }

  const adapter = defineAdapter<ProviderNTypes>({
    provider: PROVIDER,
    // Every check before the idempotency ledger is touched; the currency as sent (`ngn` → `NGN`) is fingerprinted
    // (docs/architecture.md#idempotency).
    checks: {
      createCheckout(params) {
        const { currencyCode } = initTransactionRequest(params, config.contractCode);
        return { ...params, provider_metadata: { ...params.provider_metadata, currency: currencyCode } };
      },
      createRefund(params) {
        const { currency } = refundRequest(params);
        const given = params.provider_metadata;
        return given?.currency === undefined
          ? undefined
          : { ...params, provider_metadata: { ...given, currency } };
      },
    },
    operations: {
      createCheckout,
      retrieveCheckout: async (id, options) => {
        const read = await queryTransaction({ transactionReference: id }, options);
        return read && toRetrievedCheckout(read.body, facts(read.requestId), read.raw);
      },
      retrievePayment: async (id, options) => {
        const read = await queryTransaction({ transactionReference: id }, options);
        return (
          read &&
          toPayment(read.body, { ...facts(read.requestId), status: transactionStatus(read.body) }, read.raw)
        );
      },
      createRefund,
    },
    unsupported: UNSUPPORTED,
    fallbackReason: 'the Provider N API has no such call',
    webhooks: providerNWebhooks({ livemode }),
    resolve,
  });
  // `Object.assign` keeps the adapter itself, with core's non-enumerable mark that it runs the ledger on validated
  // input (a spread copy would lose it).
  return Object.assign(adapter, {
    updateCredentials: (credentials: ProviderNCredentials) => client.updateCredentials(credentials),
  });
}

/** The read after a duplicate refusal; its failure leaves the outcome unknown (the earlier attempt landed). */
async function readBack<T>(duplicate: Refusal, why: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw unknownAfterDuplicate(duplicate, why, error);
  }
}

/**
 * The refusal of a keyed call as a duplicate, when what the provider holds under the reference cannot be read
 * back: the earlier attempt with this key may have landed, so the outcome stays unknown
 * (docs/architecture.md#outcomes).
 */
function unknownAfterDuplicate(duplicate: Refusal, why: string, readError?: unknown): ProviderApiError {
  const error = moneyMovingRefusal(duplicate);
  const detail = readError instanceof Error ? ` (${readError.message})` : '';
  return error.withDetails({
    message: `${error.message} The reference comes from the idempotency key, so an earlier attempt with this key holds it, but ${why}${detail}.`,
    outcome: 'unknown',
  });
}

/** A string member of the error context a lookup carries, if present. */
function contextString(lookup: ResolveLookup, member: string): string | undefined {
  const { context } = lookup;
  const value = context && Object.hasOwn(context, member) ? context[member] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}
