/**
 * The transfer (spec §3): quote → update → commit, executed as one call by `createPayment` and
 * `createCheckout`. Money moves only at the commit, so the failure handling is the point of this module:
 *
 * - the quote is never retried (a repeat would reserve a second transaction);
 * - the update and the commit are retried with the same `X-Client-Request-Id`: Provider T processes a
 *   repeated request once (wire contract "Authentication");
 * - every error after the quote carries `context: { transactionId, step, outcome? }` (design §4);
 * - a commit whose outcome is unknown says `outcome: 'unknown'` and tells the caller to reconcile with
 *   `retrievePayment(transactionId)` instead of sending the money again; that includes a refusal (409 request
 *   in progress, 400 quote expired, …) of a retry after an earlier attempt may have landed (issue 11 §1);
 * - "already committed" for the transaction this call quoted means the money moved: the status is read and
 *   the transfer is returned as the provider holds it.
 */
import {
  type CallOptions,
  type ErrorContext,
  type HttpReply,
  InvalidResponseError,
  NetworkError,
  PayError,
  ProviderApiError,
  path,
} from '@pay/core';
import type * as v from '@pay/core/schema';
import type { TransferPlan } from './input.js';
import { findTransaction } from './status.js';
import {
  describeReply,
  isSuccess,
  PROVIDER,
  type ProviderTCall,
  type ProviderTTransport,
} from './transport.js';
import {
  type CommitReply,
  commitReplySchema,
  quoteReplySchema,
  type StatusReply,
  type UpdateReply,
  updateReplySchema,
} from './wire.js';

/** Provider T's code for a commit of a transaction that is committed already (wire contract, Transfer step 3). */
export const ALREADY_COMMITTED_CODE = 'TRANSACTION_ALREADY_COMMITTED';

/**
 * A committed transfer: the replies its record is built from. `commit` is the commit reply; when the provider
 * answered "already committed" (an earlier attempt of this call went through), `confirmed` is the status read
 * that shows it instead.
 */
export type CommittedTransfer = {
  transactionId: string;
  update: UpdateReply;
} & ({ commit: CommitReply; confirmed?: undefined } | { commit?: undefined; confirmed: StatusReply });

/** Where a transfer stood when it failed (design §4): `context.step` of every error it raises. */
export type TransferStep = 'quote' | 'update' | 'commit';

/** Runs quote → update → commit and returns the replies of the last two. */
export async function sendTransfer(
  transport: ProviderTTransport,
  plan: TransferPlan,
  options: CallOptions,
): Promise<CommittedTransfer> {
  const identity = transferIdentity(transport, plan);
  const quote = await requestQuote(transport, plan, identity, options);
  const update = await updateTransfer(transport, plan, identity, quote, options);
  const committed = await commitTransfer(transport, plan, identity, quote.transactionId, options);
  return { transactionId: quote.transactionId, update, ...committed };
}

/** Identity fields of transfer calls, each overridable per call through `provider_metadata`. */
function transferIdentity(transport: ProviderTTransport, plan: TransferPlan) {
  const { config } = transport;
  const metadata = plan.metadata;
  return {
    targetAudience: metadata.targetAudience ?? config.identity.targetAudience,
    agentPartnerId: metadata.agentPartnerId ?? config.identity.agentPartnerId,
    userLanguage: metadata.userLanguage ?? config.identity.userLanguage,
    operatorId: metadata.operatorId ?? config.operatorId,
    posId: metadata.posId ?? config.posId,
  };
}

type Identity = ReturnType<typeof transferIdentity>;

interface QuotedTransfer {
  transactionId: string;
  serviceOptionCode: string | undefined;
  serviceOptionRoutingCode: string | undefined;
}

/** Step 1: reserves a transaction id and locks fees and FX for 30 minutes. Never retried. */
async function requestQuote(
  transport: ProviderTTransport,
  plan: TransferPlan,
  identity: Identity,
  options: CallOptions,
): Promise<QuotedTransfer> {
  const metadata = plan.metadata;
  const call: ProviderTCall = {
    call: 'POST /transfer/v1/transactions/quote',
    method: 'POST',
    path: '/transfer/v1/transactions/quote',
    json: {
      ...identity,
      destinationCountryCode: plan.destinationCountryCode,
      destinationCountrySubdivisionCode: metadata.destinationCountrySubdivisionCode,
      serviceOptionCode: metadata.serviceOptionCode,
      serviceOptionRoutingCode: metadata.serviceOptionRoutingCode,
      sendAmount: { value: plan.amount, currencyCode: plan.currency },
      receiveCurrencyCode: metadata.receiveCurrencyCode,
    },
    retrySafe: false,
    signal: options.signal,
    context: { step: 'quote' },
  };
  const advice = 'No money moved; call create again for a new quote.';
  const reply = await stepCall(transport, call, quoteReplySchema, 'the quote', advice);
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
  transport: ProviderTTransport,
  plan: TransferPlan,
  identity: Identity,
  quote: QuotedTransfer,
  options: CallOptions,
): Promise<UpdateReply> {
  const { transactionId } = quote;
  const metadata = plan.metadata;
  const context = { transactionId, step: 'update' };
  const { additionalDetails } = plan;
  const call: ProviderTCall = {
    call: 'PUT /transfer/v1/transactions/{transactionId}',
    method: 'PUT',
    path: path`/transfer/v1/transactions/${transactionId}`,
    json: {
      ...identity,
      destinationCountryCode: plan.destinationCountryCode,
      destinationCountrySubdivisionCode: metadata.destinationCountrySubdivisionCode,
      serviceOptionCode: quote.serviceOptionCode,
      serviceOptionRoutingCode: quote.serviceOptionRoutingCode,
      sendAmount: { value: plan.amount, currencyCode: plan.currency },
      receiveCurrencyCode: metadata.receiveCurrencyCode,
      sender: metadata.sender,
      receiver: metadata.receiver,
      transactionInformation: metadata.transactionInformation,
      fundingSource: metadata.fundingSource,
      targetAccountProfileId: metadata.targetAccountProfileId,
      targetAccount: metadata.targetAccount,
      partnerTransactionId: metadata.partnerTransactionId,
      additionalDetails: Object.keys(additionalDetails).length > 0 ? additionalDetails : undefined,
    },
    retrySafe: true,
    signal: options.signal,
    context,
  };
  const advice = `Transfer ${transactionId} was not committed and no money moved; fix the cause and call create again (a new quote).`;
  const reply = await stepCall(
    transport,
    call,
    updateReplySchema,
    `the update of transfer ${transactionId}`,
    advice,
  );
  // Commit only on an explicit `readyForCommit: true` (wire contract): absent or false means not accepted.
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
 * A quote or update call: an error reply is a `ProviderApiError` naming the offending fields, and any other
 * failure keeps its class but gains the step's context and says that no money moved.
 */
async function stepCall<S extends v.GenericSchema>(
  transport: ProviderTTransport,
  call: ProviderTCall,
  schema: S,
  what: string,
  advice: string,
): Promise<v.InferOutput<S>> {
  const context = call.context ?? {};
  let answer: HttpReply;
  try {
    answer = await transport.send(call);
  } catch (error) {
    throw withStepContext(error, context, `${what} got no usable answer`, advice);
  }
  if (!isSuccess(answer)) {
    throw transport.error(answer, call, {
      message: (detail) =>
        [
          `Provider T refused ${what} (${describeReply(detail)}).`,
          detail.offendingFields.length > 0
            ? `Incomplete or invalid: ${detail.offendingFields.join(', ')}.`
            : '',
          advice,
        ]
          .filter(Boolean)
          .join(' '),
    });
  }
  try {
    return transport.read(answer, call, schema);
  } catch (error) {
    throw withStepContext(error, context, `${what} answered with a reply we cannot read`, advice);
  }
}

/** Step 3: moves the money. Retried with the same request id, which Provider T processes once. */
async function commitTransfer(
  transport: ProviderTTransport,
  plan: TransferPlan,
  identity: Identity,
  transactionId: string,
  options: CallOptions,
): Promise<{ commit: CommitReply } | { confirmed: StatusReply }> {
  const context = { transactionId, step: 'commit' };
  const call: ProviderTCall = {
    call: 'PUT /transfer/v1/transactions/{transactionId}/commit',
    method: 'PUT',
    path: path`/transfer/v1/transactions/${transactionId}/commit`,
    json: { ...identity, fundingSource: plan.metadata.fundingSource },
    retrySafe: true,
    signal: options.signal,
    context,
  };
  let answer: HttpReply;
  try {
    answer = await transport.send(call);
  } catch (error) {
    throw commitFailure(error, transactionId, transport.config.retry ?? 2);
  }
  if (!isSuccess(answer)) {
    if (transport.detail(answer).code === ALREADY_COMMITTED_CODE) {
      // This call quoted the transaction, so "already committed" means an earlier attempt of ours moved the
      // money (issue 11 §1): read what the provider holds and return it.
      return { confirmed: await confirmCommitted(transport, transactionId, identity, options) };
    }
    if (answer.status === 408 || answer.status >= 500 || answer.earlierAttemptMayHaveReached) {
      // The provider may have committed before failing, or an earlier attempt may have landed before this
      // refusal of the retry (409 in progress, 400 quote expired prove nothing about it): only a status read
      // can tell.
      throw transport.error(
        answer,
        { ...call, context: { ...context, outcome: 'unknown' } },
        {
          message: (detail) =>
            unknownOutcomeMessage(
              transactionId,
              answer.earlierAttemptMayHaveReached && answer.status < 500 && answer.status !== 408
                ? `Provider T refused a retry of the commit (${describeReply(detail)}) after an earlier attempt may have reached it`
                : `Provider T answered the commit with ${describeReply(detail)}`,
            ),
          retryable: false,
          outcome: 'unknown',
        },
      );
    }
    throw transport.error(answer, call, { message: (detail) => refusedCommitMessage(transactionId, detail) });
  }
  try {
    return { commit: transport.read(answer, call, commitReplySchema) };
  } catch (error) {
    // A 2xx whose body we cannot read: the commit was most likely accepted, but nothing proves it.
    throw new InvalidResponseError(
      unknownOutcomeMessage(transactionId, 'Provider T answered the commit with a reply we cannot read'),
      { cause: error, context: { ...context, outcome: 'unknown' } },
    );
  }
}

/**
 * The status read after "already committed": the transfer as the provider holds it. When the read cannot show
 * it, the outcome stays unknown (never "nothing moved").
 */
async function confirmCommitted(
  transport: ProviderTTransport,
  transactionId: string,
  identity: Identity,
  options: CallOptions,
): Promise<StatusReply> {
  const context = { transactionId, step: 'commit', outcome: 'unknown' };
  let status: StatusReply | null;
  try {
    status = await findTransaction(transport, transactionId, {
      signal: options.signal,
      identity: {
        targetAudience: identity.targetAudience,
        agentPartnerId: identity.agentPartnerId,
        userLanguage: identity.userLanguage,
      },
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

/** The message of a commit refused on its only attempt: nothing can have moved. */
function refusedCommitMessage(transactionId: string, detail: Parameters<typeof describeReply>[0]): string {
  return `Provider T refused to commit transfer ${transactionId} (${describeReply(detail)}). No money moved; call create again for a new quote.`;
}

/**
 * The error of a commit that raised instead of answering. Only when the request provably never left (one
 * attempt, refused before sending, or a failed login before it) is the outcome `not_sent`; after a retry an
 * earlier attempt may have reached the provider, so everything else is `unknown`.
 */
function commitFailure(error: unknown, transactionId: string, retries: number): PayError {
  const fromLogin = PayError.isInstance(error) && error.context?.call === 'login';
  const notSent =
    retries === 0 && (fromLogin || (NetworkError.isInstance(error) && error.outcome === 'not_sent'));
  const outcome = notSent ? 'not_sent' : 'unknown';
  const context: ErrorContext = {
    ...(PayError.isInstance(error) ? error.context : {}),
    transactionId,
    step: 'commit',
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

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
