/**
 * The Provider T simulator's books and the transitions that change them: transfers from quote to commit, refunds,
 * amendments, receipt links, the clock, and the status moves a payer or a test makes after the commit. Routes
 * validate the wire request and shape the reply; every change of state happens here.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { PayerAction, SimulatorClock } from '@pay/core/testing';
import { TRANSACTION_STATUSES, type TransactionStatus } from '../../wire.js';
import { sampleTransferMetadata } from '../sample.js';
import { digits, FINAL_STATUSES, RECEIPT_LIFETIME_MS, REFUND_WINDOW_MS } from './replies.js';
import type { SimulatedMovement, SimulatedRefund, SimulatedTransfer } from './types.js';

/** A refund read the next refund commit must name (docs/providers/provider-t.md#refunds). */
export interface RefundRead {
  refundId: string;
  refundReasonCode: string;
  refundFee: boolean;
}

/** A receipt link handed out by a commit: which transfer it shows, and until when. */
export interface ReceiptLink {
  transactionId: string;
  expiresAt: number;
}

/** Called after a committed transfer changed status, with a copy of it (webhook forwarding listens here). */
export type StatusListener = (transfer: SimulatedTransfer) => void;

/**
 * The status a payer action moves a committed transfer to, by action. `pay` funds an `UNFUNDED` or `PROCESSING`
 * transfer (it is sent) and confirms the payout of a sent one (it is received); `fail` rejects it and `cancel`
 * closes it. A transfer in a final status takes no action.
 */
const PAYER_MOVES: ReadonlyMap<PayerAction, (status: string) => TransactionStatus> = new Map<
  PayerAction,
  (status: string) => TransactionStatus
>([
  ['pay', (status: string) => (status === 'UNFUNDED' || status === 'PROCESSING' ? 'SENT' : 'RECEIVED')],
  ['fail', () => 'REJECTED'],
  ['cancel', () => 'CLOSED'],
]);

/** Whether `value` names one of Provider T's transaction statuses. */
export function isTransactionStatus(value: string): value is TransactionStatus {
  return (TRANSACTION_STATUSES as readonly string[]).includes(value);
}

/** The books of one simulator. */
export class ProviderTBooks {
  readonly transfers = new Map<string, SimulatedTransfer>();
  readonly refunds: SimulatedRefund[] = [];
  readonly movements: SimulatedMovement[] = [];
  /** The amendId of the last amendment read, per transaction. */
  readonly amendIds = new Map<string, string>();
  /** The last refund read, per transaction. */
  readonly refundReads = new Map<string, RefundRead>();
  /** Receipt links by their token. */
  readonly receipts = new Map<string, ReceiptLink>();
  quotes = 0;
  committed = 0;
  amendments = 0;
  replays = 0;
  readonly #clock: SimulatorClock;
  readonly #listeners: StatusListener[] = [];

  /** Books kept on `clock` (quote locks, receipt links and the refund window run on it). */
  constructor(clock: SimulatorClock) {
    this.#clock = clock;
  }

  /** The simulator's clock in milliseconds. */
  now(): number {
    return this.#clock.now();
  }

  /** Registers a listener for status changes of committed transfers. */
  onStatusChange(listener: StatusListener): void {
    this.#listeners.push(listener);
  }

  /** The transfer when it is committed (the status, amend and refund routes know no other). */
  committedTransfer(transactionId: string): SimulatedTransfer | undefined {
    const transfer = this.transfers.get(transactionId);
    return transfer?.committed ? transfer : undefined;
  }

  /** Whether a committed transfer can still be refunded: not final, within 90 days of the send date. */
  refundable(transfer: SimulatedTransfer): boolean {
    return (
      !FINAL_STATUSES.has(transfer.status) && this.now() - (transfer.committedAt ?? 0) <= REFUND_WINDOW_MS
    );
  }

  /** Books a quoted transfer. */
  addQuote(transfer: SimulatedTransfer): void {
    this.transfers.set(transfer.transactionId, transfer);
    this.quotes += 1;
  }

  /**
   * Commits an updated transfer: the money moves (one movement booked with the commit's request id), the status
   * is `SENT`, and a receipt link valid 5 minutes is issued. Returns the receipt token.
   */
  commitTransfer(transfer: SimulatedTransfer, requestId: string): string {
    transfer.committed = true;
    transfer.committedAt = this.now();
    transfer.referenceNumber = digits(8);
    transfer.expectedPayoutDate = new Date(this.now() + 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    this.committed += 1;
    this.movements.push({
      kind: 'transfer',
      transactionId: transfer.transactionId,
      amount: { ...transfer.sendAmount },
      requestId,
    });
    const token = randomBytes(12).toString('base64url');
    this.receipts.set(token, {
      transactionId: transfer.transactionId,
      expiresAt: this.now() + RECEIPT_LIFETIME_MS,
    });
    this.move(transfer, 'SENT');
    return token;
  }

  /** Commits a read refund: the transfer is `REFUNDED` and the money moves back (one movement). */
  commitRefund(transfer: SimulatedTransfer, read: RefundRead, requestId: string): void {
    this.refundReads.delete(transfer.transactionId);
    this.refunds.push({
      refundId: read.refundId,
      transactionId: transfer.transactionId,
      amount: transfer.sendAmount,
      refundReasonCode: read.refundReasonCode,
    });
    this.movements.push({
      kind: 'refund',
      transactionId: transfer.transactionId,
      amount: { ...transfer.sendAmount },
      requestId,
    });
    this.move(transfer, 'REFUNDED');
  }

  /**
   * Books a committed transfer that no API call made, in `status`: what `trigger()` sends an event about when it
   * is given no transaction id, so the application's status read finds it. The sample transfer (100 USD to
   * Mexico, cash pickup); it moves no money in the books (no movement, not counted in `committedTransfers`).
   */
  addTriggeredTransfer(status: TransactionStatus): SimulatedTransfer {
    const now = this.now();
    const transfer: SimulatedTransfer = {
      transactionId: randomUUID(),
      status,
      committed: true,
      destinationCountryCode: 'MEX',
      serviceOptionCode: 'WILL_CALL',
      sendAmount: { value: 100, currencyCode: 'USD' },
      fees: { value: 3.99, currencyCode: 'USD' },
      receiveAmount: { value: 1725, currencyCode: 'MXN', fxRate: 17.25 },
      quotedAt: now,
      lockExpiresAt: now,
      sender: structuredClone(sampleTransferMetadata.sender) as Record<string, unknown>,
      receiver: structuredClone(sampleTransferMetadata.receiver) as SimulatedTransfer['receiver'],
      additionalDetails: undefined,
      referenceNumber: digits(8),
      expectedPayoutDate: new Date(now + 24 * 60 * 60 * 1000).toISOString().slice(0, 10),
      committedAt: now,
    };
    this.transfers.set(transfer.transactionId, transfer);
    return transfer;
  }

  /** Replaces the receiver's name after an accepted amendment. */
  amendReceiverName(transfer: SimulatedTransfer, name: Record<string, string | undefined>): void {
    transfer.receiver = { ...transfer.receiver, name };
    this.amendIds.delete(transfer.transactionId);
    this.amendments += 1;
  }

  /** Moves a committed transfer to `status` (a test's `setStatus`); throws for an unknown transfer or status. */
  setStatus(transactionId: string, status: string): void {
    this.move(this.#committed(transactionId), this.#status(status));
  }

  /**
   * Sets a committed transfer's status without telling the listeners: `trigger()` sends its one delivery
   * itself, and the status read the application makes must confirm what the delivery pushed.
   */
  setStatusQuietly(transactionId: string, status: string): void {
    this.#committed(transactionId).status = this.#status(status);
  }

  #committed(transactionId: string): SimulatedTransfer {
    const transfer = this.committedTransfer(transactionId);
    if (!transfer) throw new Error(`The simulator holds no committed transfer ${transactionId}.`);
    return transfer;
  }

  #status(status: string): TransactionStatus {
    if (!isTransactionStatus(status)) throw new Error(`${status} is not a Provider T status.`);
    return status;
  }

  /**
   * Applies a payer action to a committed transfer and returns its new status; throws when the transfer is
   * unknown or already final (the page answers 409 then).
   */
  payerAction(transactionId: string, action: PayerAction): TransactionStatus {
    const transfer = this.#committed(transactionId);
    if (FINAL_STATUSES.has(transfer.status)) {
      throw new Error(`Transfer ${transactionId} is ${transfer.status} already: it takes no payer action.`);
    }
    const next = PAYER_MOVES.get(action)?.(transfer.status);
    if (!next) throw new Error(`${action} is not a payer action (pay, fail or cancel).`);
    this.move(transfer, next);
    return next;
  }

  /** Sets the status, then tells each listener (with a copy: what the status was at this move). */
  move(transfer: SimulatedTransfer, status: TransactionStatus): void {
    transfer.status = status;
    for (const listener of this.#listeners) listener(structuredClone(transfer));
  }
}

/** What the routes and pages work with: the books, the partner they serve and the simulator's own URL. */
export interface SimulatorContext {
  readonly books: ProviderTBooks;
  readonly agentPartnerId: string;
  /** `http://127.0.0.1:<port>`, known once the server listens. */
  baseUrl(): string;
}
