/**
 * What the simulator sends, in the shapes the provider publishes (docs/providers/provider-n.md#calls and docs/providers/provider-n.md#webhooks): the
 * status read (two spellings), the refund body, and the `eventData` of transaction, refund, settlement and
 * rejected-payment webhooks. Pure functions of the books.
 */
import { minorDigits, toMajorUnits } from '@pay/core/adapter';
import type {
  ProviderNRefundEventData,
  ProviderNRejectedPaymentEventData,
  ProviderNSettlementEventData,
  ProviderNTransactionEventData,
} from '../../types.js';
import type { ProviderNLedger, StoredRefund, StoredTransaction } from './state.js';

/** `"5000.00"`: a minor-unit amount as the provider writes amounts in text. */
export function decimalString(minor: number, currency: string): string {
  return toMajorUnits(minor, currency).toFixed(minorDigits(currency));
}

/**
 * The status read in the shapes the provider publishes: a transaction with money received carries
 * `totalPayable`, `currency` and `customer { email, name }`; one not paid yet carries `amount`, `currencyCode` and
 * a flat `customerEmail` / `customerName` (docs/providers/provider-n.md#transaction-query).
 */
export function statusReadBody(transaction: StoredTransaction): Record<string, unknown> {
  const { currency } = transaction;
  const common = {
    transactionReference: transaction.transactionReference,
    paymentReference: transaction.paymentReference,
    amountPaid: decimalString(transaction.amountPaidMinor, currency),
    settlementAmount: decimalString(transaction.amountPaidMinor, currency),
    paidOn: transaction.paidOn ?? null,
    paymentStatus: transaction.paymentStatus,
    paymentDescription: transaction.paymentDescription,
    paymentMethod: transaction.paymentMethods[0] ?? 'CARD',
    metaData: transaction.metaData,
  };
  if (transaction.amountPaidMinor === 0) {
    return {
      ...common,
      amount: decimalString(transaction.amountMinor, currency),
      currencyCode: currency,
      customerEmail: transaction.customerEmail,
      customerName: transaction.customerName ?? '',
    };
  }
  return {
    ...common,
    totalPayable: decimalString(transaction.amountMinor, currency),
    currency,
    customer: { email: transaction.customerEmail, name: transaction.customerName ?? '' },
  };
}

/** The initiate-refund reply body and the refund status read (the reason as `refundReason`). */
export function refundBody(refund: StoredRefund): ProviderNRefundEventData {
  return {
    refundReference: refund.refundReference,
    transactionReference: refund.transactionReference,
    refundReason: refund.refundReason,
    ...(refund.customerNote === undefined ? {} : { customerNote: refund.customerNote }),
    refundAmount: toMajorUnits(refund.amountMinor, refund.currency),
    refundStatus: refund.refundStatus,
    refundType: refund.refundType,
    createdOn: refund.createdOn,
    ...(refund.completedOn === undefined ? {} : { completedOn: refund.completedOn }),
  };
}

/** `eventData` of `SUCCESSFUL_REFUND` / `FAILED_REFUND`: the reason as `merchantReason` (published examples). */
export function refundEventData(refund: StoredRefund): ProviderNRefundEventData {
  const { refundReason, ...body } = refundBody(refund);
  return { merchantReason: refundReason, ...body };
}

/** `eventData` of `SUCCESSFUL_TRANSACTION`: numbers numeric, the customer as `{ email, name }`. */
export function transactionEventData(
  transaction: StoredTransaction,
  paymentMethod = transaction.paymentMethods[0] ?? 'CARD',
): ProviderNTransactionEventData {
  const { currency } = transaction;
  return {
    transactionReference: transaction.transactionReference,
    paymentReference: transaction.paymentReference,
    amountPaid: toMajorUnits(transaction.amountPaidMinor, currency),
    totalPayable: toMajorUnits(transaction.amountMinor, currency),
    settlementAmount: toMajorUnits(transaction.amountPaidMinor, currency),
    ...(transaction.paidOn === undefined ? {} : { paidOn: transaction.paidOn }),
    paymentStatus: transaction.paymentStatus,
    paymentDescription: transaction.paymentDescription,
    currency,
    paymentMethod,
    customer: { email: transaction.customerEmail, name: transaction.customerName ?? '' },
    metaData: transaction.metaData,
  };
}

/**
 * `eventData` of `REJECTED_PAYMENT`, in the provider's published shape: no currency, status or totalPayable, and
 * `metaData` a JSON string. The provider returns what the payer sent; nothing is held.
 */
export function rejectedPaymentEventData(
  ledger: ProviderNLedger,
  transaction: StoredTransaction,
  rejection: { amountSent: number; reason: string },
): ProviderNRejectedPaymentEventData {
  const expected = toMajorUnits(transaction.amountMinor, transaction.currency);
  return {
    metaData: JSON.stringify(transaction.metaData),
    amount: expected,
    paymentSourceInformation: { amountPaid: rejection.amountSent, accountName: 'SIMULATED PAYER' },
    transactionReference: transaction.transactionReference,
    created_on: ledger.now(),
    paymentReference: transaction.paymentReference,
    paymentRejectionInformation: { rejectionReason: rejection.reason, expectedAmount: expected },
    paymentDescription: transaction.paymentDescription,
    customer: { name: transaction.customerName ?? '', email: transaction.customerEmail },
  };
}

/** `eventData` of `SETTLEMENT` for paid transactions: amounts as strings, no per-transaction `amount`. */
export function settlementEventData(
  ledger: ProviderNLedger,
  transactions: readonly StoredTransaction[],
): ProviderNSettlementEventData {
  let totalMinor = 0;
  const settled = transactions.map((transaction) => {
    totalMinor += transaction.amountPaidMinor;
    const { currency } = transaction;
    return {
      transactionReference: transaction.transactionReference,
      paymentReference: transaction.paymentReference,
      paidOn: transaction.paidOn ?? ledger.now(),
      paymentDescription: transaction.paymentDescription,
      amountPaid: decimalString(transaction.amountPaidMinor, currency),
      totalPayable: decimalString(transaction.amountMinor, currency),
      paymentMethod: transaction.paymentMethods[0] ?? 'CARD',
      currency,
      paymentStatus: transaction.paymentStatus,
      customer: { name: transaction.customerName ?? '', email: transaction.customerEmail },
    };
  });
  return {
    amount: decimalString(totalMinor, ledger.balanceCurrency),
    settlementTime: ledger.now(),
    settlementReference: ledger.nextSettlementReference(),
    transactionsCount: settled.length,
    transactions: settled,
  };
}
