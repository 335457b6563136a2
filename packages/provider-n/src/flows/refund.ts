/**
 * Provider N's refund flow (docs/providers/provider-n.md#refunds): one initiate-refund, and for a keyed call
 * refused with R9, the read back of the refund that key started (docs/architecture.md#idempotency).
 */
import {
  type CallOptions,
  idempotencyKeyOf,
  type OperationContext,
  parseReply,
  type Refund,
  type RefundCreateParams,
} from '@pay/core/adapter';
import { PROVIDER } from '../config.js';
import { isDuplicateReference, moneyMovingRefusal, type Refusal, requestIdOfReply } from '../envelope.js';
import { sameMoney, withoutCredentials } from '../mapping.js';
import { initiateRefundCall, type RefundRequest, referenceFor, refundRequest } from '../requests.js';
import { refundBodySchema } from '../wire.js';
import { type ProviderNCalls, readBack, unknownAfterDuplicate } from './calls.js';

/** `refunds.create`: one initiate-refund, never retried (a repeat with a new reference would refund twice). */
export async function createRefund(
  calls: ProviderNCalls,
  params: RefundCreateParams,
  options: OperationContext,
): Promise<Refund> {
  const request = refundRequest(params, await referenceFor(options));
  const outcome = await calls.client.send(initiateRefundCall(request), options);
  if (!outcome.ok) {
    if (idempotencyKeyOf(options) === undefined || !isDuplicateReference(outcome))
      throw moneyMovingRefusal(outcome);
    return existingRefund(calls, request, outcome, options);
  }
  const body = parseReply(refundBodySchema, outcome.body, { provider: PROVIDER, call: 'initiate-refund' });
  const raw = withoutCredentials(outcome.body);
  return calls.refundRecord({ body, raw, requestId: requestIdOfReply(outcome.reply) }, request.currency);
}

/**
 * A keyed initiate-refund refused with R9, read back: the same transaction and amount ⇒ that refund (no money
 * moves again); otherwise the key belongs to another refund and this call refunded nothing.
 */
async function existingRefund(
  calls: ProviderNCalls,
  request: RefundRequest,
  duplicate: Refusal,
  options: CallOptions,
): Promise<Refund> {
  const { refundReference, transactionReference, refundAmount } = request.body;
  const read = await readBack(duplicate, 'reading the refund back by refundReference failed', () =>
    calls.readRefund(refundReference, options),
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
  return calls.refundRecord(read, request.currency);
}
