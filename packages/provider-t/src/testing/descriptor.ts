/**
 * Provider T's simulator as the `pay` command serves it (`pay dev @pay/provider-t`, docs/architecture.md#simulator-descriptor).
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { providerVariables, toMinorUnits } from '@pay/core/adapter';
import type {
  LedgerEntry,
  MoneyMeaning,
  RecordedRequest,
  SimulatorDescriptor,
  WireMoney,
} from '@pay/core/testing';
import type { ProviderTConfig } from '../config.js';
import { PROVIDER_T_ENV } from '../config.js';
import { generateProviderTKeyPair, type ProviderTKeyPair } from './signing.js';
import { startProviderTSimulator } from './simulator/index.js';
import type { ProviderTBooksSnapshot, ProviderTSimulator } from './simulator/types.js';
import { TRIGGER_STATUSES } from './simulator/webhooks.js';

/** What each transaction state the simulator can report means for the money (docs/providers/provider-t.md#status). */
export const STATE_MEANINGS = {
  UNFUNDED: 'pending',
  PROCESSING: 'pending',
  SENT: 'paid',
  AVAILABLE: 'paid',
  'IN TRANSIT': 'paid',
  RECEIVED: 'paid',
  DELIVERED: 'paid',
  REJECTED: 'failed',
  REFUNDED: 'refunded',
  CLOSED: 'failed',
} as const satisfies Record<string, MoneyMeaning>;

/** `{ value, currencyCode }` (major units) as integer minor units, `NaN` when it is not an amount of that currency. */
function minorOf(money: { value?: unknown; currencyCode?: unknown } | undefined, currency: string): number {
  try {
    return toMinorUnits(Number(money?.value), currency);
  } catch {
    return Number.NaN;
  }
}

/** The money a quote carries: `sendAmount`, in major units. A refund commit carries none (the whole send amount). */
function providerTWire(request: RecordedRequest): WireMoney | undefined {
  if (request.method !== 'POST' || request.path !== '/transfer/v1/transactions/quote') return undefined;
  const { sendAmount } = (JSON.parse(request.body || '{}') ?? {}) as {
    sendAmount?: { value?: unknown; currencyCode?: unknown };
  };
  const currency =
    typeof sendAmount?.currencyCode === 'string' ? sendAmount.currencyCode.toUpperCase() : undefined;
  return { kind: 'payment', amountMinor: minorOf(sendAmount, currency ?? 'USD'), currency };
}

/** The simulator's transfers and refunds, normalised (docs/architecture.md#conformance-suite). */
function providerTLedger(books: ProviderTBooksSnapshot): LedgerEntry[] {
  return [
    ...books.transfers.map((transfer) => ({
      kind: 'payment' as const,
      id: transfer.transactionId,
      amountMinor: minorOf(transfer.sendAmount, transfer.sendAmount.currencyCode),
      currency: transfer.sendAmount.currencyCode.toUpperCase(),
      status: transfer.status,
      meaning: STATE_MEANINGS[transfer.status as keyof typeof STATE_MEANINGS] ?? 'pending',
    })),
    ...books.refunds.map((refund) => ({
      kind: 'refund' as const,
      id: refund.refundId,
      amountMinor: minorOf(refund.amount, refund.amount.currencyCode),
      currency: refund.amount.currencyCode.toUpperCase(),
      status: 'committed',
      meaning: 'refunded' as const,
    })),
  ];
}

/** The key pair of a kept PEM private key: the public half as base64 SPKI DER, as `PROVIDER_T_WEBHOOK_PUBLIC_KEY` takes it. */
function keyPairOf(privateKey: string): ProviderTKeyPair {
  const publicKey = createPublicKey(createPrivateKey(privateKey)).export({ type: 'spki', format: 'der' });
  return { publicKey: publicKey.toString('base64'), privateKey };
}

/** What `pay dev` and `pay trigger` need to run Provider T's simulator. */
export const simulator: SimulatorDescriptor<ProviderTConfig, ProviderTBooksSnapshot> = {
  provider: 'provider-t',
  label: 'Provider T',
  env: providerVariables('PROVIDER_T', PROVIDER_T_ENV),
  events: [...TRIGGER_STATUSES.keys()],
  // The app's status read goes to the running simulator, whose books must hold the transfer the event reports.
  throwawayTrigger: {
    accepted: false,
    because:
      "its webhooks are signed with the running simulator's key (PROVIDER_T_WEBHOOK_PUBLIC_KEY) and the app's status read looks the transfer up in the running simulator",
  },
  // The app verifies with the public key pay dev printed: a key made at each start would fail every delivery to
  // an app configured from an earlier run.
  keptSigningKey: {
    file: 'provider-t-webhook-key.pem',
    type: 'rsa',
    generate: () => generateProviderTKeyPair().privateKey,
  },
  // pay dev's event log (docs/architecture.md#pay-dev): the transfers and refunds, and the app's reads of each.
  objects: (books) => [
    ...books.transfers.map((transfer) => ({
      kind: 'transfer',
      id: transfer.transactionId,
      status: transfer.status,
    })),
    // The wire gives a committed refund no status of its own.
    ...books.refunds.map((refund) => ({ kind: 'refund', id: refund.refundId, status: 'committed' })),
  ],
  readOf: (request) => {
    const read = /^\/(?:status|amend|refund)\/v\d+\/transactions\/([^/]+)$/.exec(request.path);
    return request.method === 'GET' && read?.[1] !== undefined ? decodeURIComponent(read[1]) : undefined;
  },
  // The conformance suite's oracle (docs/architecture.md#conformance-suite): the books, statuses and wire, normalised.
  oracle: {
    paymentStatuses: STATE_MEANINGS,
    ledger: providerTLedger,
    wire: providerTWire,
    setPaymentStatus: (simulator, id, status) =>
      (simulator as unknown as ProviderTSimulator).setStatus(id, status as keyof typeof STATE_MEANINGS),
  },
  start: ({ signingKey, ...options }) =>
    startProviderTSimulator(
      signingKey === undefined ? options : { ...options, keyPair: keyPairOf(signingKey) },
    ),
};
