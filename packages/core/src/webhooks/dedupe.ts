/**
 * Deduplication of webhook deliveries (docs/architecture.md#webhook-deduplication), delivered at least once: a
 * delivery is leased while it is processed and done only when every callback succeeded; a failed attempt releases
 * its lease and a crashed one lets it expire, so the provider's next delivery runs it.
 */

import { markInMemory } from '../diagnostics/production.js';
import { ConfigurationError } from '../errors.js';
import type { ProviderName } from '../records.js';
import { isRecord } from '../validation.js';
import { WebhookVerificationError } from './errors.js';
import type { PayEvent } from './types.js';

/** The deduplication members of `pay.webhooks.setup()`'s options (`WebhookSetupOptions`), as given. */
interface DeduplicationSettings {
  deduplicate?: DeduplicationStore | undefined;
  deduplicateTtlSeconds?: number | undefined;
  deduplicateLeaseSeconds?: number | undefined;
}

/** What {@link DeduplicationStore.begin} found for a delivery key. */
export type DeliveryLease =
  /** Nobody holds the key: it is leased to the caller, who must `complete` or `release` it with `lease`. */
  | { state: 'acquired'; lease: string }
  /** Another attempt holds an unexpired lease on the key: answer retryably, the provider delivers again. */
  | { state: 'in_progress' }
  /** The key was completed within its time to live: a redelivery, skip it. */
  | { state: 'done' };

/**
 * A store of delivery keys shared by every process that handles webhooks. Each key is free, leased (an attempt is
 * running; the lease expires after `leaseSeconds`) or done (kept for `ttlSeconds`); each call is one atomic
 * statement (the core README, Webhooks, shows them on PostgreSQL and Redis).
 */
export interface DeduplicationStore {
  /** Leases a free `key` (never seen, released or expired) with a fresh owner token, or says where it is. */
  begin(key: string, options: { leaseSeconds: number }): Promise<DeliveryLease>;
  /** Marks `key` done for `ttlSeconds`, only when `lease` still owns it (not another attempt's lease). */
  complete(key: string, lease: string, ttlSeconds: number): Promise<void>;
  /** Frees `key` for the next delivery, only when `lease` still owns it. */
  release(key: string, lease: string): Promise<void>;
}

type Entry = { state: 'leased'; lease: string; until: number } | { state: 'done'; until: number };

/**
 * An in-memory {@link DeduplicationStore} for one process (tests, single-instance apps); `now` is its clock (epoch
 * ms).
 */
export function createMemoryDeduplicationStore(now: () => number = Date.now): DeduplicationStore {
  const entries = new Map<string, Entry>();
  let begins = 0;
  return markInMemory({
    async begin(key, { leaseSeconds }) {
      begins += 1;
      // Drops expired entries now and then, so a long-running process does not keep every key forever.
      if (begins % 1024 === 0) {
        const time = now();
        for (const [expired, entry] of entries) if (entry.until <= time) entries.delete(expired);
      }
      const entry = entries.get(key);
      if (entry !== undefined && entry.until > now()) {
        return entry.state === 'done' ? { state: 'done' } : { state: 'in_progress' };
      }
      const lease = crypto.randomUUID();
      entries.set(key, { state: 'leased', lease, until: now() + leaseSeconds * 1000 });
      return { state: 'acquired', lease };
    },
    async complete(key, lease, ttlSeconds) {
      const entry = entries.get(key);
      if (entry?.state !== 'leased' || entry.lease !== lease) return;
      entries.set(key, { state: 'done', until: now() + ttlSeconds * 1000 });
    },
    async release(key, lease) {
      const entry = entries.get(key);
      if (entry?.state === 'leased' && entry.lease === lease) entries.delete(key);
    },
  });
}

/** Defaults: a TTL longer than any provider keeps redelivering; a lease for a status read plus callbacks. */
const DEFAULT_SECONDS = { deduplicateTtlSeconds: 7 * 24 * 3600, deduplicateLeaseSeconds: 60 };

/** The checked deduplication settings of one handler. */
export type Deduplication = NonNullable<ReturnType<typeof deduplicationOf>>;

/**
 * Checks the deduplication options at setup: a TTL or lease of 0, below 0, NaN or Infinity would silently mean "no
 * deduplication" (or "never again"), and a store of the former `claim`/`release` shape would lose events.
 */
export function deduplicationOf(options: DeduplicationSettings) {
  const ttlSeconds = positiveSeconds(options, 'deduplicateTtlSeconds');
  const leaseSeconds = positiveSeconds(options, 'deduplicateLeaseSeconds');
  const store = options.deduplicate;
  if (store === undefined) return undefined;
  const methods = ['begin', 'complete', 'release'] as const;
  if (!isRecord(store) || methods.some((method) => typeof store[method] !== 'function')) {
    throw new ConfigurationError(
      'deduplicate must be a DeduplicationStore { begin(key, { leaseSeconds }), complete(key, lease, ttlSeconds), release(key, lease) } (a store with claim/release is the former contract: see the @pay/core README, Webhooks).',
      { missing: ['deduplicate'] },
    );
  }
  return { store, ttlSeconds, leaseSeconds };
}

/** `options[name]` (its default when absent), refused unless it is a positive, finite number of seconds. */
function positiveSeconds(options: DeduplicationSettings, name: keyof typeof DEFAULT_SECONDS): number {
  const value = options[name];
  if (value === undefined) return DEFAULT_SECONDS[name];
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigurationError(
      `${name} must be a positive, finite number of seconds (0, a negative number or NaN would turn deduplication off).`,
      { missing: [name] },
    );
  }
  return value;
}

/** Runs a store call whose failure changes nothing for the caller, even if it throws synchronously. */
export async function settleQuietly(call: () => Promise<void>): Promise<void> {
  try {
    await call();
  } catch {
    // The lease expires on its own: at worst the delivery runs once more (at least once).
  }
}

/** Takes the lease; a store that cannot answer makes the delivery retryable rather than unprotected. */
export async function beginLease(deduplication: Deduplication, key: string): Promise<DeliveryLease> {
  try {
    return await deduplication.store.begin(key, { leaseSeconds: deduplication.leaseSeconds });
  } catch (cause) {
    throw new WebhookVerificationError(
      'The deduplication store could not be reached; answer 503 so the provider delivers again later.',
      { reason: 'deduplication_unavailable', retryable: true, cause },
    );
  }
}

/**
 * One event's transition lease, as {@link takeTransitions} took it; `repeat`: an earlier event of the same delivery
 * names the same transition, which runs once.
 */
export type TransitionLease = { key: string } & (
  | { state: 'acquired'; lease: string }
  | { state: 'done' }
  | { state: 'repeat' }
);

/**
 * The transition a normalised event reports (docs/architecture.md#reconciliation), the same from a webhook or a
 * reconciler read, so its callbacks run once. The status is in the key because one event name reports several
 * transitions (`payment.updated`); raw events have none: they belong to their delivery.
 */
export function transitionKeyOf(provider: string, event: PayEvent): string | undefined {
  const data = event.data as { id?: unknown; status?: unknown } | null;
  if (event.is_raw || typeof data?.id !== 'string' || data.id === '') return undefined;
  const kind = event.type.slice(0, event.type.indexOf('.'));
  const status = typeof data.status === 'string' ? `:${data.status}` : '';
  return `${provider}:transition:${kind}:${data.id}:${event.type}${status}`;
}

/**
 * Takes the transition lease of each event before any callback runs: a transition in progress elsewhere (a webhook
 * and the reconciler at once, on two instances) frees the leases taken and makes the whole dispatch retryable. A
 * transition the delivery names twice (a settlement listing one transaction twice) is leased once: the later
 * event is a `repeat`, so it never meets the earlier one's lease (docs/architecture.md#webhook-deduplication).
 */
export async function takeTransitions(
  { deduplication, provider }: { deduplication: Deduplication | undefined; provider: ProviderName },
  events: readonly PayEvent[],
) {
  const taken = new Map<PayEvent, TransitionLease>();
  if (deduplication === undefined) return taken;
  try {
    for (const event of events) {
      const key = transitionKeyOf(provider, event);
      if (key === undefined) continue;
      if ([...taken.values()].some((held) => held.key === key)) {
        taken.set(event, { key, state: 'repeat' });
        continue;
      }
      const lease = await beginLease(deduplication, key);
      if (lease.state === 'in_progress')
        throw new WebhookVerificationError(
          `The ${event.type} transition of ${key.split(':')[3]} is being processed by another attempt right now (a webhook or the reconciler); answer 503 so it is delivered again once that attempt has finished (or its lease has expired).`,
          { reason: 'delivery_in_progress', retryable: true },
        );
      taken.set(
        event,
        lease.state === 'done' ? { key, state: 'done' } : { key, state: 'acquired', lease: lease.lease },
      );
    }
  } catch (error) {
    for (const held of taken.values())
      if (held.state === 'acquired')
        await settleQuietly(() => deduplication.store.release(held.key, held.lease));
    throw error;
  }
  return taken;
}
