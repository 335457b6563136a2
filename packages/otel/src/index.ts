/**
 * `@pay/otel`: OpenTelemetry spans from @pay's tracing channels. It subscribes to the channels core publishes
 * (`pay:operation`, `pay:call`, `pay:attempt`, `pay:webhook`, `pay:reconcile`) and turns them into spans:
 *
 * ```
 * payments.create                      INTERNAL  pay.provider, pay.operation, pay.outcome, pay.idempotency_key
 * └─ commit-transaction                INTERNAL  pay.call, http.request.method, url.template, pay.attempts
 *    ├─ POST /v1/transactions/{id}/commit   CLIENT  http.response.status_code 503, error.type
 *    └─ POST /v1/transactions/{id}/commit   CLIENT  http.request.resend_count 1, http.response.status_code 200
 * ```
 *
 * A webhook delivery and a reconciler run are published once, when they ended: each is one span drawn with its
 * recorded times (`webhook <provider>`, `reconcile <provider>` with the run's counts).
 *
 * Only `@opentelemetry/api` is needed: the application brings the SDK and exporter it already uses. Like core, this
 * package asks the runtime for `diagnostics_channel` instead of importing it, so it loads (and does nothing) where
 * there is none.
 *
 * Tracing never changes what the application does: a tracer that throws (a broken exporter, an SDK bug) costs the
 * span, never the operation, and the failure goes to the `logger` option instead of reaching the process as an
 * uncaught exception (`diagnostics_channel` rethrows a subscriber's error on the next tick).
 */
import { context as contexts, type Span, type TracerProvider, trace } from '@opentelemetry/api';
import { type Logger, PAY_CHANNELS, type ReconcileTrace, type WebhookTrace } from '@pay/core';
import {
  attemptEnd,
  attemptSpan,
  callEnd,
  callSpan,
  operationEnd,
  operationSpan,
  reconcileSpan,
  type SpanStart,
  webhookSpan,
} from './spans.js';

/** Options of {@link instrumentPay}. */
export interface PayInstrumentationOptions {
  /** Where spans come from; default: the global tracer provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /**
   * Where a failing tracer is reported (console-compatible: `logger: console` works; silent by default): each
   * span that could not be started or ended is one `warn` line with the error. The application carries on.
   */
  logger?: Logger;
}

/** What {@link instrumentPay} returns: `disable()` unsubscribes (spans already started are ended). */
export interface PayInstrumentation {
  disable(): void;
}

const TRACER_NAME = '@pay/otel';

type Handlers = Record<'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error', (message: unknown) => void>;

interface Subscribable<S> {
  subscribe(subscriber: S): void;
  unsubscribe(subscriber: S): void;
}

interface DiagnosticsChannel {
  tracingChannel(name: string): Subscribable<Handlers>;
  channel(name: string): Subscribable<(message: unknown) => void>;
}

/**
 * The runtime's `diagnostics_channel`, asked of the runtime (`process.getBuiltinModule`, Node ≥ 20.16) instead of
 * imported, so this module loads where there is none (docs/architecture.md#tracing-channels); undefined there.
 */
function diagnosticsChannel(): DiagnosticsChannel | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    const found = runtime?.getBuiltinModule?.('node:diagnostics_channel') as
      | Partial<DiagnosticsChannel>
      | undefined;
    return typeof found?.tracingChannel === 'function' ? (found as DiagnosticsChannel) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Subscribes to @pay's channels and emits spans through the given (or global) tracer provider. Call it once at
 * start-up, after the OpenTelemetry SDK is registered. Where the runtime has no `diagnostics_channel` it returns
 * an instrumentation that does nothing.
 */
export function instrumentPay(options: PayInstrumentationOptions = {}): PayInstrumentation {
  const dc = diagnosticsChannel();
  if (!dc) return { disable() {} };
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(TRACER_NAME);
  const { logger } = options;
  /** Open spans by trace id, so a call finds its operation's span and an attempt its call's. */
  const open = new Map<string, Span>();

  /**
   * Runs one tracer step (`what`, for the log line). What it throws is a `warn` line on the application's logger,
   * never rethrown: Node's `diagnostics_channel` would rethrow it on the next tick, as an uncaught exception that
   * ends a process without a handler, after the payment already went through.
   */
  const guard = (what: string, step: () => void) => {
    try {
      step();
    } catch (error) {
      try {
        logger?.warn?.(`@pay/otel: could not ${what}; the operation is not affected.`, { error });
      } catch {
        // A logger that throws must not reach the application either.
      }
    }
  };

  /** The five handlers of one tracing channel: start opens the span, asyncEnd (or a synchronous throw) ends it. */
  const spanHandlers = <C extends { id: string }>(
    starting: (traced: C) => SpanStart,
    ending: (span: Span, traced: C) => void,
  ): Handlers => {
    const finish = (message: unknown) => {
      const traced = message as C;
      const span = open.get(traced.id);
      if (!span) return;
      open.delete(traced.id);
      guard('record the outcome on a span', () => ending(span, traced));
      guard('end a span', () => span.end());
    };
    return {
      start(message) {
        const traced = message as C;
        const { parentId, name, kind, attributes } = starting(traced);
        guard(`start span "${name}"`, () => {
          const parent = parentId === undefined ? undefined : open.get(parentId);
          // Outside any traced parent the span joins whatever the application has active (its request span).
          const parentContext = parent ? trace.setSpan(contexts.active(), parent) : contexts.active();
          open.set(traced.id, tracer.startSpan(name, { kind, attributes }, parentContext));
        });
      },
      end(message) {
        // `tracePromise` publishes end right after the function returned its promise; the span ends at asyncEnd.
        // A function that threw synchronously has an error and no asyncEnd.
        if ((message as { error?: unknown }).error !== undefined) finish(message);
      },
      asyncStart() {},
      asyncEnd: finish,
      error() {},
    };
  };

  const subscriptions: Array<() => void> = [];
  const subscribe = <S>(channel: Subscribable<S>, subscriber: S) => {
    channel.subscribe(subscriber);
    subscriptions.push(() => channel.unsubscribe(subscriber));
  };
  subscribe(dc.tracingChannel(PAY_CHANNELS.operation), spanHandlers(operationSpan, operationEnd));
  subscribe(dc.tracingChannel(PAY_CHANNELS.call), spanHandlers(callSpan, callEnd));
  subscribe(dc.tracingChannel(PAY_CHANNELS.attempt), spanHandlers(attemptSpan, attemptEnd));
  subscribe(dc.channel(PAY_CHANNELS.webhook), (message) =>
    guard('record the webhook span', () => webhookSpan(tracer, message as WebhookTrace)),
  );
  subscribe(dc.channel(PAY_CHANNELS.reconcile), (message) =>
    guard('record the reconciler run span', () => reconcileSpan(tracer, message as ReconcileTrace)),
  );

  return {
    disable() {
      for (const unsubscribe of subscriptions.splice(0)) unsubscribe();
      for (const span of open.values()) guard('end an open span', () => span.end());
      open.clear();
    },
  };
}
