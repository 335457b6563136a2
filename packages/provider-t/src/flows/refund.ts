/**
 * Refunds (docs/providers/provider-t.md#refunds, docs/architecture.md#reading-provider-t-refunds): read the refund
 * transaction, refuse unless `availableForRefund`, check the caller's amount against the whole refundable amount,
 * then commit. The commit moves money back, so it is handled like the transfer's (docs/architecture.md#outcomes):
 * retried with the same request id, an unknown outcome says so, and "already committed" is confirmed with a status
 * read. With an idempotency key the ledger records the refund id before the commit.
 */
import {
  type CallOptions,
  decimalText,
  type ErrorContext,
  idempotencyKeyOf,
  NetworkError,
  type OperationContext,
  type Refund,
  refusalMayHaveLanded,
  ValidationError,
} from '@pay/core/adapter';
import type { RefundPlan } from '../checks.js';
import { ALREADY_COMMITTED_CODE, type ProviderTClient } from '../client.js';
import { describeRefusal, type ProviderOutcome, readBody } from '../envelope.js';
import { type CommittedRefund, toRefund } from '../mapping.js';
import { refundCommitRequest, refundReadRequest } from '../requests.js';
import { refundCommitSchema, refundReadSchema } from '../wire.js';
import { keyedRequestId, recordProgress, refundRecoveryPoint } from './recovery.js';
import { errorText, readInDoubt, stepRefused, unknownTransaction, unreadable } from './status.js';

/**
 * Reads, checks and commits a whole-transfer refund. A recovery point from an earlier attempt with the same key
 * (docs/architecture.md#idempotency) reads the status first: `REFUNDED` ⇒ the Refund (no second commit); otherwise
 * the recorded refund id is committed with the same request id, which Provider T processes once.
 */
export async function refundTransfer(
  client: ProviderTClient,
  plan: RefundPlan,
  options: OperationContext,
): Promise<Refund> {
  const { transactionId, identity } = plan;
  const key = idempotencyKeyOf(options);
  const point = refundRecoveryPoint(options.idempotency?.recoveryPoint);
  const requestId =
    key === undefined ? undefined : await keyedRequestId(identity.agentPartnerId, key, 'refund_commit');
  const read = point ?? (await readRefund(client, plan, options));
  const { refundId, amount } = read;
  checkWholeRefund(plan, amount);
  const record = (commit: RefundCommitFacts, requestId: string) =>
    toRefund(
      { committed: { plan, refundId, amount, read: 'reply' in read ? read.reply : null, commit } },
      { livemode: client.config.livemode, requestId },
    );
  if (point) {
    const context = { transactionId, refundId, step: 'refund_commit', resumedFrom: 'commit_sent' };
    const status = await readResumedRefund(client, plan, context, options);
    if (!status) throw unknownTransaction(transactionId, 'refund_commit');
    if (status.body.transactionStatus === 'REFUNDED') {
      return record({ referenceNumber: status.body.referenceNumber }, status.requestId);
    }
  } else {
    await recordProgress(
      options,
      { transactionId, step: 'commit_sent', refundId, amount: { ...amount } },
      {
        done: `Transfer ${transactionId} was NOT refunded (refund ${refundId} was read, not committed)`,
        context: { transactionId, refundId, step: 'refund_commit' },
      },
    );
  }
  const committed = await commitRefund(client, plan, refundId, options, requestId, point !== null);
  return record(committed.facts, committed.requestId);
}

/** Refund step 1: the refund id and the refundable amount, refused unless `availableForRefund`. */
async function readRefund(client: ProviderTClient, plan: RefundPlan, options: CallOptions) {
  const { transactionId } = plan;
  const call = refundReadRequest(plan, { context: { transactionId, step: 'refund_read' } });
  const outcome = await client.send(call, options);
  if (!outcome.ok) throw outcome.error.withDetails({ message: unreadable(transactionId, 'refund', outcome) });
  const reply = readBody(refundReadSchema, outcome.body, call);
  if (reply.availableForRefund !== true || !reply.refundAmount) {
    throw stepRefused(
      'NOT_AVAILABLE_FOR_REFUND',
      `Provider T does not allow transfer ${transactionId} to be refunded (availableForRefund is not true: it may be paid out, already refunded, or older than 90 days). Nothing was refunded.`,
      { transactionId, step: 'refund_read' },
      outcome.reply,
    );
  }
  return { refundId: reply.refundId, amount: reply.refundAmount.amount, reply };
}

/** The status read of a resumed refund; a failed read leaves the outcome unknown. */
function readResumedRefund(
  client: ProviderTClient,
  plan: RefundPlan,
  context: ErrorContext,
  options: CallOptions,
) {
  const { transactionId, identity } = plan;
  return readInDoubt(
    client,
    transactionId,
    { identity, context },
    options,
    (reason) =>
      `An earlier attempt with this idempotency key may have refunded transfer ${transactionId}, and its status could not be read (${reason}), so the outcome is unknown. Do not refund again: call retrievePayment('${transactionId}') and check for status 'canceled' (REFUNDED).`,
  );
}

/** A transfer is refunded whole (docs/architecture.md#reading-provider-t-refunds): a different amount or currency is refused before the commit. */
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

type RefundCommitFacts = CommittedRefund['commit'];

/** Refund step 2: moves the money back. Retried with the same request id, which Provider T processes once. */
async function commitRefund(
  client: ProviderTClient,
  plan: RefundPlan,
  refundId: string,
  options: CallOptions,
  requestId: string | undefined,
  resumed: boolean,
): Promise<{ facts: RefundCommitFacts; requestId: string }> {
  const { transactionId } = plan;
  const context: Record<string, string> = {
    transactionId,
    refundId,
    step: 'refund_commit',
    ...(resumed ? { resumedFrom: 'commit_sent' } : {}),
  };
  const call = refundCommitRequest(plan, refundId, { requestId, context });
  const reconcile = `Do not refund again: call retrievePayment('${transactionId}') and check for status 'canceled' (REFUNDED).`;
  let outcome: ProviderOutcome;
  try {
    outcome = await client.send(call, options);
  } catch (error) {
    throw new NetworkError(
      `The refund commit of transfer ${transactionId} got no usable answer (${errorText(error)}), so its outcome is unknown. ${reconcile}`,
      { outcome: 'unknown', cause: error, context: { ...context, outcome: 'unknown' } },
    );
  }
  if (outcome.ok) {
    const unknown = { ...call, context: { ...context, outcome: 'unknown' } };
    return { facts: readBody(refundCommitSchema, outcome.body, unknown), requestId: outcome.reply.requestId };
  }
  const { reply } = outcome;
  if (outcome.code === ALREADY_COMMITTED_CODE) {
    return confirmRefunded(client, plan, context, reconcile, options);
  }
  const inDoubt = reply.status === 408 || reply.status === 409 || reply.status === 429 || reply.status >= 500;
  if (resumed && !inDoubt) {
    // A refusal of the request id an earlier process may have sent: a landed commit would have been replayed,
    // and the status read settles it (docs/architecture.md#idempotency).
    const status = await readResumedRefund(client, plan, context, options);
    if (status?.body.transactionStatus === 'REFUNDED') {
      return { facts: { referenceNumber: status.body.referenceNumber }, requestId: status.requestId };
    }
    throw outcome.error.withDetails({
      message: `Provider T refused the refund commit of transfer ${transactionId} (${describeRefusal(outcome)}) when resuming it, and its status read shows it was not refunded: nothing was refunded under this idempotency key.`,
    });
  }
  // Core's one rule (docs/architecture.md#outcomes), with a resumed call as Provider T's own sign.
  if (!refusalMayHaveLanded(reply, resumed)) {
    throw outcome.error.withDetails({
      message: `Provider T refused the refund commit of transfer ${transactionId} (${describeRefusal(outcome)}); nothing was refunded.`,
    });
  }
  throw outcome.error.withDetails({
    message: `Provider T answered the refund commit of transfer ${transactionId} with ${describeRefusal(outcome)}${reply.earlierAttemptMayHaveReached ? ' after an earlier attempt may have reached it' : ''}, so its outcome is unknown. ${reconcile}`,
    context: { ...outcome.error.context, outcome: 'unknown' },
    outcome: 'unknown',
  });
}

/**
 * "Already committed" on this call's refund id: an earlier attempt refunded the transfer. The status read confirms
 * it (REFUNDED); anything else leaves the outcome unknown, never "nothing refunded".
 */
async function confirmRefunded(
  client: ProviderTClient,
  plan: RefundPlan,
  context: Record<string, string>,
  reconcile: string,
  options: CallOptions,
): Promise<{ facts: RefundCommitFacts; requestId: string }> {
  const { transactionId, identity } = plan;
  const said = `Provider T says the refund of transfer ${transactionId} is already committed, but its status`;
  const status = await readInDoubt(
    client,
    transactionId,
    { identity, context },
    options,
    (reason) => `${said} could not be read (${reason}). ${reconcile}`,
  );
  if (status?.body.transactionStatus !== 'REFUNDED') {
    throw stepRefused(
      ALREADY_COMMITTED_CODE,
      `${said} read does not show it refunded yet. ${reconcile}`,
      { ...context, outcome: 'unknown' },
      { outcome: 'unknown' },
    );
  }
  return { facts: { referenceNumber: status.body.referenceNumber }, requestId: status.requestId };
}
