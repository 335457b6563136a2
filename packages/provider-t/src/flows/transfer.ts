/**
 * The transfer (docs/architecture.md#provider-flows): quote → update → commit, executed as one call by
 * `createPayment` and `createCheckout`. Money moves only at the commit, so the failure handling is the point of
 * this module (its errors are built in `transfer-errors.ts`): the quote is never retried (a repeat would reserve a
 * second transaction); the update and the commit are retried with the same `X-Client-Request-Id`, which Provider T
 * processes once; every error after the quote carries `context: { transactionId, step, outcome? }`
 * (docs/architecture.md#errors), `outcome: 'unknown'` when the commit may have landed (docs/architecture.md#outcomes);
 * "already committed" for the transaction this call quoted means the money moved: the status read is returned.
 */
import {
  type ErrorContext,
  InvalidResponseError,
  idempotencyKeyOf,
  type OperationContext,
} from '@pay/core/adapter';
import type { TransferPlan } from '../checks.js';
import { ALREADY_COMMITTED_CODE, type ProviderTClient } from '../client.js';
import { describeRefusal, type ProviderOutcome, readBody } from '../envelope.js';
import { commitRequest, type QuotedTransfer, quoteRequest, updateRequest } from '../requests.js';
import {
  type CommitReply,
  commitReplySchema,
  quoteReplySchema,
  type StatusReply,
  type UpdateReply,
  updateReplySchema,
} from '../wire.js';
import {
  keyedRequestId,
  recordProgress,
  type TransferRecoveryPoint,
  transferRecoveryPoint,
} from './recovery.js';
import { stepRefused } from './status.js';
import {
  commitFailure,
  commitRefusal,
  confirmCommitted,
  readResumedTransfer,
  stepCall,
  unknownOutcomeMessage,
} from './transfer-errors.js';

/**
 * A committed transfer: the update and commit replies its record is built from, or, when an earlier attempt of this
 * call went through ("already committed", or found by a resumed call), the status read that shows it.
 */
export type CommittedTransfer = { transactionId: string; requestId: string } & (
  | { update: UpdateReply; commit: CommitReply; confirmed?: undefined }
  | { update?: UpdateReply; commit?: undefined; confirmed: StatusReply }
);

/**
 * Runs quote → update → commit. A recovery point from an earlier attempt with the key enters the same sequence
 * where that attempt stopped (docs/architecture.md#idempotency), never quoting again: `quoted` / `updated` (no
 * commit was sent) continue with the update (a repeat of an accepted update is answered with the original reply)
 * and the commit; `commit_sent` reads the status first: committed ⇒ the transfer as the provider holds it (a
 * `REJECTED` one is an error), else update and commit again with the same request ids. A refusal of a resumed
 * transfer is an error carrying `resumedFrom`.
 */
export async function sendTransfer(
  client: ProviderTClient,
  plan: TransferPlan,
  options: OperationContext,
): Promise<CommittedTransfer> {
  const point = transferRecoveryPoint(options.idempotency?.recoveryPoint);
  const key = idempotencyKeyOf(options);
  const idOf = async (step: 'quote' | 'update' | 'commit') =>
    key === undefined ? undefined : keyedRequestId(plan.identity.agentPartnerId, key, step);
  const resumed: ErrorContext = point ? { resumedFrom: point.step } : {};
  if (point?.step === 'commit_sent') {
    const status = await readResumedTransfer(client, plan, point.transactionId, options);
    if (status)
      return { transactionId: point.transactionId, requestId: status.requestId, confirmed: status.body };
  }
  const quote: QuotedTransfer = point
    ? {
        transactionId: point.transactionId,
        serviceOptionCode: point.serviceOptionCode ?? plan.metadata.serviceOptionCode,
        serviceOptionRoutingCode: point.serviceOptionRoutingCode ?? plan.metadata.serviceOptionRoutingCode,
      }
    : await requestQuote(client, plan, options, await idOf('quote'));
  const { transactionId } = quote;
  const reached = (step: TransferRecoveryPoint['step']): TransferRecoveryPoint => ({
    transactionId,
    step,
    serviceOptionCode: quote.serviceOptionCode,
    serviceOptionRoutingCode: quote.serviceOptionRoutingCode,
    ...(step === 'commit_sent' ? { commitSentAt: Date.now() } : {}),
  });
  if (!point) {
    await recordProgress(options, reached('quoted'), {
      done: `Transfer ${transactionId} was quoted but NOT committed`,
      context: { transactionId, step: 'update' },
    });
  }
  const update = await updateTransfer(client, plan, quote, options, await idOf('update'), resumed);
  const updated = {
    done: `Transfer ${transactionId} was quoted and updated but NOT committed`,
    context: { transactionId, step: 'commit', ...resumed },
  };
  if (!point || point.step === 'quoted') await recordProgress(options, reached('updated'), updated);
  // The last record before money can move: a crash from here on resumes with a status read. Recorded before
  // every commit, a resumed one too, so `pay.resolve` knows until when the last one may still land.
  await recordProgress(options, reached('commit_sent'), updated);
  const committed = await commitTransfer(client, plan, transactionId, options, await idOf('commit'), resumed);
  return { transactionId, update, ...committed };
}

/** Step 1: reserves a transaction id and locks fees and FX for 30 minutes. Never retried. */
async function requestQuote(
  client: ProviderTClient,
  plan: TransferPlan,
  options: OperationContext,
  requestId: string | undefined,
): Promise<QuotedTransfer> {
  const call = quoteRequest(plan, { requestId, context: { step: 'quote' } });
  const advice = 'No money moved; call create again for a new quote.';
  const reply = await stepCall(client, call, options, quoteReplySchema, 'the quote', advice);
  const requested = plan.metadata.serviceOptionCode;
  const option = requested
    ? reply.transactions.find((candidate) => candidate.serviceOptionCode === requested)
    : reply.transactions[0];
  if (!option) {
    throw stepRefused(
      'SERVICE_OPTION_UNAVAILABLE',
      `Provider T's quote offers no ${requested} service option for this transfer. Choose another provider_metadata.serviceOptionCode. ${advice}`,
      call.context,
    );
  }
  return {
    transactionId: option.transactionId,
    serviceOptionCode: option.serviceOptionCode ?? requested,
    serviceOptionRoutingCode: option.serviceOptionRoutingCode ?? plan.metadata.serviceOptionRoutingCode,
  };
}

/** Step 2: attaches sender, receiver and compliance data. Retried with the same request id. */
async function updateTransfer(
  client: ProviderTClient,
  plan: TransferPlan,
  quote: QuotedTransfer,
  options: OperationContext,
  requestId: string | undefined,
  resumed: ErrorContext,
): Promise<UpdateReply> {
  const { transactionId } = quote;
  const context = { transactionId, step: 'update', ...resumed };
  const call = updateRequest(plan, quote, { requestId, context });
  const advice =
    resumed.resumedFrom === undefined
      ? `Transfer ${transactionId} was not committed and no money moved; fix the cause and call create again (a new quote).`
      : `Transfer ${transactionId}, begun by an earlier attempt with this idempotency key, was not committed and no money moved; it was not quoted again. The key stays bound to this transfer: to send the money, call create with a new idempotency key.`;
  const what = `the update of transfer ${transactionId}`;
  const reply = await stepCall(client, call, options, updateReplySchema, what, advice);
  // Commit only on an explicit `readyForCommit: true` (docs/providers/provider-t.md#commit): absent or false means not accepted.
  if (reply.readyForCommit !== true) {
    throw stepRefused(
      'NOT_READY_FOR_COMMIT',
      `Provider T did not accept the data of transfer ${transactionId} for commit (readyForCommit is not true). ${advice}`,
      context,
    );
  }
  const sent = reply.sendAmount.amount;
  // Never commit an amount other than the one asked for.
  if (sent.value !== plan.amount || sent.currencyCode !== plan.currency) {
    throw new InvalidResponseError(
      `Provider T's update of transfer ${transactionId} shows a send amount other than the one requested. ${advice}`,
      { context },
    );
  }
  return reply;
}

/** Step 3: moves the money. Retried with the same request id, which Provider T processes once. */
async function commitTransfer(
  client: ProviderTClient,
  plan: TransferPlan,
  transactionId: string,
  options: OperationContext,
  requestId: string | undefined,
  resumed: ErrorContext,
): Promise<{ requestId: string } & ({ commit: CommitReply } | { confirmed: StatusReply })> {
  // Resumed from `commit_sent`: an earlier attempt with the same key may have reached Provider T.
  const sentBefore = resumed.resumedFrom === 'commit_sent';
  const context = { transactionId, step: 'commit', ...resumed };
  const call = commitRequest(plan, transactionId, { requestId, context });
  let outcome: ProviderOutcome;
  try {
    outcome = await client.send(call, options);
  } catch (error) {
    const singleAttempt = (client.config.retry ?? 2) === 0 && !sentBefore;
    throw commitFailure(error, transactionId, singleAttempt, resumed);
  }
  if (outcome.ok) {
    try {
      return { requestId: outcome.reply.requestId, commit: readBody(commitReplySchema, outcome.body, call) };
    } catch (error) {
      // A 2xx whose body we cannot read: the commit was most likely accepted, but nothing proves it.
      throw new InvalidResponseError(
        unknownOutcomeMessage(transactionId, 'Provider T answered the commit with a reply we cannot read'),
        { cause: error, context: { ...context, outcome: 'unknown' } },
      );
    }
  }
  const { reply } = outcome;
  if (outcome.code === ALREADY_COMMITTED_CODE) {
    const status = await confirmCommitted(client, plan, transactionId, options);
    return { requestId: status.requestId, confirmed: status.body };
  }
  const inDoubt = reply.status === 408 || reply.status === 409 || reply.status === 429 || reply.status >= 500;
  if (sentBefore && !inDoubt) {
    // A refusal of the same request id an earlier process may have sent: Provider T would have answered a
    // landed commit with its original reply, and a status read settles it (docs/architecture.md#idempotency).
    const status = await readResumedTransfer(client, plan, transactionId, options);
    if (status) return { requestId: status.requestId, confirmed: status.body };
    throw outcome.error.withDetails({
      message: `Provider T refused to commit transfer ${transactionId} (${describeRefusal(outcome)}) when resuming it, and its status read shows it was not committed: no money moved under this idempotency key. The key stays bound to this transfer: to send the money, call create with a new idempotency key.`,
    });
  }
  throw commitRefusal(outcome, transactionId, sentBefore);
}
