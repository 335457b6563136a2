/** The status read (wire contract "Status"): retrievePayment, retrieveCheckout, the amend re-read and webhook `data`. */
import { type CallOptions, type ErrorContext, path } from '@pay/core';
import type { ProviderTIdentity } from './config.js';
import type { ProviderTTransport } from './transport.js';
import { type StatusReply, statusReplySchema } from './wire.js';

/** Reads a transaction's status; `null` when Provider T does not know it (404). */
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
  if (reply.status === 404) return null;
  if (reply.status < 200 || reply.status >= 300) throw transport.error(reply, call);
  return transport.read(reply, call, statusReplySchema);
}
