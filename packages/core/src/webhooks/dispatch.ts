/**
 * Running the callbacks of verified events (docs/architecture.md#webhook-handler), for a webhook's delivery and
 * the reconciler's read alike, so a transition seen by both runs its callbacks once
 * (docs/architecture.md#reconciliation).
 */
import type { ProviderName } from '../records.js';
import { type Deduplication, settleQuietly, takeTransitions } from './dedupe.js';
import { WebhookHandlerError } from './errors.js';
import type { PayEvent, WebhookCallback, WebhookResult } from './types.js';

/** Where one handler's events go: its callbacks (the handler's own collections, so a dispatch sees every one). */
export interface Dispatcher {
  provider: ProviderName;
  /** `.on()` callbacks by event name, in registration order. */
  callbacks: ReadonlyMap<string, readonly WebhookCallback<never>[]>;
  /** `.onAny()` callbacks, run after an event's named ones. */
  anyCallbacks: readonly WebhookCallback<PayEvent>[];
  deduplication: Deduplication | undefined;
  /**
   * Told of each normalised event whose callbacks all succeeded (set by `createPay` with a reconciliation store):
   * the reconciler's watch list records its status as announced (docs/architecture.md#reconciliation).
   */
  announced?: (event: PayEvent) => Promise<void>;
}

/**
 * Runs each event's callbacks in order, every one even when another threw; an event nobody registered for costs no
 * await. With a deduplication store each normalised event runs under its transition's lease: one already done is
 * skipped (in `duplicates`), one is completed only when all its callbacks succeeded; a transition named twice in `events` runs once.
 */
export async function dispatchEvents(dispatcher: Dispatcher, events: PayEvent[]): Promise<WebhookResult> {
  const { callbacks, anyCallbacks, deduplication } = dispatcher;
  const wanted = events.filter((event) => callbacks.has(event.type) || anyCallbacks.length > 0);
  const transitions = await takeTransitions(dispatcher, wanted);
  const errors: unknown[] = [];
  const duplicates: string[] = [];
  for (const event of events) {
    const named = callbacks.get(event.type);
    if (named === undefined && anyCallbacks.length === 0) continue;
    const transition = transitions.get(event);
    if (transition?.state === 'done' || transition?.state === 'repeat') {
      duplicates.push(transition.key);
      continue;
    }
    const failed = errors.length;
    // The callbacks registered when the event's turn comes, named ones first.
    for (const callback of [...(named ?? []), ...anyCallbacks]) {
      try {
        await (callback as WebhookCallback<PayEvent>)(event);
      } catch (error) {
        errors.push(error);
      }
    }
    // Completes a transition whose callbacks all succeeded, or frees it for the next delivery or read.
    if (transition?.state === 'acquired' && deduplication) {
      const { store, ttlSeconds } = deduplication;
      const { key, lease } = transition;
      await settleQuietly(() =>
        errors.length === failed ? store.complete(key, lease, ttlSeconds) : store.release(key, lease),
      );
    }
    const { announced } = dispatcher;
    if (errors.length === failed && !event.is_raw && announced) await settleQuietly(() => announced(event));
  }
  if (errors.length > 0) throw new WebhookHandlerError(errors, events);
  return { events, duplicates };
}
