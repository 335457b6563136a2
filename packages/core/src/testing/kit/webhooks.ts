/**
 * Signed webhook delivery from a simulator to an application: a queue delivered in order, each delivery
 * retried a few times with a short backoff when the endpoint cannot be reached or answers anything but 2xx
 * (as providers redeliver), and a delivery log a test or `pay dev` reads. Signing is the simulator's: the
 * forwarder asks it for the headers that carry the signature of the exact body it sends.
 *
 * `pay dev --drop-webhooks` makes it lose webhooks on purpose, as a provider does when an endpoint stays down
 * past its retries, so a developer sees what the app does without them; a dropped delivery is signed and logged
 * all the same, and `redeliver` sends its exact signed body later (docs/architecture.md#pay-dev).
 */

/** A webhook a simulator wants delivered: the event name (for logs) and the exact body to sign and send. */
export interface OutgoingWebhook {
  event: string;
  body: string;
  /** Extra headers (besides the signature headers and `content-type: application/json`). */
  headers?: Record<string, string>;
}

/** One attempt at delivering a webhook. */
export interface WebhookAttempt {
  /** ISO time the attempt started. */
  at: string;
  /** The endpoint's HTTP status, when it answered. */
  status?: number;
  /** Why there was no answer (connection refused, timeout), when it did not. */
  error?: string;
  /** The start of the endpoint's answer (200 characters) when it was not 2xx: why the app refused it. */
  answer?: string;
}

/** A webhook in the delivery log. */
export interface WebhookDelivery {
  id: string;
  event: string;
  url: string;
  body: string;
  /** Every header sent, signature included. */
  headers: Record<string, string>;
  /**
   * `pending` while queued or being sent; `delivered` once the app answered 2xx; `failed` after the last
   * redelivery; `dropped` when the forwarder was told to lose it (see {@link WebhookForwarder.dropWebhooks}) and
   * never sent it.
   */
  state: 'pending' | 'delivered' | 'failed' | 'dropped';
  attempts: WebhookAttempt[];
}

/** What one delivery attempt got back. */
export interface WebhookReply {
  status: number;
  body: string;
}

/** Options of {@link WebhookForwarder}. */
export interface WebhookForwarderOptions {
  /** The headers carrying the provider's signature of `body` (e.g. `{ 'providerN-signature': … }`). */
  sign(body: string): Record<string, string> | Promise<Record<string, string>>;
  /** Redeliveries after a failed first attempt (default 3). */
  redeliveries?: number;
  /** Wait before each redelivery, in ms; the last value repeats (default `[100, 500, 2000]`). */
  backoffMs?: readonly number[];
  /** Per-attempt timeout in ms (default 5000). */
  timeoutMs?: number;
  /** Called when a delivery is finished (delivered, failed after its redeliveries, or dropped). */
  onDelivery?: (delivery: WebhookDelivery) => void;
}

/** Delivers signed webhooks to one URL at a time, in order, with redeliveries and a log. */
export class WebhookForwarder {
  readonly #options: WebhookForwarderOptions;
  readonly #deliveries: WebhookDelivery[] = [];
  readonly #wakers = new Set<() => void>();
  #url: string | null = null;
  #queue: Promise<void> = Promise.resolve();
  #pending = 0;
  #closed = false;
  #dropShare = 0;
  #random: () => number = Math.random;
  #sequence = 0;
  #forgotten = 0;

  /** A forwarder signing with `options.sign`. Nothing is delivered until {@link forwardTo} names a URL. */
  constructor(options: WebhookForwarderOptions) {
    this.#options = options;
  }

  /** Where webhooks go from now on; `null` stops forwarding (later webhooks are not delivered or logged). */
  forwardTo(url: string | null): void {
    if (url !== null) new URL(url);
    this.#url = url;
  }

  /** The URL webhooks are forwarded to, or `null`. */
  get url(): string | null {
    return this.#url;
  }

  /** Every delivery so far, in order (a live read-only view). */
  get deliveries(): readonly WebhookDelivery[] {
    return this.#deliveries;
  }

  /**
   * From now on, drops a `share` of the webhooks queued (0: none, the default; 1: all): each one is drawn with
   * `random` (default `Math.random`; a seeded one makes a test repeatable) when it is queued, and a drawn one is
   * signed and logged as `dropped` but never sent. Throws a `RangeError` for a share outside 0–1.
   */
  dropWebhooks(share: number, random: () => number = Math.random): void {
    if (!(Number.isFinite(share) && share >= 0 && share <= 1))
      throw new RangeError(`The share of webhooks to drop is a number from 0 to 1, got ${String(share)}.`);
    this.#dropShare = share;
    this.#random = random;
  }

  /**
   * Forgets the oldest deliveries beyond the last `keep` that are no longer being sent, so a long `pay dev`
   * session stays small (docs/architecture.md#pay-dev; it calls this after logging what it has not logged yet); a
   * forgotten delivery cannot be sent again, and {@link forgotten} counts them. Throws a `RangeError` for a `keep`
   * that is not a positive integer.
   */
  forgetOldest(keep: number): void {
    if (!(Number.isInteger(keep) && keep > 0))
      throw new RangeError(`The number of deliveries to keep is a positive integer, got ${String(keep)}.`);
    while (this.#deliveries.length > keep) {
      const oldest = this.#deliveries.findIndex((delivery) => delivery.state !== 'pending');
      if (oldest === -1) return;
      this.#deliveries.splice(oldest, 1);
      this.#forgotten += 1;
    }
  }

  /** How many deliveries {@link forgetOldest} forgot. */
  get forgotten(): number {
    return this.#forgotten;
  }

  /** The share of webhooks dropped (0–1), as {@link dropWebhooks} set it. */
  get dropShare(): number {
    return this.#dropShare;
  }

  /**
   * Queues `webhook` for the forwarding URL and returns its log entry; `undefined` when no URL is set.
   * Throws once the forwarder is closed.
   */
  enqueue(webhook: OutgoingWebhook): WebhookDelivery | undefined {
    if (this.#closed) throw new Error('This webhook forwarder is closed.');
    if (this.#url === null) return undefined;
    const delivery: WebhookDelivery = {
      id: `whd_${String(++this.#sequence).padStart(6, '0')}`,
      event: webhook.event,
      url: this.#url,
      body: webhook.body,
      headers: {},
      state: 'pending',
      attempts: [],
    };
    this.#deliveries.push(delivery);
    // Drawn in queue order, so a seeded `random` drops the same webhooks on every run.
    const drop = this.#dropShare > 0 && (this.#dropShare >= 1 || this.#random() < this.#dropShare);
    this.#pending += 1;
    this.#queue = this.#queue.then(() => this.#deliver(delivery, webhook, drop));
    return delivery;
  }

  /**
   * Sends logged delivery `id` again, once, with its exact body and signed headers (a provider dashboard's "send
   * again"), queued behind the deliveries in flight; the attempt is added to the same delivery, which ends
   * `delivered` or `failed` (no redeliveries: the person asking sees the answer). Throws a `RangeError` for an
   * unknown id, an `Error` for a delivery still pending or a closed forwarder.
   */
  redeliver(id: string): WebhookDelivery {
    if (this.#closed) throw new Error('This webhook forwarder is closed.');
    const delivery = this.#deliveries.find((candidate) => candidate.id === id);
    if (delivery === undefined) throw new RangeError(`No webhook delivery ${id} in this forwarder's log.`);
    if (delivery.state === 'pending')
      throw new Error(`Webhook delivery ${id} is still being delivered: send it again once it is done.`);
    delivery.state = 'pending';
    this.#pending += 1;
    this.#queue = this.#queue.then(() => this.#resend(delivery));
    return delivery;
  }

  /** Sends `webhook` to `url` once, signed, outside the queue and the log (`pay trigger`). */
  async send(url: string, webhook: OutgoingWebhook): Promise<WebhookReply> {
    const headers = await this.#headers(webhook);
    return this.#post(url, webhook.body, headers);
  }

  /** Resolves when every queued delivery is finished. */
  async idle(): Promise<void> {
    while (this.#pending > 0) await this.#queue;
  }

  /** Stops accepting webhooks, cuts redelivery waits short, and waits for the deliveries in flight. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wake of this.#wakers) wake();
    await this.idle();
  }

  async #headers(webhook: OutgoingWebhook): Promise<Record<string, string>> {
    return {
      'content-type': 'application/json',
      ...webhook.headers,
      ...(await this.#options.sign(webhook.body)),
    };
  }

  async #post(url: string, body: string, headers: Record<string, string>): Promise<WebhookReply> {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(this.#options.timeoutMs ?? 5_000),
    });
    return { status: response.status, body: await response.text() };
  }

  async #deliver(delivery: WebhookDelivery, webhook: OutgoingWebhook, drop: boolean): Promise<void> {
    try {
      // Signed even when dropped: a later `redeliver` sends what the provider would have sent then.
      delivery.headers = await this.#headers(webhook);
      if (drop) {
        delivery.state = 'dropped';
        return;
      }
      const redeliveries = this.#options.redeliveries ?? 3;
      for (let attempt = 0; attempt <= redeliveries; attempt += 1) {
        if (attempt > 0) {
          if (this.#closed) break;
          await this.#wait(attempt - 1);
          if (this.#closed) break;
        }
        if (await this.#attempt(delivery)) return;
      }
      delivery.state = 'failed';
    } catch (error) {
      delivery.attempts.push({ at: new Date().toISOString(), error: `signing failed: ${describe(error)}` });
      delivery.state = 'failed';
    } finally {
      this.#pending -= 1;
      this.#options.onDelivery?.(delivery);
    }
  }

  /** One attempt at `delivery`, logged; whether the app answered 2xx (the delivery is then `delivered`). */
  async #attempt(delivery: WebhookDelivery): Promise<boolean> {
    const at = new Date().toISOString();
    try {
      const reply = await this.#post(delivery.url, delivery.body, delivery.headers);
      if (reply.status >= 200 && reply.status < 300) {
        delivery.attempts.push({ at, status: reply.status });
        delivery.state = 'delivered';
        return true;
      }
      delivery.attempts.push({ at, status: reply.status, answer: reply.body.slice(0, 200) });
    } catch (error) {
      delivery.attempts.push({ at, error: describe(error) });
    }
    return false;
  }

  async #resend(delivery: WebhookDelivery): Promise<void> {
    try {
      if (!(await this.#attempt(delivery))) delivery.state = 'failed';
    } finally {
      this.#pending -= 1;
      this.#options.onDelivery?.(delivery);
    }
  }

  #wait(redelivery: number): Promise<void> {
    const schedule = this.#options.backoffMs ?? [100, 500, 2_000];
    const ms = schedule[Math.min(redelivery, schedule.length - 1)] ?? 0;
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#wakers.add(wake);
    });
  }
}

/** A short reason for a failed attempt: the network code when there is one (`ECONNREFUSED`), else the message. */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  return error instanceof Error ? error.message : String(error);
}
