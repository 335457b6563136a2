/**
 * What the reconciler uses of a `WebhookHandler` (docs/architecture.md#reconciliation), kept beside the handler
 * rather than on it, as `Pay` keeps its own (`internalsOf` in pay.ts): not public, exported from no entry. The
 * reconciler passes the dispatcher to `dispatchEvents` itself, so its delivery reads as function arguments.
 */
import type { PayLogger } from '../diagnostics/logger.js';
import type { Dispatcher } from './dispatch.js';

/** The parts of one handler the reconciler delivers through. */
export interface HandlerInternals {
  /** The handler's callbacks and deduplication: a read event goes through them as a webhook's would. */
  dispatcher: Dispatcher;
  /** The event names the handler accepts (`.on()`): the reconciler delivers only these. */
  raises: ReadonlySet<string>;
  /** The handler's logger, which its callbacks' deliveries report to. */
  logger: PayLogger;
}

const INTERNALS = new WeakMap<object, HandlerInternals>();

/** Records the internals of `handler` (its constructor calls this once). */
export function keepHandlerInternals(handler: object, internals: HandlerInternals): void {
  INTERNALS.set(handler, internals);
}

/** The internals of `handler`; `undefined` for an object the `WebhookHandler` constructor did not make. */
export function handlerInternals(handler: object): HandlerInternals | undefined {
  return INTERNALS.get(handler);
}
