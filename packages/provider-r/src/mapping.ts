/**
 * Provider R replies → unified records (design §3), and the status and event tables of the wire contract as
 * data, so the whole mapping reads at once and tests can walk it. The tables are read through `Map`s: a status
 * named like an `Object.prototype` member (`constructor`, `__proto__`) is an unknown status, never a crash.
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

/**
 * The unified status of a status the wire contract does not list (issue 12 rule): `processing` claims neither
 * success nor failure, and asks nothing of the payer; the raw `providerR.<STATUS>` event carries the value.
 */
export const UNKNOWN_STATUS_PAYMENT_STATUS: PaymentStatus = 'processing';

/** Confirmed status → normalised events, in dispatch order (spec §6). The raw `providerR.<STATUS>` follows. */
export const STATUS_EVENTS = {
  PAID: ['payment.succeeded', 'invoice.generated'],
  PENDING: ['payment.created'],
  AUTHORIZED: ['payment.updated'],
  CANCELLED: ['payment.failed'],
} as const satisfies Record<ProviderRStatus, readonly NormalisedEventName[]>;

/** *(ours)* The events of a confirmed status the wire contract does not list: "something changed, read the status". */
export const UNKNOWN_STATUS_EVENTS: readonly NormalisedEventName[] = ['payment.updated'];

const paymentStatuses: ReadonlyMap<string, PaymentStatus> = new Map(Object.entries(PAYMENT_STATUS));
const statusEvents: ReadonlyMap<string, readonly NormalisedEventName[]> = new Map(
  Object.entries(STATUS_EVENTS),
);

/** The unified status of a provider status, known or not. */
export function paymentStatusOf(status: string): PaymentStatus {
  return paymentStatuses.get(status) ?? UNKNOWN_STATUS_PAYMENT_STATUS;
}

/** The normalised events of a confirmed provider status, known or not, in dispatch order. */
export function eventTypesOf(status: string): readonly NormalisedEventName[] {
  return statusEvents.get(status) ?? UNKNOWN_STATUS_EVENTS;
}

/**
 * What the payer has paid so far, in minor units: the whole price once the provider says `PAID`, nothing while
 * the payment is pending, pre-authorised (money reserved, not paid) or cancelled; `null` for a status the
 * wire contract does not define, since then the provider does not say.
 */
export function amountPaidOf(reply: ProviderRStatusReply): number | null {
  if (reply.status === 'PAID') return reply.price;
  return paymentStatuses.has(reply.status) ? 0 : null;
}

/**
 * `livemode` of a record read from the provider: its own `test` flag when it sends one (it always does in
 * published replies), else the mode the adapter is configured for.
 */
export function livemodeOf(reply: ProviderRStatusReply, isSandbox: boolean): boolean {
  return reply.test === undefined ? !isSandbox : !reply.test;
}

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
export function paymentFromStatus(reply: ProviderRStatusReply, isSandbox: boolean): Payment {
  return {
    provider: 'providerR',
    id: reply.transId,
    amount: reply.price,
    amount_paid: amountPaidOf(reply),
    currency: reply.curr,
    status: paymentStatusOf(reply.status),
    customer: customerOf(reply),
    // The provider stores `refId`, which is the item id unless provider_metadata.refId replaced it.
    item_id: reply.refId ?? null,
    metadata: metadataOf(reply),
    requires_action: reply.status === 'PENDING',
    payment_url: null,
    livemode: livemodeOf(reply, isSandbox),
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
  /** The `test` flag sent: the payment is live when it is false. */
  test: boolean;
}

/** The Payment of a fresh `POST /v2.0/payment`: pending until the payer completes the redirect. */
export function paymentFromCreate(created: CreatedPayment, reply: CreateReply): Payment {
  return {
    provider: 'providerR',
    id: reply.transId,
    amount: created.amount,
    // Just created: the payer has paid nothing yet.
    amount_paid: 0,
    currency: created.currency,
    status: 'pending',
    customer: { id: created.payerId },
    item_id: created.itemId ?? null,
    metadata: created.metadata ?? {},
    requires_action: true,
    payment_url: reply.redirect,
    livemode: !created.test,
    raw: reply,
  };
}

/** *(ours)* The Invoice of `invoice.generated` for a confirmed PAID status (wire contract, "Webhooks"). */
export function invoiceFromStatus(
  reply: ProviderRStatusReply,
  confirmedAt: number,
  isSandbox: boolean,
): Invoice {
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
    livemode: livemodeOf(reply, isSandbox),
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
  /** The `test` flag sent with the refund. */
  test: boolean;
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
    livemode: !sent.test,
    raw: reply,
  };
}
