/**
 * The HTTP answer to a delivery (docs/architecture.md#webhook-bridges). The answer to a failed `handle()` is decided
 * once, by the handler, before any `.onError` callback sees the error (docs/architecture.md#callbacks): the error
 * object is handed to user code, which may set `status` on it (an http-errors-style normaliser does), and a
 * provider told 200 for an event that was never processed stops delivering it.
 */

import { WebhookHandlerError, WebhookVerificationError } from './errors.js';

/** The reply a bridge sends: status and a small JSON body with no secret in it. */
export interface WebhookReply {
  status: 200 | 400 | 413 | 500 | 503;
  body: { received: true; events: number; duplicates: number } | { error: string; message: string };
}

/** What a failed delivery was answered, keyed by the error `handle()` rejected with. */
const decidedReplies = new WeakMap<object, WebhookReply>();

/**
 * The reply for an error `handle()` rejects with: the one decided when the handler first saw the error (see
 * {@link decideFailureReply}), whatever was changed on the error since. An error the handler never saw (thrown by
 * the application itself) is decided here, on first sight.
 */
export function failureReply(error: unknown): WebhookReply {
  // A fresh copy, so a caller changing the reply it got cannot change the next caller's.
  const { status, body } = decideFailureReply(error);
  return { status, body: { ...body } };
}

/**
 * Fixes the reply for `error` from what it is now (its class and the status its constructor set) and remembers it
 * for {@link failureReply}. The handler calls this before any `.onError` callback runs.
 */
export function decideFailureReply(error: unknown): WebhookReply {
  if (typeof error === 'object' && error !== null) {
    const decided = decidedReplies.get(error);
    if (decided !== undefined) return decided;
  }
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
