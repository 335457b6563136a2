/**
 * Provider N's checkout flow (docs/providers/provider-n.md#calls): one init-transaction, and for a keyed call
 * refused as a duplicate, the read back of the checkout that key opened (docs/architecture.md#idempotency).
 */
import {
  type CheckoutCreateParams,
  idempotencyKeyOf,
  isRecord,
  type JsonValue,
  type OperationContext,
  parseReply,
} from '@pay/core/adapter';
import { PROVIDER } from '../config.js';
import { isDuplicateReference, moneyMovingRefusal, type Refusal, requestIdOfReply } from '../envelope.js';
import { type CheckoutRecoveryPoint, sameMoney, toCheckout, withoutCredentials } from '../mapping.js';
import { initTransactionCall, initTransactionRequest, referenceFor } from '../requests.js';
import type { ProviderNCheckout } from '../types.js';
import { CHECKOUT_LIFETIME_MS, DEFAULT_CURRENCY, initTransactionBodySchema } from '../wire.js';
import { type ProviderNCalls, readBack, unknownAfterDuplicate } from './calls.js';

/** `checkouts.create`: one init-transaction, never retried (a repeat would open a second checkout). */
export async function createCheckout(
  calls: ProviderNCalls,
  contractCode: string | undefined,
  params: CheckoutCreateParams,
  options: OperationContext,
): Promise<ProviderNCheckout> {
  const body = initTransactionRequest(params, contractCode, await referenceFor(options));
  const outcome = await calls.client.send(initTransactionCall(body), options);
  if (!outcome.ok) {
    if (idempotencyKeyOf(options) === undefined || !isDuplicateReference(outcome))
      throw moneyMovingRefusal(outcome);
    return existingCheckout(calls, params, body, outcome, options);
  }
  const reply = parseReply(initTransactionBodySchema, outcome.body, {
    provider: PROVIDER,
    call: 'init-transaction',
  });
  // The checkout URL expires 40 minutes from now.
  const opened: CheckoutRecoveryPoint = {
    transactionReference: reply.transactionReference,
    checkoutUrl: reply.checkoutUrl,
    expiresAt: new Date(Date.now() + CHECKOUT_LIFETIME_MS).toISOString(),
  };
  // Recorded so that a repeat after a crash before core's `complete` can hand back the checkout URL, which no read
  // returns. Nothing more is sent, so a store failure here cannot move money: the result still goes back.
  await options.idempotency?.checkpoint({ ...opened }).catch(() => undefined);
  const facts = calls.facts(requestIdOfReply(outcome.reply));
  return toCheckout(params, body, opened, facts, withoutCredentials(outcome.body));
}

/**
 * A keyed init-transaction refused as a duplicate, read back by paymentReference: the same amount and currency ⇒
 * that checkout (its URL from the ledger); another ⇒ the key belongs to another checkout, nothing new was opened.
 */
async function existingCheckout(
  calls: ProviderNCalls,
  params: CheckoutCreateParams,
  body: ReturnType<typeof initTransactionRequest>,
  duplicate: Refusal,
  options: OperationContext,
): Promise<ProviderNCheckout> {
  const { paymentReference } = body;
  const read = await readBack(duplicate, 'reading the transaction back by paymentReference failed', () =>
    calls.queryTransaction({ paymentReference }, options),
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
    return toCheckout(params, body, recorded, calls.facts(read.requestId), read.raw);
  }
  // No call returns a checkout URL: inventing one could misdirect the payer, a second checkout take the money
  // twice. `outcome: 'unknown'`: pay.resolve(key) answers (docs/architecture.md#outcomes).
  throw duplicate.error.withDetails({
    outcome: 'unknown',
    message: `providerN already holds transaction ${reference} (${transaction.paymentStatus ?? 'status not given'}) for this idempotency key, opened by an earlier attempt whose reply was lost; Provider N has no call that returns its checkoutUrl. pay.resolve(key) or checkouts.retrieve('${reference}') read it; if it is still unpaid and you need a payment page, open a new checkout with a new idempotency key (the unseen one expires unpaid after 40 minutes).`,
    context,
  });
}

/** Reads a recovery point back from the ledger; `undefined` for anything else. */
export function checkoutRecoveryPoint(
  point: JsonValue | null | undefined,
): CheckoutRecoveryPoint | undefined {
  const { transactionReference, checkoutUrl, expiresAt } = isRecord(point) ? point : {};
  const complete = [transactionReference, checkoutUrl, expiresAt].every((value) => typeof value === 'string');
  return complete ? ({ transactionReference, checkoutUrl, expiresAt } as CheckoutRecoveryPoint) : undefined;
}
