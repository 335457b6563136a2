/**
 * The one interface every provider simulator exposes (Contract B), so tests, the demo and `pay dev` drive any
 * provider the same way: its adapter configuration, its books, the payer's actions, webhook forwarding, time and
 * tokens. Each simulator keeps its own extra methods (settlements, refund completion, …) beside it.
 */
import type { FaultInjector } from './faults.js';
import type { PayerAction } from './pages.js';
import type { RecordedRequest } from './requests.js';

/** What a person does on the hosted page, as calls: each changes the books and forwards the webhook. */
export type PayerActions = { readonly [action in PayerAction]: (id: string) => Promise<void> };

/** A running simulator of one provider, on 127.0.0.1. */
export interface PaymentSimulator<Config, Books> {
  readonly provider: 'provider-t' | 'provider-r' | 'provider-n' | (string & {});
  /** `http://127.0.0.1:<port>`: the adapter's `baseUrl` (also `PROVIDER_X_BASE_URL`). */
  readonly url: string;
  /** `baseUrl` + credentials + webhook secret, ready for the adapter's factory. */
  adapterConfig(overrides?: Partial<Config>): Config;
  /** The provider's state (transactions, refunds, balances…), a snapshot. */
  books(): Books;
  /** Every request received, in order, including refused and faulted ones. */
  readonly requests: readonly RecordedRequest[];
  readonly faults: FaultInjector;
  /** What a person does on the hosted page (by the provider's payment id). */
  readonly payer: PayerActions;
  /** From now on every status change is delivered, signed, to `url`; `null` stops forwarding. */
  forwardWebhooks(url: string | null): void;
  /**
   * Sends one correctly signed event built from the payloads the simulator emits to `options.to` (or the
   * forwarding URL) and returns what the endpoint answered.
   */
  trigger(event: string, options?: Record<string, unknown>): Promise<{ status: number; body: string }>;
  /** Moves the simulator's clock forward (tokens expire against it). */
  advanceTime(ms: number): void;
  /** Revokes every access token now (the next call gets the provider's 401). */
  expireTokens(): void;
  /** Waits for the webhook deliveries in flight, then stops the server. */
  close(): Promise<void>;
}
