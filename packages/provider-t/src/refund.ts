/**
 * Refunds (wire contract "Refund", design §8): read the refund transaction, refuse unless
 * `availableForRefund`, check the caller's amount against the whole refundable amount, then commit. The
 * commit moves money back, so it is handled like the transfer's: retried with the same request id, an
 * unknown outcome says so (also when a retry is refused after an earlier attempt may have landed), and "already
 * committed" is confirmed with a status read and returned as the Refund (issue 11 §1).
 */
import {
  type CallOptions,
  decimalText,
  type HttpReply,
  NetworkError,
  ProviderApiError,
  path,
  type Refund,
  ValidationError,
} from '@pay/core';
import type { ProviderTIdentity } from './config.js';
import { committedRefund } from './mapping.js';
import { findTransaction, unreadable } from './status.js';
import { ALREADY_COMMITTED_CODE } from './transfer.js';
import {
  describeReply,
  isSuccess,
  PROVIDER,
  type ProviderTCall,
  type ProviderTTransport,
} from './transport.js';
import { refundCommitSchema, refundReadSchema } from './wire.js';

/** Reason code sent when `provider_metadata.refundReasonCode` is not given. */
export const DEFAULT_REFUND_REASON_CODE = 'CUSTOMER_REQUEST';

/** A checked refund request. */
export interface RefundPlan {
  transactionId: string;
  /** The amount the caller expects back, when given: it must equal the refundable amount. */
  amount: number | undefined;
  currency: string | undefined;
  reason: string | null;
  metadata: Record<string, string>;
  refundReasonCode: string;
  refundFee: boolean | undefined;
  identity: ProviderTIdentity;
}

/** Reads, checks and commits a whole-transfer refund. */
export async function refundTransfer(
  transport: ProviderTTransport,
  plan: RefundPlan,
  options: CallOptions,
): Promise<Refund> {
  const { transactionId, identity } = plan;
  const readCall: ProviderTCall = {
    call: 'GET /refund/v2/transactions/{transactionId}',
    method: 'GET',
    path: path`/refund/v2/transactions/${transactionId}`,
    query: { ...identity, refundReasonCode: plan.refundReasonCode, refundFee: plan.refundFee },
    retrySafe: true,
    signal: options.signal,
    context: { transactionId, step: 'refund_read' },
  };
  const readReply = await transport.send(readCall);
  if (!isSuccess(readReply)) {
    throw transport.error(readReply, readCall, {
      message: (detail) => unreadable(transactionId, 'refund', detail),
    });
  }
  const read = transport.read(readReply, readCall, refundReadSchema);
  if (read.availableForRefund !== true || !read.refundAmount) {
    throw new ProviderApiError(
      {
        provider: PROVIDER,
        status: readReply.status,
        providerCode: 'NOT_AVAILABLE_FOR_REFUND',
        requestId: readReply.requestId,
        message: `Provider T does not allow transfer ${transactionId} to be refunded (availableForRefund is not true: it may be paid out, already refunded, or older than 90 days). Nothing was refunded.`,
        retryable: false,
      },
      { context: { transactionId, step: 'refund_read' } },
    );
  }
  const refundable = read.refundAmount.amount;
  checkWholeRefund(plan, refundable);
  const commit = await commitRefund(transport, plan, read.refundId, options);
  return committedRefund({
    livemode: transport.config.livemode,
    transactionId,
    refundId: read.refundId,
    amount: refundable,
    reason: plan.reason,
    metadata: plan.metadata,
    refundReasonCode: plan.refundReasonCode,
    read,
    commit,
  });
}

/** A transfer is refunded whole (design §8): a different amount or currency is refused before the commit. */
function checkWholeRefund(plan: RefundPlan, refundable: { value: number; currencyCode: string }): void {
  const issues = [];
  if (plan.amount !== undefined && plan.amount !== refundable.value) {
    issues.push({
      path: 'amount',
      message: `must be ${decimalText(refundable.value)} ${refundable.currencyCode}, the whole refundable amount: Provider T refunds a transfer whole (omit amount to refund it)`,
    });
  }
  if (plan.currency !== undefined && plan.currency !== refundable.currencyCode) {
    issues.push({
      path: 'currency',
      message: `must be ${refundable.currencyCode}, the currency of the transfer`,
    });
  }
  if (issues.length > 0) {
    throw new ValidationError(issues, {
      operation: 'refunds.create',
      context: { transactionId: plan.transactionId, step: 'refund_read' },
    });
  }
}

/** What a committed refund returns: the commit reply, or the status read that confirmed "already committed". */
interface RefundCommitFacts {
  referenceNumber?: string | undefined;
  expectedPayoutDate?: string | undefined;
}

async function commitRefund(
  transport: ProviderTTransport,
  plan: RefundPlan,
  refundId: string,
  options: CallOptions,
): Promise<RefundCommitFacts> {
  const { transactionId } = plan;
  const context = { transactionId, refundId, step: 'refund_commit' };
  const call: ProviderTCall = {
    call: 'PUT /refund/v2/transactions/{transactionId}/commit',
    method: 'PUT',
    path: path`/refund/v2/transactions/${transactionId}/commit`,
    json: { ...plan.identity, refundId },
    retrySafe: true,
    signal: options.signal,
    context,
  };
  const reconcile = `Do not refund again: call retrievePayment('${transactionId}') and check for status 'canceled' (REFUNDED).`;
  let reply: HttpReply;
  try {
    reply = await transport.send(call);
  } catch (error) {
    throw new NetworkError(
      `The refund commit of transfer ${transactionId} got no usable answer (${error instanceof Error ? error.message : String(error)}), so its outcome is unknown. ${reconcile}`,
      { outcome: 'unknown', cause: error, context: { ...context, outcome: 'unknown' } },
    );
  }
  if (isSuccess(reply)) {
    return transport.read(
      reply,
      { ...call, context: { ...context, outcome: 'unknown' } },
      refundCommitSchema,
    );
  }
  if (transport.detail(reply).code === ALREADY_COMMITTED_CODE) {
    return confirmRefunded(transport, plan, context, reconcile, options);
  }
  // After an attempt that may have landed, a refusal of the retry proves nothing about it (issue 11 §1).
  const unknown = reply.status === 408 || reply.status >= 500 || reply.earlierAttemptMayHaveReached;
  throw transport.error(
    reply,
    { ...call, context: unknown ? { ...context, outcome: 'unknown' } : context },
    {
      message: (detail) =>
        unknown
          ? `Provider T answered the refund commit of transfer ${transactionId} with ${describeReply(detail)}${reply.earlierAttemptMayHaveReached ? ' after an earlier attempt may have reached it' : ''}, so its outcome is unknown. ${reconcile}`
          : `Provider T refused the refund commit of transfer ${transactionId} (${describeReply(detail)}); nothing was refunded.`,
      ...(unknown ? { retryable: false, outcome: 'unknown' as const } : {}),
    },
  );
}

/**
 * "Already committed" on the refund commit of this call's refund id: an earlier attempt refunded the transfer.
 * The status read confirms it (REFUNDED); anything else leaves the outcome unknown, never "nothing refunded".
 */
async function confirmRefunded(
  transport: ProviderTTransport,
  plan: RefundPlan,
  context: Record<string, string>,
  reconcile: string,
  options: CallOptions,
): Promise<RefundCommitFacts> {
  const { transactionId } = plan;
  const unknownContext = { ...context, outcome: 'unknown' };
  const status = await findTransaction(transport, transactionId, {
    signal: options.signal,
    identity: plan.identity,
    context: unknownContext,
  }).catch((error: unknown) => {
    throw new NetworkError(
      `Provider T says the refund of transfer ${transactionId} is already committed, but its status could not be read (${error instanceof Error ? error.message : String(error)}). ${reconcile}`,
      { outcome: 'unknown', cause: error, context: unknownContext },
    );
  });
  if (status?.transactionStatus !== 'REFUNDED') {
    throw new ProviderApiError(
      {
        provider: PROVIDER,
        status: 200,
        providerCode: ALREADY_COMMITTED_CODE,
        message: `Provider T says the refund of transfer ${transactionId} is already committed, but its status read does not show it refunded yet. ${reconcile}`,
        retryable: false,
      },
      { context: unknownContext, outcome: 'unknown' },
    );
  }
  return { referenceNumber: status.referenceNumber };
}
