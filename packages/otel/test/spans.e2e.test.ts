/**
 * The span trees @pay/otel draws for real adapter calls against the simulators over loopback, exported with the
 * OpenTelemetry SDK's in-memory exporter (docs/architecture.md#tracing-channels): a Provider T transfer whose
 * commit is answered 503 once and retried, a webhook refused for its signature, and a transfer whose commit reply
 * is lost (outcome unknown).
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  createMemoryDeduplicationStore,
  createMemoryReconciliationStore,
  createPay,
  createReconciler,
} from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import { providerNWebhookRequest, startProviderNSimulator } from '@pay/provider-n/testing';
import { createProviderT } from '@pay/provider-t';
import {
  generateProviderTKeyPair,
  type ProviderTSimulator,
  sampleTransferMetadata,
  startProviderTSimulator,
} from '@pay/provider-t/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { instrumentPay, type PayInstrumentation } from '../src/index.js';

const keyPair = generateProviderTKeyPair();
const TRANSFER = { amount: 100, currency: 'USD', provider_metadata: sampleTransferMetadata };
const KEY = 'order-traced-1';
const COMMIT = 'PUT /transfer/v1/transactions/{id}/commit';

let exporter: InMemorySpanExporter;
let instrumentation: PayInstrumentation;
beforeEach(() => {
  exporter = new InMemorySpanExporter();
  instrumentation = instrumentPay({
    tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  });
});
afterEach(() => instrumentation.disable());

async function withProviderT<T>(body: (sim: ProviderTSimulator) => Promise<T>): Promise<T> {
  const sim = await startProviderTSimulator({ keyPair });
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}

/** The tree as `name (kind) [children…]`, children in start order: what a trace viewer shows. */
function tree(spans: readonly ReadableSpan[]): string[] {
  const kinds = new Map<SpanKind, string>([
    [SpanKind.INTERNAL, 'internal'],
    [SpanKind.CLIENT, 'client'],
    [SpanKind.SERVER, 'server'],
  ]);
  const ordered = [...spans].sort((a, b) => compareTime(a.startTime, b.startTime));
  const lines: string[] = [];
  const walk = (parentId: string | undefined, depth: number) => {
    for (const span of ordered.filter((s) => s.parentSpanContext?.spanId === parentId)) {
      lines.push(`${'  '.repeat(depth)}${span.name} (${kinds.get(span.kind) ?? span.kind})`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

function compareTime(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

function named(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

describe('a Provider T transfer whose commit is answered 503 once', () => {
  it('is one operation span, a span per provider call and a CLIENT span per attempt, the commit with two', async () => {
    await withProviderT(async (sim) => {
      const pay = createPay(createProviderT(sim.adapterConfig({ retry: 2 })));
      sim.faults.inject({
        method: 'PUT',
        path: /\/commit$/,
        times: 1,
        fault: { kind: 'status', status: 503, body: '' },
      });
      const payment = await pay.payments.create(TRANSFER, { idempotencyKey: KEY });

      // The login starts inside the quote's first attempt (it needs a token) and belongs to the operation.
      expect(tree(exporter.getFinishedSpans())).toEqual([
        'payments.create (internal)',
        '  POST /transfer/v1/transactions/quote (internal)',
        '    POST /transfer/v1/transactions/quote (client)',
        '  GET /oauth/accesstoken (internal)',
        '    GET /oauth/accesstoken (client)',
        '  PUT /transfer/v1/transactions/{transactionId} (internal)',
        '    PUT /transfer/v1/transactions/{id} (client)',
        '  PUT /transfer/v1/transactions/{transactionId}/commit (internal)',
        `    ${COMMIT} (client)`,
        `    ${COMMIT} (client)`,
      ]);

      const [operation] = named('payments.create');
      expect(operation?.attributes).toEqual({
        'pay.provider': 'providerT',
        'pay.operation': 'payments.create',
        'pay.idempotency_key': KEY,
        'pay.outcome': 'succeeded',
        'pay.record_id': payment.id,
        'pay.request_id': payment.request_id as string,
      });
      expect(operation?.status.code).toBe(SpanStatusCode.UNSET);

      const [commitCall] = named('PUT /transfer/v1/transactions/{transactionId}/commit');
      const server = new URL(sim.url);
      expect(commitCall?.attributes).toEqual({
        'http.request.method': 'PUT',
        'url.template': '/transfer/v1/transactions/{id}/commit',
        'server.address': server.hostname,
        'server.port': Number(server.port),
        'pay.provider': 'providerT',
        'pay.call': 'PUT /transfer/v1/transactions/{transactionId}/commit',
        'pay.request_id': expect.any(String),
        'pay.idempotency_key': KEY,
        'http.response.status_code': 200,
        'pay.attempts': 2,
        'pay.outcome': 'succeeded',
      });
      const [refused, accepted] = named(COMMIT);
      expect(refused?.attributes).toMatchObject({
        'http.response.status_code': 503,
        'error.type': '503',
        'pay.may_have_reached': true,
      });
      expect(refused?.attributes).not.toHaveProperty('http.request.resend_count');
      expect(refused?.status.code).toBe(SpanStatusCode.ERROR);
      expect(accepted?.attributes).toMatchObject({
        'http.request.resend_count': 1,
        'http.response.status_code': 200,
      });
      expect(accepted?.status.code).toBe(SpanStatusCode.UNSET);
      // Both attempts carry the one request id sent on the wire for the commit.
      const onWire = sim.requests.filter((request) => /\/commit$/.test(request.path));
      expect([refused, accepted].map((span) => span?.attributes['pay.request_id'])).toEqual(
        onWire.map((request) => request.headers['x-client-request-id']),
      );
    });
  });
});

describe('a transfer whose commit reply is lost', () => {
  it("ends the operation, the commit and its attempt as errors with outcome 'unknown'", async () => {
    await withProviderT(async (sim) => {
      const pay = createPay(createProviderT(sim.adapterConfig({ retry: 0 })));
      sim.faults.inject({ method: 'PUT', path: /\/commit$/, fault: { kind: 'drop-after' } });
      const error = await pay.payments
        .create(TRANSFER, { idempotencyKey: KEY })
        .catch((caught: unknown) => caught);

      const [operation] = named('payments.create');
      expect(operation?.attributes).toMatchObject({ 'pay.outcome': 'unknown', 'error.type': 'NetworkError' });
      expect(operation?.status).toEqual({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      const [commitCall] = named('PUT /transfer/v1/transactions/{transactionId}/commit');
      expect(commitCall?.attributes).toMatchObject({
        'pay.outcome': 'unknown',
        'pay.attempts': 1,
        'error.type': 'NetworkError',
      });
      expect(commitCall?.attributes).not.toHaveProperty('http.response.status_code');
      const [attempt] = named(COMMIT);
      expect(attempt?.attributes).toMatchObject({ 'error.type': 'network', 'pay.may_have_reached': true });
      expect(attempt?.status.code).toBe(SpanStatusCode.ERROR);
    });
  });
});

describe('a webhook refused for its signature', () => {
  it('is one SERVER span with the reason and the 400, and no provider call', async () => {
    const sim = await startProviderNSimulator();
    try {
      const pay = createPay(createProviderN(sim.adapterConfig({ retry: 0 })));
      const handler = pay.webhooks.setup({ webhookSecret: sim.credentials.webhookSecret });
      const payload = {
        eventType: 'SUCCESSFUL_TRANSACTION',
        eventData: { transactionReference: 'PN|1', paymentStatus: 'PAID', amountPaid: 10, totalPayable: 10 },
      };
      const forged = await providerNWebhookRequest(payload, { webhookSecret: 'not-the-webhook-secret' });
      await handler.handle(forged).catch(() => undefined);

      const spans = exporter.getFinishedSpans();
      expect(tree(spans)).toEqual(['webhook providerN (server)']);
      expect(spans[0]?.attributes).toEqual({
        'pay.provider': 'providerN',
        'pay.webhook.verified': false,
        'pay.webhook.reason': 'invalid_signature',
        'pay.webhook.event_types': [],
        'pay.webhook.duplicate': false,
        'pay.webhook.callback_failures': 0,
        'http.response.status_code': 400,
        'error.type': 'invalid_signature',
      });
      expect(spans[0]?.status.code).toBe(SpanStatusCode.ERROR);
    } finally {
      await sim.close();
    }
  });
});

describe('a reconciler run that finds a paid checkout whose webhook was lost', () => {
  it('is one reconcile span with its counts, beside the status read it made', async () => {
    const sim = await startProviderNSimulator();
    try {
      const pay = createPay(createProviderN(sim.adapterConfig({ retry: 0 })), {
        reconcile: createMemoryReconciliationStore(),
      });
      const handler = pay.webhooks
        .setup({
          webhookSecret: sim.credentials.webhookSecret,
          deduplicate: createMemoryDeduplicationStore(),
        })
        .onAny(() => undefined);
      const checkout = await pay.checkouts.create({
        customer: { email: 'ada@example.com' },
        item_id: 'plan-basic',
        success_url: 'https://shop.example/thanks',
        provider_metadata: { amount: 5000, currency: 'NGN' },
      });
      await sim.payer.pay(checkout.id); // nothing is forwarded: the webhook is lost
      // The first read is due two minutes after creation (docs/architecture.md#reconciliation).
      const reconciler = createReconciler(pay, handler, { now: () => Date.now() + 2 * 60_000 });
      exporter.reset();
      await reconciler.runOnce();

      const [run] = named('reconcile providerN');
      expect(run?.attributes).toEqual({
        'pay.provider': 'providerN',
        'pay.reconcile.watched': 1,
        'pay.reconcile.due': 1,
        'pay.reconcile.lag_ms': expect.any(Number),
        'pay.reconcile.reads': 1,
        'pay.reconcile.budget_refused': 0,
        'pay.reconcile.transitions': 1,
        'pay.reconcile.duplicates': 0,
        'pay.reconcile.stale_keys': 0,
        'pay.reconcile.unresolved': 0,
        'pay.reconcile.errors': 0,
        'pay.reconcile.paused': false,
      });
      expect(run?.status.code).toBe(SpanStatusCode.UNSET);
      // The read is the application's own operation span: the run's span is drawn after the run ended.
      expect(named('payments.retrieve')[0]?.attributes).toMatchObject({
        'pay.operation': 'payments.retrieve',
        'pay.record_id': checkout.id,
        'pay.outcome': 'succeeded',
      });
    } finally {
      await sim.close();
    }
  });
});
