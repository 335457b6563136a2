/**
 * Provider R's refund flow (docs/providers/provider-r.md#refunds): the payment's status first (its currency, and
 * its full price for a refund without an amount), then one refund call under the idempotency ledger.
 */
import {
  keyedReference,
  type OperationContext,
  type Refund,
  type RefundCreateParams,
  toMinorUnits,
} from '@pay/core/adapter';
import { toRefund } from '../mapping.js';
import { invalid, refundCall, refundRequest, statusRequest } from '../requests.js';
import { resumeCreation, sendCreation } from './create-once.js';
import type { Settlement } from './settle.js';

/** `refunds.create`: one refund call, never retried (a repeat could refund twice). */
export async function createRefund(
  { config, client }: Settlement,
  params: RefundCreateParams,
  options: OperationContext,
): Promise<Refund> {
  const request = refundRequest(params, await keyedReference(options));
  const resumed = await resumeCreation('refunds.create', options.idempotency);
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
}
