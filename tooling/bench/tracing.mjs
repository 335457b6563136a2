// tracing.idle and tracing.otel (docs/architecture.md#tracing-channels): what the tracing channels cost a call.
// `idle`: the check core makes while nobody subscribes (it builds nothing then), over the bare function. `otel`: a
// provider call through core's provider client to a loopback provider with @pay/otel subscribed and exporting
// every span to memory, over the same call with nobody subscribed.
import dc from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { PAY_CHANNELS } from '@pay/core';
import { createProviderClient } from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import { instrumentPay } from '@pay/otel';
import { medianMs } from './harness.mjs';

const REPLY = JSON.stringify({ requestSuccessful: true, responseCode: '0', responseBody: { ok: true } });

/**
 * tracing.idle: microseconds per call of what core does before each operation, call and attempt while nobody
 * subscribes (look the channel up, read `hasSubscribers`, run the function), over calling the function directly.
 */
export async function tracingIdle() {
  const fn = async () => 1;
  const N = 200_000;
  const time = async (call) => {
    for (let i = 0; i < 10_000; i++) await call();
    const started = performance.now();
    for (let i = 0; i < N; i++) await call();
    return ((performance.now() - started) * 1000) / N;
  };
  const baseline = await time(fn);
  // Core looks its channels up once per process and reads `hasSubscribers` per call: the same here.
  const operation = dc.tracingChannel(PAY_CHANNELS.operation);
  const ours = await time(() => {
    if (operation.hasSubscribers) throw new Error('tracing.idle needs a process nobody subscribes in');
    return fn();
  });
  return { name: 'tracing.idle', ours, baseline, unit: 'µs/call' };
}

/** tracing.otel: a provider call with @pay/otel exporting its spans, over the same call with no subscriber. */
export async function tracingOtel() {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(REPLY);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = createProviderClient({
    provider: 'providerN',
    baseUrl: `http://127.0.0.1:${server.address().port}`,
    requestIdHeader: 'X-Request-Id',
    authorization: { header: async () => 'Bearer bench-token' },
    errors: {},
    readEnvelope: (reply) => ({ ok: true, body: JSON.parse(reply.text).responseBody }),
  });
  const call = () =>
    client.request(v.unknown(), {
      call: 'init-transaction',
      method: 'POST',
      path: '/v1/tx',
      json: {},
      retrySafe: false,
    });
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let instrumentation;
  try {
    // Channels are process-wide, so the two sides cannot be interleaved: nobody listening first, then @pay/otel.
    const baseline = await medianMs(call, { warmup: 50, iterations: 600 });
    instrumentation = instrumentPay({ tracerProvider });
    const ours = await medianMs(
      async () => {
        await call();
        exporter.reset();
      },
      { warmup: 50, iterations: 600 },
    );
    return { name: 'tracing.otel', ours, baseline, unit: 'ms' };
  } finally {
    instrumentation?.disable();
    trace.disable();
    server.close();
  }
}
