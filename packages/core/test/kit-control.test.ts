import { request as httpRequest } from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import {
  addTriggerRoute,
  FaultInjector,
  isLoopbackAddress,
  type LoopbackServer,
  RequestLog,
  Routes,
  readRequestBody,
  SimulatorTriggerError,
  simulatorListener,
  startLoopbackServer,
  triggerOnSimulator,
} from '../src/testing/index.js';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** An app that records what it received and answers 200 `ok`. */
async function app() {
  const received: { body: string; signature: string | undefined }[] = [];
  const server = await startLoopbackServer(async (req, res) => {
    received.push({ body: await readRequestBody(req), signature: req.headers['x-signature'] as string });
    res.end('ok');
  });
  servers.push(server);
  return { url: `${server.url}/webhooks`, received };
}

/** A tiny simulator of "provider-q" whose trigger signs `{ event, options }`; `host` is where it listens. */
async function simulator(host?: string) {
  const calls: { event: string; options: Record<string, unknown> }[] = [];
  const faults = new FaultInjector();
  const routes = new Routes();
  addTriggerRoute(routes, {
    provider: 'provider-q',
    async trigger(event, options) {
      calls.push({ event, options });
      if (event !== 'payment.succeeded') throw new Error(`Provider Q has no event ${event}.`);
      const response = await fetch(options.to as string, {
        method: 'POST',
        headers: { 'x-signature': 'signed-by-the-running-simulator' },
        body: JSON.stringify({ event, id: options.transactionId ?? 'generated' }),
      });
      return { status: response.status, body: await response.text() };
    },
  });
  const server = await startLoopbackServer(
    simulatorListener({ routes, requests: new RequestLog(), faults }),
    host === undefined ? {} : { host },
  );
  servers.push(server);
  return { server, calls, faults };
}

/** A loopback port nothing listens on (a server started, then closed). */
async function closedPort(): Promise<number> {
  const server = await startLoopbackServer(() => undefined);
  await server.close();
  return server.port;
}

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('POST /_simulator/trigger (the control route pay trigger uses)', () => {
  it("makes the running simulator send the event with its own trigger, and answers with the endpoint's reply", async () => {
    const target = await app();
    const sim = await simulator();
    const reply = await postJson(`${sim.server.url}/_simulator/trigger`, {
      event: 'payment.succeeded',
      to: target.url,
      options: { transactionId: 'tr_1', to: 'http://127.0.0.1:9/ignored' },
      provider: 'provider-q',
    });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({
      provider: 'provider-q',
      event: 'payment.succeeded',
      to: target.url,
      status: 200,
      body: 'ok',
    });
    // `to` of the request wins over an option of the same name.
    expect(sim.calls).toEqual([
      { event: 'payment.succeeded', options: { transactionId: 'tr_1', to: target.url } },
    ]);
    expect(target.received).toEqual([
      {
        body: '{"event":"payment.succeeded","id":"tr_1"}',
        signature: 'signed-by-the-running-simulator',
      },
    ]);
  });

  it("answers 400 with the simulator's message for an event it refuses", async () => {
    const target = await app();
    const sim = await simulator();
    const reply = await postJson(`${sim.server.url}/_simulator/trigger`, { event: 'nope', to: target.url });
    expect([reply.status, await reply.json()]).toEqual([400, { error: 'Provider Q has no event nope.' }]);
    expect(target.received).toEqual([]);
  });

  it.each([
    [{ to: 'http://127.0.0.1:1/' }, '`event` must be a non-empty string.'],
    [{ event: 'payment.succeeded', to: 'file:///etc/passwd' }, '`to` must be an absolute http(s) URL.'],
    [
      { event: 'payment.succeeded', to: 'http://127.0.0.1:1/', options: [1] },
      '`options` must be a JSON object.',
    ],
    [['payment.succeeded'], 'The body must be a JSON object { event, to, options? }.'],
  ])('refuses the malformed request %j with 400 and calls no trigger', async (body, error) => {
    const sim = await simulator();
    const reply = await postJson(`${sim.server.url}/_simulator/trigger`, body);
    expect([reply.status, await reply.json()]).toEqual([400, { error }]);
    expect(sim.calls).toEqual([]);
  });

  it("refuses another provider's trigger with 409, naming both", async () => {
    const sim = await simulator();
    const reply = await postJson(`${sim.server.url}/_simulator/trigger`, {
      event: 'payment.succeeded',
      to: 'http://127.0.0.1:1/',
      provider: 'provider-t',
    });
    expect([reply.status, await reply.json()]).toEqual([
      409,
      {
        error: 'This is the provider-q simulator, not provider-t: start pay dev provider-t on another port.',
      },
    ]);
    expect(sim.calls).toEqual([]);
  });

  it('answers 502 naming the network error when the endpoint cannot be reached', async () => {
    const sim = await simulator();
    const to = `http://127.0.0.1:${await closedPort()}/webhooks`;
    const reply = await postJson(`${sim.server.url}/_simulator/trigger`, { event: 'payment.succeeded', to });
    expect([reply.status, await reply.json()]).toEqual([
      502,
      { error: `The event was not delivered to ${to} (ECONNREFUSED).` },
    ]);
  });

  it('refuses a form post (what a web page could send cross-origin) with 415', async () => {
    const sim = await simulator();
    const reply = await fetch(`${sim.server.url}/_simulator/trigger`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ event: 'payment.succeeded', to: 'http://127.0.0.1:1/' }),
    });
    expect(reply.status).toBe(415);
    expect(sim.calls).toEqual([]);
  });

  it('refuses a request addressed to a non-loopback host name (DNS rebinding) with 403', async () => {
    const sim = await simulator();
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${sim.server.url}/_simulator/trigger`,
        {
          method: 'POST',
          headers: { host: 'attacker.example:4010', 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ event: 'payment.succeeded', to: 'http://127.0.0.1:1/' }));
    });
    expect(status).toBe(403);
    expect(sim.calls).toEqual([]);
  });

  const external = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;

  it.runIf(external !== undefined)(
    'refuses a peer that is not this machine with 403, even on a simulator listening on every interface',
    async () => {
      const sim = await simulator('0.0.0.0');
      const reply = await fetch(`http://${external}:${sim.server.port}/_simulator/trigger`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', host: `127.0.0.1:${sim.server.port}` },
        body: JSON.stringify({ event: 'payment.succeeded', to: 'http://127.0.0.1:1/' }),
      });
      expect([reply.status, await reply.json()]).toEqual([
        403,
        { error: 'The simulator control routes answer only this machine.' },
      ]);
      expect(sim.calls).toEqual([]);
    },
  );

  it('is not subject to the faults armed for the wire', async () => {
    const target = await app();
    const sim = await simulator();
    sim.faults.inject({ path: /.*/, times: 1, fault: { kind: 'status', status: 503 } });
    const reply = await postJson(`${sim.server.url}/_simulator/trigger`, {
      event: 'payment.succeeded',
      to: target.url,
    });
    expect(reply.status).toBe(200);
  });

  it('knows loopback peer addresses', () => {
    expect(
      ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'].map((address) => isLoopbackAddress(address)),
    ).toEqual([true, true, true, true]);
    expect(
      ['192.0.2.2', '::ffff:10.0.0.1', 'fd00::2', '128.0.0.1', undefined].map((address) =>
        isLoopbackAddress(address),
      ),
    ).toEqual([false, false, false, false, false]);
  });
});

describe('triggerOnSimulator', () => {
  it("resolves with the endpoint's reply through the running simulator", async () => {
    const target = await app();
    const sim = await simulator();
    await expect(
      triggerOnSimulator(sim.server.url, { event: 'payment.succeeded', to: target.url }),
    ).resolves.toEqual({
      provider: 'provider-q',
      event: 'payment.succeeded',
      to: target.url,
      status: 200,
      body: 'ok',
    });
  });

  it('says no simulator answers (ECONNREFUSED) when nothing listens', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const error = await triggerOnSimulator(url, {
      event: 'payment.succeeded',
      to: 'http://127.0.0.1:1/',
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SimulatorTriggerError);
    expect(error).toMatchObject({
      reason: 'unreachable',
      code: 'ECONNREFUSED',
      message: `No simulator answers at ${url} (ECONNREFUSED).`,
    });
  });

  it('says the server is not a simulator with the control route when the route is unknown', async () => {
    const other = await startLoopbackServer(
      simulatorListener({ routes: new Routes(), requests: new RequestLog() }),
    );
    servers.push(other);
    const error = await triggerOnSimulator(other.url, {
      event: 'payment.succeeded',
      to: 'http://127.0.0.1:1/',
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: 'SimulatorTriggerError',
      reason: 'not_simulator',
      status: 404,
      message: `${other.url} answered HTTP 404 to POST /_simulator/trigger: it is not a @pay simulator with the trigger control route (an older version, or another server on that port).`,
    });
  });

  it("carries the simulator's refusal and its status", async () => {
    const sim = await simulator();
    const error = await triggerOnSimulator(sim.server.url, {
      event: 'nope',
      to: 'http://127.0.0.1:1/',
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ reason: 'refused', status: 400, message: 'Provider Q has no event nope.' });
  });
});
