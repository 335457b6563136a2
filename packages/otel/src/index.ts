/**
 * `@pay/otel`: OpenTelemetry spans from @pay's tracing channels. It subscribes to the channels core publishes
 * (`pay:operation`, `pay:call`, `pay:attempt`, `pay:webhook`) and turns them into spans:
 *
 * ```
 * payments.create                      INTERNAL  pay.provider, pay.operation, pay.outcome, pay.idempotency_key
 * └─ commit-transaction                INTERNAL  pay.call, http.request.method, url.template, pay.attempts
 *    ├─ POST /v1/transactions/{id}/commit   CLIENT  http.response.status_code 503, error.type
 *    └─ POST /v1/transactions/{id}/commit   CLIENT  http.request.resend_count 1, http.response.status_code 200
 * ```
 *
 * Only `@opentelemetry/api` is needed: the application brings the SDK and exporter it already uses. Like core, this
 * package asks the runtime for `diagnostics_channel` instead of importing it, so it loads (and does nothing) where
 * there is none.
 *
 * Tracing never changes what the application does: a tracer that throws (a broken exporter, an SDK bug) costs the
 * span, never the operation, and the failure goes to the `logger` option instead of reaching the process as an
 * uncaught exception (`diagnostics_channel` rethrows a subscriber's error on the next tick).
 */
import {
  type Attributes,
  type Context,
  context as contexts,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import {
  type AttemptTrace,
  type CallTrace,
  type Logger,
  type OperationTrace,
  PAY_CHANNELS,
  type WebhookTrace,
} from '@pay/core';

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

interface Handlers {
  start(message: unknown): void;
  end(message: unknown): void;
  asyncStart(message: unknown): void;
  asyncEnd(message: unknown): void;
  error(message: unknown): void;
}

interface TracingChannel {
  subscribe(handlers: Handlers): void;
  unsubscribe(handlers: Handlers): void;
}

interface Channel {
  subscribe(listener: (message: unknown) => void): void;
  unsubscribe(listener: (message: unknown) => void): void;
}

interface DiagnosticsChannel {
  tracingChannel(name: string): unknown;
  channel(name: string): unknown;
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
  const spans = new SpanBook(tracer);
  const guard = spanGuard(options.logger);

  const subscriptions: Array<() => void> = [];
  const traced = (name: string, handlers: Handlers) => {
    const channel = dc.tracingChannel(name) as TracingChannel;
    channel.subscribe(handlers);
    subscriptions.push(() => channel.unsubscribe(handlers));
  };
  traced(PAY_CHANNELS.operation, spanHandlers(spans, guard, operationSpan, operationEnd));
  traced(PAY_CHANNELS.call, spanHandlers(spans, guard, callSpan, callEnd));
  traced(PAY_CHANNELS.attempt, spanHandlers(spans, guard, attemptSpan, attemptEnd));
  const webhook = dc.channel(PAY_CHANNELS.webhook) as Channel;
  const onWebhook = (message: unknown) =>
    guard('record the webhook span', () => webhookSpan(tracer, message as WebhookTrace));
  webhook.subscribe(onWebhook);
  subscriptions.push(() => webhook.unsubscribe(onWebhook));

  return {
    disable() {
      for (const unsubscribe of subscriptions.splice(0)) unsubscribe();
      spans.endAll(guard);
    },
  };
}

/** How a span starts: its name, kind and attributes, from the start context. */
interface SpanStart {
  name: string;
  kind: SpanKind;
  attributes: Attributes;
}

/** Open spans by trace id, so a call finds its operation's span and an attempt its call's. */
class SpanBook {
  readonly #open = new Map<string, Span>();
  constructor(readonly tracer: Tracer) {}

  start(id: string, parentId: string | undefined, start: SpanStart): Span {
    const parent = parentId === undefined ? undefined : this.#open.get(parentId);
    // Outside any traced parent the span joins whatever the application has active (its request span).
    const parentContext: Context = parent ? trace.setSpan(contexts.active(), parent) : contexts.active();
    const span = this.tracer.startSpan(
      start.name,
      { kind: start.kind, attributes: start.attributes },
      parentContext,
    );
    this.#open.set(id, span);
    return span;
  }

  take(id: string): Span | undefined {
    const span = this.#open.get(id);
    this.#open.delete(id);
    return span;
  }

  endAll(guard: SpanGuard): void {
    for (const span of this.#open.values()) guard('end an open span', () => span.end());
    this.#open.clear();
  }
}

/** Runs one tracer step (`what`, for the log line); what it throws is logged, never rethrown. */
type SpanGuard = (what: string, step: () => void) => void;

/**
 * A subscriber that throws does not fail the publisher: Node's `diagnostics_channel` rethrows the error on the next
 * tick, as an uncaught exception that ends a process without a handler, after the payment already went through.
 * So every tracer call runs here, and its failure is a `warn` line on the application's logger.
 */
function spanGuard(logger: Logger | undefined): SpanGuard {
  return (what, step) => {
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
}

/** The five handlers of one tracing channel: start opens the span, asyncEnd (or a synchronous throw) ends it. */
function spanHandlers<C extends { id: string }>(
  spans: SpanBook,
  guard: SpanGuard,
  starting: (trace: C) => SpanStart & { parentId: string | undefined },
  ending: (span: Span, trace: C) => void,
): Handlers {
  const finish = (message: unknown) => {
    const trace = message as C;
    const span = spans.take(trace.id);
    if (!span) return;
    guard('record the outcome on a span', () => ending(span, trace));
    guard('end a span', () => span.end());
  };
  return {
    start(message) {
      const trace = message as C;
      const { parentId, ...start } = starting(trace);
      guard(`start span "${start.name}"`, () => spans.start(trace.id, parentId, start));
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
}

function operationSpan(trace: OperationTrace): SpanStart & { parentId: string | undefined } {
  return {
    parentId: undefined,
    name: trace.operation,
    kind: SpanKind.INTERNAL,
    attributes: defined({
      'pay.provider': trace.provider,
      'pay.operation': trace.operation,
      'pay.idempotency_key': trace.idempotencyKey,
    }),
  };
}

function operationEnd(span: Span, trace: OperationTrace): void {
  span.setAttributes(
    defined({
      'pay.outcome': trace.outcome,
      'pay.record_id': trace.recordId,
      'pay.request_id': trace.requestId ?? undefined,
    }),
  );
  endStatus(span, trace.error, trace.errorType);
}

function httpAttributes(trace: CallTrace | AttemptTrace): Attributes {
  return defined({
    'http.request.method': trace.method,
    'url.template': trace.urlTemplate,
    'server.address': trace.serverAddress,
    'server.port': trace.serverPort,
    'pay.provider': trace.provider,
    'pay.call': trace.call,
    'pay.request_id': trace.requestId,
  });
}

function callSpan(trace: CallTrace): SpanStart & { parentId: string | undefined } {
  return {
    parentId: trace.parentId,
    name: trace.call,
    kind: SpanKind.INTERNAL,
    attributes: { ...httpAttributes(trace), ...defined({ 'pay.idempotency_key': trace.idempotencyKey }) },
  };
}

function callEnd(span: Span, trace: CallTrace): void {
  span.setAttributes(
    defined({
      'http.response.status_code': trace.status,
      'pay.attempts': trace.attempts,
      'pay.outcome': trace.outcome,
    }),
  );
  endStatus(span, trace.error, trace.errorType);
}

function attemptSpan(trace: AttemptTrace): SpanStart & { parentId: string | undefined } {
  return {
    parentId: trace.parentId,
    // HTTP client spans are named "{method} {url.template}" by the semantic conventions.
    name: `${trace.method} ${trace.urlTemplate}`,
    kind: SpanKind.CLIENT,
    attributes: {
      ...httpAttributes(trace),
      // The conventions record resend_count only on resends, never 0.
      ...(trace.attempt > 0 ? { 'http.request.resend_count': trace.attempt } : {}),
    },
  };
}

function attemptEnd(span: Span, trace: AttemptTrace): void {
  span.setAttributes(
    defined({ 'http.response.status_code': trace.status, 'pay.may_have_reached': trace.mayHaveReached }),
  );
  // An attempt's failure is its error.type (`timeout`, `network`, the status); the call and the operation above it
  // carry the error's message.
  endStatus(span, undefined, trace.errorType);
}

/** A webhook delivery is published once, after the answer: its span is drawn with the recorded times. */
function webhookSpan(tracer: Tracer, delivery: WebhookTrace): void {
  const span = tracer.startSpan(
    `webhook ${delivery.provider}`,
    {
      kind: SpanKind.SERVER,
      startTime: delivery.startTime,
      attributes: defined({
        'pay.provider': delivery.provider,
        'pay.webhook.verified': delivery.verified,
        'pay.webhook.reason': delivery.reason,
        'pay.webhook.delivery_key': delivery.deliveryKey,
        // Which webhook secret (Provider T: public key) verified it, by position: the evidence for retiring one.
        'pay.webhook.secret_index': delivery.secretIndex,
        'pay.webhook.event_types': delivery.eventTypes,
        'pay.webhook.duplicate': delivery.duplicate,
        'pay.webhook.callback_failures': delivery.callbackFailures,
        'http.response.status_code': delivery.status,
      }),
    },
    contexts.active(),
  );
  const failed = !delivery.verified || delivery.callbackFailures > 0 || delivery.status >= 500;
  if (failed) {
    span.setAttribute('error.type', delivery.reason ?? String(delivery.status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end(delivery.startTime + delivery.durationMs);
}

/** Marks a span failed with a low-cardinality `error.type`; the message is core's redacted one. */
function endStatus(span: Span, error: unknown, errorType: string | undefined): void {
  if (error === undefined && errorType === undefined) return;
  if (errorType) span.setAttribute('error.type', errorType);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    ...(error instanceof Error ? { message: error.message } : {}),
  });
}

/** Drops undefined values: OpenTelemetry refuses them as attribute values. */
function defined(attributes: Record<string, string | number | boolean | string[] | undefined>): Attributes {
  const out: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) out[name] = value;
  return out;
}
