/**
 * Provider T replies → unified records (docs/architecture.md#records). The status and event mappings are tables (docs/providers/provider-t.md#status and docs/providers/provider-t.md#webhooks), so the whole mapping reads at once and tests can walk it.
 */
import type { Checkout, NormalisedEventName, Payment, PaymentStatus, Refund } from '@pay/core/adapter';
import type { TransferPlan } from './checks.js';
import { PROVIDER } from './config.js';
import type { CommittedTransfer } from './flows/transfer.js';
import { compact, statusFacts, statusMetadata, transferMetadata } from './record-metadata.js';
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
 * The unified status of a state, read from the table with an own-property check. A state the wire contract (docs/providers/provider-t.md#status) does
 * not list (a new one, or a name like `constructor`) is `processing`: neither paid nor failed, so nobody ships
 * goods or gives up on it; the provider's word stays in `metadata.transactionStatus`
 * (docs/architecture.md#lenient-reading).
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
export interface RecordFacts {
  livemode: boolean;
  /** The request id of the call whose reply the record is built from; `null` when no call produced it. */
  requestId: string | null;
}

/**
 * What a Payment or Checkout is built from: a status read (retrieve, update, webhook `data`, resolve), or a
 * transfer this call sent together with its plan (the caller's customer, item and metadata).
 */
export type TransferSource = { status: StatusReply } | { transfer: CommittedTransfer; plan: TransferPlan };

/**
 * The Payment of a status read, or of a committed transfer: built from the update and commit replies with no
 * further call (docs/providers/provider-t.md#commit, ours: committed means sent, so `succeeded`), or, when the commit was answered
 * "already committed" (an earlier attempt went through), from the status read that confirmed it, with the
 * caller's customer and item (docs/architecture.md#outcomes).
 */
export function toPayment(source: TransferSource, facts: RecordFacts): Payment {
  const base = { provider: PROVIDER, livemode: facts.livemode, request_id: facts.requestId } as const;
  if ('status' in source) {
    const { status } = source;
    const paymentStatus = paymentStatusOf(status.transactionStatus);
    return {
      ...base,
      id: status.transactionId,
      amount: status.sendAmount.amount.value,
      amount_paid: amountPaidOf(status.transactionStatus, status.sendAmount.amount.value),
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
  const { transfer, plan } = source;
  if (transfer.confirmed) {
    return {
      ...toPayment({ status: transfer.confirmed }, facts),
      customer: plan.customer,
      item_id: plan.itemId,
      metadata: { ...plan.additionalDetails, ...statusFacts(transfer.confirmed) },
    };
  }
  const { update, commit } = transfer;
  return {
    ...base,
    id: transfer.transactionId,
    amount: update.sendAmount.amount.value,
    // Committed means the sender's money was taken for the send amount.
    amount_paid: update.sendAmount.amount.value,
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
 * The Checkout of a status read (no receipt link, which only the commit gives), or of a committed transfer:
 * `payment_url` is the receipt link, valid 5 minutes from `now` (docs/architecture.md#operations, docs/architecture.md#limits). The transfer is already
 * committed: it is a receipt, not a payment redirect. A transfer confirmed by a status read has no receipt link
 * (only the lost commit reply carried one).
 */
export function toCheckout(source: TransferSource, facts: RecordFacts, now = Date.now()): Checkout {
  const base = { provider: PROVIDER, livemode: facts.livemode, request_id: facts.requestId } as const;
  if ('status' in source) {
    const { status } = source;
    return {
      ...base,
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
    return {
      ...toCheckout({ status: transfer.confirmed }, facts),
      customer: plan.customer,
      products,
      metadata: { ...plan.additionalDetails, ...statusFacts(transfer.confirmed) },
    };
  }
  const { update, commit } = transfer;
  const receipt = commit.commitReceipt?.consumerHyperLink ?? null;
  return {
    ...base,
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

/** A refund this call committed (docs/providers/provider-t.md#refunds, ours), or found committed by a status read. */
export interface CommittedRefund {
  transactionId: string;
  refundId: string;
  amount: WireMoney;
  reason: string | null;
  metadata: Record<string, string>;
  refundReasonCode: string;
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
  const base = { provider: PROVIDER, livemode: facts.livemode, request_id: facts.requestId } as const;
  if ('status' in source) {
    const { status } = source;
    return {
      ...base,
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
  const { committed } = source;
  return {
    ...base,
    id: committed.refundId,
    payment_id: committed.transactionId,
    amount: committed.amount.value,
    currency: committed.amount.currencyCode,
    status: 'succeeded',
    reason: committed.reason,
    metadata: {
      ...committed.metadata,
      ...compact({
        refundReasonCode: committed.refundReasonCode,
        referenceNumber: committed.commit.referenceNumber,
        expectedPayoutDate: committed.commit.expectedPayoutDate,
      }),
    },
    raw: { read: committed.read, commit: committed.commit },
  };
}
