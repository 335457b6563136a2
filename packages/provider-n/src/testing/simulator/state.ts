/**
 * The Provider N simulator's books: transactions (by transaction and payment reference), refunds and the
 * merchant balance, with the provider's checks and refusals. Amounts are kept in integer minor units inside, so
 * the books never drift; what leaves the books (views, payloads) is in major units as the provider sends them.
 */
import { randomInt } from 'node:crypto';
import { toMajorUnits, toMinorUnits } from '@pay/core/adapter';
import type { SimulatorClock } from '@pay/core/testing';
import type { ProviderNPaymentStatus } from '../../mapping.js';
import type { SimulatedRefund, SimulatedTransaction } from './types.js';

/** Random digits at the end of a transaction reference: 18 digits, about 60 bits, not worth guessing. */
const REFERENCE_DIGITS = 18;

/** A transaction as stored: amounts in minor units. */
export interface StoredTransaction
  extends Omit<SimulatedTransaction, 'amount' | 'amountPaid' | 'refundableAmount'> {
  amountMinor: number;
  amountPaidMinor: number;
  refundableMinor: number;
}

/** A refund as stored: amount in minor units, with the transaction's currency. */
export interface StoredRefund extends Omit<SimulatedRefund, 'refundAmount'> {
  amountMinor: number;
  currency: string;
}

/** A refusal as the provider words it: HTTP status, `responseCode`, `responseMessage`. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
}

/** The provider's published refusals the books give (see routes.ts for where each is answered). */
export const REFUSALS = {
  /** init-transaction with a reused paymentReference: 422 / `99` (the provider never replays the earlier result). */
  duplicatePaymentReference: { status: 422, code: '99', message: 'Duplicate payment reference' },
  /** initiate-refund with a reused refundReference: `R9`. */
  duplicateRefundReference: {
    status: 400,
    code: 'R9',
    message: 'Supplied refund reference already exists for the merchant.',
  },
  /** The refund status read for an unknown reference: `R7`. */
  refundNotFound: {
    status: 404,
    code: 'R7',
    message: 'No refund was initiated with the supplied refund reference.',
  },
  transactionNotFound: { status: 404, code: '99', message: 'Transaction not found' },
} as const satisfies Record<string, Refusal>;

/** The payer's outcome on the hosted page, as the books record it. */
export type PayerOutcome = 'PAID' | 'FAILED' | 'CANCELLED';

/** `2026-11-22 10:20:11`, the provider's timestamp format. */
export function providerTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** A positive amount with no more digits than the currency has, in minor units; `undefined` when not. */
export function minorAmount(value: unknown, currency: string): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  try {
    return toMinorUnits(value, currency);
  } catch {
    return undefined;
  }
}

/** What the books need to know about the merchant. */
export interface LedgerOptions {
  clock: SimulatorClock;
  /** Merchant balance refunds are paid from, in major units of `NGN`. */
  merchantBalance: number;
  /** Smallest refund accepted, in major units; below is R4. */
  minimumRefundAmount: number;
}

/** The books and their transitions. Routes check the request's shape; the books check the business rules. */
export class ProviderNLedger {
  readonly transactions = new Map<string, StoredTransaction>();
  /** paymentReference → transactionReference: references are unique per merchant, and readable. */
  readonly paymentReferences = new Map<string, string>();
  readonly refunds = new Map<string, StoredRefund>();
  readonly balanceCurrency = 'NGN';
  readonly clock: SimulatorClock;
  balanceMinor: number;
  readonly #minimumRefundMinor: number;
  #settlements = 0;

  /** Empty books with the merchant's balance. */
  constructor(options: LedgerOptions) {
    this.clock = options.clock;
    this.balanceMinor = toMinorUnits(options.merchantBalance, this.balanceCurrency);
    this.#minimumRefundMinor = toMinorUnits(options.minimumRefundAmount, this.balanceCurrency);
  }

  /** The provider's timestamp of now, on the simulator's clock. */
  now(): string {
    return providerTime(this.clock.date());
  }

  /** A transaction by reference, or an error naming it (for test controls). */
  transaction(transactionReference: string): StoredTransaction {
    const transaction = this.transactions.get(transactionReference);
    if (!transaction) throw new Error(`The simulator has no transaction ${transactionReference}.`);
    return transaction;
  }

  /** The transaction a status read names, by either reference. */
  find(query: { transactionReference?: string; paymentReference?: string }): StoredTransaction | undefined {
    const reference =
      query.transactionReference ?? this.paymentReferences.get(query.paymentReference ?? '') ?? '';
    return this.transactions.get(reference);
  }

  /**
   * A new transaction reference, `PN|<yyyymmddhhmmss>|<digits>` in the provider's shape, its last part
   * {@link REFERENCE_DIGITS} random digits: the reference is the hosted page's address, and under `pay dev` a
   * page elsewhere that could count references could pay them (docs/providers/provider-n.md#create-checkout).
   */
  nextTransactionReference(): string {
    const stamp = this.clock.date().toISOString().replace(/\D/g, '').slice(0, 14);
    const digits = Array.from({ length: REFERENCE_DIGITS }, () => randomInt(10)).join('');
    return `PN|${stamp}|${digits}`;
  }

  /** Opens a transaction (the route refused a reused paymentReference before). */
  open(transaction: StoredTransaction): void {
    this.paymentReferences.set(transaction.paymentReference, transaction.transactionReference);
    this.transactions.set(transaction.transactionReference, transaction);
  }

  /** Moves a transaction as the payer did (or a test says): status, amount paid, what can be refunded. */
  settlePayment(transaction: StoredTransaction, status: ProviderNPaymentStatus, paidMinor: number): void {
    transaction.paymentStatus = status;
    transaction.amountPaidMinor = paidMinor;
    transaction.refundableMinor = status === 'PAID' || status === 'OVERPAID' ? paidMinor : 0;
    transaction.paidOn = paidMinor > 0 ? this.now() : undefined;
  }

  /** The payer's action on the hosted page: only a PENDING transaction can still be paid, failed or cancelled. */
  payerAction(transactionReference: string, outcome: PayerOutcome): StoredTransaction {
    const transaction = this.transaction(transactionReference);
    if (transaction.paymentStatus !== 'PENDING')
      throw new Error(`Transaction ${transactionReference} is already ${transaction.paymentStatus}.`);
    this.settlePayment(transaction, outcome, outcome === 'PAID' ? transaction.amountMinor : 0);
    return transaction;
  }

  /** Starts a refund after the provider's checks (R1–R5, R9), in that order. */
  refund(body: Record<string, unknown>, amount: unknown): StoredRefund | Refusal {
    const refundReference = String(body.refundReference);
    if (this.refunds.has(refundReference)) return REFUSALS.duplicateRefundReference;
    const transaction = this.transactions.get(String(body.transactionReference ?? ''));
    if (!transaction) return { status: 400, code: 'R1', message: 'Transaction not found' };
    const paid = transaction.paymentStatus === 'PAID' || transaction.paymentStatus === 'OVERPAID';
    if (!paid || transaction.refundableMinor === 0)
      return { status: 400, code: 'R2', message: 'Refund not permitted on this transaction' };
    const amountMinor = minorAmount(amount, transaction.currency);
    if (amountMinor === undefined)
      return { status: 400, code: '99', message: 'refundAmount must be a positive amount' };
    const refusal = this.#refundRefusal(transaction, amountMinor, body);
    if (refusal) return refusal;
    transaction.refundableMinor -= amountMinor;
    this.balanceMinor -= amountMinor;
    const refund: StoredRefund = {
      refundReference,
      transactionReference: transaction.transactionReference,
      amountMinor,
      currency: transaction.currency,
      refundReason: String(body.refundReason),
      customerNote: typeof body.customerNote === 'string' ? body.customerNote : undefined,
      refundStatus: 'IN_PROGRESS',
      refundType: amountMinor === transaction.amountPaidMinor ? 'FULL_REFUND' : 'PARTIAL_REFUND',
      createdOn: this.now(),
      completedOn: undefined,
      received: body,
    };
    this.refunds.set(refundReference, refund);
    return refund;
  }

  #refundRefusal(
    transaction: StoredTransaction,
    amountMinor: number,
    body: Record<string, unknown>,
  ): Refusal | undefined {
    if (typeof body.refundReason !== 'string' || body.refundReason === '' || body.refundReason.length > 64)
      return { status: 400, code: '99', message: 'refundReason is required (at most 64 characters)' };
    if (typeof body.customerNote === 'string' && body.customerNote.length > 16)
      return { status: 400, code: '99', message: 'customerNote must be at most 16 characters' };
    if (amountMinor < this.#minimumRefundMinor)
      return { status: 400, code: 'R4', message: 'Refund amount is below the minimum' };
    if (amountMinor > transaction.refundableMinor)
      return { status: 400, code: 'R3', message: 'Refund amount exceeds the transaction amount' };
    if (amountMinor > this.balanceMinor) return { status: 400, code: 'R5', message: 'Insufficient balance' };
    return undefined;
  }

  /** Finishes a refund; a failed one gives its amount back to the transaction and the balance. */
  completeRefund(refundReference: string, status: 'COMPLETED' | 'FAILED'): StoredRefund {
    const refund = this.refunds.get(refundReference);
    if (!refund) throw new Error(`The simulator has no refund ${refundReference}.`);
    if (refund.refundStatus !== 'IN_PROGRESS')
      throw new Error(`Refund ${refundReference} is already ${refund.refundStatus}.`);
    refund.refundStatus = status;
    refund.completedOn = this.now();
    if (status === 'FAILED') {
      const transaction = this.transactions.get(refund.transactionReference);
      if (transaction) transaction.refundableMinor += refund.amountMinor;
      this.balanceMinor += refund.amountMinor;
    }
    return refund;
  }

  /** The next settlement reference, `SETL-000001`. */
  nextSettlementReference(): string {
    this.#settlements += 1;
    return `SETL-${String(this.#settlements).padStart(6, '0')}`;
  }

  /** Snapshot of a stored transaction in major units. */
  static view({
    amountMinor,
    amountPaidMinor,
    refundableMinor,
    ...rest
  }: StoredTransaction): SimulatedTransaction {
    return {
      ...rest,
      amount: toMajorUnits(amountMinor, rest.currency),
      amountPaid: toMajorUnits(amountPaidMinor, rest.currency),
      refundableAmount: toMajorUnits(refundableMinor, rest.currency),
    };
  }

  /** Snapshot of a stored refund in major units. */
  static refundView({ amountMinor, currency, ...rest }: StoredRefund): SimulatedRefund {
    return { ...rest, refundAmount: toMajorUnits(amountMinor, currency) };
  }
}
