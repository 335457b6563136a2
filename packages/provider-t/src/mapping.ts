/**
 * Provider T replies → unified records (design §3). The status and event mappings are tables (wire contract
 * "Status" and "Webhooks"), so the whole mapping reads at once and tests can walk it.
 */
import {
  type Checkout,
  decimalText,
  type NormalisedEventName,
  type Payment,
  type PaymentStatus,
  type Refund,
} from '@pay/core';
import type { TransferPlan } from './input.js';
import { PROVIDER } from './transport.js';
import {
  type CommitReply,
  isKnownStatus,
  type StatusReply,
  type TransactionStatus,
  type UpdateReply,
  type WireMoney,
} from './wire.js';

/** Transaction state → unified payment status (wire contract "Status"). */
export const PAYMENT_STATUS = {
  UNFUNDED: 'requires_action',
  PROCESSING: 'processing',
  SENT: 'succeeded',
  AVAILABLE: 'succeeded',
  'IN TRANSIT': 'succeeded',
  RECEIVED: 'succeeded',
  DELIVERED: 'succeeded',
  REJECTED: 'failed',
  REFUNDED: 'canceled',
  CLOSED: 'canceled',
} as const satisfies Record<TransactionStatus, PaymentStatus>;

/**
 * What a transfer in each state tells about `Payment.amount_paid`: the sender has paid the send amount
 * (`send_amount`), nothing yet (`nothing`: an unfunded transfer waits for the sender's funds), or the state does
 * not say (`unknown`: processing, rejected or closed transfers may or may not hold the sender's money).
 */
export const AMOUNT_PAID = {
  UNFUNDED: 'nothing',
  PROCESSING: 'unknown',
  SENT: 'send_amount',
  AVAILABLE: 'send_amount',
  'IN TRANSIT': 'send_amount',
  RECEIVED: 'send_amount',
  DELIVERED: 'send_amount',
  REJECTED: 'unknown',
  // Paid, then refunded: the refund is its own record (refund.created).
  REFUNDED: 'send_amount',
  CLOSED: 'unknown',
} as const satisfies Record<TransactionStatus, 'send_amount' | 'nothing' | 'unknown'>;

/**
 * The unified status of a state, read from the table with an own-property check. A state the wire contract does
 * not list (a new one, or a name like `constructor`) is `processing`: neither paid nor failed, so nobody ships
 * goods or gives up on it; the provider's word stays in `metadata.transactionStatus` (issue 12).
 */
export function paymentStatusOf(transactionStatus: string): PaymentStatus {
  return isKnownStatus(transactionStatus) ? PAYMENT_STATUS[transactionStatus] : 'processing';
}

/** The normalised event a confirmed state raises; `payment.updated` for a state the table does not list. */
export function eventTypeOf(transactionStatus: string): NormalisedEventName {
  return isKnownStatus(transactionStatus) ? STATUS_EVENTS[transactionStatus] : 'payment.updated';
}

/** `Payment.amount_paid` of a transfer in `transactionStatus`; `null` when the state does not say. */
function amountPaidOf(transactionStatus: string, amount: number): number | null {
  if (!isKnownStatus(transactionStatus)) return null;
  const paid = AMOUNT_PAID[transactionStatus];
  if (paid === 'send_amount') return amount;
  return paid === 'nothing' ? 0 : null;
}

/** Transaction state confirmed by the status read → the normalised event it raises (wire contract "Webhooks"). */
export const STATUS_EVENTS = {
  UNFUNDED: 'payment.created',
  SENT: 'payment.succeeded',
  AVAILABLE: 'payment.updated',
  'IN TRANSIT': 'payment.updated',
  RECEIVED: 'payment.updated',
  DELIVERED: 'payment.updated',
  PROCESSING: 'payment.updated',
  CLOSED: 'payment.updated',
  REJECTED: 'payment.failed',
  REFUNDED: 'refund.created',
} as const satisfies Record<TransactionStatus, NormalisedEventName>;

/**
 * Metadata keys the records fill with the provider's facts about a transfer. A caller's `metadata` or
 * `additionalDetails` key of the same name would be overwritten in the record while the provider stores the
 * caller's value, so such keys are refused before the quote (issue 11 §3).
 */
export const METADATA_FACT_KEYS = [
  'transactionStatus',
  'referenceNumber',
  'expectedPayoutDate',
  'destinationCountryCode',
  'serviceOptionCode',
  'serviceOptionName',
  'receiptUrl',
  'fees',
  'total',
  'receiveAmount',
  'receiveCurrency',
  'fxRate',
  'refundReasonCode',
] as const;

/** How long a Checkout's receipt link works (spec §8). */
export const RECEIPT_LINK_LIFETIME_MS = 5 * 60 * 1000;

type Breakdown = {
  amount: WireMoney;
  fees?: { value?: number | undefined };
  total?: { value?: number | undefined };
};
type Receive = {
  amount?: { value?: number | undefined; currencyCode?: string | undefined };
  fxRate?: number | undefined;
};

/** Fees, totals and FX of a transfer as metadata strings (the record has no fields for them). */
function amountFacts(send: Breakdown, receive: Receive | undefined): Record<string, string> {
  return compact({
    fees: send.fees?.value === undefined ? undefined : decimalText(send.fees.value),
    total: send.total?.value === undefined ? undefined : decimalText(send.total.value),
    receiveAmount: receive?.amount?.value === undefined ? undefined : decimalText(receive.amount.value),
    receiveCurrency: receive?.amount?.currencyCode,
    fxRate: receive?.fxRate === undefined ? undefined : decimalText(receive.fxRate),
  });
}

function compact(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** String-valued `additionalDetails` (the caller's metadata round-trips through them). */
function detailsOf(details: Record<string, unknown> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(details ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** Metadata of a committed transfer: the caller's metadata, then the provider's facts about it. */
function transferMetadata(
  plan: TransferPlan,
  update: UpdateReply,
  commit: CommitReply,
): Record<string, string> {
  return {
    ...plan.additionalDetails,
    ...compact({
      referenceNumber: commit.referenceNumber,
      expectedPayoutDate: commit.expectedPayoutDate,
      serviceOptionCode: update.serviceOptionCode,
      serviceOptionName: update.serviceOptionName,
      receiptUrl: commit.commitReceipt?.consumerHyperLink,
    }),
    ...amountFacts(update.sendAmount, update.receiveAmount),
  };
}

/**
 * The Payment of a committed transfer, built from the update and commit replies with no further call (wire
 * contract, ours): committed means sent, so the status is `succeeded`.
 */
export function transferPayment(
  transactionId: string,
  plan: TransferPlan,
  update: UpdateReply,
  commit: CommitReply,
  livemode: boolean,
): Payment {
  return {
    provider: PROVIDER,
    id: transactionId,
    amount: update.sendAmount.amount.value,
    // Committed means the sender's money was taken for the send amount.
    amount_paid: update.sendAmount.amount.value,
    currency: update.sendAmount.amount.currencyCode,
    status: 'succeeded',
    livemode,
    customer: plan.customer,
    item_id: plan.itemId,
    metadata: transferMetadata(plan, update, commit),
    requires_action: false,
    // The receipt link is not a payment page; it is in metadata.receiptUrl.
    payment_url: null,
    raw: { update, commit },
  };
}

/**
 * The Checkout of a committed transfer: `payment_url` is the receipt link, valid 5 minutes (spec §2, §8). The
 * transfer is already committed: it is a receipt, not a payment redirect.
 */
export function transferCheckout(
  transactionId: string,
  plan: TransferPlan,
  update: UpdateReply,
  commit: CommitReply,
  now: number,
  livemode: boolean,
): Checkout {
  const receipt = commit.commitReceipt?.consumerHyperLink ?? null;
  return {
    provider: PROVIDER,
    id: transactionId,
    livemode,
    payment_url: receipt,
    amount: update.sendAmount.amount.value,
    currency: update.sendAmount.amount.currencyCode,
    customer: plan.customer,
    session_type: 'one_time',
    products: plan.itemId ? [{ id: plan.itemId, quantity: plan.quantity }] : [],
    metadata: transferMetadata(plan, update, commit),
    expires_at: receipt ? new Date(now + RECEIPT_LINK_LIFETIME_MS).toISOString() : null,
    raw: { update, commit },
  };
}

/**
 * The Payment of a transfer whose commit was answered "already committed" (an earlier attempt went through):
 * built from the status read that confirmed it, so `status` and amounts are the provider's, with the caller's
 * customer and item (issue 11 §1).
 */
export function confirmedTransferPayment(
  plan: TransferPlan,
  status: StatusReply,
  livemode: boolean,
): Payment {
  return {
    ...statusPayment(status, livemode),
    customer: plan.customer,
    item_id: plan.itemId,
    metadata: { ...plan.additionalDetails, ...statusFacts(status) },
  };
}

/** The Checkout of such a transfer: no receipt link (only the lost commit reply carried one). */
export function confirmedTransferCheckout(
  plan: TransferPlan,
  status: StatusReply,
  livemode: boolean,
): Checkout {
  return {
    ...statusCheckout(status, livemode),
    customer: plan.customer,
    products: plan.itemId ? [{ id: plan.itemId, quantity: plan.quantity }] : [],
    metadata: { ...plan.additionalDetails, ...statusFacts(status) },
  };
}

/** Metadata of a status read: the transfer's `additionalDetails`, then the provider's facts. */
function statusMetadata(status: StatusReply): Record<string, string> {
  return { ...detailsOf(status.additionalDetails), ...statusFacts(status) };
}

/** The provider's facts of a status read, as metadata strings. */
function statusFacts(status: StatusReply): Record<string, string> {
  return {
    ...compact({
      transactionStatus: status.transactionStatus,
      referenceNumber: status.referenceNumber,
      expectedPayoutDate: status.expectedPayoutDate,
      destinationCountryCode: status.destinationCountryCode,
      serviceOptionCode: status.serviceOptionCode,
    }),
    ...amountFacts(status.sendAmount, status.receiveAmount),
  };
}

/** The Payment of a status read (retrievePayment, updatePayment, webhook `data`). */
export function statusPayment(status: StatusReply, livemode: boolean): Payment {
  const paymentStatus = paymentStatusOf(status.transactionStatus);
  return {
    provider: PROVIDER,
    id: status.transactionId,
    amount: status.sendAmount.amount.value,
    amount_paid: amountPaidOf(status.transactionStatus, status.sendAmount.amount.value),
    currency: status.sendAmount.amount.currencyCode,
    status: paymentStatus,
    livemode,
    customer: null,
    item_id: null,
    metadata: statusMetadata(status),
    requires_action: paymentStatus === 'requires_action',
    payment_url: null,
    raw: status,
  };
}

/** The Checkout of a status read (retrieveCheckout, updateCheckout): no receipt link, which only the commit gives. */
export function statusCheckout(status: StatusReply, livemode: boolean): Checkout {
  return {
    provider: PROVIDER,
    id: status.transactionId,
    livemode,
    payment_url: null,
    amount: status.sendAmount.amount.value,
    currency: status.sendAmount.amount.currencyCode,
    customer: null,
    session_type: 'one_time',
    products: [],
    metadata: statusMetadata(status),
    expires_at: null,
    raw: status,
  };
}

/** The Refund a `REFUNDED` webhook raises: id `<transactionId>:refund`, amount from the status read. */
export function statusRefund(status: StatusReply, livemode: boolean): Refund {
  return {
    provider: PROVIDER,
    id: `${status.transactionId}:refund`,
    livemode,
    payment_id: status.transactionId,
    amount: status.sendAmount.amount.value,
    currency: status.sendAmount.amount.currencyCode,
    status: 'succeeded',
    reason: null,
    metadata: statusMetadata(status),
    raw: status,
  };
}

/** The Refund of a committed refund (wire contract "Refund", ours). */
export function committedRefund(fields: {
  transactionId: string;
  refundId: string;
  amount: WireMoney;
  reason: string | null;
  metadata: Record<string, string>;
  refundReasonCode: string;
  read: unknown;
  commit: { referenceNumber?: string | undefined; expectedPayoutDate?: string | undefined };
  livemode: boolean;
}): Refund {
  return {
    provider: PROVIDER,
    id: fields.refundId,
    livemode: fields.livemode,
    payment_id: fields.transactionId,
    amount: fields.amount.value,
    currency: fields.amount.currencyCode,
    status: 'succeeded',
    reason: fields.reason,
    metadata: {
      ...fields.metadata,
      ...compact({
        refundReasonCode: fields.refundReasonCode,
        referenceNumber: fields.commit.referenceNumber,
        expectedPayoutDate: fields.commit.expectedPayoutDate,
      }),
    },
    raw: { read: fields.read, commit: fields.commit },
  };
}
