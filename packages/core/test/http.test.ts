import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHttpClient, parseReply, path } from '../src/http/index.js';
import { backoff, retryAfterMs } from '../src/http/retry-policy.js';
import {
  createPay,
  type HttpRequestInfo,
  type HttpResponseInfo,
  InvalidResponseError,
  NetworkError,
  ProviderApiError,
  ValidationError,
} from '../src/index.js';
import * as v from '../src/schema.js';
import { startLoopbackServer } from '../src/testing/index.js';
import { ledgerAdapter, transfer } from './ledger-fixtures.js';

const BASE = 'https://api.provider.example';

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterEach(() => {
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
});

function client(extra: Partial<Parameters<typeof createHttpClient>[0]> = {}) {
  return createHttpClient({
    provider: 'providerT',
    baseUrl: BASE,
    requestIdHeader: 'X-Client-Request-Id',
    backoffBaseMs: 1,
    ...extra,
  });
}

/**
 * A Provider N client whose authorisation first logs in (`POST /v1/auth/login`) through a second client with the
 * same `baseUrl` and `fetch`, as the token manager does; no attempt here ever gets a token that works.
 */
function clientLoggingIn(options: { baseUrl: string; fetch?: typeof fetch }) {
  const loginClient = createHttpClient({ provider: 'providerN', retry: 0, ...options });
  return createHttpClient({
    provider: 'providerN',
    retry: 0,
    ...options,
    authorization: {
      header: async () => {
        await loginClient.send({ method: 'POST', path: '/v1/auth/login', retrySafe: true, authorize: false });
        return 'Bearer never';
      },
    },
  });
}

describe('the HTTP client', () => {
  it('retries a retry-safe PUT on 503 with the same request id on every attempt', async () => {
    const ids: string[] = [];
    const scope = nock(BASE)
      .put('/transfer/v1/transactions/t1/commit')
      .times(2)
      .reply(function () {
        ids.push(String(this.req.headers['x-client-request-id']));
        return [503, '{}'];
      })
      .put('/transfer/v1/transactions/t1/commit')
      .reply(function () {
        ids.push(String(this.req.headers['x-client-request-id']));
        return [200, '{"ok":true}'];
      });
    const reply = await client().send({
      method: 'PUT',
      path: '/transfer/v1/transactions/t1/commit',
      json: {},
      retrySafe: true,
    });
    expect(reply.status).toBe(200);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(1);
    expect(reply.requestId).toBe(ids[0]);
    scope.done();
  });

  it('never retries a call that could move money twice', async () => {
    const scope = nock(BASE).post('/transfer/v1/transactions/quote').reply(503, '{}');
    const reply = await client().send({
      method: 'POST',
      path: '/transfer/v1/transactions/quote',
      json: {},
      retrySafe: false,
    });
    expect(reply.status).toBe(503);
    scope.done();
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('honours retry: 0', async () => {
    const scope = nock(BASE).get('/status').reply(500, '{}');
    const reply = await client({ retry: 0 }).send({ method: 'GET', path: '/status', retrySafe: true });
    expect(reply.status).toBe(500);
    scope.done();
  });

  it('sends the call once more with fresh authorisation after a 401, even when not retry-safe', async () => {
    const headers: string[] = [];
    let token = 'token-1';
    const rejected = vi.fn((value: string) => {
      expect(value).toBe('Bearer token-1');
      token = 'token-2';
    });
    const scope = nock(BASE)
      .post('/v1/merchant/transactions/init-transaction')
      .reply(function () {
        headers.push(String(this.req.headers.authorization));
        return [401, '{}'];
      })
      .post('/v1/merchant/transactions/init-transaction')
      .reply(function () {
        headers.push(String(this.req.headers.authorization));
        return [200, '{}'];
      });
    const http = client({ authorization: { header: async () => `Bearer ${token}`, rejected } });
    const reply = await http.send({
      method: 'POST',
      path: '/v1/merchant/transactions/init-transaction',
      json: {},
      retrySafe: false,
    });
    expect(reply.status).toBe(200);
    expect(headers).toEqual(['Bearer token-1', 'Bearer token-2']);
    expect(rejected).toHaveBeenCalledTimes(1);
    scope.done();
  });

  it('gives up after one re-authorisation when the provider keeps answering 401', async () => {
    const scope = nock(BASE).get('/x').times(2).reply(401, '{}');
    const http = client({ authorization: { header: async () => 'Bearer t', rejected: () => {} } });
    expect((await http.send({ method: 'GET', path: '/x', retrySafe: true })).status).toBe(401);
    scope.done();
  });

  it('encodes path segments and query values', async () => {
    const scope = nock(BASE)
      .get('/v1/merchant/transactions/query')
      .query({ transactionReference: 'PN|2026|0001' })
      .reply(200, '{}')
      .get('/tx/a%2Fb%3Fc')
      .reply(200, '{}');
    const http = client();
    await http.send({
      method: 'GET',
      path: '/v1/merchant/transactions/query',
      query: { transactionReference: 'PN|2026|0001' },
      retrySafe: true,
    });
    await http.send({ method: 'GET', path: path`/tx/${'a/b?c'}`, retrySafe: true });
    scope.done();
  });

  it("sends the adapter's authorisation in place of a call's own Authorization header, once, with every other header", async () => {
    const seen: Record<string, string | string[] | undefined>[] = [];
    nock(BASE)
      .post('/v1/orders')
      .reply(function () {
        seen.push({ ...this.req.headers });
        return [200, '{}'];
      });
    const requests: HttpRequestInfo[] = [];
    const http = client({
      authorization: { header: async () => 'Bearer adapter-token' },
      hooks: { onRequest: (info) => void requests.push(info) },
    });
    await http.send({
      method: 'POST',
      path: '/v1/orders',
      json: { amount: 1 },
      headers: { Authorization: 'Bearer call-token', 'X-Partner': 'p-1' },
      retrySafe: false,
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      authorization: 'Bearer adapter-token',
      'x-partner': 'p-1',
      accept: 'application/json',
      'content-type': 'application/json',
      'x-client-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    // The hook sees the headers that were sent: one Authorization header, redacted.
    const names = Object.keys(requests[0]?.headers ?? {}).map((name) => name.toLowerCase());
    expect(names.filter((name) => name === 'authorization')).toHaveLength(1);
    expect(requests[0]?.headers).toMatchObject({
      authorization: expect.not.stringContaining('adapter-token'),
    });
  });

  it('sends form bodies form-encoded and JSON bodies as JSON', async () => {
    const scope = nock(BASE, { reqheaders: { 'content-type': 'application/x-www-form-urlencoded' } })
      .post('/v1.0/status', 'merchant=m1&transId=T-1&secret=s')
      .reply(200, 'code=0');
    await client().send({
      method: 'POST',
      path: '/v1.0/status',
      form: { merchant: 'm1', transId: 'T-1', secret: 's' },
      retrySafe: true,
    });
    scope.done();
  });

  it('reports a refused connection as a network error that was not sent', async () => {
    // A port that was just released has no listener: the connection is refused before anything is sent.
    const server = await startLoopbackServer(() => {});
    await server.close();
    const http = createHttpClient({ provider: 'providerN', baseUrl: server.url, retry: 0 });
    const error = await http
      .send({ method: 'POST', path: '/pay', json: {}, retrySafe: false })
      .catch((e: unknown) => e);
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'network_error', outcome: 'not_sent' });
  });

  it('names the unreachable host and the connection error, and never says a call that was not sent may have landed', async () => {
    const server = await startLoopbackServer(() => {});
    await server.close();
    const host = new URL(server.url).host;
    const http = createHttpClient({ provider: 'providerN', baseUrl: server.url, retry: 0 });
    const error = (await http
      .send({ method: 'POST', path: '/pay', json: {}, retrySafe: false })
      .catch((e: unknown) => e)) as NetworkError;
    expect(error).toMatchObject({ outcome: 'not_sent' });
    expect(error.message).toContain(host);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toMatch(/baseUrl/);
    expect(error.message).not.toMatch(/may have (been )?processed/i);
  });

  it('a call whose login could not reach an unreachable host names that host and code, and says it was not sent', async () => {
    const server = await startLoopbackServer(() => {});
    await server.close();
    const host = new URL(server.url).host;
    const http = clientLoggingIn({ baseUrl: server.url });
    const error = (await http
      .send({ method: 'GET', path: '/v1/payments/1', retrySafe: true })
      .catch((e: unknown) => e)) as NetworkError;
    expect(error).toMatchObject({ outcome: 'not_sent' });
    expect(error.message).toContain(host);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).not.toMatch(/may have (been )?processed/i);
    expect(error.message).not.toMatch(/\s{2}/);
  });

  it('a call whose login timed out says it was not sent without repeating the login\'s "may have processed"', async () => {
    const loginFailure = new NetworkError(
      'providerN POST /v1/auth/login timed out. The provider may have processed it: look the resource up before sending it again.',
      { outcome: 'unknown' },
    );
    const http = client({ authorization: { header: async () => Promise.reject(loginFailure) } });
    const error = (await http
      .send({ method: 'POST', path: '/pay', json: {}, retrySafe: false })
      .catch((e: unknown) => e)) as NetworkError;
    expect(error).toMatchObject({ outcome: 'not_sent', cause: loginFailure });
    expect(error.message).toContain('timed out');
    expect(error.message).not.toMatch(/may have (been )?processed/i);
  });

  it('a refused login says to check the configured credentials, without any secret', async () => {
    const refused = new ProviderApiError({
      provider: 'providerN',
      status: 401,
      providerCode: '99',
      providerMessage: 'Invalid credentials',
    });
    const http = client({
      secrets: ['sk_live_SUPERSECRET'],
      authorization: { header: async () => Promise.reject(refused) },
    });
    const error = (await http
      .send({ method: 'POST', path: '/pay', json: {}, retrySafe: false })
      .catch((e: unknown) => e)) as ProviderApiError;
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 401, providerCode: '99', retryable: false });
    expect(error.message).toMatch(/check the adapter's credentials \(API key \/ secret\)/);
    expect(error.message).not.toContain('SUPERSECRET');
  });

  it('says the outcome is unknown when an earlier attempt may have landed, even if the last was refused', async () => {
    const server = await startLoopbackServer(() => {
      // Never answers: the first attempt times out after the request reached the server.
    });
    let attempts = 0;
    const flakyFetch: typeof fetch = async (input, init) => {
      attempts += 1;
      if (attempts === 1) return fetch(input, init);
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      });
    };
    const http = createHttpClient({
      provider: 'providerT',
      baseUrl: server.url,
      fetch: flakyFetch,
      timeoutMs: 50,
      retry: 1,
      backoffBaseMs: 1,
    });
    const error = await http
      .send({ method: 'PUT', path: '/commit', json: {}, retrySafe: true })
      .catch((e: unknown) => e);
    await server.close();
    expect(attempts).toBe(2);
    expect(error).toMatchObject({ code: 'network_error', outcome: 'unknown' });
  });

  it('reports a timeout as a network error whose outcome is unknown, with the caller context', async () => {
    nock(BASE).put('/commit').delay(200).reply(200, '{}');
    const http = client({ timeoutMs: 50, retry: 0 });
    const error = await http
      .send({
        method: 'PUT',
        path: '/commit',
        json: {},
        retrySafe: true,
        context: { transactionId: 't1', step: 'commit' },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ outcome: 'unknown', context: { transactionId: 't1', step: 'commit' } });
    expect((error as Error).message).toContain('look the resource up before sending it again');
  });

  it("stops when the caller's signal aborts, with a network error whose outcome is unknown", async () => {
    nock(BASE).get('/slow').delay(500).reply(200, '{}');
    const controller = new AbortController();
    const pending = client({ retry: 0 }).send({
      method: 'GET',
      path: '/slow',
      retrySafe: true,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: 'network_error', outcome: 'unknown' });
  });

  it('ends with the last answer when the caller aborts while a retry waits, and sends nothing more', async () => {
    const sent: string[] = [];
    const fetchOnce: typeof fetch = async (input) => {
      sent.push(String(input));
      return new Response('{"busy":true}', { status: 503, headers: { 'retry-after': '2' } });
    };
    const controller = new AbortController();
    const pending = client({ fetch: fetchOnce, retry: 2 }).send({
      method: 'GET',
      path: '/status',
      retrySafe: true,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    const reply = await pending;
    expect(reply).toMatchObject({ status: 503, text: '{"busy":true}', earlierAttemptMayHaveReached: false });
    expect(sent).toEqual([`${BASE}/status`]);
  });

  it('retries a network failure of a retry-safe call with the same request id', async () => {
    const ids: string[] = [];
    nock(BASE)
      .get('/status')
      .replyWithError({ code: 'ECONNRESET', message: 'socket hang up' })
      .get('/status')
      .reply(function () {
        ids.push(String(this.req.headers['x-client-request-id']));
        return [200, '{}'];
      });
    const reply = await client().send({
      method: 'GET',
      path: '/status',
      retrySafe: true,
      requestId: 'req-1',
    });
    expect(reply.status).toBe(200);
    expect(ids).toEqual(['req-1']);
  });

  it('shows hooks the call with the Authorization header and every configured secret redacted', async () => {
    nock(BASE).post('/v1.0/status').reply(200, 'code=0&secret=sk_live_SUPERSECRET&status=PAID');
    const requests: HttpRequestInfo[] = [];
    const responses: HttpResponseInfo[] = [];
    const http = client({
      secrets: ['sk_live_SUPERSECRET'],
      authorization: { header: async () => 'Basic bWVyY2hhbnQ6c2tfbGl2ZV9TVVBFUlNFQ1JFVA==' },
      hooks: {
        onRequest: (info) => void requests.push(info),
        onResponse: (info) => void responses.push(info),
      },
    });
    await http.send({
      method: 'POST',
      path: '/v1.0/status',
      form: { merchant: 'm', secret: 'sk_live_SUPERSECRET' },
      retrySafe: true,
    });
    const seen = JSON.stringify([requests, responses]);
    expect(seen).not.toContain('SUPERSECRET');
    expect(seen).not.toContain('bWVyY2hhbnQ6');
    expect(requests[0]?.headers.authorization).toBe('[REDACTED]');
    expect(responses[0]).toMatchObject({
      status: 200,
      attempt: 1,
      responseBody: 'code=0&secret=[REDACTED]&status=PAID',
    });
  });

  it('says a call was not sent when its login got no answer, whatever the login outcome was', async () => {
    const loginFailure = new NetworkError('login timed out', { outcome: 'unknown' });
    const http = client({ authorization: { header: async () => Promise.reject(loginFailure) } });
    const error = await http
      .send({ method: 'POST', path: '/pay', json: {}, retrySafe: false, context: { step: 'quote' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ outcome: 'not_sent', cause: loginFailure, context: { step: 'quote' } });
  });

  it('hides a reply that carries credentials (a login) from hooks', async () => {
    nock(BASE).post('/v1/auth/login').reply(200, '{"accessToken":"fresh-token-never-configured"}');
    const responses: HttpResponseInfo[] = [];
    const http = client({ hooks: { onResponse: (info) => void responses.push(info) } });
    const reply = await http.send({
      method: 'POST',
      path: '/v1/auth/login',
      retrySafe: true,
      authorize: false,
      credentialsInReply: true,
    });
    expect(reply.text).toContain('fresh-token-never-configured');
    expect(responses[0]?.responseBody).toBe('[REDACTED]');
  });

  it('says the outcome is unknown when a retry cannot log in after an earlier attempt may have landed', async () => {
    const server = await startLoopbackServer(() => {
      // Never answers: the first attempt times out after the request reached the server.
    });
    let logins = 0;
    const header = async () => {
      logins += 1;
      if (logins === 1) return 'Bearer token-1';
      throw new NetworkError('login timed out', { outcome: 'unknown' });
    };
    const http = createHttpClient({
      provider: 'providerT',
      baseUrl: server.url,
      timeoutMs: 50,
      retry: 1,
      backoffBaseMs: 1,
      authorization: { header },
    });
    const error = await http
      .send({ method: 'PUT', path: '/commit', json: {}, retrySafe: true })
      .catch((e: unknown) => e);
    await server.close();
    expect(logins).toBe(2);
    expect(error).toMatchObject({ code: 'network_error', outcome: 'unknown' });
  });

  it('lets a failing login propagate as itself instead of a network error', async () => {
    const loginFailure = new Error('login refused');
    const http = client({ authorization: { header: async () => Promise.reject(loginFailure) } });
    await expect(http.send({ method: 'GET', path: '/x', retrySafe: true })).rejects.toBe(loginFailure);
  });
});

describe("a failure the runtime explains only in its own words (Deno's fetch errors carry no code)", () => {
  /** What Deno 2's fetch throws when the process was started without --allow-net. */
  function denoWithoutNetAccess(host: string): Error {
    const error = new Error(`Requires net access to "${host}", run again with the --allow-net flag`);
    error.name = 'NotCapable';
    return error;
  }

  it('a call whose login was denied network access says why, not just that no token could be obtained', async () => {
    const http = clientLoggingIn({
      baseUrl: 'http://127.0.0.1:45999',
      fetch: async () => Promise.reject(denoWithoutNetAccess('127.0.0.1:45999')),
    });
    const error = (await http
      .send({
        method: 'POST',
        path: '/v1/merchant/transactions/init-transaction',
        json: {},
        retrySafe: false,
      })
      .catch((e: unknown) => e)) as NetworkError;
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      'providerN POST /v1/merchant/transactions/init-transaction was not sent: no access token could be obtained ' +
        '(login: providerN POST /v1/auth/login to 127.0.0.1:45999 failed (Requires net access to "127.0.0.1:45999", ' +
        'run again with the --allow-net flag)). It is safe to send again.',
    );
  });

  it("names the innermost cause's words with each URL cut to its host, so a query's credential stays out", async () => {
    const denoRefused = new TypeError('fetch failed', {
      cause: new Error(
        'error sending request for url (https://api.provider.example/pay?api_key=sk_query_SECRET_1): client error (Connect): tcp connect error: Connection refused (os error 111)',
      ),
    });
    const http = client({ fetch: async () => Promise.reject(denoRefused) });
    const error = (await http
      .send({ method: 'GET', path: '/pay', query: { api_key: 'sk_query_SECRET_1' }, retrySafe: false })
      .catch((e: unknown) => e)) as NetworkError;
    expect(error.message).toBe(
      'providerT GET /pay to api.provider.example failed (error sending request for url (api.provider.example): ' +
        'client error (Connect): tcp connect error: Connection refused (os error 111)). The provider may have ' +
        'processed it: look the resource up before sending it again.',
    );
  });
});

describe('earlier attempts of the same call (docs/architecture.md#outcomes)', () => {
  it('tells the adapter a reply follows an attempt that may have reached the provider', async () => {
    nock(BASE).put('/commit').reply(503, '{}').put('/commit').reply(409, '{"error":"in progress"}');
    const reply = await client({ retry: 1 }).send({
      method: 'PUT',
      path: '/commit',
      json: {},
      retrySafe: true,
    });
    expect(reply).toMatchObject({ status: 409, earlierAttemptMayHaveReached: true });
  });

  it('says no earlier attempt may have landed for a first answer, or after a 401 that proves nothing was done', async () => {
    nock(BASE).get('/a').reply(400, '{}').post('/b').reply(401, '{}').post('/b').reply(400, '{}');
    const first = await client().send({ method: 'GET', path: '/a', retrySafe: true });
    expect(first).toMatchObject({ status: 400, earlierAttemptMayHaveReached: false });
    const http = client({ authorization: { header: async () => 'Bearer t', rejected: () => {} } });
    const afterReauth = await http.send({ method: 'POST', path: '/b', json: {}, retrySafe: false });
    expect(afterReauth).toMatchObject({ status: 400, earlierAttemptMayHaveReached: false });
  });

  it('flags the refusal of a retry whose first attempt timed out after reaching the provider', async () => {
    let attempts = 0;
    // The first attempt is sent and never answered (it ends only when the client's timeout aborts it); the
    // retry is refused at once. No real timing is involved beyond the 50 ms timeout itself.
    const fetchStub: typeof fetch = async (input, init) => {
      attempts += 1;
      const signal = new Request(input, init).signal;
      if (attempts > 1) return new Response('{"code":"EXPIRED"}', { status: 400 });
      return new Promise<Response>((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    };
    const reply = await client({ fetch: fetchStub, timeoutMs: 50, retry: 1 }).send({
      method: 'PUT',
      path: '/commit',
      json: {},
      retrySafe: true,
    });
    expect(attempts).toBe(2);
    expect(reply).toMatchObject({ status: 400, earlierAttemptMayHaveReached: true });
  });

  it('says unknown, not the login refusal, when a retry cannot log in after an earlier attempt may have landed', async () => {
    const refusal = new ProviderApiError({
      provider: 'providerT',
      status: 401,
      providerCode: 'INVALID_CLIENT',
    });
    let logins = 0;
    nock(BASE).put('/commit').reply(503, '{}');
    const http = client({
      retry: 1,
      authorization: {
        header: async () => {
          logins += 1;
          if (logins === 1) return 'Bearer token-1';
          throw refusal;
        },
      },
    });
    const error = await http
      .send({ method: 'PUT', path: '/commit', json: {}, retrySafe: true, context: { step: 'commit' } })
      .catch((e: unknown) => e);
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ outcome: 'unknown', cause: refusal, context: { step: 'commit' } });
    expect((error as Error).message).toMatch(/look .* up before sending it again/i);
  });
});

describe('observation hooks never change an outcome (docs/architecture.md#http-client)', () => {
  it('returns the refund reply when onResponse throws, and reports the hook error to onHookError', async () => {
    nock(BASE).post('/v1/refunds/initiate-refund').reply(200, '{"refundStatus":"COMPLETED"}');
    const boom = new Error('metrics backend down');
    const reported: unknown[] = [];
    const http = client({
      hooks: {
        onResponse: () => {
          throw boom;
        },
        onHookError: (error, failure) => void reported.push(error, failure.hook, failure.request.method),
      },
    });
    const reply = await http.send({
      method: 'POST',
      path: '/v1/refunds/initiate-refund',
      json: {},
      retrySafe: false,
    });
    expect(reply).toMatchObject({ status: 200, text: '{"refundStatus":"COMPLETED"}' });
    expect(reported).toEqual([boom, 'onResponse', 'POST']);
  });

  it('still sends the call when onRequest rejects, and warns once when no onHookError is given', async () => {
    const scope = nock(BASE).post('/v2.0/payment').reply(200, '{}');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const reply = await client({
        hooks: { onRequest: async () => Promise.reject(new Error('log full')) },
      }).send({
        method: 'POST',
        path: '/v2.0/payment',
        json: {},
        retrySafe: false,
      });
      expect(reply.status).toBe(200);
      scope.done();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toContain('onRequest hook threw (log full)');
    } finally {
      warn.mockRestore();
    }
  });

  it('ignores an onHookError that throws as well', async () => {
    nock(BASE).get('/x').reply(200, '{}');
    const http = client({
      hooks: {
        onResponse: () => {
          throw new Error('a');
        },
        onHookError: () => {
          throw new Error('b');
        },
      },
    });
    expect((await http.send({ method: 'GET', path: '/x', retrySafe: true })).status).toBe(200);
  });
});

describe("the caller's signal (docs/architecture.md#http-client)", () => {
  it('reports a call aborted before anything was sent as not sent, and never calls fetch', async () => {
    const fetchSpy = vi.fn<typeof fetch>();
    const controller = new AbortController();
    controller.abort();
    const error = await client({ fetch: fetchSpy })
      .send({ method: 'POST', path: '/pay', json: {}, retrySafe: false, signal: controller.signal })
      .catch((e: unknown) => e);
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ outcome: 'not_sent' });
    expect((error as Error).message).toMatch(/aborted/);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('stops waiting for a shared login when the caller aborts: not sent, while the login goes on for others', async () => {
    let finishLogin: (token: string) => void = () => {};
    const login = new Promise<string>((resolve) => {
      finishLogin = resolve;
    });
    const fetchSpy = vi.fn<typeof fetch>(async () => new Response('{}', { status: 200 }));
    const http = client({ fetch: fetchSpy, authorization: { header: async () => `Bearer ${await login}` } });
    const controller = new AbortController();
    const aborted = http.send({
      method: 'POST',
      path: '/pay',
      json: {},
      retrySafe: false,
      signal: controller.signal,
    });
    const other = http.send({ method: 'GET', path: '/status', retrySafe: true });
    setTimeout(() => controller.abort(), 10);
    const started = Date.now();
    const error = await aborted.catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(error).toMatchObject({ code: 'network_error', outcome: 'not_sent' });
    finishLogin('token-1');
    expect((await other).status).toBe(200);
    expect(fetchSpy).toHaveBeenCalledTimes(1);
  });

  it("says a caller's abort in flight was aborted, not timed out, even when the reason is a TimeoutError", async () => {
    nock(BASE).get('/slow').delay(500).reply(200, '{}');
    const controller = new AbortController();
    const pending = client({ retry: 0 }).send({
      method: 'GET',
      path: '/slow',
      retrySafe: true,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new DOMException('the caller gave up', 'TimeoutError')), 20);
    const error = (await pending.catch((e: unknown) => e)) as NetworkError;
    expect(error).toMatchObject({ code: 'network_error', outcome: 'unknown' });
    expect(error.message).toContain("aborted by the caller's signal");
    expect(error.message).not.toContain('timed out');
  });
});

describe('paths refuse segments that would change the URL (docs/architecture.md#http-client)', () => {
  it.each(['..', '.', '', ' '])('refuses %j with a ValidationError', (id) => {
    expect(() => path`/status/v1/${id}`).toThrow(ValidationError);
  });

  it('keeps ids that merely contain dots', () => {
    expect(path`/status/v1/${'a..b'}/${'...'}`).toBe('/status/v1/a..b/...');
  });
});

describe('credentials the client sends never reach a hook (docs/architecture.md#redaction)', () => {
  it('redacts an echoed Basic credential, its decoded secret and a bearer token from reply headers and bodies', async () => {
    const basic = `Basic ${btoa('merchant-1:k9')}`;
    nock(BASE)
      .post('/v1/auth/login')
      .reply(200, '{"accessToken":"tok-abcdef-123456","expiresIn":3600}')
      .get('/echo')
      .reply(400, (_uri, _body) => `{"you sent":"${basic}","secret":"k9","token":"tok-abcdef-123456"}`, {
        'x-echo-authorization': basic,
        'x-echo-token': 'Bearer tok-abcdef-123456',
      });
    const requests: HttpRequestInfo[] = [];
    const responses: HttpResponseInfo[] = [];
    const http = client({
      hooks: {
        onRequest: (info) => void requests.push(info),
        onResponse: (info) => void responses.push(info),
      },
    });
    await http.send({
      method: 'POST',
      path: '/v1/auth/login',
      headers: { Authorization: basic },
      authorize: false,
      retrySafe: true,
      credentialsInReply: true,
    });
    await http.send({ method: 'GET', path: '/echo', headers: { 'x-trace': 'k9' }, retrySafe: true });
    const seen = JSON.stringify([requests, responses]);
    for (const leaked of [btoa('merchant-1:k9'), 'merchant-1:k9', '"k9"', 'tok-abcdef-123456'])
      expect(seen).not.toContain(leaked);
    expect(responses[1]?.responseHeaders['x-echo-authorization']).toBe('[REDACTED]');
    expect(responses[1]?.responseBody).toContain('"secret":"[REDACTED]"');
  });

  it('redacts a sent credential from an error the client throws, including its cause chain', async () => {
    const basic = `Basic ${btoa('merchant-1:s3cr3t-value')}`;
    const http = client({
      fetch: async () => {
        throw new TypeError(`fetch failed for ${basic}`, { cause: new Error('s3cr3t-value rejected') });
      },
      retry: 0,
    });
    const error = await http
      .send({
        method: 'GET',
        path: '/x',
        headers: { authorization: basic },
        authorize: false,
        retrySafe: true,
      })
      .catch((e: unknown) => e);
    const text =
      JSON.stringify(error) +
      String((error as Error).stack) +
      String(((error as Error).cause as Error).message);
    const inner = (((error as Error).cause as Error).cause as Error).message;
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(text).not.toContain(btoa('merchant-1:s3cr3t-value'));
    expect(inner).toBe('[REDACTED] rejected');
  });
});

describe('the retry waits', () => {
  it('start near 300 ms, grow exponentially with jitter, and never exceed 5 s', () => {
    for (let run = 0; run < 50; run++) {
      expect(backoff(1, 300)).toBeGreaterThanOrEqual(240);
      expect(backoff(1, 300)).toBeLessThanOrEqual(360);
      expect(backoff(2, 300)).toBeGreaterThanOrEqual(480);
      expect(backoff(10, 300)).toBeLessThanOrEqual(5_000);
    }
  });

  it('honour Retry-After in seconds or as a date, capped at 5 s', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2_000);
    expect(retryAfterMs(new Headers({ 'retry-after': '120' }))).toBe(5_000);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(Date.now() + 60_000).toUTCString() }))).toBe(
      5_000,
    );
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });
});

describe('parseReply', () => {
  const schema = v.object({ transactionId: v.string(), sendAmount: v.object({ value: v.number() }) });

  it('returns the parsed reply when it matches the wire schema', () => {
    expect(
      parseReply(
        schema,
        { transactionId: 't', sendAmount: { value: 1 }, extra: true },
        { provider: 'providerT', call: 'quote' },
      ),
    ).toEqual({
      transactionId: 't',
      sendAmount: { value: 1 },
    });
  });

  it('throws InvalidResponseError naming the fields, never their values', () => {
    const error = (() => {
      try {
        parseReply(
          schema,
          { transactionId: 42, sendAmount: { value: 'secret-ish' } },
          { provider: 'providerT', call: 'quote', context: { step: 'quote' } },
        );
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ code: 'invalid_response', context: { step: 'quote' } });
    expect((error as Error).message).toContain('transactionId, sendAmount.value');
    expect((error as Error).message).not.toContain('secret-ish');
  });
});

describe('per-call timeout and retry (docs/architecture.md#createpay)', () => {
  /** An adapter whose reads and payments go through one client, passing the operation context as adapters do. */
  function adapterOver(http: ReturnType<typeof createHttpClient>) {
    return ledgerAdapter({
      async retrievePayment(id, context) {
        const reply = await http.send(
          { method: 'GET', path: path`/payments/${id}`, retrySafe: true },
          context,
        );
        return reply.status === 200 ? transfer(id) : null;
      },
      async createPayment(_params, context) {
        await http.send({ method: 'POST', path: '/payments', json: {}, retrySafe: false }, context);
        return transfer('p1');
      },
    });
  }

  it('retries a read as often as the call asks, over the adapter default', async () => {
    const scope = nock(BASE)
      .get('/payments/p1')
      .times(3)
      .reply(503, '{}')
      .get('/payments/p1')
      .reply(200, '{}');
    const pay = createPay(adapterOver(client({ retry: 0 })));
    expect(await pay.payments.retrieve('p1', { retry: 3 })).toMatchObject({ id: 'p1' });
    expect(scope.isDone()).toBe(true);
  });

  it('sends fewer retries when the call asks for none', async () => {
    nock(BASE).get('/payments/p1').reply(503, '{}').get('/payments/p1').reply(200, '{}');
    const pay = createPay(adapterOver(client({ retry: 2 })));
    expect(await pay.payments.retrieve('p1', { retry: 0 })).toBeNull();
    expect(nock.pendingMocks()).toHaveLength(1);
  });

  it('never retries a money-moving call, whatever retry the call asks for', async () => {
    const scope = nock(BASE).post('/payments').reply(503, '{}');
    nock(BASE).post('/payments').reply(200, '{}');
    const pay = createPay(adapterOver(client()));
    await pay.payments.create({ amount: 1, currency: 'EUR' }, { retry: 5 });
    expect(scope.isDone()).toBe(true);
    expect(nock.pendingMocks()).toHaveLength(1);
  });

  it('times an attempt out after the call’s own timeoutMs, as an unknown outcome', async () => {
    nock(BASE).post('/payments').delay(10_000).reply(200, '{}');
    const pay = createPay(adapterOver(client({ timeoutMs: 30_000 })));
    const started = Date.now();
    const error = await pay.payments
      .create({ amount: 1, currency: 'EUR' }, { timeoutMs: 50 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ outcome: 'unknown' });
    expect((error as NetworkError).message).toMatch(/timed out/);
    // Well before the adapter's 30 s and the 10 s reply: the call's own 50 ms ended it.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("still reports the caller's own abort as an abort when per-call settings are given", async () => {
    nock(BASE).get('/payments/p1').delay(300).reply(200, '{}');
    const pay = createPay(adapterOver(client()));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const error = await pay.payments
      .retrieve('p1', { signal: controller.signal, timeoutMs: 5_000, retry: 0 })
      .catch((e: unknown) => e);
    expect((error as NetworkError).message).toMatch(/aborted by the caller's signal/);
  });

  it('takes timeoutMs and retry on a request directly too', async () => {
    const scope = nock(BASE).get('/r').times(2).reply(503, '{}').get('/r').reply(200, '{}');
    const reply = await client({ retry: 0 }).send({ method: 'GET', path: '/r', retrySafe: true, retry: 2 });
    expect(reply.status).toBe(200);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    [{ retry: 11 }, 'options.retry'],
    [{ retry: -1 }, 'options.retry'],
    [{ retry: 1.5 }, 'options.retry'],
    [{ timeoutMs: 0 }, 'options.timeoutMs'],
    [{ timeoutMs: 600_001 }, 'options.timeoutMs'],
  ])('refuses %j before any I/O', async (options, field) => {
    const pay = createPay(adapterOver(client()));
    const error = await pay.payments.retrieve('p1', options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([field]);
    expect(nock.pendingMocks()).toEqual([]);
  });
});

describe('ky does the attempts (docs/architecture.md#http-client)', () => {
  it("keeps the Authorization header out of a timed-out call's error, cause included", async () => {
    nock(BASE).get('/transfer/v1/transactions/t9').delay(300).reply(200, '{}');
    const error = await client({
      timeoutMs: 50,
      retry: 0,
      authorization: { header: async () => 'Bearer tok_live_abcdef123456' },
    })
      .send({ method: 'GET', path: '/transfer/v1/transactions/t9', retrySafe: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ outcome: 'unknown' });
    expect((error as Error).message).toContain('timed out');
    const cause = (error as Error).cause as Record<string, unknown>;
    expect(cause).toMatchObject({ name: 'TimeoutError' });
    expect(cause.request).toBeUndefined();
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('tok_live_abcdef123456');
  });

  it('re-logs in at once after a 401, without the retry backoff', async () => {
    nock(BASE).post('/refunds').reply(401, '{}').post('/refunds').reply(201, '{"id":"r1"}');
    let token = 0;
    const started = Date.now();
    const reply = await client({
      backoffBaseMs: 2_000,
      authorization: { header: async () => `Bearer t${++token}`, rejected: () => undefined },
    }).send({ method: 'POST', path: '/refunds', json: {}, retrySafe: false });
    expect(reply.status).toBe(201);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
