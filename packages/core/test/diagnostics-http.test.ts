/**
 * Core's HTTP client and provider client on the tracing channels and the logger
 * (docs/architecture.md#diagnostics): one `pay:call` per logical call with its attempts counted, one `pay:attempt`
 * per exchange, the URL template from `path`, a retry reported at `debug`, a failed hook at `warn`, every line
 * redacted.
 */
import dc from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { PAY_CHANNELS } from '../src/diagnostics/channels.js';
import { createHttpClient, createProviderClient, path } from '../src/http/index.js';

const SECRET = 'sk_live_HTTP+TRACE/0xFEED';

type Recorded = [channel: string, event: string, context: Record<string, unknown>];
let stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});

function record(): Recorded[] {
  const events: Recorded[] = [];
  for (const name of [PAY_CHANNELS.call, PAY_CHANNELS.attempt]) {
    const channel = dc.tracingChannel(name);
    const handlers = {
      start: (context: object) => events.push([name, 'start', { ...context }]),
      end: () => {},
      asyncStart: () => {},
      asyncEnd: (context: object) => events.push([name, 'asyncEnd', { ...context }]),
      error: () => {},
    };
    channel.subscribe(handlers as never);
    stops.push(() => channel.unsubscribe(handlers as never));
  }
  return events;
}

/** A fetch answering each call with the next of `statuses`, echoing the Authorization header in the body. */
function scripted(statuses: number[]): typeof fetch & { calls: number } {
  const run = Object.assign(
    async (_input: RequestInfo | URL, init?: RequestInit) => {
      const status = statuses[run.calls] ?? 200;
      run.calls += 1;
      const authorization = new Headers(init?.headers).get('authorization');
      return new Response(JSON.stringify({ ok: status < 300, echo: authorization }), { status });
    },
    { calls: 0 },
  );
  return run;
}

const envelope = (reply: { status: number; text: string }) =>
  reply.status < 300
    ? ({ ok: true, body: JSON.parse(reply.text) } as const)
    : ({ ok: false, code: 'busy', message: reply.text } as const);

describe('a retried read through the provider client', () => {
  it('publishes one call with two attempts, the template of its path, and logs the retry without the secret', async () => {
    const events = record();
    const lines: unknown[][] = [];
    const fetch = scripted([503, 200]);
    const client = createProviderClient({
      provider: 'providerN',
      baseUrl: 'https://api.provider-n.test',
      fetch,
      retry: 1,
      backoffBaseMs: 1,
      secrets: [SECRET],
      authorization: { header: async () => `Bearer ${SECRET}` },
      requestIdHeader: 'x-request-id',
      readEnvelope: envelope,
      errors: {},
      logger: { debug: (...args: unknown[]) => lines.push(['debug', ...args]) },
    });
    await client.send({
      call: 'read-payment',
      method: 'GET',
      path: path`/v1/payments/${'pay_123'}/status`,
      retrySafe: true,
    });
    expect(fetch.calls).toBe(2);
    const [callStart, ...attemptEvents] = events.slice(0, -1);
    const callEnd = events.at(-1)!;
    const http = {
      provider: 'providerN',
      call: 'read-payment',
      method: 'GET',
      urlTemplate: '/v1/payments/{id}/status',
      serverAddress: 'api.provider-n.test',
      serverPort: 443,
      requestId: expect.any(String),
    };
    expect(callStart).toEqual([
      'pay:call',
      'start',
      { id: expect.any(String), parentId: undefined, ...http, idempotencyKey: undefined, attempts: 0 },
    ]);
    expect(callEnd[2]).toEqual({
      ...callStart![2],
      attempts: 2,
      status: 200,
      outcome: 'succeeded',
      result: undefined,
    });
    expect(attemptEvents.map(([, event, context]) => [event, context.attempt, context.status])).toEqual([
      ['start', 0, undefined],
      ['asyncEnd', 0, 503],
      ['start', 1, undefined],
      ['asyncEnd', 1, 200],
    ]);
    expect(attemptEvents[1]![2]).toMatchObject({
      parentId: callStart![2].id,
      errorType: '503',
      mayHaveReached: true,
    });
    expect(attemptEvents[3]![2]).not.toHaveProperty('errorType');
    expect(lines).toEqual([
      [
        'debug',
        `@pay: retrying providerN GET /v1/payments/pay_123/status after HTTP 503 (retry 1 of 1).`,
        {
          provider: 'providerN',
          call: 'read-payment',
          method: 'GET',
          requestId: callStart![2].requestId,
          retry: 1,
          reason: 'HTTP 503',
        },
      ],
    ]);
    expect(JSON.stringify(events)).not.toContain(SECRET.slice(8));
  });

  it('is one call on the channels when the operation context supplies its retry and signal', async () => {
    const events = record();
    const fetch = scripted([503, 200]);
    const client = createProviderClient({
      provider: 'providerN',
      baseUrl: 'https://api.provider-n.test',
      fetch,
      retry: 0,
      backoffBaseMs: 1,
      readEnvelope: envelope,
      errors: {},
    });
    const context = {
      operation: 'payments.retrieve',
      retry: 1,
      signal: new AbortController().signal,
    } as const;
    const call = {
      call: 'read-payment',
      method: 'GET',
      path: path`/v1/payments/${'pay_1'}`,
      retrySafe: true,
    } as const;
    const outcome = await client.send(call, context);
    expect(outcome.ok).toBe(true);
    expect(fetch.calls).toBe(2);
    const calls = events.filter(([channel, event]) => channel === 'pay:call' && event === 'start');
    expect(calls).toHaveLength(1);
    expect(events.at(-1)).toEqual([
      'pay:call',
      'asyncEnd',
      expect.objectContaining({ attempts: 2, status: 200 }),
    ]);
  });
});

describe('the HTTP client on its own', () => {
  it('traces a call it sends itself, named by method and template when no call name is given', async () => {
    const events = record();
    const http = createHttpClient({
      provider: 'providerN',
      baseUrl: 'http://127.0.0.1:9/',
      fetch: scripted([404]),
    });
    await http.send({ method: 'DELETE', path: path`/v1/things/${'a b'}`, retrySafe: false });
    const ends = events.filter(([channel, event]) => channel === 'pay:call' && event === 'asyncEnd');
    expect(ends.map(([, , context]) => context)).toEqual([
      expect.objectContaining({
        call: 'DELETE /v1/things/{id}',
        urlTemplate: '/v1/things/{id}',
        serverAddress: '127.0.0.1',
        serverPort: 9,
        attempts: 1,
        status: 404,
        outcome: 'refused',
        errorType: '404',
      }),
    ]);
  });

  it('reports a failed hook to the logger (redacted) and to onHookError, and the call goes on', async () => {
    const lines: unknown[][] = [];
    const failures: unknown[] = [];
    const http = createHttpClient({
      provider: 'providerN',
      baseUrl: 'https://api.provider-n.test',
      fetch: scripted([200]),
      secrets: [SECRET],
      hooks: {
        onRequest: () => {
          throw new Error(`cannot log ${SECRET}`);
        },
        onHookError: (error) => failures.push(error),
      },
      logger: { warn: (...args: unknown[]) => lines.push(['warn', ...args]) },
    });
    const reply = await http.send({ method: 'GET', path: '/v1/ping', retrySafe: true });
    expect(reply.status).toBe(200);
    expect(failures).toHaveLength(1);
    expect(lines).toEqual([
      [
        'warn',
        '@pay: the onRequest hook threw (cannot log [REDACTED]); the providerN GET call went on unaffected.',
        { provider: 'providerN', hook: 'onRequest', requestId: expect.any(String), attempt: 1 },
      ],
    ]);
  });
});
