/** The status read (wire contract "Status"): retrievePayment, retrieveCheckout, the amend re-read and webhook `data`. */
import { type CallOptions, type ErrorContext, ProviderApiError, path } from '@pay/core';
import type { ProviderTIdentity } from './config.js';
import {
  describeReply,
  isUnknownTransaction,
  PROVIDER,
  type ProviderErrorDetail,
  type ProviderTTransport,
} from './transport.js';
import { type StatusReply, statusReplySchema } from './wire.js';

/** Reads a transaction's status; `null` when Provider T does not know it (400 code 697, or 404). */
export async function findTransaction(
  transport: ProviderTTransport,
  transactionId: string,
  options: CallOptions & { identity?: ProviderTIdentity; context?: ErrorContext },
): Promise<StatusReply | null> {
  const call = {
    call: 'GET /status/v1/transactions/{transactionId}',
    method: 'GET' as const,
    path: path`/status/v1/transactions/${transactionId}`,
    query: { ...(options.identity ?? transport.config.identity) },
    retrySafe: true,
    signal: options.signal,
    context: options.context ?? { transactionId, step: 'status' },
  };
  const reply = await transport.send(call);
  if (reply.status < 200 || reply.status >= 300) {
    if (isUnknownTransaction(transport.detail(reply))) return null;
    throw transport.error(reply, call);
  }
  return transport.read(reply, call, statusReplySchema);
}

/** The message of a refused read before an amendment or a refund. */
export function unreadable(transactionId: string, what: string, detail: ProviderErrorDetail): string {
  return isUnknownTransaction(detail)
    ? `Provider T does not know transfer ${transactionId} (${describeReply(detail)}); nothing was changed. Check the id (the transactionId of createPayment/createCheckout).`
    : `Provider T refused the ${what} read of transfer ${transactionId} (${describeReply(detail)}); nothing was changed.`;
}

/** An unknown transaction where an existing transfer is required (update): an error, unlike retrieve's `null`. */
export function unknownTransaction(transactionId: string, step: string): ProviderApiError {
  return new ProviderApiError(
    {
      provider: PROVIDER,
      status: 404,
      providerCode: 'TRANSACTION_NOT_FOUND',
      message: `Provider T does not know transfer ${transactionId}. Check the id (it is the transactionId of createPayment/createCheckout).`,
      retryable: false,
    },
    { context: { transactionId, step } },
  );
}
