/**
 * Provider R's simulator as the `pay` command serves it (`pay dev @pay/provider-r`, docs/architecture.md#simulator-descriptor).
 */
import { providerVariables } from '@pay/core/adapter';
import type {
  LedgerEntry,
  MoneyMeaning,
  RecordedRequest,
  SimulatorDescriptor,
  WireMoney,
} from '@pay/core/testing';
import { PROVIDER_R_ENV, type ProviderRConfig } from '../config.js';
import { PROVIDER_R_STATUSES } from '../wire.js';
import { type ProviderRBooks, type ProviderRSimulator, startProviderRSimulator } from './simulator/index.js';

/** What each status the simulator can report means for the money (docs/providers/provider-r.md#status). */
export const STATUS_MEANINGS = {
  PENDING: 'pending',
  AUTHORIZED: 'pending',
  PAID: 'paid',
  CANCELLED: 'failed',
} as const satisfies Record<string, MoneyMeaning>;

/** How the simulator's own controls put a transaction in each status (PENDING: as it was opened). */
const MOVES: Readonly<Record<string, (simulator: ProviderRSimulator, transId: string) => void>> = {
  PENDING: () => undefined,
  AUTHORIZED: (simulator, transId) => simulator.authorize(transId),
  PAID: (simulator, transId) => simulator.pay(transId),
  CANCELLED: (simulator, transId) => simulator.cancel(transId),
};

/** The money a creation or refund carried: `price` in minor units and `curr`, in its JSON body. */
function providerRWire(request: RecordedRequest): WireMoney | undefined {
  if (request.method !== 'POST') return undefined;
  const kind = /^\/v2\.0\/(payment|paymentRedirect\/merchant\/[^/]+)$/.test(request.path)
    ? 'payment'
    : request.path === '/v2.0/refund.json'
      ? 'refund'
      : undefined;
  if (kind === undefined) return undefined;
  const body = (JSON.parse(request.body || '{}') ?? {}) as {
    price?: unknown;
    amount?: unknown;
    curr?: unknown;
    refId?: unknown;
  };
  return {
    ...(typeof body.refId === 'string' ? { reference: body.refId } : {}),
    kind,
    amountMinor: Number(kind === 'payment' ? body.price : body.amount),
    currency: typeof body.curr === 'string' ? body.curr.toUpperCase() : undefined,
  };
}

/** The simulator's transactions and refunds, normalised (docs/architecture.md#conformance-suite). */
function providerRLedger(books: ProviderRBooks): LedgerEntry[] {
  return [
    ...books.transactions.map((transaction) => ({
      kind: 'payment' as const,
      id: transaction.transId,
      amountMinor: transaction.price,
      currency: transaction.curr.toUpperCase(),
      status: transaction.status,
      meaning: STATUS_MEANINGS[transaction.status] ?? 'pending',
    })),
    ...books.refunds.map((refund) => ({
      kind: 'refund' as const,
      id: refund.refId ?? refund.transId,
      amountMinor: refund.amount,
      currency: refund.curr.toUpperCase(),
      status: 'accepted',
      meaning: 'refunded' as const,
    })),
  ];
}

/** What `pay dev` and `pay trigger` need to run Provider R's simulator. */
export const simulator: SimulatorDescriptor<ProviderRConfig, ProviderRBooks> = {
  provider: 'provider-r',
  label: 'Provider R',
  env: providerVariables('PROVIDER_R', PROVIDER_R_ENV),
  events: PROVIDER_R_STATUSES,
  // The app confirms every push with a status read at PROVIDER_R_BASE_URL: the running simulator's books.
  throwawayTrigger: {
    accepted: false,
    because: "the app confirms every push with a status read that the running simulator's books must answer",
  },
  // pay dev's event log (docs/architecture.md#pay-dev): the transactions and refunds, and the app's status reads.
  objects: (books) => [
    ...books.transactions.map((transaction) => ({
      kind: transaction.kind,
      id: transaction.transId,
      status: transaction.status,
    })),
    // The wire gives a refund neither an id nor a status of its own: it is listed under its transaction.
    ...books.refunds.map((refund) => ({
      kind: 'refund',
      id: refund.refId ?? refund.transId,
      status: 'accepted',
    })),
  ],
  // The status read is a form POST carrying the transaction's `transId` (docs/providers/provider-r.md#calls).
  readOf: (request) =>
    request.method === 'POST' && request.path === '/v1.0/status'
      ? (new URLSearchParams(request.body).get('transId') ?? undefined)
      : undefined,
  // The conformance suite's oracle (docs/architecture.md#conformance-suite): the books, statuses and wire, normalised.
  oracle: {
    paymentStatuses: STATUS_MEANINGS,
    ledger: providerRLedger,
    wire: providerRWire,
    setPaymentStatus: (simulator, id, status) => {
      const move = MOVES[status];
      if (!move) throw new Error(`The simulator cannot put a transaction in ${status}.`);
      move(simulator as ProviderRSimulator, id);
    },
  },
  start: (options) => startProviderRSimulator(options),
};
