/**
 * Provider R replies → unified records (docs/architecture.md#records) in the standard unit, and the status tables
 * (docs/providers/provider-r.md#events), read through `Map`s: a status named like an `Object.prototype` member is
 * unknown.
 */
import {
  type Checkout,
  type CheckoutCreateParams,
  type CustomerRef,
  type Invoice,
  type NormalisedEventName,
  type Payment,
  type PaymentCreateParams,
  type PaymentStatus,
  type Refund,
  toMajorUnits,
} from '@pay/core/adapter';
import type { CheckoutBody, PaymentBody, RefundSent } from './requests.js';
import type { CreateReply, ProviderRStatus, ProviderRStatusReply } from './wire.js';

/** Provider R status → unified payment status (docs/providers/provider-r.md#status). */
export const PAYMENT_STATUS = {
  PENDING: 'pending',
  PAID: 'succeeded',
  // Pre-authorised, awaiting capture (docs/architecture.md#provider-flows).
  AUTHORIZED: 'requires_capture',
  CANCELLED: 'canceled',
} as const satisfies Record<ProviderRStatus, PaymentStatus>;

/** Confirmed status → normalised events, in dispatch order (docs/architecture.md#event-names). The raw `providerR.<STATUS>` follows. */
export const STATUS_EVENTS = {
  PAID: ['payment.succeeded', 'invoice.generated'],
  PENDING: ['payment.created'],
  AUTHORIZED: ['payment.updated'],
  CANCELLED: ['payment.failed'],
} as const satisfies Record<ProviderRStatus, readonly NormalisedEventName[]>;

/** *(ours)* The events of a confirmed status the wire contract (docs/providers/provider-r.md#events) does not list: "something changed, read the status". */
export const UNKNOWN_STATUS_EVENTS = ['payment.updated'] as const satisfies readonly NormalisedEventName[];

const paymentStatuses: ReadonlyMap<string, PaymentStatus> = new Map(Object.entries(PAYMENT_STATUS));
const statusEvents: ReadonlyMap<string, readonly NormalisedEventName[]> = new Map(
  Object.entries(STATUS_EVENTS),
);

/** The normalised events of a confirmed provider status, known or not, in dispatch order. */
export function eventTypesOf(status: string): readonly NormalisedEventName[] {
  return statusEvents.get(status) ?? UNKNOWN_STATUS_EVENTS;
}

/**
 * `livemode` of a record read from the provider: its own `test` flag when it sends one, else the configured mode.
 */
const livemodeOf = (reply: ProviderRStatusReply, isSandbox: boolean) =>
  reply.test === undefined ? !isSandbox : !reply.test;

/** The payer as the provider knows it: its `payerId`, else its e-mail. */
const customerOf = (reply: ProviderRStatusReply): CustomerRef =>
  reply.payerId ? { id: reply.payerId } : reply.email ? { email: reply.email } : null;

/** The provider's own descriptive fields, kept as metadata (it stores no caller metadata). */
const metadataOf = ({ refId, label }: ProviderRStatusReply): Record<string, string> => ({
  ...(refId === undefined ? {} : { refId }),
  ...(label === undefined ? {} : { label }),
});

/** A Payment read from the status reply; `requestId` is the request id of the call that produced it. */
export function toPayment(
  reply: ProviderRStatusReply,
  isSandbox: boolean,
  requestId: string | null,
): Payment {
  const amount = toMajorUnits(reply.price, reply.curr);
  return {
    provider: 'providerR',
    id: reply.transId,
    amount,
    // The whole price once `PAID`, else nothing; `null` for an unlisted status
    // (docs/providers/provider-r.md#status).
    amount_paid: reply.status === 'PAID' ? amount : paymentStatuses.has(reply.status) ? 0 : null,
    currency: reply.curr,
    // An unlisted status is `processing` (docs/architecture.md#lenient-reading): neither success nor failure.
    status: paymentStatuses.get(reply.status) ?? 'processing',
    customer: customerOf(reply),
    // The provider stores `refId`, which is the item id unless provider_metadata.refId replaced it.
    item_id: reply.refId ?? null,
    metadata: metadataOf(reply),
    requires_action: reply.status === 'PENDING',
    payment_url: null,
    livemode: livemodeOf(reply, isSandbox),
    request_id: requestId,
    raw: reply,
  };
}

/** The Payment of a fresh `POST /v2.0/payment`: pending until the payer completes the redirect. */
export function toCreatedPayment(
  body: PaymentBody,
  params: Pick<PaymentCreateParams, 'item_id' | 'metadata'>,
  reply: CreateReply,
  requestId: string,
): Payment {
  return {
    provider: 'providerR',
    id: reply.transId,
    amount: toMajorUnits(body.price, body.curr),
    amount_paid: 0,
    currency: body.curr,
    status: 'pending',
    customer: { id: body.payerId },
    item_id: params.item_id ?? null,
    metadata: params.metadata ?? {},
    requires_action: true,
    payment_url: reply.redirect,
    livemode: !body.test,
    request_id: requestId,
    raw: reply,
  };
}

/**
 * *(ours)* The Checkout a keyed `checkouts.create` opened (docs/providers/provider-r.md#create-checkout): the call
 * itself resolves to `null` (the spec), so this record is what `pay.resolve(key)` answers.
 */
export function toCheckout(
  body: CheckoutBody,
  params: Pick<CheckoutCreateParams, 'item_id' | 'quantity' | 'metadata'>,
  reply: CreateReply,
  requestId: string,
): Checkout {
  return {
    provider: 'providerR',
    id: reply.transId,
    payment_url: reply.redirect,
    amount: toMajorUnits(body.price, body.curr),
    currency: body.curr,
    customer: { email: body.email },
    session_type: 'one_time',
    products: params.item_id === undefined ? [] : [{ id: params.item_id, quantity: params.quantity ?? 1 }],
    // docs/providers/provider-r.md#create-checkout states no lifetime for the redirect.
    expires_at: null,
    metadata: params.metadata ?? {},
    livemode: !body.test,
    request_id: requestId,
    raw: reply,
  };
}

/** *(ours)* The Invoice of `invoice.generated` for a confirmed PAID status (docs/providers/provider-r.md#webhooks). */
export function toInvoice(
  reply: ProviderRStatusReply,
  confirmedAt: number,
  isSandbox: boolean,
  requestId: string | null,
): Invoice {
  return {
    provider: 'providerR',
    id: reply.transId,
    payment_id: reply.transId,
    amount_paid: toMajorUnits(reply.price, reply.curr),
    currency: reply.curr,
    status: 'paid',
    paid_at: new Date(confirmedAt).toISOString(),
    customer: customerOf(reply),
    metadata: metadataOf(reply),
    livemode: livemodeOf(reply, isSandbox),
    request_id: requestId,
    raw: reply,
  };
}

/** The Refund of an accepted `POST /v2.0/refund.json` (`code: 0` means the refund was made). */
export function toRefund(
  sent: RefundSent & { reason: string | undefined; metadata: Record<string, string> | undefined },
  reply: Record<string, unknown>,
  requestId: string,
): Refund {
  return {
    provider: 'providerR',
    id: sent.refId,
    payment_id: sent.transId,
    amount: toMajorUnits(sent.price, sent.currency),
    currency: sent.currency,
    status: 'succeeded',
    reason: sent.reason ?? null,
    metadata: sent.metadata ?? {},
    livemode: !sent.test,
    request_id: requestId,
    raw: reply,
  };
}
