/**
 * What one delivery came to, for its observers (docs/architecture.md#callbacks): the `pay:webhook` diagnostics
 * message (docs/architecture.md#tracing-channels) and the `onError` callbacks. Neither can change the answer.
 */
import type { WebhookTrace } from '../diagnostics/channels.js';
import type { ProviderName } from '../records.js';
import { WebhookHandlerError, WebhookVerificationError } from './errors.js';
import type { WebhookErrorCallback, WebhookErrorContext, WebhookResult } from './handler.js';
import { decideFailureReply } from './reply.js';
import type { PayEvent } from './types.js';

/** How far one delivery got: what its trace and `onError` callbacks report. */
export interface Progress {
  deliveryKey: string | null;
  events: readonly PayEvent[];
  /** Which webhook secret (or public key) verified the delivery, once it is authenticated. */
  secretIndex?: number | undefined;
}

/** How `handle()` ended: its result, its error, or (while it runs) nothing yet. */
export type DeliveryOutcome = { ok: true; result: WebhookResult } | { ok: false; error: unknown } | undefined;

/** The `pay:webhook` message of one delivery: ids and enums only. */
export function deliveryTrace(
  provider: ProviderName,
  outcome: DeliveryOutcome,
  progress: Progress,
  startTime: number,
): WebhookTrace {
  const error = outcome?.ok === false ? outcome.error : undefined;
  const refused = outcome === undefined || WebhookVerificationError.isInstance(error);
  const status = outcome?.ok ? 200 : decideFailureReply(error).status;
  return {
    provider,
    verified: !refused && !(error !== undefined && !WebhookHandlerError.isInstance(error)),
    reason: WebhookVerificationError.isInstance(error) ? error.reason : undefined,
    deliveryKey: progress.deliveryKey ?? undefined,
    secretIndex: progress.secretIndex,
    eventTypes: progress.events.map((event) => event.type),
    duplicate: outcome?.ok === true && outcome.result.duplicates.length > 0,
    callbackFailures: WebhookHandlerError.isInstance(error) ? error.errors.length : 0,
    status,
    startTime,
    durationMs: Date.now() - startTime,
  };
}

/**
 * Calls the `onError` callbacks for a failure of `handle()`, one after the other, without awaiting what they
 * return: an observer that never settles must not hold the reply, nor one that throws or rejects change it.
 */
export function reportFailure(
  callbacks: readonly WebhookErrorCallback[],
  provider: ProviderName,
  error: unknown,
  progress: Progress,
): void {
  if (callbacks.length === 0) return;
  const dispatch = WebhookHandlerError.isInstance(error);
  const context: WebhookErrorContext = {
    provider,
    stage: dispatch ? 'dispatch' : 'verification',
    deliveryKey: progress.deliveryKey,
    events: dispatch ? progress.events : [],
  };
  for (const callback of callbacks) {
    try {
      const returned = callback(error as WebhookVerificationError | WebhookHandlerError, context);
      // A rejection nobody handles would end the process; an observer's failure changes nothing here (a value
      // that is no promise resolves as it is).
      Promise.resolve(returned).catch(() => undefined);
    } catch {
      // An observer's failure must not change the answer to the provider.
    }
  }
}
