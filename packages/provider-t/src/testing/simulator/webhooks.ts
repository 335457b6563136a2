/**
 * Signed webhook delivery from the Provider T simulator (wire contract "Webhooks (inbound)"): a
 * `TRANSACTION_STATUS_EVENT` for a transfer, signed over `"<t>.<host>.<raw body>"` with the simulator's key.
 */
import { providerTStatusEvent, signProviderTWebhook } from '../signing.js';
import type { ProviderTBooks } from './state.js';
import type { DeliverWebhookOptions } from './types.js';

/** What a delivery is signed with and stamped by. */
export interface DeliverySigner {
  books: ProviderTBooks;
  agentPartnerId: string;
  privateKey: string;
}

/** The body and `Signature` header of a status event for `options.transactionId`, addressed to `url`. */
export function signedStatusEvent(
  signer: DeliverySigner,
  url: string,
  options: DeliverWebhookOptions,
): { body: string; signature: string } {
  const { books } = signer;
  const transfer = books.transfers.get(options.transactionId);
  const event = providerTStatusEvent({
    transactionId: options.transactionId,
    transactionStatus: options.status ?? transfer?.status ?? 'SENT',
    eventId: options.eventId,
    eventDate: new Date(books.now()),
    agentPartnerId: signer.agentPartnerId,
    referenceNumber: transfer?.referenceNumber,
  });
  const body = JSON.stringify(event);
  const signature = signProviderTWebhook({
    body,
    host: options.host ?? new URL(url).host,
    privateKey: options.privateKey ?? signer.privateKey,
    timestamp: options.timestamp ?? Math.floor(books.now() / 1000),
  });
  return { body, signature };
}

/** POSTs a signed status event to `url`; resolves with the reply's status and body. */
export async function deliverStatusEvent(
  signer: DeliverySigner,
  url: string,
  options: DeliverWebhookOptions,
): Promise<{ status: number; body: string }> {
  const { body, signature } = signedStatusEvent(signer, url, options);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', Signature: signature },
    body,
  });
  return { status: response.status, body: await response.text() };
}
