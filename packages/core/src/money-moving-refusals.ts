/**
 * Refusals of calls that move money (docs/architecture.md#outcomes), for adapters that read refusals themselves
 * (core's provider client covers the earlier-attempt case for `request`).
 */
import type { ErrorContext, ProviderApiError } from './errors.js';
import type { HttpReply } from './http/index.js';

/** What the adapter knows about a refusal beyond its HTTP answer. */
export interface MoneyMovingRefusalFacts {
  /** A provider-specific sign that the call may have been processed (a "duplicate reference" refusal, …). */
  mayHaveLanded?: boolean;
  /** What the call may have been processed as, for the message (e.g. `transaction 7Q2K`). */
  processedAs?: string | undefined;
  /** Replaces the error's context on an unknown outcome (e.g. to add the named transaction's id). */
  context?: ErrorContext | undefined;
}

/**
 * Whether a refused call that moves money may still have gone through (docs/architecture.md#outcomes): an earlier
 * attempt may have reached the provider, the answer is a 5xx or a 408 (a gateway can send those after the provider
 * processed the call), or the provider gave its own sign (`providerSign`). When true the caller must reconcile,
 * never repeat.
 */
export function refusalMayHaveLanded(
  reply: Pick<HttpReply, 'status' | 'earlierAttemptMayHaveReached'>,
  providerSign = false,
): boolean {
  return reply.earlierAttemptMayHaveReached || reply.status >= 500 || reply.status === 408 || providerSign;
}

/**
 * The error to throw for a refused call that moves money: `error` itself when the refusal proves that nothing
 * happened, otherwise the same answer with `outcome: 'unknown'`, so the caller looks it up instead of paying twice.
 */
export function moneyMovingRefusal(
  error: ProviderApiError,
  reply: Pick<HttpReply, 'earlierAttemptMayHaveReached'>,
  facts: MoneyMovingRefusalFacts = {},
): ProviderApiError {
  const answer = { status: error.status, earlierAttemptMayHaveReached: reply.earlierAttemptMayHaveReached };
  if (!refusalMayHaveLanded(answer, facts.mayHaveLanded === true)) return error;
  const code = error.providerCode ? ` (code ${error.providerCode})` : '';
  const as = facts.processedAs ? ` as ${facts.processedAs}` : '';
  return error.withDetails({
    message: `${error.provider} answered HTTP ${error.status}${code} to a call that moves money, and the call (or an earlier attempt of it) may have been processed${as}.`,
    outcome: 'unknown',
    ...(facts.context ? { context: facts.context } : {}),
  });
}
