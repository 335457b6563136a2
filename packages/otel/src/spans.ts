/**
 * What each trace core publishes becomes as a span: its name, kind and attributes at the start, what its end adds,
 * after the OpenTelemetry semantic conventions for HTTP client spans.
 */
import {
  type Attributes,
  context as contexts,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from '@opentelemetry/api';
import type { AttemptTrace, CallTrace, OperationTrace, ReconcileTrace, WebhookTrace } from '@pay/core';

/** How a span starts: its parent's trace id, its name, kind and attributes, from the start context. */
export interface SpanStart {
  parentId: string | undefined;
  name: string;
  kind: SpanKind;
  attributes: Attributes;
}

/** The span of one operation (`payments.create`, …): a root unless the application has one active. */
export function operationSpan(trace: OperationTrace): SpanStart {
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

/** What an operation's end adds to its span: outcome, record and request id. */
export function operationEnd(span: Span, trace: OperationTrace): void {
  span.setAttributes(
    defined({
      'pay.outcome': trace.outcome,
      'pay.record_id': trace.recordId,
      'pay.request_id': trace.requestId ?? undefined,
    }),
  );
  endStatus(span, trace.errorType, trace.error);
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

/** The span of one provider call, under its operation. */
export function callSpan(trace: CallTrace): SpanStart {
  return {
    parentId: trace.parentId,
    name: trace.call,
    kind: SpanKind.INTERNAL,
    attributes: { ...httpAttributes(trace), ...defined({ 'pay.idempotency_key': trace.idempotencyKey }) },
  };
}

/** What a call's end adds to its span: the last status, the attempts and the outcome. */
export function callEnd(span: Span, trace: CallTrace): void {
  span.setAttributes(
    defined({
      'http.response.status_code': trace.status,
      'pay.attempts': trace.attempts,
      'pay.outcome': trace.outcome,
    }),
  );
  endStatus(span, trace.errorType, trace.error);
}

/** The CLIENT span of one HTTP attempt, under its call. */
export function attemptSpan(trace: AttemptTrace): SpanStart {
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

/** What an attempt's end adds to its span: its status and whether it may have reached the provider. */
export function attemptEnd(span: Span, trace: AttemptTrace): void {
  span.setAttributes(
    defined({ 'http.response.status_code': trace.status, 'pay.may_have_reached': trace.mayHaveReached }),
  );
  // An attempt's failure is its error.type (`timeout`, `network`, the status); the call and the operation above it
  // carry the error's message.
  endStatus(span, trace.errorType);
}

/** A webhook delivery is published once, after the answer: its span is drawn with the recorded times. */
export function webhookSpan(tracer: Tracer, delivery: WebhookTrace): void {
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
  endStatus(span, failed ? (delivery.reason ?? String(delivery.status)) : undefined);
  span.end(delivery.startTime + delivery.durationMs);
}

/**
 * A reconciler run (docs/architecture.md#reconciliation) is published once, when it ended: its span is drawn with
 * the recorded times and the run's counts. A paused run (its store unreachable) is an error; so is a run in which
 * reads, resolves or deliveries failed (each is retried on a later run, but someone should look).
 */
export function reconcileSpan(tracer: Tracer, run: ReconcileTrace): void {
  const span = tracer.startSpan(
    `reconcile ${run.provider}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: run.startTime,
      attributes: {
        'pay.provider': run.provider,
        'pay.reconcile.watched': run.watched,
        'pay.reconcile.due': run.due,
        'pay.reconcile.lag_ms': run.lagMs,
        'pay.reconcile.reads': run.reads,
        'pay.reconcile.budget_refused': run.budgetRefused,
        'pay.reconcile.transitions': run.transitions,
        'pay.reconcile.duplicates': run.duplicates,
        'pay.reconcile.stale_keys': run.staleKeys,
        'pay.reconcile.unresolved': run.unresolved,
        'pay.reconcile.errors': run.errors,
        'pay.reconcile.paused': run.paused,
      },
    },
    contexts.active(),
  );
  endStatus(span, run.paused ? 'store_unavailable' : run.errors > 0 ? 'reconcile_errors' : undefined);
  span.end(run.startTime + run.durationMs);
}

/** Marks a span failed with a low-cardinality `error.type`; the message is core's redacted one. */
function endStatus(span: Span, errorType: string | undefined, error?: unknown): void {
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
