/**
 * The webhook handler (design §5), shaped like Octokit's: verify completely, then dispatch. `.on()` chains;
 * every callback runs even when another throws; failures are aggregated into one `WebhookHandlerError`.
 */
import type { AdapterTypes } from '../adapter.js';
import { ConfigurationError, PayError, WebhookHandlerError, WebhookVerificationError } from '../errors.js';
import type { ProviderName } from '../records.js';
import type { DeduplicationStore } from './dedupe.js';
import {
  type EventMap,
  type EventOf,
  NORMALISED_EVENT_NAMES,
  type PayEvent,
  type WebhookDefinition,
  type WebhookDelivery,
} from './types.js';

/** Options of `pay.webhooks.setup()`. */
export interface WebhookSetupOptions {
  /**
   * The secret the provider's webhooks are checked with: Provider R's configuration secret, Provider N's
   * webhook signing secret, `null` for Provider T (it signs with a fixed public key).
   */
  webhookSecret: string | null | undefined;
  /** Skips events already processed (delivery is at least once). A failed dispatch releases its claim. */
  deduplicate?: DeduplicationStore;
  /** How long a claim is kept, in seconds. Default 7 days, longer than providers keep redelivering. */
  deduplicateTtlSeconds?: number;
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
  /** Every verified event of the delivery, in dispatch order. */
  events: PayEvent[];
  /** Ids of events skipped because the deduplication store had already seen them. */
  duplicates: string[];
}

/** A callback registered with `.on()`. */
export type WebhookCallback<E> = (event: E) => unknown;

const RAW_BODY_HELP =
  'Pass the raw request body (string or bytes), not a parsed object: signatures are computed on the exact bytes. ' +
  "Express: app.post(path, express.raw({ type: '*/*' }), …) and pass req.body; " +
  'Next.js route handler: await request.text(); or use the core bridges toFetchHandler / toNodeListener.';

/** Verifies provider webhooks and dispatches their events to registered callbacks. */
export class WebhookHandler<T extends AdapterTypes = AdapterTypes> {
  readonly #adapter: { provider: ProviderName; webhooks: WebhookDefinition };
  readonly #options: WebhookSetupOptions;
  readonly #callbacks = new Map<string, WebhookCallback<never>[]>();
  readonly #knownNames: ReadonlySet<string>;

  /** Prefer `pay.webhooks.setup()`. Throws `ConfigurationError` when the provider needs a secret and none is given. */
  constructor(
    adapter: { provider: ProviderName; webhooks: WebhookDefinition },
    options: WebhookSetupOptions,
  ) {
    if (adapter.webhooks.secret === 'required' && !options.webhookSecret) {
      throw new ConfigurationError(
        `${adapter.provider} webhooks are checked with a secret: pass it as webhooks.setup({ webhookSecret }).`,
        { missing: ['webhookSecret'] },
      );
    }
    this.#adapter = adapter;
    this.#options = options;
    this.#knownNames = new Set<string>([...NORMALISED_EVENT_NAMES, ...adapter.webhooks.rawEventNames]);
  }

  /**
   * Registers `callback` for one event name or several, and returns this handler so calls chain. A name that
   * is neither a normalised event nor one of the adapter's raw events is refused here, not silently ignored.
   */
  on<K extends keyof EventMap<T> & string>(
    names: K | readonly K[],
    callback: WebhookCallback<EventOf<T, K>>,
  ): this {
    for (const name of typeof names === 'string' ? [names] : names) {
      if (!this.#knownNames.has(name)) {
        throw new ConfigurationError(
          `'${name}' is not an event ${this.#adapter.provider} raises. Known names: ${[...this.#knownNames].join(', ')}.`,
        );
      }
      const list = this.#callbacks.get(name) ?? [];
      list.push(callback as WebhookCallback<never>);
      this.#callbacks.set(name, list);
    }
    return this;
  }

  /**
   * Verifies the webhook completely, then runs the callbacks of each event in order. Rejects with
   * `WebhookVerificationError` (nothing ran) or `WebhookHandlerError` (every callback ran; some threw).
   */
  async handle(request: WebhookRequest): Promise<WebhookResult> {
    const events = await this.#verify(request);
    const duplicates: string[] = [];
    const errors: unknown[] = [];
    const store = this.#options.deduplicate;
    for (const event of events) {
      if (store && !(await store.claim(event.id, this.#options.deduplicateTtlSeconds ?? 7 * 24 * 3600))) {
        duplicates.push(event.id);
        continue;
      }
      const failures = await this.#dispatch(event);
      if (failures.length > 0) {
        errors.push(...failures);
        await store?.release(event.id);
      }
    }
    if (errors.length > 0) throw new WebhookHandlerError(errors, events);
    return { events, duplicates };
  }

  async #verify(request: WebhookRequest): Promise<PayEvent[]> {
    const delivery = toDelivery(request);
    try {
      return await this.#adapter.webhooks.verify(delivery, this.#options.webhookSecret ?? null);
    } catch (error) {
      throw asVerificationError(error);
    }
  }

  async #dispatch(event: PayEvent): Promise<unknown[]> {
    const failures: unknown[] = [];
    for (const callback of this.#callbacks.get(event.type) ?? []) {
      try {
        await (callback as WebhookCallback<PayEvent>)(event);
      } catch (error) {
        failures.push(error);
      }
    }
    return failures;
  }
}

function toDelivery(request: WebhookRequest): WebhookDelivery {
  if (typeof request !== 'object' || request === null) {
    throw new WebhookVerificationError('handle() takes { body, headersAsObject, fullUrl }.', {
      reason: 'malformed_payload',
    });
  }
  const { body } = request;
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new WebhookVerificationError(
      `The webhook body is ${body === null ? 'null' : typeof body}. ${RAW_BODY_HELP}`,
      {
        reason: 'raw_body_required',
      },
    );
  }
  const rawBody = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  let text: string;
  try {
    text = typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch (cause) {
    throw new WebhookVerificationError('The webhook body is not valid UTF-8.', {
      reason: 'malformed_payload',
      cause,
    });
  }
  if (typeof request.fullUrl !== 'string') {
    throw new WebhookVerificationError('fullUrl must be the full URL the webhook was posted to.', {
      reason: 'malformed_payload',
    });
  }
  return {
    rawBody,
    body: text,
    headers: lowerCaseHeaders(request.headersAsObject ?? {}),
    fullUrl: request.fullUrl,
  };
}

/**
 * Header names in lower case, repeated values joined, so lookups ignore the case the sender used. A value that
 * is not a string (or a list of strings) cannot come from an HTTP request: it is refused, not guessed at.
 */
export function lowerCaseHeaders(headers: WebhookRequest['headersAsObject']): Record<string, string> {
  const result: Record<string, string> = {};
  if (typeof headers !== 'object' || headers === null) throw malformedHeaders();
  const entries =
    typeof Headers !== 'undefined' && headers instanceof Headers
      ? [...headers.entries()]
      : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    const text = headerText(value);
    const key = name.toLowerCase();
    result[key] = key in result ? `${result[key]}, ${text}` : text;
  }
  return result;
}

function headerText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join(', ');
  throw malformedHeaders();
}

function malformedHeaders(): WebhookVerificationError {
  return new WebhookVerificationError(
    'headersAsObject must map header names to strings (or lists of strings).',
    {
      reason: 'malformed_payload',
    },
  );
}

/**
 * Any failure while verifying is a `WebhookVerificationError`. A failed confirmation call (Provider R's status
 * read) is retryable when the provider may answer later, so the delivery comes again.
 */
function asVerificationError(error: unknown): WebhookVerificationError {
  if (WebhookVerificationError.isInstance(error)) return error;
  if (PayError.isInstance(error)) {
    const retryable =
      (error as { retryable?: boolean; code: string }).retryable ?? error.code === 'network_error';
    return new WebhookVerificationError(
      `The webhook could not be confirmed with the provider (${error.code}). ${retryable ? 'The provider will deliver it again.' : ''}`.trim(),
      { reason: 'confirmation_failed', retryable, cause: error },
    );
  }
  return new WebhookVerificationError('The webhook payload could not be read.', {
    reason: 'malformed_payload',
    cause: error,
  });
}
