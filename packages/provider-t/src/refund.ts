/**
 * Refunds (wire contract "Refund", design §8): read the refund transaction, refuse unless
 * `availableForRefund`, check the caller's amount against the whole refundable amount, then commit. The
 * commit moves money back, so it is handled like the transfer's: retried with the same request id, an
 * unknown outcome says so (also when a retry is refused after an earlier attempt may have landed), and "already
 * committed" is confirmed with a status read and returned as the Refund (issue 11 §1). With an idempotency key
 * (issue 14) the commit's request id is derived from the key, the ledger records the refund id before the commit,
 * and a call that finds that record reads the status instead of reading and committing again.
 */
import {
  type CallOptions,
  decimalText,
  type ErrorContext,
  type HttpReply,
  NetworkError,
  type OperationOptions,
  ProviderApiError,
  path,
  type Refund,
  ValidationError,
} from '@pay/core';
import type { ProviderTIdentity } from './config.js';
import {
  idempotencyKeyOf,
  keyedRequestId,
  type RefundRecoveryPoint,
  recordProgress,
  refundRecoveryPoint,
} from './idempotency.js';
import { committedRefund } from './mapping.js';
import { findTransaction, unknownTransaction, unreadable } from './status.js';
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
  options: OperationOptions,
): Promise<Refund> {
  const { transactionId, identity } = plan;
  const key = idempotencyKeyOf(options);
  const commit: CommitAttempt = {
    requestId:
      key === undefined ? undefined : await keyedRequestId(identity.agentPartnerId, key, 'refund_commit'),
    resumed: false,
  };
  const point = refundRecoveryPoint(options.idempotency?.recoveryPoint);
  if (point) return resumeRefund(transport, plan, point, { ...commit, resumed: true }, options);
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
  const { refundId } = read;
  await recordProgress(
    options,
    { transactionId, step: 'commit_sent', refundId, amount: { ...refundable } },
    {
      done: `Transfer ${transactionId} was NOT refunded (refund ${refundId} was read, not committed)`,
      context: { transactionId, refundId, step: 'refund_commit' },
    },
  );
  const committed = await commitRefund(transport, plan, refundId, options, commit);
  return committedRefund({
    livemode: transport.config.livemode,
    transactionId,
    refundId,
    amount: refundable,
    reason: plan.reason,
    metadata: plan.metadata,
    refundReasonCode: plan.refundReasonCode,
    read,
    commit: committed,
  });
}

/**
 * Continues a refund an earlier attempt with the same key read and may have committed (issue 14): the status is
 * read first; `REFUNDED` ⇒ the Refund (no second commit); otherwise the recorded refund id is committed with the
 * same request id, which Provider T processes once. Nothing is read or refunded anew under the key.
 */
async function resumeRefund(
  transport: ProviderTTransport,
  plan: RefundPlan,
  point: RefundRecoveryPoint,
  commit: CommitAttempt,
  options: OperationOptions,
): Promise<Refund> {
  const { transactionId } = plan;
  const { refundId } = point;
  const context = { transactionId, refundId, step: 'refund_commit', resumedFrom: 'commit_sent' };
  checkWholeRefund(plan, point.amount);
  const status = await readResumedRefund(transport, plan, context, options);
  const record = (facts: RefundCommitFacts, read: unknown) =>
    committedRefund({
      livemode: transport.config.livemode,
      transactionId,
      refundId,
      amount: point.amount,
      reason: plan.reason,
      metadata: plan.metadata,
      refundReasonCode: plan.refundReasonCode,
      read,
      commit: facts,
    });
  if (!status) throw unknownTransaction(transactionId, 'refund_commit');
  if (status.transactionStatus === 'REFUNDED')
    return record({ referenceNumber: status.referenceNumber }, null);
  return record(await commitRefund(transport, plan, refundId, options, commit), null);
}

/** The status read of a resumed refund; a failed read leaves the outcome unknown. */
async function readResumedRefund(
  transport: ProviderTTransport,
  plan: RefundPlan,
  context: ErrorContext,
  options: CallOptions,
) {
  const unknown = { ...context, outcome: 'unknown' };
  return findTransaction(transport, plan.transactionId, {
    signal: options.signal,
    identity: plan.identity,
    context: unknown,
  }).catch((error: unknown) => {
    throw new NetworkError(
      `An earlier attempt with this idempotency key may have refunded transfer ${plan.transactionId}, and its status could not be read (${error instanceof Error ? error.message : String(error)}), so the outcome is unknown. Do not refund again: call retrievePayment('${plan.transactionId}') and check for status 'canceled' (REFUNDED).`,
      { outcome: 'unknown', cause: error, context: unknown },
    );
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

/** How the refund commit is sent: its request id, and whether an earlier process may have sent it already. */
interface CommitAttempt {
  requestId: string | undefined;
  resumed: boolean;
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
  attempt: CommitAttempt,
): Promise<RefundCommitFacts> {
  const { transactionId } = plan;
  const context: Record<string, string> = {
    transactionId,
    refundId,
    step: 'refund_commit',
    ...(attempt.resumed ? { resumedFrom: 'commit_sent' } : {}),
  };
  const call: ProviderTCall = {
    call: 'PUT /refund/v2/transactions/{transactionId}/commit',
    method: 'PUT',
    path: path`/refund/v2/transactions/${transactionId}/commit`,
    json: { ...plan.identity, refundId },
    retrySafe: true,
    ...(attempt.requestId ? { requestId: attempt.requestId } : {}),
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
  const inDoubt = reply.status === 408 || reply.status === 409 || reply.status === 429 || reply.status >= 500;
  if (attempt.resumed && !inDoubt) {
    // A refusal of the request id an earlier process may have sent: a landed commit would have been replayed,
    // and the status read settles it (issue 14).
    const status = await readResumedRefund(transport, plan, context, options);
    if (status?.transactionStatus === 'REFUNDED') return { referenceNumber: status.referenceNumber };
    throw transport.error(reply, call, {
      message: (detail) =>
        `Provider T refused the refund commit of transfer ${transactionId} (${describeReply(detail)}) when resuming it, and its status read shows it was not refunded: nothing was refunded under this idempotency key.`,
    });
  }
  // After an attempt that may have landed, a refusal of the retry proves nothing about it (issue 11 §1).
  const unknown =
    reply.status === 408 || reply.status >= 500 || reply.earlierAttemptMayHaveReached || attempt.resumed;
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
