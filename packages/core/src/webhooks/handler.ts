/** The webhook handler (docs/architecture.md#webhook-handler), like Octokit's: verify fully, then dispatch. */

import { type PayLogger, SILENT_LOGGER } from '../diagnostics/logger.js';
import { inProduction, isInMemory } from '../diagnostics/production.js';
import { publishWebhook } from '../diagnostics/tracing.js';
import { ConfigurationError } from '../errors.js';
import type { AdapterTypes } from '../operations.js';
import type { ProviderName } from '../records.js';
import { type DeduplicationStore, deduplicationOf } from './dedupe.js';
import type { Dispatcher } from './dispatch.js';
import { WebhookHandlerError, type WebhookVerificationError } from './errors.js';
import { receiveDelivery } from './receive.js';
import { type DeliveryOutcome, decideFailureReply, deliveryTrace, type Progress } from './report.js';
import { checkWebhookSecrets } from './secrets.js';
import {
  type EventMap,
  type EventOf,
  NORMALISED_EVENT_NAMES,
  type PayEvent,
  type WebhookDefinition,
} from './types.js';

/** Options of `pay.webhooks.setup()`. */
export interface WebhookSetupOptions {
  /**
   * The secret the webhooks are checked with: Provider R's configuration secret, Provider N's webhook signing
   * secret, `null` for Provider T (its public keys are in its config). While one is rotated, pass `[newSecret,
   * oldSecret]`: the `pay:webhook` message says which verified (`secretIndex`), so the old one can go once unused
   * (docs/architecture.md#credential-rotation).
   */
  webhookSecret: string | readonly string[] | null | undefined;
  /**
   * Skips deliveries already processed (delivery is at least once): leased while running, done only when every
   * callback succeeded, released when one failed.
   */
  deduplicate?: DeduplicationStore;
  /**
   * How long a processed delivery is remembered, in seconds (positive; default 7 days). Provider N signs no
   * timestamp: a replay after this is processed again, so keep it as long as Provider N retries.
   */
  deduplicateTtlSeconds?: number;
  /**
   * How long one attempt leases a delivery, in seconds (positive; default 60): a concurrent redelivery meanwhile
   * gets a 503, a crashed attempt's lease expires. Keep it above your callbacks' run time.
   */
  deduplicateLeaseSeconds?: number;
}

/** What `handle()` takes: the raw body, the request headers and the full URL the request was sent to. */
export interface WebhookRequest {
  /** The raw request body, exactly as received: a string or bytes, never a parsed object. */
  body: string | Uint8Array;
  headersAsObject: Record<string, string | readonly string[] | undefined> | Headers;
  fullUrl: string;
}

/** What `handle()` resolves to. */
export interface WebhookResult {
  /** Every verified event of the delivery, in dispatch order (empty when the delivery was a duplicate). */
  events: PayEvent[];
  /**
   * Keys skipped as done: a processed delivery's (`AuthenticatedDelivery.key`) and the transition keys
   * (`<provider>:transition:<kind>:<id>:<event>:<status>`) of events already run
   * (docs/architecture.md#reconciliation).
   */
  duplicates: string[];
}

/** A callback registered with `.on()`. */
export type WebhookCallback<E> = (event: E) => unknown;

/** Any event of an adapter's event map, as `onAny` callbacks receive it (narrow on `event.type`). */
export type AnyEventOf<T extends AdapterTypes> = {
  [K in keyof EventMap<T> & string]: EventOf<T, K>;
}[keyof EventMap<T> & string];

/**
 * What an `onError` callback learns about the failed delivery (never a secret, header or body): where it failed
 * (`verification`: nothing dispatched), the delivery's key once authenticated, and its events for a `dispatch`
 * one.
 */
export interface WebhookErrorContext {
  provider: ProviderName;
  stage: 'verification' | 'dispatch';
  deliveryKey: string | null;
  events: readonly PayEvent[];
}

/**
 * A callback registered with `.onError()`: it observes a failed delivery. What it returns or throws is ignored and
 * a promise it returns is not awaited: `handle()`'s rejection, its timing and the HTTP answer stay the same.
 */
export type WebhookErrorCallback = (
  error: WebhookVerificationError | WebhookHandlerError,
  context: WebhookErrorContext,
) => unknown;

/**
 * What the reconciler delivers through (docs/architecture.md#reconciliation), kept in a WeakMap beside the handler
 * as `Pay` keeps its own (`internalsOf`): its dispatcher, the names `.on()` accepts and its logger.
 */
export interface HandlerInternals {
  dispatcher: Dispatcher;
  raises: ReadonlySet<string>;
  logger: PayLogger;
}

const INTERNALS = new WeakMap<object, HandlerInternals>();

/** The internals of `handler`; `undefined` for an object the `WebhookHandler` constructor did not make. */
export function handlerInternals(handler: object): HandlerInternals | undefined {
  return INTERNALS.get(handler);
}

/** Verifies provider webhooks and dispatches their events to registered callbacks. */
export class WebhookHandler<T extends AdapterTypes = AdapterTypes> {
  readonly #adapter: { provider: ProviderName; webhooks: WebhookDefinition };
  #secrets: readonly string[];
  readonly #dispatcher: Dispatcher;
  readonly #callbacks = new Map<string, WebhookCallback<never>[]>();
  readonly #anyCallbacks: WebhookCallback<PayEvent>[] = [];
  readonly #errorCallbacks: WebhookErrorCallback[] = [];
  readonly #knownNames: ReadonlySet<string>;
  readonly #logger: PayLogger;

  /**
   * Prefer `pay.webhooks.setup()`. Throws `ConfigurationError` when the provider needs a secret and none is
   * given or one is blank, or when the deduplication store or its durations are unusable.
   */
  constructor(
    adapter: { provider: ProviderName; webhooks: WebhookDefinition },
    options: WebhookSetupOptions,
    logger: PayLogger = SILENT_LOGGER,
  ) {
    this.#secrets = checkWebhookSecrets(adapter.provider, adapter.webhooks, options.webhookSecret);
    this.#adapter = adapter;
    const deduplication = deduplicationOf(options);
    this.#logger = logger;
    if (deduplication && isInMemory(deduplication.store) && inProduction())
      logger.once(
        'memory-deduplication-store',
        'warn',
        'webhooks.setup uses an in-memory deduplication store while NODE_ENV is production: another instance or a restart runs a redelivered webhook again. Pass deduplicate: a shared store (@pay/store-postgres, @pay/store-redis).',
      );
    this.#knownNames = new Set<string>([
      ...(adapter.webhooks.eventNames ?? NORMALISED_EVENT_NAMES),
      ...adapter.webhooks.rawEventNames,
    ]);
    this.#dispatcher = {
      provider: adapter.provider,
      callbacks: this.#callbacks,
      anyCallbacks: this.#anyCallbacks,
      deduplication,
    };
    INTERNALS.set(this, { dispatcher: this.#dispatcher, raises: this.#knownNames, logger });
  }

  /**
   * Registers `callback` for one event name or several; returns this handler. A name the adapter does not raise
   * is refused here, not silently ignored.
   */
  on<K extends keyof EventMap<T> & string>(
    names: K | readonly K[],
    callback: WebhookCallback<EventOf<T, K>>,
  ): this {
    const list: readonly string[] = typeof names === 'string' ? [names] : names;
    assertCallback(`.on(${JSON.stringify(names)}, callback)`, callback);
    for (const name of list) {
      if (!this.#knownNames.has(name)) {
        throw new ConfigurationError(
          `'${name}' is not an event ${this.#adapter.provider} raises. Known names: ${[...this.#knownNames].join(', ')}.`,
        );
      }
    }
    for (const name of list)
      this.#callbacks.set(name, [...(this.#callbacks.get(name) ?? []), callback as WebhookCallback<never>]);
    return this;
  }

  /** Registers `callback` for every event, after its `.on()` callbacks and failing as they do; returns this. */
  onAny(callback: WebhookCallback<AnyEventOf<T>>): this {
    assertCallback('.onAny(callback)', callback);
    this.#anyCallbacks.push(callback as WebhookCallback<PayEvent>);
    return this;
  }

  /**
   * Registers `callback` for every failed delivery (`WebhookVerificationError`: no callback ran;
   * `WebhookHandlerError`: callbacks threw), called before `handle()` rejects, after the answer was decided:
   * nothing it does changes or holds the answer. Returns this handler.
   */
  onError(callback: WebhookErrorCallback): this {
    assertCallback('.onError(callback)', callback);
    this.#errorCallbacks.push(callback);
    return this;
  }

  /**
   * Replaces the webhook secrets while the process runs, as `setup({ webhookSecret })` takes them: one, or
   * `[newSecret, oldSecret]` while one is rotated (docs/architecture.md#credential-rotation). They are checked first
   * (`ConfigurationError` for none or a blank one: nothing changes); a delivery already being verified keeps the
   * secrets it started with, the next one uses these, and `secretIndex` counts in this list. Throws
   * `ConfigurationError` for a provider that signs with its own keys (Provider T: its config's `webhookPublicKey`).
   */
  updateSecrets(webhookSecret: string | readonly string[]): void {
    if (this.#adapter.webhooks.secret === 'unused') {
      throw new ConfigurationError(
        `${this.#adapter.provider} signs its webhooks with its own keys, not a webhook secret: rotate the keys in the adapter's configuration.`,
        { missing: ['webhookSecret'] },
      );
    }
    this.#secrets = checkWebhookSecrets(this.#adapter.provider, this.#adapter.webhooks, webhookSecret);
  }

  /**
   * Authenticates the delivery, takes its deduplication lease, reads its events (any upstream confirmation happens
   * here) and runs each event's callbacks in order. Rejects with `WebhookVerificationError` (nothing ran) or
   * `WebhookHandlerError` (every callback ran; some threw).
   */
  async handle(request: WebhookRequest): Promise<WebhookResult> {
    const progress: Progress = { deliveryKey: null, events: [], startTime: Date.now() };
    let outcome: DeliveryOutcome;
    try {
      // The route is read once: a rotation meanwhile applies from the next delivery on.
      const route = {
        provider: this.#adapter.provider,
        webhooks: this.#adapter.webhooks,
        secrets: this.#secrets,
        dispatcher: this.#dispatcher,
        logger: this.#logger,
      };
      const result = await receiveDelivery(route, request, progress);
      outcome = { ok: true, result };
      return result;
    } catch (error) {
      outcome = { ok: false, error };
      // The answer is fixed before any onError callback gets the error object it could change
      // (docs/architecture.md#callbacks).
      decideFailureReply(error);
      this.#reportFailure(error, progress);
      throw error;
    } finally {
      // One `pay:webhook` message per delivery, once its answer is known (docs/architecture.md#tracing-channels).
      publishWebhook(() => deliveryTrace(this.#adapter.provider, outcome, progress));
    }
  }

  /**
   * Calls the `onError` callbacks for a failure of `handle()`, without awaiting what they return: an observer that
   * never settles must not hold the reply, nor one that throws or rejects change it.
   */
  #reportFailure(error: unknown, progress: Progress): void {
    const dispatch = WebhookHandlerError.isInstance(error);
    const context: WebhookErrorContext = {
      provider: this.#adapter.provider,
      stage: dispatch ? 'dispatch' : 'verification',
      deliveryKey: progress.deliveryKey,
      events: dispatch ? progress.events : [],
    };
    for (const callback of this.#errorCallbacks) {
      try {
        const returned = callback(error as WebhookVerificationError | WebhookHandlerError, context);
        // A rejection nobody handles would end the process.
        Promise.resolve(returned).catch(() => undefined);
      } catch {
        // An observer's failure must not change the answer to the provider.
      }
    }
  }
}

/**
 * Refuses a callback that is not a function when it is registered, not when the first delivery comes
 * (docs/architecture.md#webhook-handler).
 */
function assertCallback(registration: string, callback: unknown): void {
  if (typeof callback !== 'function') {
    throw new ConfigurationError(
      `${registration} takes a function as its callback (got ${callback === null ? 'null' : typeof callback}).`,
    );
  }
}
