/** One claimed object of a reconciler run (docs/architecture.md#reconciliation). */
import { withinLogger } from '../diagnostics/logger.js';
import type { Payment, Refund } from '../records.js';
import { StoreError } from '../store-errors.js';
import { dispatchEvents } from '../webhooks/dispatch.js';
import { WebhookVerificationError } from '../webhooks/errors.js';
import { webhookEvent } from '../webhooks/types.js';
import { ANSWERS, isRateLimited, pauseReads, type RunContext, storeCall } from './run-context.js';

/** The call options of every reconciler read: one request, no retry. */
const ONE_REQUEST = { retry: 0 };

import type { ClaimedObject, ReconciliationStore, WatchedObject } from './store.js';
import { advances, eventOfStatus, isFinal } from './transitions.js';
import { nextReadAt } from './watch.js';

/** Reads one claimed object, delivers a changed status, then settles (final) or reschedules it with backoff. */
export async function reconcileObject(context: RunContext, { object, lease }: ClaimedObject): Promise<void> {
  const { adapter, provider, settings, logger, summary } = context;
  const reads = object.reads + 1;
  const later = (status: string | null) => ({ status, reads, dueAt: nextReadAt(reads, settings.now()) });
  const settle = (next: Parameters<ReconciliationStore['settle']>[2]) =>
    storeCall(context, 'settle', () => context.store.settle(object, lease, next), ANSWERS.settle);
  const retrieveRefund = adapter.reconcile?.retrieveRefund;
  if (object.kind === 'refund' && retrieveRefund === undefined) {
    // Registered by the application (pay.watch) for an adapter that cannot read refunds: nothing to read by.
    logger.once(
      `reconcile-no-refund-read:${provider}`,
      'warn',
      `${provider} cannot read refunds (its adapter has no reconcile.retrieveRefund): watched refunds are dropped.`,
    );
    return void (await settle('final'));
  }
  // A webhook announced a final status since the last read (`announce`): nothing can follow it, no read is needed.
  if (object.status !== null && isFinal(object.kind, object.status)) return void (await settle('final'));
  // The provider rate-limited an earlier read: the object keeps its place and is read once the pause ends.
  const { pausedUntil } = context.reads;
  if (settings.now() < pausedUntil)
    return void (await settle({ status: object.status, reads: object.reads, dueAt: pausedUntil }));
  let record: Payment | Refund | null;
  try {
    summary.reads += 1;
    // A payment (also the payment behind a checkout: same id) or a refund. One request per read, never retried:
    // the shared budget counts requests, and the next read comes anyway (docs/architecture.md#reconciliation).
    const payments = context.pay.payments as unknown as {
      retrieve(id: string, options: { retry: number }): Promise<Payment | null>;
    };
    record = await (object.kind === 'refund' && retrieveRefund
      ? retrieveRefund(object.id, ONE_REQUEST)
      : payments.retrieve(object.id, ONE_REQUEST));
  } catch (error) {
    summary.errors += 1;
    if (isRateLimited(error)) await pauseReads(context, settings.now());
    logger.warn(
      `The reconciler could not read ${object.kind} ${object.id}; it reads it again later.`,
      () => ({
        provider,
        kind: object.kind,
        id: object.id,
        error,
      }),
    );
    return void (await settle(later(object.status)));
  }
  // Unknown to the provider (not there yet, or another account's id): read again later, until it expires.
  if (record === null) return void (await settle(later(object.status)));
  const status = record.status;
  // A status at or before the one the application was told (a lagging read after a webhook) is not announced.
  if (!advances(object.kind, status, object.status)) return void (await settle(later(object.status)));
  if (!(await deliverStatus(context, object, record))) {
    // Not delivered (callbacks failed, or another instance is on it): the status stays unannounced; read soon.
    return void (await settle({ status: object.status, reads, dueAt: nextReadAt(0, settings.now()) }));
  }
  await settle(isFinal(object.kind, status) ? 'final' : later(status));
}

/**
 * Delivers the record's new status as its event through the handler's dispatcher and logger: true when delivered
 * (now or earlier) or it raises none; false to try again.
 */
async function deliverStatus(context: RunContext, object: WatchedObject, record: Payment | Refund) {
  const { adapter, handler, provider, summary } = context;
  const type = eventOfStatus(adapter, object.kind, record.status, handler.raises);
  if (type === null) return true;
  const event = webhookEvent({
    key: ['reconcile', record.id, record.status],
    type,
    provider: adapter.provider,
    data: record,
    created: context.settings.now(),
    is_raw: false,
  });
  try {
    const result = await withinCallbackDeadline(context, () =>
      withinLogger(handler.logger, () => dispatchEvents(handler.dispatcher, [event])),
    );
    if (result === CALLBACKS_PAST_DEADLINE) {
      summary.errors += 1;
      context.logger.warn(
        `The callbacks of ${type} of ${object.kind} ${object.id} did not finish within ${context.settings.callbackTimeoutMs} ms; the run goes on, and the transition is delivered again once its lease ends.`,
        () => ({ provider, kind: object.kind, id: object.id, event: type }),
      );
      return false;
    }
    if (result.duplicates.length > 0) summary.duplicates += 1;
    else summary.transitions += 1;
    return true;
  } catch (error) {
    // Another instance (or a webhook) is running this transition right now: it finishes it, or its lease ends.
    if (WebhookVerificationError.isInstance(error) && error.reason === 'delivery_in_progress') return false;
    // The deduplication store is down: like any store outage, the run pauses (the object is read again).
    if (WebhookVerificationError.isInstance(error) && error.reason === 'deduplication_unavailable')
      throw new StoreError(
        "The reconciler could not reach the webhook handler's deduplication store; this run is paused.",
        { step: 'begin', cause: error },
      );
    summary.errors += 1;
    context.logger.warn(
      `A callback failed for ${type} of ${object.kind} ${object.id} found by the reconciler; it is delivered again on a later read.`,
      () => ({ provider, kind: object.kind, id: object.id, event: type, error }),
    );
    return false;
  }
}

/** What {@link withinCallbackDeadline} answers for callbacks still running at the deadline. */
const CALLBACKS_PAST_DEADLINE = Symbol('callbacks past deadline');

/**
 * Runs a delivery, or gives up waiting after `callbackTimeoutMs`: a callback that never settles must not hold the
 * run nor `stop()` (docs/architecture.md#reconciliation). The delivery is not cancelled: it keeps its transition
 * lease, and its late outcome completes or releases it as usual.
 */
async function withinCallbackDeadline<T>(
  context: RunContext,
  deliver: () => Promise<T>,
): Promise<T | typeof CALLBACKS_PAST_DEADLINE> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof CALLBACKS_PAST_DEADLINE>((resolve) => {
    timer = setTimeout(() => resolve(CALLBACKS_PAST_DEADLINE), context.settings.callbackTimeoutMs);
  });
  const delivery = deliver();
  // A delivery that fails after the deadline has nobody waiting: its failure is the late outcome, not a crash.
  delivery.catch(() => undefined);
  try {
    return await Promise.race([delivery, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
