/**
 * Provider R replies → unified records (design §3), and the status and event tables of the wire contract as
 * data, so the whole mapping reads at once and tests can walk it.
 */
import type { CustomerRef, Invoice, NormalisedEventName, Payment, PaymentStatus, Refund } from '@pay/core';
import type { CreateReply, ProviderRStatus, ProviderRStatusReply } from './wire.js';

/** Provider R status → unified payment status (wire contract, "Status"). */
export const PAYMENT_STATUS = {
  PENDING: 'pending',
  PAID: 'succeeded',
  // Pre-authorised, awaiting capture (spec §3).
  AUTHORIZED: 'requires_capture',
  CANCELLED: 'canceled',
} as const satisfies Record<ProviderRStatus, PaymentStatus>;

/** Confirmed status → normalised events, in dispatch order (spec §6). The raw `providerR.<STATUS>` follows. */
export const STATUS_EVENTS = {
  PAID: ['payment.succeeded', 'invoice.generated'],
  PENDING: ['payment.created'],
  AUTHORIZED: ['payment.updated'],
  CANCELLED: ['payment.failed'],
} as const satisfies Record<ProviderRStatus, readonly NormalisedEventName[]>;

/** The payer as the provider knows it: its `payerId`, else its e-mail. */
function customerOf(reply: ProviderRStatusReply): CustomerRef {
  if (reply.payerId) return { id: reply.payerId };
  if (reply.email) return { email: reply.email };
  return null;
}

/** The provider's own descriptive fields, kept as metadata (it stores no caller metadata). */
function metadataOf(reply: ProviderRStatusReply): Record<string, string> {
  const metadata: Record<string, string> = {};
  if (reply.refId !== undefined) metadata.refId = reply.refId;
  if (reply.label !== undefined) metadata.label = reply.label;
  return metadata;
}

/** A Payment read from the status reply (retrievePayment, capture, cancel, webhook events). */
export function paymentFromStatus(reply: ProviderRStatusReply): Payment {
  return {
    provider: 'providerR',
    id: reply.transId,
    amount: reply.price,
    currency: reply.curr,
    status: PAYMENT_STATUS[reply.status],
    customer: customerOf(reply),
    // The provider stores `refId`, which is the item id unless provider_metadata.refId replaced it.
    item_id: reply.refId ?? null,
    metadata: metadataOf(reply),
    requires_action: reply.status === 'PENDING',
    payment_url: null,
    raw: reply,
  };
}

/** What `payments.create` knows besides the provider's reply. */
export interface CreatedPayment {
  amount: number;
  currency: string;
  payerId: string;
  itemId: string | undefined;
  metadata: Record<string, string> | undefined;
}

/** The Payment of a fresh `POST /v2.0/payment`: pending until the payer completes the redirect. */
export function paymentFromCreate(created: CreatedPayment, reply: CreateReply): Payment {
  return {
    provider: 'providerR',
    id: reply.transId,
    amount: created.amount,
    currency: created.currency,
    status: 'pending',
    customer: { id: created.payerId },
    item_id: created.itemId ?? null,
    metadata: created.metadata ?? {},
    requires_action: true,
    payment_url: reply.redirect,
    raw: reply,
  };
}

/** *(ours)* The Invoice of `invoice.generated` for a confirmed PAID status (wire contract, "Webhooks"). */
export function invoiceFromStatus(reply: ProviderRStatusReply, confirmedAt: number): Invoice {
  return {
    provider: 'providerR',
    id: reply.transId,
    payment_id: reply.transId,
    amount_paid: reply.price,
    currency: reply.curr,
    status: 'paid',
    paid_at: new Date(confirmedAt).toISOString(),
    customer: customerOf(reply),
    metadata: metadataOf(reply),
    raw: reply,
  };
}

/** What a refund call sent. */
export interface SentRefund {
  refId: string;
  transId: string;
  amount: number;
  currency: string;
  reason: string | undefined;
  metadata: Record<string, string> | undefined;
}

/** The Refund of an accepted `POST /v2.0/refund.json` (`code: 0` means the refund was made). */
export function refundFromReply(sent: SentRefund, reply: Record<string, unknown>): Refund {
  return {
    provider: 'providerR',
    id: sent.refId,
    payment_id: sent.transId,
    amount: sent.amount,
    currency: sent.currency,
    status: 'succeeded',
    reason: sent.reason ?? null,
    metadata: sent.metadata ?? {},
    raw: reply,
  };
}
