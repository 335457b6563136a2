/**
 * The public shapes of the Provider T simulator: its options, what it holds (transfers, refunds, movements,
 * recorded requests) and the running simulator's interface.
 */
import type {
  FaultInjector,
  PaymentSimulator,
  RecordedRequest,
  SimulatorStartOptions,
  WebhookDelivery,
} from '@pay/core/testing';
import type { ProviderTConfig } from '../../index.js';
import type { TransactionStatus } from '../../wire.js';
import type { ProviderTKeyPair } from '../signing.js';

/** The credentials the simulator accepts by default. */
export const PROVIDER_T_SIMULATOR_CREDENTIALS = {
  clientId: 'sim-client-4d21',
  clientSecret: 'sim-secret-9b7e55c3',
  agentPartnerId: '30014857',
  operatorId: 'sim-operator',
} as const;

/** Credentials of a simulator: what `createProviderT` takes. */
export interface ProviderTSimulatorCredentials {
  clientId: string;
  clientSecret: string;
  agentPartnerId: string;
  operatorId: string;
}

/**
 * Options of {@link startProviderTSimulator}: the kit's (`port`, `onRequest`, `onDelivery`, what `pay dev`
 * passes) and Provider T's own.
 */
export interface ProviderTSimulatorOptions extends SimulatorStartOptions {
  credentials?: Partial<ProviderTSimulatorCredentials>;
  /** Lifetime of access tokens in seconds (default 3599). */
  tokenLifetimeSeconds?: number;
  /** The simulator's clock in milliseconds (default `Date.now`); `advanceTime()` moves it further. */
  now?: () => number;
  /** Key pair webhooks are signed with (default: generated at start). */
  keyPair?: ProviderTKeyPair;
}

/** A transfer as the simulator holds it. */
export interface SimulatedTransfer {
  transactionId: string;
  /** `QUOTED` → `READY` (update accepted) → a transaction status once committed. */
  status: 'QUOTED' | 'READY' | TransactionStatus;
  committed: boolean;
  destinationCountryCode: string;
  serviceOptionCode: string;
  sendAmount: { value: number; currencyCode: string };
  fees: { value: number; currencyCode: string };
  receiveAmount: { value: number; currencyCode: string; fxRate: number };
  quotedAt: number;
  /** Fees and FX are locked until then (30 minutes after the quote). */
  lockExpiresAt: number;
  sender: Record<string, unknown> | undefined;
  receiver: { name: Record<string, string | undefined>; [field: string]: unknown } | undefined;
  additionalDetails: Record<string, string> | undefined;
  referenceNumber: string | undefined;
  expectedPayoutDate: string | undefined;
  committedAt: number | undefined;
}

/** A refund the simulator committed. */
export interface SimulatedRefund {
  refundId: string;
  transactionId: string;
  amount: { value: number; currencyCode: string };
  refundReasonCode: string;
}

/**
 * One movement of money in the simulator's books: a committed transfer or a committed refund, with the
 * `X-Client-Request-Id` of the commit that moved it. A replayed commit adds nothing.
 */
export interface SimulatedMovement {
  kind: 'transfer' | 'refund';
  transactionId: string;
  amount: { value: number; currencyCode: string };
  requestId: string;
}

/**
 * One request the simulator received (faulted ones included), as the kit records it: `requestId` is the
 * `X-Client-Request-Id` sent (the same on every retry of one call), or one the simulator made up (the login).
 */
export type { RecordedRequest };

/** The simulator's books, a snapshot (`books()`). */
export interface ProviderTBooksSnapshot {
  /** Every transfer, in quote order. */
  transfers: SimulatedTransfer[];
  /** Every committed refund. */
  refunds: SimulatedRefund[];
  /** Every movement of money (transfer commit, refund commit) in order; replays add none. */
  movements: SimulatedMovement[];
  quotes: number;
  committedTransfers: number;
  replays: number;
  amendments: number;
  tokensIssued: number;
  /** Every webhook forwarded so far (`forwardWebhooks`), with its attempts. */
  webhooks: WebhookDelivery[];
}

/** The configuration `adapterConfig` holds: what `createProviderT` needs to talk to the simulator. */
export type ProviderTSimulatorConfig = ProviderTSimulatorCredentials & {
  isSandbox: true;
  baseUrl: string;
  webhookPublicKey: string;
};

/** Options of `deliverWebhook`. */
export interface DeliverWebhookOptions {
  transactionId: string;
  /** Push this status instead of the transfer's current one. */
  status?: string;
  eventId?: string;
  /** The host to sign (default: the URL's). A different one makes a wrong-host delivery. */
  host?: string;
  /** Unix seconds of the signature (default: the simulator's clock). An old one makes a stale delivery. */
  timestamp?: number;
  /** Sign with this key instead of the simulator's (a forgery). */
  privateKey?: string;
}

/**
 * A running simulator: the kit's {@link PaymentSimulator} (adapter config, books, payer actions, webhook
 * forwarding, trigger, time and tokens) plus Provider T's own controls and counters.
 */
export interface ProviderTSimulator extends PaymentSimulator<ProviderTConfig, ProviderTBooksSnapshot> {
  readonly provider: 'provider-t';
  /** Base URL to pass as the adapter's `baseUrl` (or as `PROVIDER_T_BASE_URL`). */
  readonly url: string;
  /** The credentials it accepts. */
  readonly credentials: ProviderTSimulatorCredentials;
  /** Its webhook public key (SPKI DER, base64): pass it as `webhookPublicKey`. */
  readonly publicKey: string;
  /** Its webhook private key (PEM), for `signProviderTWebhook` in your own tests. */
  readonly privateKey: string;
  /**
   * Everything `createProviderT` needs to talk to this simulator. Call it (`createProviderT(sim.adapterConfig({
   * retry: 1 }))`), as every kit simulator is called; it also holds the values, so the older spread
   * `{ ...sim.adapterConfig, retry: 1 }` keeps working.
   */
  readonly adapterConfig: ProviderTSimulatorConfig &
    ((overrides?: Partial<ProviderTConfig>) => ProviderTConfig);
  /** Arm faults: `faults.inject({ method, path, times, fault })`, paths as on the wire (RegExp allowed). */
  readonly faults: FaultInjector;
  /** Copies of every transfer, in quote order. */
  readonly transfers: readonly SimulatedTransfer[];
  /** Number of quotes made. */
  readonly quotes: number;
  /** Number of committed transfers. */
  readonly committedTransfers: number;
  /** Every committed refund. */
  readonly refunds: readonly SimulatedRefund[];
  /** The books: every movement of money (transfer commit, refund commit) in order; replays add none. */
  readonly movements: readonly SimulatedMovement[];
  /** Number of mutations answered with the stored reply of an earlier request with the same request id. */
  readonly replays: number;
  /** Number of receiver-name amendments made. */
  readonly amendments: number;
  /** Number of access tokens issued. */
  readonly tokensIssued: number;
  /** Every request received (a copy). */
  readonly requests: readonly RecordedRequest[];
  /** Every webhook forwarded (`forwardWebhooks`), with its attempts (a live view). */
  readonly deliveries: readonly WebhookDelivery[];
  /** A copy of one transfer, or `undefined`. */
  transfer(transactionId: string): SimulatedTransfer | undefined;
  /**
   * Moves a committed transfer to `status` (e.g. `AVAILABLE`, `RECEIVED`, `REJECTED`); the status webhook is
   * forwarded when `forwardWebhooks` named a URL.
   */
  setStatus(transactionId: string, status: TransactionStatus): void;
  /** Moves the simulator's clock forward (expire a quote lock, a token or a receipt link without waiting). */
  advanceTime(ms: number): void;
  /** Invalidates every access token, so the next call is answered 401. */
  expireTokens(): void;
  /**
   * POSTs a signed `TRANSACTION_STATUS_EVENT` for the transfer (its current status unless `status` is given)
   * to `url`; resolves with the reply's HTTP status. Pass the same `eventId` twice to make a redelivery.
   */
  deliverWebhook(url: string, options: DeliverWebhookOptions): Promise<number>;
  /**
   * Sends one signed status event to `options.to` (or the forwarding URL) and returns the endpoint's answer.
   * The transfer is moved to the event's status first, without a forwarded delivery, so the application's
   * status read confirms what the event says.
   */
  trigger(event: string, options?: ProviderTTriggerOptions): Promise<{ status: number; body: string }>;
}

/**
 * Options of `trigger(event, options)`. `event` is a normalised event (`payment.succeeded`, `payment.failed`,
 * `payment.updated`, `payment.created`, `refund.created`) or a Provider T status (`AVAILABLE`, `IN TRANSIT`…).
 */
export type ProviderTTriggerOptions = {
  /** Where to send it (default: the forwarding URL). */
  to?: string;
  /** The transfer it is about, moved to the event's status first; default a new committed sample transfer. */
  transactionId?: string;
  /** The event id (the same twice makes a redelivery); default a new one. */
  eventId?: string;
};
