/**
 * The Provider N simulator's public types: its options, its books, and the running simulator (the kit's
 * `PaymentSimulator` interface plus Provider N's own controls, kept from before the kit).
 */
import type {
  FaultInjector,
  PaymentSimulator,
  RecordedRequest,
  SimulatorStartOptions,
} from '@pay/core/testing';
import type { ProviderNConfig } from '../../config.js';
import type { ProviderNPaymentStatus } from '../../mapping.js';
import type {
  ProviderNRefundEventData,
  ProviderNRejectedPaymentEventData,
  ProviderNSettlementEventData,
  ProviderNTransactionEventData,
} from '../../types.js';
import type { ProviderNWebhookPayload } from '../signing.js';

/** A transaction in the simulator's books (amounts in major units). */
export interface SimulatedTransaction {
  transactionReference: string;
  paymentReference: string;
  amount: number;
  currency: string;
  contractCode: string | undefined;
  customerEmail: string;
  customerName: string | undefined;
  paymentDescription: string;
  redirectUrl: string | undefined;
  paymentMethods: string[];
  metaData: Record<string, unknown>;
  paymentStatus: ProviderNPaymentStatus;
  amountPaid: number;
  /** What can still be refunded. */
  refundableAmount: number;
  paidOn: string | undefined;
  checkoutUrl: string;
}

/** A refund in the simulator's books. */
export interface SimulatedRefund {
  refundReference: string;
  transactionReference: string;
  refundAmount: number;
  refundReason: string;
  customerNote: string | undefined;
  refundStatus: 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
  refundType: 'PARTIAL_REFUND' | 'FULL_REFUND';
  createdOn: string;
  completedOn: string | undefined;
  /** Every body member the simulator received, including forwarded extras. */
  received: Record<string, unknown>;
}

/** What the simulator accepts: the API credentials, the contract code and the webhook signing secret. */
export interface ProviderNSimulatorCredentials {
  apiKey: string;
  secretKey: string;
  /** Required on init-transaction when set (as the live API does); `undefined` accepts any or none. */
  contractCode: string | undefined;
  /**
   * The key webhooks are signed with: the secret key, as the provider does (docs/providers/provider-n.md#webhooks). Pass it
   * to `webhooks.setup({ webhookSecret })`. Defaults to `secretKey`.
   */
  webhookSecret: string;
}

/** Options of `startProviderNSimulator`: the kit's (`port`, `onRequest`, `onDelivery`) and Provider N's. */
export interface ProviderNSimulatorOptions extends SimulatorStartOptions {
  /** Overrides of `PROVIDER_N_SIMULATOR_CREDENTIALS`. */
  credentials?: Partial<ProviderNSimulatorCredentials>;
  /** Lifetime of issued access tokens in seconds, reported as `expiresIn` (default 3599). */
  tokenLifetimeSeconds?: number;
  /** Smallest refund accepted, in major units (default 10, as the provider's 10.00 NGN); below is R4. */
  minimumRefundAmount?: number;
  /** Merchant balance refunds are paid from, in major units (default 10,000,000); a larger refund is R5. */
  merchantBalance?: number;
}

/** One request the simulator received, as the kit records it (headers lower-cased) but with a JSON body parsed. */
export type SimulatedRequest = Pick<RecordedRequest, 'method' | 'path' | 'query' | 'headers'> & {
  body: unknown;
};

/** Read-only books, for assertions. */
export interface ProviderNSimulatorBooks {
  /** Successful logins. */
  logins: number;
  transactions: readonly SimulatedTransaction[];
  refunds: readonly SimulatedRefund[];
  /** Every request received, in order, including refused and faulted ones. */
  requests: readonly SimulatedRequest[];
  /** Merchant balance left for refunds, in major units (NGN). */
  balance: number;
}

/** Options of `deliverWebhook`. */
export interface DeliverWebhookOptions {
  /** Send this signature instead of the correct one (to test refusals). */
  signature?: string;
  /** Extra headers. */
  headers?: Record<string, string>;
}

/**
 * Options of `trigger(eventType, options)`: where to send (default the forwarding URL) and which books entry
 * the payload describes (default a sample one that is not in the books).
 */
export type ProviderNTriggerOptions = {
  to?: string;
  transactionReference?: string;
  refundReference?: string;
  /** `REJECTED_PAYMENT`: what the payer sent (default half the amount) and why it was rejected. */
  amountSent?: number;
  reason?: string;
};

/** A running simulator: the kit's `PaymentSimulator` plus Provider N's own controls. */
export interface ProviderNSimulator
  extends Omit<PaymentSimulator<ProviderNConfig, ProviderNSimulatorBooks>, 'books'> {
  readonly provider: 'provider-n';
  /** The credentials it accepts and the webhook secret it signs with. */
  credentials: ProviderNSimulatorCredentials;
  /** Fault injection for every route: `faults.inject({ method, path: '/v1/auth/login', fault })`. */
  readonly faults: FaultInjector;
  /**
   * A snapshot of the books: call it (`books()`, the kit's interface), or read its members directly
   * (`books.transactions`), as before the kit.
   */
  readonly books: ProviderNSimulatorBooks & (() => ProviderNSimulatorBooks);
  /**
   * Moves a checkout as the payer would (default `PAID` with the full amount) and returns the transaction
   * payload a `SUCCESSFUL_TRANSACTION` webhook carries. Nothing is delivered (see `payer` for that).
   */
  complete(
    transactionReference: string,
    outcome?: { status?: ProviderNPaymentStatus; amountPaid?: number; paymentMethod?: string },
  ): ProviderNTransactionEventData;
  /**
   * Finishes a refund (default `COMPLETED`) and returns the payload of the matching `SUCCESSFUL_REFUND` or
   * `FAILED_REFUND` webhook. A failed refund gives its amount back to the transaction and the balance.
   */
  completeRefund(
    refundReference: string,
    outcome?: { status?: 'COMPLETED' | 'FAILED' },
  ): ProviderNRefundEventData;
  /** Settles paid transactions and returns the payload of the `SETTLEMENT` webhook that reports them. */
  settle(transactionReferences: readonly string[]): ProviderNSettlementEventData;
  /**
   * The payer sends an amount the provider rejects (default reason `UNDER_PAYMENT`): returns the payload of the
   * `REJECTED_PAYMENT` webhook (no currency or status, `metaData` a JSON string). The transaction stays unpaid.
   */
  rejectPayment(
    transactionReference: string,
    rejection: { amountSent: number; reason?: string },
  ): ProviderNRejectedPaymentEventData;
  /** POSTs a correctly signed webhook to `url` and resolves with the HTTP status of the reply. */
  deliverWebhook(
    url: string,
    payload: ProviderNWebhookPayload,
    options?: DeliverWebhookOptions,
  ): Promise<number>;
  trigger(eventType: string, options?: ProviderNTriggerOptions): Promise<{ status: number; body: string }>;
}
