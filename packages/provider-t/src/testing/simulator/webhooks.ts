/**
 * Signed webhooks from the Provider T simulator (docs/providers/provider-t.md#webhooks): a
 * `TRANSACTION_STATUS_EVENT` for a transfer, signed over `"<t>.<host>.<raw body>"` with the simulator's key, sent
 * once (`deliverWebhook`, `trigger`) or forwarded on every status change through the kit's forwarder.
 */
import type { OutgoingWebhook, WebhookForwarder } from '@pay/core/testing';
import { providerTStatusEvent, signProviderTWebhook } from '../signing.js';
import type { ProviderTBooks } from './state.js';
import type { DeliverWebhookOptions } from './types.js';

/** What a delivery is signed with and stamped by. */
export interface DeliverySigner {
  books: ProviderTBooks;
  agentPartnerId: string;
  privateKey: string;
}

/**
 * The status a normalised event name stands for (docs/providers/provider-t.md#webhooks, events table read backwards):
 * `trigger('payment.failed')` pushes `REJECTED`. A Provider T status (`AVAILABLE`, `IN TRANSIT`…) stands for
 * itself.
 */
export const TRIGGER_STATUSES: ReadonlyMap<string, string> = new Map([
  ['payment.created', 'UNFUNDED'],
  ['payment.succeeded', 'SENT'],
  ['payment.updated', 'RECEIVED'],
  ['payment.failed', 'REJECTED'],
  ['refund.created', 'REFUNDED'],
  ['providerT.TRANSACTION_STATUS_EVENT', 'SENT'],
]);

/**
 * A signed status event for `options.transactionId` addressed to `url`, as the kit's forwarder sends it (the
 * `Signature` header binds the URL's host, so it is signed for one URL).
 */
export function signedStatusEvent(
  signer: DeliverySigner,
  url: string,
  options: DeliverWebhookOptions,
): OutgoingWebhook {
  const { books } = signer;
  const transfer = books.transfers.get(options.transactionId);
  const transactionStatus = options.status ?? transfer?.status ?? 'SENT';
  const event = providerTStatusEvent({
    transactionId: options.transactionId,
    transactionStatus,
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
  return { event: `TRANSACTION_STATUS_EVENT ${transactionStatus}`, body, headers: { signature } };
}

/**
 * Queues the status event of a transfer that just moved for the forwarding URL, when one is set (signed at
 * once, for that URL, with the status of this move).
 */
export function forwardStatus(
  signer: DeliverySigner,
  forwarder: WebhookForwarder,
  transactionId: string,
  status: string,
): void {
  const url = forwarder.url;
  if (url === null) return;
  forwarder.enqueue(signedStatusEvent(signer, url, { transactionId, status }));
}

/** POSTs one signed status event to `url` (outside the forwarding queue); resolves with the reply. */
export function sendStatusEvent(
  signer: DeliverySigner,
  forwarder: WebhookForwarder,
  url: string,
  options: DeliverWebhookOptions,
): Promise<{ status: number; body: string }> {
  return forwarder.send(url, signedStatusEvent(signer, url, options));
}
