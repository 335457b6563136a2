/**
 * Tracing channels (docs/architecture.md#tracing-channels): what core publishes on `pay:operation`, `pay:call`,
 * `pay:attempt` and `pay:webhook`, that nothing is built while nobody subscribes, and that a runtime without
 * `diagnostics_channel` (no `process.getBuiltinModule`, or one that throws) publishes nothing and fails nothing.
 */
import dc from 'node:diagnostics_channel';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PAY_CHANNELS } from '../src/diagnostics/channels.js';
import { startAttempt, traceCall } from '../src/diagnostics/http-tracing.js';
import { outcomeOf } from '../src/diagnostics/trace-fields.js';
import { publishWebhook, traceOperation } from '../src/diagnostics/tracing.js';
import { rememberPathTemplate, urlTemplateOf } from '../src/diagnostics/url-template.js';
import { NetworkError, ProviderApiError, ValidationError } from '../src/errors.js';

type Event = [channel: string, event: string, context: Record<string, unknown>];

/** Subscribes to the four channels and records each event with a copy of its context at that moment. */
function record(): { events: Event[]; stop(): void } {
  const events: Event[] = [];
  const stops: Array<() => void> = [];
  for (const name of [PAY_CHANNELS.operation, PAY_CHANNELS.call, PAY_CHANNELS.attempt]) {
    const channel = dc.tracingChannel(name);
    const handlers = Object.fromEntries(
      (['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const).map((event) => [
        event,
        (context: object) => events.push([name, event, { ...context }]),
      ]),
    ) as unknown as Parameters<typeof channel.subscribe>[0];
    channel.subscribe(handlers);
    stops.push(() => channel.unsubscribe(handlers));
  }
  const onWebhook = (message: unknown) =>
    events.push([PAY_CHANNELS.webhook, 'publish', { ...(message as object) }]);
  dc.subscribe(PAY_CHANNELS.webhook, onWebhook);
  stops.push(() => dc.unsubscribe(PAY_CHANNELS.webhook, onWebhook));
  return {
    events,
    stop: () => {
      for (const stop of stops) stop();
    },
  };
}

let recorder: ReturnType<typeof record> | undefined;
afterEach(() => {
  recorder?.stop();
  recorder = undefined;
  vi.unstubAllGlobals();
  vi.resetModules();
});

const CALL = {
  provider: 'providerT',
  call: 'commit-transaction',
  method: 'POST',
  baseUrl: 'https://api.provider-t.test:8443/',
  path: '/v1/transactions/tx_8f3a2b91c4/commit',
  requestId: 'req-1',
  idempotencyKey: 'order-42',
};

describe('pay:operation and pay:call', () => {
  it('publishes an operation and the call made inside it as parent and child, with their end fields', async () => {
    recorder = record();
    const record1 = await traceOperation(
      () => ({ provider: 'providerT', operation: 'payments.create', idempotencyKey: 'order-42' }),
      () =>
        traceCall(
          () => CALL,
          {},
          async () => ({ status: 200, text: '{}' }),
        ).then(() => ({ id: 'tx_8f3a2b91c4', request_id: 'req-1' })),
    );
    expect(record1.id).toBe('tx_8f3a2b91c4');
    const names = recorder.events.map(([channel, event]) => `${channel} ${event}`);
    expect(names).toEqual([
      'pay:operation start',
      'pay:call start',
      'pay:call end',
      'pay:operation end',
      'pay:call asyncStart',
      'pay:call asyncEnd',
      'pay:operation asyncStart',
      'pay:operation asyncEnd',
    ]);
    const operationStart = recorder.events[0]![2];
    expect(operationStart).toEqual({
      id: expect.stringMatching(/^op-/),
      provider: 'providerT',
      operation: 'payments.create',
      idempotencyKey: 'order-42',
    });
    expect(recorder.events[1]![2]).toEqual({
      id: expect.stringMatching(/^call-/),
      parentId: operationStart.id,
      provider: 'providerT',
      call: 'commit-transaction',
      method: 'POST',
      urlTemplate: '/v1/transactions/{id}/commit',
      serverAddress: 'api.provider-t.test',
      serverPort: 8443,
      requestId: 'req-1',
      idempotencyKey: 'order-42',
      attempts: 0,
    });
    expect(recorder.events[5]![2]).toMatchObject({ status: 200, outcome: 'succeeded' });
    // Node would store the resolved value as `result`: a reply's body and a record's personal data stay out.
    for (const [, , context] of recorder.events) expect(context.result).toBeUndefined();
    expect(recorder.events[7]![2]).toEqual({
      ...operationStart,
      outcome: 'succeeded',
      recordId: 'tx_8f3a2b91c4',
      requestId: 'req-1',
      result: undefined,
    });
  });

  it("ends a failed operation with the error's outcome, its type and the error itself", async () => {
    recorder = record();
    const lost = new NetworkError('providerT POST /v1/transactions/{id}/commit timed out.', {
      outcome: 'unknown',
    });
    await expect(
      traceOperation(
        () => ({ provider: 'providerT', operation: 'payments.create', idempotencyKey: undefined }),
        async () => {
          throw lost;
        },
      ),
    ).rejects.toBe(lost);
    const end = recorder.events.find(([, event]) => event === 'asyncEnd')![2];
    expect(end).toMatchObject({ outcome: 'unknown', errorType: 'NetworkError', error: lost });
    expect(recorder.events.map(([, event]) => event)).toEqual([
      'start',
      'end',
      'error',
      'asyncStart',
      'asyncEnd',
    ]);
  });

  it('ends a call refused by the provider (a reply of 4xx or a provider client refusal) as refused', async () => {
    recorder = record();
    await traceCall(
      () => CALL,
      {},
      async () => ({ status: 409, text: '' }),
    );
    const refusal = new ProviderApiError({ provider: 'providerT', status: 200, kind: 'declined' });
    await traceCall(
      () => CALL,
      {},
      async () => ({ ok: false, error: refusal, reply: { status: 200 } }),
    );
    const ends = recorder.events.filter(([, event]) => event === 'asyncEnd').map(([, , context]) => context);
    expect(ends.map(({ outcome, status, errorType }) => ({ outcome, status, errorType }))).toEqual([
      { outcome: 'refused', status: 409, errorType: '409' },
      { outcome: 'refused', status: 200, errorType: 'declined' },
    ]);
  });

  it('names what each error says about the call', () => {
    expect(outcomeOf(new NetworkError('x', { outcome: 'not_sent' }))).toBe('not_sent');
    expect(outcomeOf(new NetworkError('x', { outcome: 'unknown' }))).toBe('unknown');
    expect(outcomeOf(new ProviderApiError({ provider: 'providerN', status: 400 }))).toBe('refused');
    expect(
      outcomeOf(new ProviderApiError({ provider: 'providerN', status: 400 }, { outcome: 'unknown' })),
    ).toBe('unknown');
    expect(outcomeOf(new ValidationError([{ path: 'amount', message: 'must be positive' }]))).toBe(
      'not_sent',
    );
    expect(outcomeOf(new TypeError('a bug'))).toBe('unknown');
  });
});

describe('pay:attempt', () => {
  it("publishes tracePromise's five events in its order, with the attempt's end fields", () => {
    recorder = record();
    const fields = {
      provider: 'providerT',
      call: 'commit-transaction',
      method: 'POST',
      urlTemplate: '/v1/transactions/{id}/commit',
      serverAddress: '127.0.0.1',
      serverPort: 4010,
      requestId: 'req-1',
    };
    const first = startAttempt(fields, 'call-x', 0)!;
    first.finish({ status: 503, mayHaveReached: true });
    first.finish({ status: 200, mayHaveReached: true });
    const timedOut = startAttempt(fields, 'call-x', 1)!;
    const error = new Error('timed out');
    timedOut.finish({ error, errorType: 'timeout', mayHaveReached: true });
    expect(recorder.events.map(([, event, context]) => `${event} ${context.attempt}`)).toEqual([
      'start 0',
      'end 0',
      'asyncStart 0',
      'asyncEnd 0',
      'start 1',
      'end 1',
      'error 1',
      'asyncStart 1',
      'asyncEnd 1',
    ]);
    expect(recorder.events[3]![2]).toEqual({
      id: expect.stringMatching(/^attempt-/),
      parentId: 'call-x',
      ...fields,
      attempt: 0,
      status: 503,
      errorType: '503',
      mayHaveReached: true,
    });
    expect(recorder.events[8]![2]).toMatchObject({ errorType: 'timeout', error, mayHaveReached: true });
    expect(recorder.events[8]![2]).not.toHaveProperty('status');
  });
});

describe('nobody subscribes', () => {
  it('never calls a context builder and still runs the work', async () => {
    const describeOperation = vi.fn();
    const describeCall = vi.fn();
    const describeWebhook = vi.fn();
    await expect(traceOperation(describeOperation, async () => 'done')).resolves.toBe('done');
    await expect(traceCall(describeCall, {}, async (trace) => trace)).resolves.toBeUndefined();
    publishWebhook(describeWebhook);
    expect(startAttempt({} as never, undefined, 0)).toBeUndefined();
    expect(describeOperation).not.toHaveBeenCalled();
    expect(describeCall).not.toHaveBeenCalled();
    expect(describeWebhook).not.toHaveBeenCalled();
  });

  it('remembers no path template', () => {
    rememberPathTemplate(['/v1/things/', ''], '/v1/things/unremembered');
    expect(urlTemplateOf('/v1/things/unremembered')).toBe('/v1/things/unremembered');
  });
});

describe('url templates', () => {
  it('replaces the values a path was built with by {id}, while someone listens', () => {
    recorder = record();
    rememberPathTemplate(['/v1/transactions/', '/refunds/', ''], '/v1/transactions/commit/refunds/r1');
    expect(urlTemplateOf('/v1/transactions/commit/refunds/r1?expand=1')).toBe(
      '/v1/transactions/{id}/refunds/{id}',
    );
  });

  it('falls back to replacing segments that look like ids in a path built without the template helper', () => {
    expect(urlTemplateOf('/v2.0/preauth')).toBe('/v2.0/preauth');
    expect(urlTemplateOf('/v1/payments/123456/status')).toBe('/v1/payments/{id}/status');
    expect(urlTemplateOf('/v1/checkouts/0b7c7e1e-8a7d-4f7e-9d1c-2a0f5a1c9e11')).toBe('/v1/checkouts/{id}');
    expect(urlTemplateOf('/api/tx/TX20251124abc?token=1')).toBe('/api/tx/{id}');
  });
});

describe('pay:webhook', () => {
  it('publishes the message the builder returns when someone subscribes', () => {
    recorder = record();
    const message = {
      provider: 'providerN',
      verified: false,
      reason: 'invalid_signature' as const,
      eventTypes: [],
      duplicate: false,
      callbackFailures: 0,
      status: 401,
      startTime: 1,
      durationMs: 2,
    };
    publishWebhook(() => message);
    expect(recorder.events).toEqual([[PAY_CHANNELS.webhook, 'publish', message]]);
  });
});

describe('runtimes without diagnostics_channel', () => {
  for (const [name, lookup] of [
    ['process.getBuiltinModule missing (an edge runtime)', undefined],
    [
      'process.getBuiltinModule throwing',
      () => {
        throw new Error('not available here');
      },
    ],
    ['no process at all', 'no-process'],
  ] as const) {
    it(`publishes nothing and fails nothing: ${name}`, async () => {
      // A subscriber exists on the real channels: nothing may reach it from a runtime that cannot find them.
      recorder = record();
      if (lookup === 'no-process') vi.stubGlobal('process', undefined);
      else vi.stubGlobal('process', { ...process, getBuiltinModule: lookup });
      vi.resetModules();
      const tracing = await import('../src/diagnostics/tracing.js');
      const httpTracing = await import('../src/diagnostics/http-tracing.js');
      const templates = await import('../src/diagnostics/url-template.js');
      const channels = await import('../src/diagnostics/channels.js');
      // The runtime is looked up on first use: the calls below run while it has no diagnostics_channel.
      const describeOperation = vi.fn(() => ({
        provider: 'p',
        operation: 'payments.create',
        idempotencyKey: 'k',
      }));
      const result = await tracing.traceOperation(describeOperation, () =>
        httpTracing.traceCall(
          () => CALL,
          {},
          async (trace) => {
            expect(trace).toBeUndefined();
            expect(channels.enclosingOperation()).toBeUndefined();
            return 'sent';
          },
        ),
      );
      expect(result).toBe('sent');
      expect(httpTracing.startAttempt({} as never, undefined, 0)).toBeUndefined();
      tracing.publishWebhook(() => {
        throw new Error('must not be built');
      });
      templates.rememberPathTemplate(['/v1/x/', ''], '/v1/x/abc');
      expect(templates.urlTemplateOf('/v1/x/abc')).toBe('/v1/x/abc');
      await expect(
        tracing.traceOperation(describeOperation, async () => {
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(channels.findDiagnosticsChannel()).toBeUndefined();
      vi.unstubAllGlobals();
      expect(describeOperation).not.toHaveBeenCalled();
      expect(recorder.events).toEqual([]);
    });
  }
});
