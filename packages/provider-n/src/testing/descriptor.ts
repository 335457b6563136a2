/**
 * Provider N's simulator as the `pay` command serves it (`pay dev @pay/provider-n`, docs/architecture.md#simulator-descriptor).
 */
import { providerVariables, toMinorUnits } from '@pay/core/adapter';
import type {
  LedgerEntry,
  MoneyMeaning,
  RecordedRequest,
  SimulatorDescriptor,
  WireMoney,
} from '@pay/core/testing';
import { PROVIDER_N_ENV, type ProviderNConfig } from '../config.js';
import type { ProviderNPaymentStatus } from '../mapping.js';
import { DEFAULT_CURRENCY } from '../wire.js';
import { startProviderNSimulator } from './simulator/index.js';
import { API_ROUTES } from './simulator/routes.js';
import type { ProviderNSimulator, ProviderNSimulatorBooks, SimulatedRefund } from './simulator/types.js';
import { TRIGGER_EVENT_TYPES } from './simulator/webhooks.js';

/** What each `paymentStatus` the simulator can report means for the money (docs/providers/provider-n.md#payment-statuses). */
export const PAYMENT_STATUS_MEANINGS = {
  PAID: 'paid',
  OVERPAID: 'paid',
  PARTIALLY_PAID: 'pending',
  PENDING: 'pending',
  ABANDONED: 'failed',
  CANCELLED: 'failed',
  EXPIRED: 'failed',
  FAILED: 'failed',
  REVERSED: 'refunded',
} as const satisfies Record<string, MoneyMeaning>;

/** What each `refundStatus` means. */
const REFUND_STATUS_MEANINGS = {
  IN_PROGRESS: 'pending',
  COMPLETED: 'refunded',
  FAILED: 'failed',
} as const satisfies Record<SimulatedRefund['refundStatus'], MoneyMeaning>;

/** An amount in major units as integer minor units, `NaN` when it is not one (more digits than the currency has). */
function minorOrNaN(amount: unknown, currency: string): number {
  try {
    return toMinorUnits(Number(amount), currency);
  } catch {
    return Number.NaN;
  }
}

/** The money an init-transaction or initiate-refund request carried, from its JSON body. */
function providerNWire(request: RecordedRequest): WireMoney | undefined {
  if (request.method !== 'POST') return undefined;
  const body = (JSON.parse(request.body || '{}') ?? {}) as Record<string, unknown>;
  const currency = typeof body.currencyCode === 'string' ? body.currencyCode.toUpperCase() : undefined;
  const reference = (name: string) => (typeof body[name] === 'string' ? { reference: body[name] } : {});
  if (request.path === API_ROUTES.init)
    return {
      kind: 'payment',
      amountMinor: minorOrNaN(body.amount, currency ?? DEFAULT_CURRENCY),
      currency,
      ...reference('paymentReference'),
    };
  if (request.path === API_ROUTES.refund)
    return {
      kind: 'refund',
      amountMinor: minorOrNaN(body.refundAmount, DEFAULT_CURRENCY),
      currency,
      ...reference('refundReference'),
    };
  return undefined;
}

/** The simulator's transactions and refunds, normalised (docs/architecture.md#conformance-suite). */
function providerNLedger(books: ProviderNSimulatorBooks): LedgerEntry[] {
  const currencyOf = (reference: string) =>
    books.transactions.find((transaction) => transaction.transactionReference === reference)?.currency ??
    DEFAULT_CURRENCY;
  return [
    ...books.transactions.map((transaction) => ({
      kind: 'payment' as const,
      id: transaction.transactionReference,
      amountMinor: toMinorUnits(transaction.amount, transaction.currency),
      currency: transaction.currency.toUpperCase(),
      status: transaction.paymentStatus,
      meaning: PAYMENT_STATUS_MEANINGS[transaction.paymentStatus] ?? 'pending',
    })),
    ...books.refunds.map((refund) => ({
      kind: 'refund' as const,
      id: refund.refundReference,
      amountMinor: toMinorUnits(refund.refundAmount, currencyOf(refund.transactionReference)),
      currency: currencyOf(refund.transactionReference).toUpperCase(),
      status: refund.refundStatus,
      meaning: REFUND_STATUS_MEANINGS[refund.refundStatus],
    })),
  ];
}

/** What `pay dev` and `pay trigger` need to run Provider N's simulator. */
export const simulator: SimulatorDescriptor<ProviderNConfig, ProviderNSimulatorBooks> = {
  provider: 'provider-n',
  label: 'Provider N',
  env: providerVariables('PROVIDER_N', PROVIDER_N_ENV),
  events: TRIGGER_EVENT_TYPES,
  // Signed with the simulators' fixed secret and verified without a status read: any simulator will do.
  throwawayTrigger: { accepted: true, because: "its events are signed with the simulators' fixed secret" },
  // pay dev's event log (docs/architecture.md#pay-dev): the transactions and refunds, and the app's reads of each.
  objects: (books) => [
    ...books.transactions.map((transaction) => ({
      kind: 'payment',
      id: transaction.transactionReference,
      status: transaction.paymentStatus,
    })),
    ...books.refunds.map((refund) => ({
      kind: 'refund',
      id: refund.refundReference,
      status: refund.refundStatus,
    })),
  ],
  readOf: (request, books) => {
    if (request.method !== 'GET') return undefined;
    const refund = /^\/v1\/refunds\/([^/]+)$/.exec(request.path);
    if (refund?.[1] !== undefined) return decodeURIComponent(refund[1]);
    if (request.path !== '/v1/merchant/transactions/query') return undefined;
    // The read takes the transaction's reference or the merchant's own payment reference.
    const { transactionReference, paymentReference } = request.query;
    return (
      transactionReference ??
      books.transactions.find((transaction) => transaction.paymentReference === paymentReference)
        ?.transactionReference
    );
  },
  // The conformance suite's oracle (docs/architecture.md#conformance-suite): the books, statuses and wire, normalised.
  oracle: {
    paymentStatuses: PAYMENT_STATUS_MEANINGS,
    ledger: providerNLedger,
    wire: providerNWire,
    setPaymentStatus: (simulator, id, status) => {
      (simulator as unknown as ProviderNSimulator).complete(id, { status: status as ProviderNPaymentStatus });
    },
  },
  start: (options) => startProviderNSimulator(options),
};
