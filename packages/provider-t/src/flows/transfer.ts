/**
 * The transfer (docs/architecture.md#provider-flows): quote → update → commit, executed as one call by `createPayment` and
 * `createCheckout`. Money moves only at the commit, so the failure handling is the point of this module:
 *
 * - the quote is never retried (a repeat would reserve a second transaction);
 * - the update and the commit are retried with the same `X-Client-Request-Id`: Provider T processes a
 *   repeated request once (docs/providers/provider-t.md#authentication);
 * - every error after the quote carries `context: { transactionId, step, outcome? }` (docs/architecture.md#errors);
 * - a commit whose outcome is unknown says `outcome: 'unknown'` and tells the caller to reconcile with
 *   `retrievePayment(transactionId)` instead of sending the money again; that includes a refusal (409 request
 *   in progress, 400 quote expired, …) of a retry after an earlier attempt may have landed
 *   (docs/architecture.md#outcomes);
 * - "already committed" for the transaction this call quoted means the money moved: the status is read and
 *   the transfer is returned as the provider holds it;
 * - with an idempotency key (docs/architecture.md#idempotency) every step's request id is derived from the key, a
 *   recovery point is recorded after the quote, after the update and before the commit, and a call that finds one
 *   continues from it through the same steps instead of quoting again.
 */

import {
  type ErrorContext,
  InvalidResponseError,
  idempotencyKeyOf,
  NetworkError,
  type OperationContext,
  PayError,
  ProviderApiError,
  refusalMayHaveLanded,
} from '@pay/core/adapter';
import type * as v from '@pay/core/schema';
import {
  ALREADY_COMMITTED_CODE,
  describeRefusal,
  offendingFieldsOf,
  PROVIDER,
  type ProviderCall,
  type ProviderOutcome,
  type ProviderTClient,
  type Replied,
  readBody,
} from '../client.js';
import {
  commitRequest,
  type QuotedTransfer,
  quoteRequest,
  type TransferPlan,
  updateRequest,
} from '../requests.js';
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
import { errorText, findTransaction } from './status.js';

/**
 * A committed transfer: the replies its record is built from, with the request id of the call that produced
 * it. `commit` is the commit reply (with the update's); when the provider answered "already committed" (an
 * earlier attempt of this call went through), or a resumed call found the transfer committed, `confirmed` is
 * the status read that shows it instead.
 */
export type CommittedTransfer = { transactionId: string; requestId: string } & (
  | { update: UpdateReply; commit: CommitReply; confirmed?: undefined }
  | { commit?: undefined; confirmed: StatusReply }
);

/**
 * Runs quote → update → commit. With an idempotency key, each step's request id is derived from it and the
 * ledger records where the transfer got to before each next step. A recovery point from an earlier attempt
 * enters the same sequence where that attempt stopped (docs/architecture.md#idempotency), never quoting again
 * under the key:
 *
 * - `quoted` / `updated`: no commit was sent under the key (`commit_sent` is recorded before the commit), so the
 *   transfer continues with the update (a repeat of an accepted update, with its request id, is answered with the
 *   original reply, which the record is built from) and the commit;
 * - `commit_sent`: the commit may have landed, so the status is read first: committed ⇒ the transfer as the
 *   provider holds it (a `REJECTED` one is an error); not known as committed ⇒ update and commit again with the
 *   same request ids, which Provider T processes once.
 *
 * An expired quote or another refusal of a resumed transfer is an error carrying `resumedFrom`.
 */
export async function sendTransfer(
  client: ProviderTClient,
  plan: TransferPlan,
  options: OperationContext,
): Promise<CommittedTransfer> {
  const { identity } = plan;
  const point = transferRecoveryPoint(options.idempotency?.recoveryPoint);
  const key = idempotencyKeyOf(options);
  const idOf = async (step: 'quote' | 'update' | 'commit') =>
    key === undefined ? undefined : keyedRequestId(identity.agentPartnerId, key, step);
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
  const committed = await commitTransfer(client, plan, transactionId, options, {
    requestId: await idOf('commit'),
    resumed: point?.step === 'commit_sent',
    context: resumed,
  });
  return 'commit' in committed
    ? { transactionId, requestId: committed.requestId, update, commit: committed.commit }
    : { transactionId, requestId: committed.requestId, confirmed: committed.confirmed };
}

/**
 * The status read of a resumed transfer whose commit may have been sent: the transfer when committed, `null`
 * when Provider T knows no committed transfer with the id. A rejected transfer is an error (the caller decides),
 * and a read that fails leaves the outcome unknown.
 */
async function readResumedTransfer(
  client: ProviderTClient,
  plan: TransferPlan,
  transactionId: string,
  options: OperationContext,
): Promise<Replied<StatusReply> | null> {
  const context = { transactionId, step: 'commit', resumedFrom: 'commit_sent' };
  let status: Replied<StatusReply> | null;
  try {
    status = await findTransaction(client, transactionId, options, {
      identity: plan.identity,
      context: { ...context, outcome: 'unknown' },
    });
  } catch (error) {
    throw new NetworkError(
      unknownOutcomeMessage(
        transactionId,
        `An earlier attempt with this idempotency key may have committed transfer ${transactionId}, and its status could not be read (${errorText(error)})`,
      ),
      { outcome: 'unknown', cause: error, context: { ...context, outcome: 'unknown' } },
    );
  }
  if (status?.body.transactionStatus === 'REJECTED') throw rejectedTransfer(transactionId, context);
  return status;
}

/** A transfer committed under the key that Provider T then rejected: not sent again, the caller decides. */
function rejectedTransfer(transactionId: string, context: ErrorContext): ProviderApiError {
  return new ProviderApiError(
    {
      provider: PROVIDER,
      status: 200,
      providerCode: 'TRANSACTION_REJECTED',
      message: `Transfer ${transactionId}, committed by an earlier attempt with this idempotency key, was REJECTED by Provider T. It is not sent again under this key; retrievePayment('${transactionId}') shows it (status 'failed'). To send the money, call create with a new idempotency key.`,
      retryable: false,
    },
    { context: { ...context, transactionStatus: 'REJECTED' } },
  );
}

/** Step 1: reserves a transaction id and locks fees and FX for 30 minutes. Never retried. */
async function requestQuote(
  client: ProviderTClient,
  plan: TransferPlan,
  options: OperationContext,
  requestId: string | undefined,
): Promise<QuotedTransfer> {
  const { metadata } = plan;
  const call = quoteRequest(plan, { requestId, context: { step: 'quote' } });
  const advice = 'No money moved; call create again for a new quote.';
  const reply = await stepCall(client, call, options, quoteReplySchema, 'the quote', advice);
  const requested = metadata.serviceOptionCode;
  const option = requested
    ? reply.transactions.find((candidate) => candidate.serviceOptionCode === requested)
    : reply.transactions[0];
  if (!option) {
    throw new ProviderApiError(
      {
        provider: PROVIDER,
        status: 200,
        providerCode: 'SERVICE_OPTION_UNAVAILABLE',
        message: `Provider T's quote offers no ${requested} service option for this transfer. Choose another provider_metadata.serviceOptionCode. ${advice}`,
        retryable: false,
      },
      { context: call.context },
    );
  }
  return {
    transactionId: option.transactionId,
    serviceOptionCode: option.serviceOptionCode ?? requested,
    serviceOptionRoutingCode: option.serviceOptionRoutingCode ?? metadata.serviceOptionRoutingCode,
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
    throw new ProviderApiError(
      {
        provider: PROVIDER,
        status: 200,
        providerCode: 'NOT_READY_FOR_COMMIT',
        message: `Provider T did not accept the data of transfer ${transactionId} for commit (readyForCommit is not true). ${advice}`,
        retryable: false,
      },
      { context },
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

/**
 * A quote or update call: a refusal is a `ProviderApiError` naming the offending fields, and any other
 * failure keeps its class but gains the step's context and says that no money moved.
 */
async function stepCall<S extends v.GenericSchema>(
  client: ProviderTClient,
  call: ProviderCall,
  options: OperationContext,
  schema: S,
  what: string,
  advice: string,
): Promise<v.InferOutput<S>> {
  const context = call.context ?? {};
  let outcome: ProviderOutcome;
  try {
    outcome = await client.send(call, options);
  } catch (error) {
    throw withStepContext(error, context, `${what} got no usable answer`, advice);
  }
  if (!outcome.ok) {
    const fields = offendingFieldsOf(outcome.error);
    const message = [
      `Provider T refused ${what} (${describeRefusal(outcome)}).`,
      fields.length > 0 ? `Incomplete or invalid: ${fields.join(', ')}.` : '',
      advice,
    ]
      .filter(Boolean)
      .join(' ');
    throw outcome.error.withDetails({ message });
  }
  try {
    return readBody(schema, outcome.body, call);
  } catch (error) {
    throw withStepContext(error, context, `${what} answered with a reply we cannot read`, advice);
  }
}

/** How the commit is sent: its request id, and whether an earlier process may have sent it already. */
interface CommitAttempt {
  requestId: string | undefined;
  /** Resumed from `commit_sent`: an earlier attempt with the same key may have reached Provider T. */
  resumed: boolean;
  /** Added to the context of every error (e.g. `resumedFrom`). */
  context: ErrorContext;
}

/** Step 3: moves the money. Retried with the same request id, which Provider T processes once. */
async function commitTransfer(
  client: ProviderTClient,
  plan: TransferPlan,
  transactionId: string,
  options: OperationContext,
  attempt: CommitAttempt,
): Promise<{ requestId: string } & ({ commit: CommitReply } | { confirmed: StatusReply })> {
  const context = { transactionId, step: 'commit', ...attempt.context };
  const call = commitRequest(plan, transactionId, { requestId: attempt.requestId, context });
  let outcome: ProviderOutcome;
  try {
    outcome = await client.send(call, options);
  } catch (error) {
    const singleAttempt = (client.config.retry ?? 2) === 0 && !attempt.resumed;
    throw commitFailure(error, transactionId, singleAttempt, attempt.context);
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
    // This call quoted the transaction, so "already committed" means an earlier attempt of ours moved the
    // money (docs/architecture.md#outcomes): read what the provider holds and return it.
    const status = await confirmCommitted(client, plan, transactionId, options);
    return { requestId: status.requestId, confirmed: status.body };
  }
  const inDoubt = reply.status === 408 || reply.status === 409 || reply.status === 429 || reply.status >= 500;
  if (attempt.resumed && !inDoubt) {
    // A refusal of the same request id an earlier process may have sent: Provider T would have answered a
    // landed commit with its original reply, and a status read settles it (docs/architecture.md#idempotency).
    const status = await readResumedTransfer(client, plan, transactionId, options);
    if (status) return { requestId: status.requestId, confirmed: status.body };
    throw outcome.error.withDetails({
      message: `Provider T refused to commit transfer ${transactionId} (${describeRefusal(outcome)}) when resuming it, and its status read shows it was not committed: no money moved under this idempotency key. The key stays bound to this transfer: to send the money, call create with a new idempotency key.`,
    });
  }
  // Core's one rule (a 5xx or 408, an earlier attempt that may have landed), with Provider T's own sign: a
  // resumed call whose request id an earlier process may have sent.
  if (refusalMayHaveLanded(reply, attempt.resumed)) {
    // The provider may have committed before failing, or an earlier attempt may have landed before this
    // refusal of the retry (409 in progress, 400 quote expired prove nothing about it): only a status read
    // can tell.
    const retryRefused =
      (reply.earlierAttemptMayHaveReached || attempt.resumed) && reply.status < 500 && reply.status !== 408;
    throw outcome.error.withDetails({
      message: unknownOutcomeMessage(
        transactionId,
        retryRefused
          ? `Provider T refused a retry of the commit (${describeRefusal(outcome)}) after an earlier attempt may have reached it`
          : `Provider T answered the commit with ${describeRefusal(outcome)}`,
      ),
      context: { ...outcome.error.context, outcome: 'unknown' },
      outcome: 'unknown',
    });
  }
  throw outcome.error.withDetails({
    message: `Provider T refused to commit transfer ${transactionId} (${describeRefusal(outcome)}). No money moved; call create again for a new quote.`,
  });
}

/**
 * The status read after "already committed": the transfer as the provider holds it. When the read cannot show
 * it, the outcome stays unknown (never "nothing moved").
 */
async function confirmCommitted(
  client: ProviderTClient,
  plan: TransferPlan,
  transactionId: string,
  options: OperationContext,
): Promise<Replied<StatusReply>> {
  const context = { transactionId, step: 'commit', outcome: 'unknown' };
  let status: Replied<StatusReply> | null;
  try {
    status = await findTransaction(client, transactionId, options, {
      identity: plan.identity,
      context,
    });
  } catch (error) {
    throw new NetworkError(
      unknownOutcomeMessage(
        transactionId,
        `Provider T says transfer ${transactionId} is already committed, but its status could not be read (${errorText(error)})`,
      ),
      { outcome: 'unknown', cause: error, context },
    );
  }
  if (!status) {
    throw new ProviderApiError(
      {
        provider: PROVIDER,
        status: 200,
        providerCode: ALREADY_COMMITTED_CODE,
        message: unknownOutcomeMessage(
          transactionId,
          `Provider T says transfer ${transactionId} is already committed, but its status read does not show it yet`,
        ),
        retryable: false,
      },
      { context, outcome: 'unknown' },
    );
  }
  return status;
}

/** The message of a commit that may or may not have moved the money. */
function unknownOutcomeMessage(transactionId: string, what: string): string {
  return (
    `${what}, so the outcome of transfer ${transactionId} is unknown: the money may have moved. ` +
    `Do not send it again: call retrievePayment('${transactionId}') to see whether it was committed ` +
    '(a Payment means it was; null means it was not).'
  );
}

/**
 * The error of a commit that raised instead of answering. Only when the request provably never left (one
 * attempt, refused before sending, or a failed login before it) is the outcome `not_sent`; after a retry an
 * earlier attempt may have reached the provider, so everything else is `unknown`.
 */
function commitFailure(
  error: unknown,
  transactionId: string,
  singleAttempt: boolean,
  extra: ErrorContext,
): PayError {
  const fromLogin = PayError.isInstance(error) && error.context?.call === 'login';
  const notSent =
    singleAttempt && (fromLogin || (NetworkError.isInstance(error) && error.outcome === 'not_sent'));
  const outcome = notSent ? 'not_sent' : 'unknown';
  const context: ErrorContext = {
    ...(PayError.isInstance(error) ? error.context : {}),
    transactionId,
    step: 'commit',
    ...extra,
    outcome,
  };
  const reason = errorText(error);
  if (notSent) {
    const message = `The commit of transfer ${transactionId} was never sent (${reason}). No money moved; call create again for a new quote.`;
    return ProviderApiError.isInstance(error)
      ? error.withDetails({ message, context })
      : new NetworkError(message, { outcome, cause: error, context });
  }
  return new NetworkError(
    unknownOutcomeMessage(
      transactionId,
      `The commit of transfer ${transactionId} got no usable answer (${reason})`,
    ),
    { outcome, cause: error, context },
  );
}

/** An error before the commit, with the step's context and a message saying nothing moved; its class is kept. */
function withStepContext(error: unknown, context: ErrorContext, what: string, advice: string): PayError {
  const merged = { ...(PayError.isInstance(error) ? error.context : {}), ...context };
  const message = `Provider T: ${what} (${errorText(error)}). ${advice}`;
  if (ProviderApiError.isInstance(error)) return error.withDetails({ message, context: merged });
  if (InvalidResponseError.isInstance(error))
    return new InvalidResponseError(message, { cause: error, context: merged });
  const outcome = NetworkError.isInstance(error) ? error.outcome : 'unknown';
  return new NetworkError(message, { outcome, cause: error, context: merged });
}
