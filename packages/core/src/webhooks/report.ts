/**
 * What one delivery came to (docs/architecture.md#callbacks): its HTTP answer and the `pay:webhook` diagnostics
 * message. A failed `handle()`'s answer is decided once, before any `.onError`
 * callback sees the error: user code may set `status` on it (an http-errors-style normaliser does), and a provider
 * told 200 for an event never processed stops delivering it.
 */
import type { ProviderName } from '../records.js';
import { WebhookHandlerError, WebhookVerificationError } from './errors.js';
import type { PayEvent, WebhookResult } from './types.js';

/** The reply a bridge sends: status and a small JSON body with no secret in it. */
export interface WebhookReply {
  status: 200 | 400 | 413 | 500 | 503;
  body: { received: true; events: number; duplicates: number } | { error: string; message: string };
}

/** What a failed delivery was answered, keyed by the error `handle()` rejected with. */
const decidedReplies = new WeakMap<object, WebhookReply>();

/**
 * The reply for an error `handle()` rejects with: the one decided when the handler first saw it, whatever changed
 * on the error since; an error the handler never saw (the application's own) is decided here.
 */
export function failureReply(error: unknown): WebhookReply {
  // A fresh copy, so a caller changing the reply it got cannot change the next caller's.
  const { status, body } = decideFailureReply(error);
  return { status, body: { ...body } };
}

/** Fixes the reply for `error` from its class and the status its constructor set, and remembers it. */
export function decideFailureReply(error: unknown): WebhookReply {
  const decided = typeof error === 'object' && error !== null ? decidedReplies.get(error) : undefined;
  if (decided !== undefined) return decided;
  const reply: WebhookReply =
    WebhookVerificationError.isInstance(error) || WebhookHandlerError.isInstance(error)
      ? { status: error.status, body: { error: error.code, message: error.message } }
      : internalError();
  if (typeof error === 'object' && error !== null) decidedReplies.set(error, reply);
  return reply;
}

/** The reply to an unexpected failure: retryable, and saying nothing about the cause. */
export function internalError(): WebhookReply {
  return { status: 500, body: { error: 'internal_error', message: 'The webhook could not be processed.' } };
}

/** How far one delivery got: what its trace and `onError` callbacks report. */
export interface Progress {
  deliveryKey: string | null;
  events: readonly PayEvent[];
  /** Which webhook secret (or public key) verified the delivery, once it is authenticated. */
  secretIndex?: number | undefined;
  startTime: number;
}

/** How `handle()` ended: its result, its error, or (while it runs) nothing yet. */
export type DeliveryOutcome = { ok: true; result: WebhookResult } | { ok: false; error: unknown } | undefined;

/** The `pay:webhook` message of one delivery: ids and enums only. */
export function deliveryTrace(provider: ProviderName, outcome: DeliveryOutcome, progress: Progress) {
  const error = outcome?.ok === false ? outcome.error : undefined;
  const refused = outcome === undefined || WebhookVerificationError.isInstance(error);
  return {
    provider,
    verified: !refused && !(error !== undefined && !WebhookHandlerError.isInstance(error)),
    reason: WebhookVerificationError.isInstance(error) ? error.reason : undefined,
    deliveryKey: progress.deliveryKey ?? undefined,
    secretIndex: progress.secretIndex,
    eventTypes: progress.events.map((event) => event.type),
    duplicate: outcome?.ok === true && outcome.result.duplicates.length > 0,
    callbackFailures: WebhookHandlerError.isInstance(error) ? error.errors.length : 0,
    status: outcome?.ok ? 200 : decideFailureReply(error).status,
    startTime: progress.startTime,
    durationMs: Date.now() - progress.startTime,
  };
}
