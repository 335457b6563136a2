/**
 * The one interface every provider simulator exposes (docs/architecture.md#testing), so tests, the demo and
 * `pay dev` drive any provider the same way: its adapter configuration, its books, the payer's actions, webhook
 * forwarding, time and tokens. Each simulator keeps its own extra methods (settlements, refund completion, …)
 * beside it.
 */
import type { FaultInjector } from './faults.js';
import type { PayerAction } from './pages.js';
import type { RecordedRequest, RequestLog } from './requests.js';
import type { Routes } from './routes.js';
import type { WebhookDelivery, WebhookForwarder } from './webhooks.js';

/** The parts of a starting simulator that `pay dev` builds on ({@link SimulatorStartOptions.attach}). */
export interface SimulatorParts {
  /** The simulator's route table: a route added here is served beside the provider's own. */
  readonly routes: Routes;
  /** The simulator's webhook forwarder: its delivery log, drops and redeliveries. */
  readonly forwarder: WebhookForwarder;
  /** The simulator's request log (`pay dev` forgets its oldest requests, `forgetOldest`). */
  readonly requests: RequestLog;
}

/**
 * Options every `startProviderXSimulator(options)` accepts besides its own (what `pay dev` passes): a fixed port,
 * and callbacks for each request received and each webhook delivery finished (a console log).
 */
export interface SimulatorStartOptions {
  /** A fixed port on 127.0.0.1; default a free port chosen by the OS. */
  port?: number;
  /** Called for each request as it is received (before faults and routes). */
  onRequest?: (request: RecordedRequest) => void;
  /** Called when a forwarded webhook is delivered, failed after its redeliveries, or dropped. */
  onDelivery?: (delivery: WebhookDelivery) => void;
  /**
   * Called once while the simulator starts, before it serves, with its route table and forwarder: how `pay dev`
   * adds its event log and drops webhooks (docs/architecture.md#pay-dev) without any simulator knowing of either.
   * Every simulator built on the kit calls it.
   */
  attach?: (parts: SimulatorParts) => void;
  /**
   * The secret the simulator's webhooks are signed with (or carry) instead of its own, for a simulator whose
   * provider signs with a shared secret: `pay dev --webhook-secret` rehearses a rotation
   * (docs/architecture.md#credential-rotation). A simulator that signs with a key pair ignores it.
   */
  webhookSecret?: string;
}

/** What a person does on the hosted page, as calls: each changes the books and forwards the webhook. */
export type PayerActions = { readonly [action in PayerAction]: (id: string) => Promise<void> };

/** A running simulator of one provider, on 127.0.0.1. */
export interface PaymentSimulator<Config, Books> {
  /** The simulator's name (`provider-t`), which its trigger control route answers with. */
  readonly provider: string;
  /** `http://127.0.0.1:<port>`: the adapter's `baseUrl` (also `PROVIDER_X_BASE_URL`). */
  readonly url: string;
  /** `baseUrl` + credentials + webhook secret, ready for the adapter's factory. */
  adapterConfig(overrides?: Partial<Config>): Config;
  /** The provider's state (transactions, refunds, balances…), a snapshot. */
  books(): Books;
  /** Every request received, in order, including refused and faulted ones. */
  readonly requests: readonly RecordedRequest[];
  readonly faults: FaultInjector;
  /** The forwarder's delivery log (`WebhookForwarder.deliveries`), when the simulator exposes it. */
  readonly deliveries?: readonly WebhookDelivery[];
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
