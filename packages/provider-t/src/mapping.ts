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
import type { CommitReply, StatusReply, TransactionStatus, UpdateReply, WireMoney } from './wire.js';

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

/** Transaction state of a webhook → the normalised event it raises (wire contract "Webhooks"). */
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
    ...plan.callerMetadata,
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
): Payment {
  return {
    provider: PROVIDER,
    id: transactionId,
    amount: update.sendAmount.amount.value,
    currency: update.sendAmount.amount.currencyCode,
    status: 'succeeded',
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
): Checkout {
  const receipt = commit.commitReceipt?.consumerHyperLink ?? null;
  return {
    provider: PROVIDER,
    id: transactionId,
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

/** Metadata of a status read: the transfer's `additionalDetails`, then the provider's facts. */
function statusMetadata(status: StatusReply): Record<string, string> {
  return {
    ...detailsOf(status.additionalDetails),
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
export function statusPayment(status: StatusReply): Payment {
  const paymentStatus = PAYMENT_STATUS[status.transactionStatus];
  return {
    provider: PROVIDER,
    id: status.transactionId,
    amount: status.sendAmount.amount.value,
    currency: status.sendAmount.amount.currencyCode,
    status: paymentStatus,
    customer: null,
    item_id: null,
    metadata: statusMetadata(status),
    requires_action: paymentStatus === 'requires_action',
    payment_url: null,
    raw: status,
  };
}

/** The Checkout of a status read (retrieveCheckout, updateCheckout): no receipt link, which only the commit gives. */
export function statusCheckout(status: StatusReply): Checkout {
  return {
    provider: PROVIDER,
    id: status.transactionId,
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
export function statusRefund(status: StatusReply): Refund {
  return {
    provider: PROVIDER,
    id: `${status.transactionId}:refund`,
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
}): Refund {
  return {
    provider: PROVIDER,
    id: fields.refundId,
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
