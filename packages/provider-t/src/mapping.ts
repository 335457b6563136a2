/**
 * Provider T replies → unified records (docs/architecture.md#records). The status and event mappings are tables
 * (docs/providers/provider-t.md#status and docs/providers/provider-t.md#webhooks), so tests can walk them.
 */
import type { Checkout, NormalisedEventName, Payment, PaymentStatus, Refund } from '@pay/core/adapter';
import type { RefundPlan, TransferPlan } from './checks.js';
import { PROVIDER } from './config.js';
import type { CommittedTransfer } from './flows/transfer.js';
import { statusMetadata, transferMetadata, withFacts } from './record-metadata.js';
import { isKnownStatus, type StatusReply, type TransactionStatus, type WireMoney } from './wire.js';

/** Transaction state → unified payment status (docs/providers/provider-t.md#status). */
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
 * What a transfer in each state tells about `Payment.amount_paid`: the sender has paid the send amount, nothing
 * yet (unfunded), or the state does not say (the transfer may or may not hold the sender's money).
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
 * The unified status of a state. A state docs/providers/provider-t.md#status does not list (a new one, or a name
 * like `constructor`) is `processing`: neither paid nor failed, so nobody ships goods or gives up on it; the
 * provider's word stays in `metadata.transactionStatus` (docs/architecture.md#lenient-reading).
 */
function paymentStatusOf(transactionStatus: string): PaymentStatus {
  return isKnownStatus(transactionStatus) ? PAYMENT_STATUS[transactionStatus] : 'processing';
}

/** The normalised event a confirmed state raises; `payment.updated` for a state the table does not list. */
export function eventTypeOf(transactionStatus: string): NormalisedEventName {
  return isKnownStatus(transactionStatus) ? STATUS_EVENTS[transactionStatus] : 'payment.updated';
}

/** Transaction state confirmed by the status read → the normalised event it raises (docs/providers/provider-t.md#webhooks). */
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

/** How long a Checkout's receipt link works (docs/architecture.md#limits). */
export const RECEIPT_LINK_LIFETIME_MS = 5 * 60 * 1000;

/** What every record carries besides the provider's data: the mode, and the request id of the call behind it. */
export type RecordFacts = { livemode: boolean; requestId: string | null };

const recordBase = (facts: RecordFacts) =>
  ({ provider: PROVIDER, livemode: facts.livemode, request_id: facts.requestId }) as const;

/** What a record is built from: a status read, or a transfer this call sent with its plan (customer, item, metadata). */
export type TransferSource = { status: StatusReply } | { transfer: CommittedTransfer; plan: TransferPlan };

/**
 * The Payment of a status read, or of a committed transfer: from the update and commit replies, or from the status
 * read that confirmed "already committed", with the caller's customer and item (docs/architecture.md#outcomes).
 */
export function toPayment(source: TransferSource, facts: RecordFacts): Payment {
  if ('status' in source) {
    const { status } = source;
    const { value, currencyCode } = status.sendAmount.amount;
    const paymentStatus = paymentStatusOf(status.transactionStatus);
    const paid = isKnownStatus(status.transactionStatus) ? AMOUNT_PAID[status.transactionStatus] : 'unknown';
    return {
      ...recordBase(facts),
      id: status.transactionId,
      amount: value,
      amount_paid: paid === 'send_amount' ? value : paid === 'nothing' ? 0 : null,
      currency: currencyCode,
      status: paymentStatus,
      customer: null,
      item_id: null,
      metadata: statusMetadata(status),
      requires_action: paymentStatus === 'requires_action',
      payment_url: null,
      raw: status,
    };
  }
  const { transfer, plan } = source;
  if (transfer.confirmed) {
    return Object.assign(toPayment({ status: transfer.confirmed }, facts), {
      customer: plan.customer,
      item_id: plan.itemId,
      metadata: statusMetadata(transfer.confirmed, { ...plan.additionalDetails }),
    });
  }
  const { update, commit } = transfer;
  const { value, currencyCode } = update.sendAmount.amount;
  return {
    ...recordBase(facts),
    id: transfer.transactionId,
    amount: value,
    // Committed means the sender's money was taken for the send amount.
    amount_paid: value,
    currency: currencyCode,
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
 * The Checkout of a status read, or of a committed transfer: `payment_url` is the commit's receipt link, valid 5
 * minutes from `now` (docs/architecture.md#limits): the transfer is committed, so a receipt, not a payment page.
 */
export function toCheckout(source: TransferSource, facts: RecordFacts, now = Date.now()): Checkout {
  if ('status' in source) {
    const { status } = source;
    return {
      ...recordBase(facts),
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
  const { transfer, plan } = source;
  const products = plan.itemId ? [{ id: plan.itemId, quantity: plan.quantity }] : [];
  if (transfer.confirmed) {
    return Object.assign(toCheckout({ status: transfer.confirmed }, facts), {
      customer: plan.customer,
      products,
      metadata: statusMetadata(transfer.confirmed, { ...plan.additionalDetails }),
    });
  }
  const { update, commit } = transfer;
  const receipt = commit.commitReceipt?.consumerHyperLink ?? null;
  return {
    ...recordBase(facts),
    id: transfer.transactionId,
    payment_url: receipt,
    amount: update.sendAmount.amount.value,
    currency: update.sendAmount.amount.currencyCode,
    customer: plan.customer,
    session_type: 'one_time',
    products,
    metadata: transferMetadata(plan, update, commit),
    expires_at: receipt ? new Date(now + RECEIPT_LINK_LIFETIME_MS).toISOString() : null,
    raw: { update, commit },
  };
}

/** A refund this call committed (docs/providers/provider-t.md#refunds). */
export interface CommittedRefund {
  plan: RefundPlan;
  refundId: string;
  amount: WireMoney;
  read: unknown;
  commit: { referenceNumber?: string | undefined; expectedPayoutDate?: string | undefined };
}

/**
 * The Refund of a `REFUNDED` status read (webhook, resolve: id `<transactionId>:refund`, amount from the read),
 * or of a refund this call committed (id = refundId, amount and currency from the refund read).
 */
export function toRefund(
  source: { status: StatusReply } | { committed: CommittedRefund },
  facts: RecordFacts,
): Refund {
  if ('status' in source) {
    const { status } = source;
    return {
      ...recordBase(facts),
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
  const { plan, refundId, amount, read, commit } = source.committed;
  return {
    ...recordBase(facts),
    id: refundId,
    payment_id: plan.transactionId,
    amount: amount.value,
    currency: amount.currencyCode,
    status: 'succeeded',
    reason: plan.reason,
    metadata: withFacts(
      { ...plan.metadata },
      {
        refundReasonCode: plan.refundReasonCode,
        referenceNumber: commit.referenceNumber,
        expectedPayoutDate: commit.expectedPayoutDate,
      },
    ),
    raw: { read, commit },
  };
}
