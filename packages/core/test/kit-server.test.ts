import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FaultInjector,
  jsonBody,
  jsonReply,
  type LoopbackServer,
  RequestLog,
  Routes,
  simulatorListener,
  startLoopbackServer,
} from '../src/testing/index.js';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(routes: Routes, options: { requestIdHeader?: string; port?: number } = {}) {
  const requests = new RequestLog({ requestIdHeader: options.requestIdHeader });
  const faults = new FaultInjector();
  const server = await startLoopbackServer(simulatorListener({ routes, requests, faults }), {
    port: options.port,
  });
  servers.push(server);
  return { server, requests, faults };
}

function echoRoutes(): Routes {
  return new Routes()
    .get('/v1/refunds/:refundReference', (request) =>
      jsonReply(200, { refundReference: request.params.refundReference, query: request.query }),
    )
    .post('/v1/payments', (request) => jsonReply(201, { received: jsonBody(request) }));
}

describe('the simulator kit server', () => {
  it('routes by method and path, decoding :param segments, and logs the exact request', async () => {
    const { server, requests } = await start(echoRoutes(), { requestIdHeader: 'x-request-id' });
    const read = await fetch(`${server.url}/v1/refunds/RF%7C1?expand=all`, {
      headers: { 'x-request-id': 'req-abc', authorization: 'Bearer t' },
    });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ refundReference: 'RF|1', query: { expand: 'all' } });
    const created = await fetch(`${server.url}/v1/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"amount":250.5}',
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ received: { amount: 250.5 } });

    expect(requests.entries).toHaveLength(2);
    expect(requests.entries[0]).toMatchObject({
      method: 'GET',
      path: '/v1/refunds/RF%7C1',
      query: { expand: 'all' },
      body: '',
      requestId: 'req-abc',
    });
    expect(requests.entries[0]?.headers.authorization).toBe('Bearer t');
    expect(requests.entries[1]).toMatchObject({
      method: 'POST',
      path: '/v1/payments',
      body: '{"amount":250.5}',
    });
    expect(requests.entries[1]?.requestId).toMatch(/^sim_req_\d{6}$/);
    expect(requests.find('post', '/v1/payments')).toHaveLength(1);
  });

  it('answers 404 for a route it does not know and 400 for a malformed percent-encoded segment', async () => {
    const { server } = await start(echoRoutes());
    const missing = await fetch(`${server.url}/v1/nothing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'No route GET /v1/nothing' });
    const wrongMethod = await fetch(`${server.url}/v1/payments`);
    expect(wrongMethod.status).toBe(404);
    const malformed = await fetch(`${server.url}/v1/refunds/%E0%A4%A`);
    expect(malformed.status).toBe(400);
  });

  it('applies an armed fault once, then handles the call again', async () => {
    const { server, faults, requests } = await start(echoRoutes());
    faults.inject({ method: 'POST', path: '/v1/payments', fault: { kind: 'status', status: 503 } });
    const post = () => fetch(`${server.url}/v1/payments`, { method: 'POST', body: '{}' });
    expect((await post()).status).toBe(503);
    expect(faults.pending).toBe(0);
    expect((await post()).status).toBe(201);
    expect(requests.entries).toHaveLength(2);
  });

  it('refuses a fault rule that could never match when it is injected, and still arms an exact path or a RegExp', async () => {
    const { server, faults } = await start(echoRoutes());
    const never = {
      '/v1/refunds/:refundReference': 'is a route pattern',
      '/v1/refunds/*': 'is a route pattern',
      '/v1/refunds/{id}': 'is not a request path as it arrives',
      'v1/payments': 'is not a request path as it arrives',
      '/v1/payments?expand=all': 'is not a request path as it arrives',
      '/v1/refunds/ref 1': 'is not a request path as it arrives',
    };
    for (const [path, reason] of Object.entries(never)) {
      expect(() => faults.inject({ path, fault: { kind: 'drop' } }), path).toThrow(RangeError);
      expect(() => faults.inject({ path, fault: { kind: 'drop' } }), path).toThrow(
        `This fault rule can never match: path ${JSON.stringify(path)} ${reason}`,
      );
    }
    expect(() => faults.inject({ path: '/v1/refunds/:id', fault: { kind: 'drop' } })).toThrow(
      'use a RegExp such as /^\\/v1\\/refunds\\/[^/]+$/.',
    );
    expect(() => faults.inject({ path: '/v1/payments', times: 0, fault: { kind: 'drop' } })).toThrow(
      'This fault rule can never match: times must be a whole number of calls, at least 1 (got 0).',
    );
    expect(() =>
      faults.inject({ method: 'POST /v1', path: '/v1/payments', fault: { kind: 'drop' } }),
    ).toThrow('This fault rule can never match: method "POST /v1" is no HTTP method.');
    expect(faults.pending).toBe(0);

    faults.inject({ method: 'get', path: /^\/v1\/refunds\/[^/]+$/, fault: { kind: 'status', status: 502 } });
    faults.inject({ path: '/v1/refunds/ref%201', fault: { kind: 'status', status: 504 } });
    expect((await fetch(`${server.url}/v1/refunds/ref-7`)).status).toBe(502);
    expect((await fetch(`${server.url}/v1/refunds/ref%201`)).status).toBe(504);
    expect(faults.pending).toBe(0);
  });

  it('loses the reply but keeps the state change on a drop-after fault', async () => {
    let handled = 0;
    const routes = new Routes().post('/v1/payments', () => {
      handled += 1;
      return jsonReply(201, {});
    });
    const { server, faults } = await start(routes);
    faults.inject({ path: /^\/v1\//, fault: { kind: 'drop-after' } });
    await expect(fetch(`${server.url}/v1/payments`, { method: 'POST', body: '{}' })).rejects.toThrow();
    expect(handled).toBe(1);
  });

  it('listens on a fixed port when asked, and says clearly when that port is taken', async () => {
    const first = await start(echoRoutes());
    const port = first.server.port;
    await first.server.close();
    servers.length = 0;
    const fixed = await start(echoRoutes(), { port });
    expect(fixed.server.url).toBe(`http://127.0.0.1:${port}`);
    await expect(startLoopbackServer(() => undefined, { port })).rejects.toThrow(
      `Port ${port} on 127.0.0.1 is already in use: choose another port.`,
    );
  });

  it('settles once a delayed call the client gave up on has been handled', async () => {
    let handled = 0;
    const routes = new Routes().post('/v1/payments', () => {
      handled += 1;
      return jsonReply(201, {});
    });
    const { server, faults } = await start(routes);
    faults.inject({ path: '/v1/payments', fault: { kind: 'delay', ms: 300 } });
    // The client gives up as soon as the server has the call (a timer could fire before it arrives on a busy machine).
    const client = new AbortController();
    server.server.once('request', () => client.abort());
    await expect(
      fetch(`${server.url}/v1/payments`, { method: 'POST', body: '{}', signal: client.signal }),
    ).rejects.toThrow();
    expect(handled).toBe(0);
    await faults.settled();
    expect(handled).toBe(1);
    await faults.settled();
  });

  it('keeps the first plain listener form working (a listener that throws answers 500)', async () => {
    const server = await startLoopbackServer(() => {
      throw new Error('boom');
    });
    servers.push(server);
    const status = await new Promise<number>((resolve, reject) => {
      httpRequest(`${server.url}/`, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(500);
  });
});
