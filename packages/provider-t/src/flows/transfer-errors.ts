/**
 * The transfer's error policy (docs/architecture.md#outcomes): before the commit, the step's context and "no money
 * moved"; a commit that raised or was refused is `outcome: 'unknown'` whenever it may have landed, and the status
 * reads that settle a commit in doubt never turn "unknown" into "nothing moved".
 */
import {
  type ErrorContext,
  InvalidResponseError,
  NetworkError,
  type OperationContext,
  PayError,
  ProviderApiError,
  refusalMayHaveLanded,
} from '@pay/core/adapter';
import type * as v from '@pay/core/schema';
import type { TransferPlan } from '../checks.js';
import { ALREADY_COMMITTED_CODE, type ProviderTClient } from '../client.js';
import {
  describeRefusal,
  type ProviderCall,
  type ProviderOutcome,
  type Refusal,
  type Replied,
  readBody,
} from '../envelope.js';
import type { StatusReply } from '../wire.js';
import { errorText, readInDoubt, stepRefused } from './status.js';

/**
 * A quote or update call: a refusal is a `ProviderApiError` naming the offending fields, and any other
 * failure keeps its class but gains the step's context and says that no money moved.
 */
export async function stepCall<S extends v.GenericSchema>(
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
    const named = outcome.error.context?.offendingFields;
    const fields = Array.isArray(named) ? named.filter((field) => typeof field === 'string') : [];
    const invalid = fields.length > 0 ? ` Incomplete or invalid: ${fields.join(', ')}.` : '';
    throw outcome.error.withDetails({
      message: `Provider T refused ${what} (${describeRefusal(outcome)}).${invalid} ${advice}`,
    });
  }
  try {
    return readBody(schema, outcome.body, call);
  } catch (error) {
    throw withStepContext(error, context, `${what} answered with a reply we cannot read`, advice);
  }
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

/**
 * The status read of a resumed transfer whose commit may have been sent: the transfer when committed, `null` when
 * Provider T knows no committed transfer with the id, an error when it was rejected.
 */
export async function readResumedTransfer(
  client: ProviderTClient,
  plan: TransferPlan,
  transactionId: string,
  options: OperationContext,
): Promise<Replied<StatusReply> | null> {
  const context = { transactionId, step: 'commit', resumedFrom: 'commit_sent' };
  const status = await readInDoubt(
    client,
    transactionId,
    { identity: plan.identity, context },
    options,
    (reason) =>
      unknownOutcomeMessage(
        transactionId,
        `An earlier attempt with this idempotency key may have committed transfer ${transactionId}, and its status could not be read (${reason})`,
      ),
  );
  if (status?.body.transactionStatus === 'REJECTED') {
    // Committed under the key, then rejected: not sent again, the caller decides.
    throw stepRefused(
      'TRANSACTION_REJECTED',
      `Transfer ${transactionId}, committed by an earlier attempt with this idempotency key, was REJECTED by Provider T. It is not sent again under this key; retrievePayment('${transactionId}') shows it (status 'failed'). To send the money, call create with a new idempotency key.`,
      { ...context, transactionStatus: 'REJECTED' },
    );
  }
  return status;
}

/** The status read after "already committed": the transfer as the provider holds it, else an unknown outcome. */
export async function confirmCommitted(
  client: ProviderTClient,
  plan: TransferPlan,
  transactionId: string,
  options: OperationContext,
): Promise<Replied<StatusReply>> {
  const context = { transactionId, step: 'commit' };
  const said = `Provider T says transfer ${transactionId} is already committed, but its status`;
  const status = await readInDoubt(
    client,
    transactionId,
    { identity: plan.identity, context },
    options,
    (reason) => unknownOutcomeMessage(transactionId, `${said} could not be read (${reason})`),
  );
  if (status) return status;
  throw stepRefused(
    ALREADY_COMMITTED_CODE,
    unknownOutcomeMessage(transactionId, `${said} read does not show it yet`),
    { ...context, outcome: 'unknown' },
    { outcome: 'unknown' },
  );
}

/**
 * The error of a commit Provider T refused (not "already committed"): `outcome: 'unknown'` when the refusal proves
 * nothing about whether the money moved, else "no money moved" (docs/architecture.md#outcomes).
 */
export function commitRefusal(outcome: Refusal, transactionId: string, resumed: boolean): ProviderApiError {
  const { reply } = outcome;
  // Core's one rule (a 5xx or 408, an earlier attempt that may have landed), with Provider T's own sign: a
  // resumed call whose request id an earlier process may have sent. A refusal of a retry (409 in progress, 400
  // quote expired) proves nothing about an earlier attempt: only a status read can tell.
  if (refusalMayHaveLanded(reply, resumed)) {
    const retryRefused =
      (reply.earlierAttemptMayHaveReached || resumed) && reply.status < 500 && reply.status !== 408;
    return outcome.error.withDetails({
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
  return outcome.error.withDetails({
    message: `Provider T refused to commit transfer ${transactionId} (${describeRefusal(outcome)}). No money moved; call create again for a new quote.`,
  });
}

/**
 * The error of a commit that raised instead of answering: `not_sent` only when the request provably never left
 * (one attempt, refused before sending, or a failed login before it), else `unknown`.
 */
export function commitFailure(
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

/** The message of a commit that may or may not have moved the money. */
export function unknownOutcomeMessage(transactionId: string, what: string): string {
  return (
    `${what}, so the outcome of transfer ${transactionId} is unknown: the money may have moved. ` +
    `Do not send it again: call retrievePayment('${transactionId}') to see whether it was committed ` +
    '(a Payment means it was; null means it was not).'
  );
}
