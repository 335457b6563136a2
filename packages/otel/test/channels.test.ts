/**
 * The span tree @pay/otel draws from messages on core's channels, published here exactly as core publishes them
 * (through `diagnostics_channel.tracingChannel(...).tracePromise`). End-to-end trees from real adapter calls are in
 * `spans.e2e.test.ts`.
 */
import dc from 'node:diagnostics_channel';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { AttemptTrace, CallTrace, OperationTrace, ReconcileTrace, WebhookTrace } from '@pay/core';
import { PAY_CHANNELS } from '@pay/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { instrumentPay, type PayInstrumentation } from '../src/index.js';

let exporter: InMemorySpanExporter;
let instrumentation: PayInstrumentation;

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  instrumentation = instrumentPay({ tracerProvider });
});
afterEach(() => instrumentation.disable());

const operation = dc.tracingChannel(PAY_CHANNELS.operation);
const call = dc.tracingChannel(PAY_CHANNELS.call);
const attempt = dc.tracingChannel(PAY_CHANNELS.attempt);

const http = {
  provider: 'providerT',
  call: 'commit-transaction',
  method: 'POST',
  urlTemplate: '/v1/transactions/{id}/commit',
  serverAddress: 'api.example.test',
  serverPort: 443,
  requestId: 'req-1',
};

function byName(spans: ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

describe('span tree', () => {
  it('draws an operation, its call and each attempt as parent, child and grandchildren', async () => {
    const op: OperationTrace = {
      id: 'op-1',
      provider: 'providerT',
      operation: 'payments.create',
      idempotencyKey: 'order-42',
    };
    await operation.tracePromise(async () => {
      const commit: CallTrace = { id: 'call-1', parentId: 'op-1', idempotencyKey: 'order-42', ...http };
      await call.tracePromise(async () => {
        const first: AttemptTrace = { id: 'a-1', parentId: 'call-1', attempt: 0, ...http };
        await attempt.tracePromise(async () => {
          Object.assign(first, { status: 503, errorType: '503', mayHaveReached: true });
        }, first);
        const second: AttemptTrace = { id: 'a-2', parentId: 'call-1', attempt: 1, ...http };
        await attempt.tracePromise(async () => {
          Object.assign(second, { status: 200, mayHaveReached: true });
        }, second);
        Object.assign(commit, { status: 200, attempts: 2, outcome: 'succeeded' });
      }, commit);
      Object.assign(op, { outcome: 'succeeded', recordId: 'tx-1', requestId: 'req-1' });
    }, op);

    const spans = exporter.getFinishedSpans();
    const [root] = byName(spans, 'payments.create');
    const [logical] = byName(spans, 'commit-transaction');
    const attempts = byName(spans, 'POST /v1/transactions/{id}/commit');
    expect(spans).toHaveLength(4);
    expect(root?.kind).toBe(SpanKind.INTERNAL);
    expect(root?.parentSpanContext).toBeUndefined();
    expect(root?.attributes).toEqual({
      'pay.provider': 'providerT',
      'pay.operation': 'payments.create',
      'pay.idempotency_key': 'order-42',
      'pay.outcome': 'succeeded',
      'pay.record_id': 'tx-1',
      'pay.request_id': 'req-1',
    });
    expect(logical?.parentSpanContext?.spanId).toBe(root?.spanContext().spanId);
    expect(logical?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.template': '/v1/transactions/{id}/commit',
      'server.address': 'api.example.test',
      'http.response.status_code': 200,
      'pay.attempts': 2,
      'pay.outcome': 'succeeded',
    });
    expect(attempts.map((span) => span.parentSpanContext?.spanId)).toEqual([
      logical?.spanContext().spanId,
      logical?.spanContext().spanId,
    ]);
    expect(attempts.map((span) => span.kind)).toEqual([SpanKind.CLIENT, SpanKind.CLIENT]);
    // resend_count is only on resends; the failed first attempt carries error.type and an error status.
    expect(attempts[0]?.attributes['http.request.resend_count']).toBeUndefined();
    expect(attempts[0]?.attributes['error.type']).toBe('503');
    expect(attempts[0]?.status.code).toBe(SpanStatusCode.ERROR);
    expect(attempts[1]?.attributes['http.request.resend_count']).toBe(1);
    expect(attempts[1]?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('marks a failed operation with the provider error kind as error.type', async () => {
    const op: OperationTrace = {
      id: 'op-2',
      provider: 'providerN',
      operation: 'refunds.create',
      idempotencyKey: undefined,
    };
    const refused = Object.assign(new Error('providerN answered HTTP 400'), { kind: 'invalid_request' });
    await expect(
      operation.tracePromise(async () => {
        // As core fills it in: the outcome and the provider error's kind.
        Object.assign(op, { outcome: 'refused', errorType: 'invalid_request' });
        throw refused;
      }, op),
    ).rejects.toBe(refused);
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes['error.type']).toBe('invalid_request');
    expect(span?.attributes['pay.outcome']).toBe('refused');
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'providerN answered HTTP 400' });
  });

  /** A `pay:webhook` message: a refused Provider N delivery, with `fields` over it. */
  const webhookTrace = (fields: Partial<WebhookTrace> = {}): WebhookTrace => ({
    provider: 'providerN',
    verified: false,
    reason: 'invalid_signature',
    eventTypes: [],
    duplicate: false,
    callbackFailures: 0,
    status: 400,
    startTime: 1_700_000_000_000,
    durationMs: 3,
    ...fields,
  });

  it('draws a refused webhook delivery as one server span with its reason', () => {
    dc.channel(PAY_CHANNELS.webhook).publish(webhookTrace());
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('webhook providerN');
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.attributes).toMatchObject({
      'pay.webhook.verified': false,
      'pay.webhook.reason': 'invalid_signature',
      'error.type': 'invalid_signature',
      'http.response.status_code': 400,
    });
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.duration).toEqual([0, 3_000_000]);
  });

  it('says which webhook secret verified a delivery, by position, so an old one can be retired', () => {
    const verified = { verified: true, reason: undefined, deliveryKey: 'AB12:PAID', status: 200 };
    dc.channel(PAY_CHANNELS.webhook).publish(webhookTrace({ ...verified, secretIndex: 1 }));
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes).toMatchObject({ 'pay.webhook.secret_index': 1, 'pay.webhook.verified': true });
  });

  /** A `pay:reconcile` message: a Provider N run that read 3 objects and delivered 2 transitions. */
  const reconcileTrace = (fields: Partial<ReconcileTrace> = {}): ReconcileTrace => ({
    provider: 'providerN',
    watched: 40,
    due: 3,
    lagMs: 1_500,
    reads: 3,
    budgetRefused: 0,
    transitions: 2,
    duplicates: 1,
    staleKeys: 0,
    unresolved: 1,
    errors: 0,
    paused: false,
    startTime: 1_700_000_000_000,
    durationMs: 12,
    ...fields,
  });

  it("draws a reconciler run as one span with the run's counts and times", () => {
    dc.channel(PAY_CHANNELS.reconcile).publish(reconcileTrace());
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('reconcile providerN');
    expect(span?.kind).toBe(SpanKind.INTERNAL);
    expect(span?.attributes).toEqual({
      'pay.provider': 'providerN',
      'pay.reconcile.watched': 40,
      'pay.reconcile.due': 3,
      'pay.reconcile.lag_ms': 1_500,
      'pay.reconcile.reads': 3,
      'pay.reconcile.budget_refused': 0,
      'pay.reconcile.transitions': 2,
      'pay.reconcile.duplicates': 1,
      'pay.reconcile.stale_keys': 0,
      'pay.reconcile.unresolved': 1,
      'pay.reconcile.errors': 0,
      'pay.reconcile.paused': false,
    });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    expect(span?.startTime).toEqual([1_700_000_000, 0]);
    expect(span?.duration).toEqual([0, 12_000_000]);
  });

  it('marks a paused run (store unreachable) and a run with failed reads as errors', () => {
    const channel = dc.channel(PAY_CHANNELS.reconcile);
    channel.publish(reconcileTrace({ paused: true, reads: 0, transitions: 0, duplicates: 0 }));
    channel.publish(reconcileTrace({ errors: 2 }));
    const [paused, failed] = exporter.getFinishedSpans();
    expect(paused?.attributes).toMatchObject({
      'pay.reconcile.paused': true,
      'error.type': 'store_unavailable',
    });
    expect(paused?.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed?.attributes).toMatchObject({ 'pay.reconcile.errors': 2, 'error.type': 'reconcile_errors' });
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('stops drawing after disable()', async () => {
    instrumentation.disable();
    dc.channel(PAY_CHANNELS.reconcile).publish(reconcileTrace());
    const op: OperationTrace = {
      id: 'op-3',
      provider: 'providerR',
      operation: 'payments.get',
      idempotencyKey: undefined,
    };
    await operation.tracePromise(async () => undefined, op);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
