/**
 * The Provider Xyz simulator as the `pay` command serves it: `npx pay dev @scope/pay-provider-xyz`
 * (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#simulator-descriptor).
 */
import { providerVariables, toMinorUnits } from '@pay/core/adapter';
import type { LedgerEntry, RecordedRequest, SimulatorDescriptor, WireMoney } from '@pay/core/testing';
import { PROVIDER_XYZ_ENV, type ProviderXyzConfig } from '../config.js';
import { AMOUNT_UNIT, DEFAULT_CURRENCY, paymentRequest } from '../requests.js';
import {
  PAYER_STATUS,
  type ProviderXyzBooks,
  type ProviderXyzSimulator,
  SIMULATOR_NAME,
  STATUS_MEANINGS,
  startProviderXyzSimulator,
} from './simulator/index.js';

/** A wire amount of `currency` in integer minor units (`NaN` when it is not one). */
function minorOf(amount: unknown, currency: string): number {
  if (AMOUNT_UNIT === 'minor') return Number(amount);
  try {
    return toMinorUnits(Number(amount), currency);
  } catch {
    return Number.NaN;
  }
}

/** The money a request moves, from the bytes the simulator received (TODO: each money-moving call of yours). */
function wireOf(request: RecordedRequest): WireMoney | undefined {
  const kind = request.path === '/checkouts' ? 'payment' : request.path === '/refunds' ? 'refund' : undefined;
  if (request.method !== 'POST' || kind === undefined) return undefined;
  const body = (JSON.parse(request.body || '{}') ?? {}) as {
    amount?: unknown;
    currency?: unknown;
    reference?: unknown;
  };
  const currency = typeof body.currency === 'string' ? body.currency.toUpperCase() : undefined;
  const reference = typeof body.reference === 'string' ? { reference: body.reference } : {};
  return { kind, amountMinor: minorOf(body.amount, currency ?? DEFAULT_CURRENCY), currency, ...reference };
}

/** The books, normalised: what the conformance suite compares every record and event with. */
function ledgerOf(books: ProviderXyzBooks): LedgerEntry[] {
  const currencyOf = (id: string) =>
    books.payments.find((payment) => payment.id === id)?.currency ?? DEFAULT_CURRENCY;
  return [
    ...books.payments.map((payment) => ({
      kind: 'payment' as const,
      id: payment.id,
      amountMinor: minorOf(payment.amount, payment.currency),
      currency: payment.currency.toUpperCase(),
      status: payment.status,
      meaning: STATUS_MEANINGS[payment.status] ?? 'pending',
    })),
    ...books.refunds.map((refund) => ({
      kind: 'refund' as const,
      id: refund.id,
      amountMinor: minorOf(refund.amount, currencyOf(refund.payment)),
      currency: currencyOf(refund.payment).toUpperCase(),
      status: refund.status,
      // TODO: your refund status words' meanings.
      meaning: 'pending' as const,
    })),
  ];
}

/** What `pay dev` and `pay trigger` need to run the simulator. */
export const simulator: SimulatorDescriptor<ProviderXyzConfig, ProviderXyzBooks> = {
  provider: SIMULATOR_NAME,
  label: 'Provider Xyz',
  env: providerVariables('PROVIDER_XYZ', PROVIDER_XYZ_ENV),
  events: Object.values(PAYER_STATUS),
  // Signed with the simulators' fixed secret and verified without a status read: any simulator will do.
  throwawayTrigger: { accepted: true, because: "its events are signed with the simulators' fixed secret" },
  // pay dev's event log (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#pay-dev): the books, and
  // each status read the app made, matched by the adapter's own request so it follows requests.ts.
  objects: (books) => [
    ...books.payments.map(({ id, status }) => ({ kind: 'payment', id, status })),
    ...books.refunds.map(({ id, status }) => ({ kind: 'refund', id, status })),
  ],
  readOf: (request, books) =>
    books.payments.find(({ id }) => {
      const read = paymentRequest(id);
      return request.method === read.method && request.path === read.path;
    })?.id,
  // The conformance suite's oracle (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#conformance-suite).
  oracle: {
    paymentStatuses: STATUS_MEANINGS,
    ledger: ledgerOf,
    wire: wireOf,
    setPaymentStatus: (simulator, id, status) => (simulator as ProviderXyzSimulator).setStatus(id, status),
  },
  start: (options) => startProviderXyzSimulator(options),
};
