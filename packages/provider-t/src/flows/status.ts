/**
 * The status read every flow relies on (docs/providers/provider-t.md#status): retrieves, the amend re-read, the
 * confirmations of "already committed" and of a resumed call, and webhook `data`; and the errors flows share.
 */
import { type CallOptions, type ErrorContext, NetworkError, ProviderApiError } from '@pay/core/adapter';
import type { ProviderTClient } from '../client.js';
import { PROVIDER, type ProviderTIdentity } from '../config.js';
import { describeRefusal, type Refusal, type Replied } from '../envelope.js';
import { statusRequest } from '../requests.js';
import { type StatusReply, statusReplySchema } from '../wire.js';

/**
 * Reads a transaction's status through core's `findReplied`; `null` when Provider T does not know it (400 code 697,
 * or its envelope with HTTP 404: `PROVIDER_T_ERRORS`). `where` names the identity and the error context.
 */
export function findTransaction(
  client: ProviderTClient,
  transactionId: string,
  options: CallOptions,
  where: { identity?: ProviderTIdentity; context?: ErrorContext } = {},
): Promise<Replied<StatusReply> | null> {
  const identity = where.identity ?? client.config.identity;
  const context = where.context ?? { transactionId, step: 'status' };
  return client.findReplied(statusReplySchema, statusRequest(transactionId, identity, { context }), options);
}

/**
 * The status read that settles a call that may have moved money: `context` gains `outcome: 'unknown'`, and a read
 * that fails is a `NetworkError` with that outcome, worded by `failed` (never "nothing moved").
 */
export async function readInDoubt(
  client: ProviderTClient,
  transactionId: string,
  where: { identity: ProviderTIdentity; context: ErrorContext },
  options: CallOptions,
  failed: (reason: string) => string,
): Promise<Replied<StatusReply> | null> {
  const context = { ...where.context, outcome: 'unknown' };
  try {
    return await findTransaction(client, transactionId, options, { identity: where.identity, context });
  } catch (error) {
    throw new NetworkError(failed(errorText(error)), { outcome: 'unknown', cause: error, context });
  }
}

/** An error of a reply that does not allow the next step (a 200 unless `reply.status` says otherwise); not retryable. */
export function stepRefused(
  providerCode: string,
  message: string,
  context: ErrorContext | undefined,
  reply: { status?: number; requestId?: string; outcome?: 'unknown' } = {},
): ProviderApiError {
  const { status = 200, requestId, outcome } = reply;
  return new ProviderApiError(
    { provider: PROVIDER, status, providerCode, requestId, message, retryable: false },
    { context, outcome },
  );
}

/** The message of a refused read before an amendment or a refund. */
export function unreadable(transactionId: string, what: string, refusal: Refusal): string {
  return refusal.rule?.notFound && refusal.reply.status < 500
    ? `Provider T does not know transfer ${transactionId} (${describeRefusal(refusal)}); nothing was changed. Check the id (the transactionId of createPayment/createCheckout).`
    : `Provider T refused the ${what} read of transfer ${transactionId} (${describeRefusal(refusal)}); nothing was changed.`;
}

/** An unknown transaction where an existing transfer is required (update): an error, unlike retrieve's `null`. */
export function unknownTransaction(transactionId: string, step: string): ProviderApiError {
  return stepRefused(
    'TRANSACTION_NOT_FOUND',
    `Provider T does not know transfer ${transactionId}. Check the id (it is the transactionId of createPayment/createCheckout).`,
    { transactionId, step },
    { status: 404 },
  );
}

/** The text of any thrown value, for messages. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
