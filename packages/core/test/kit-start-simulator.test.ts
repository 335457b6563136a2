import { afterEach, describe, expect, it } from 'vitest';
import {
  EVENT_LOG_PATH,
  jsonBody,
  jsonReply,
  type LoopbackServer,
  type PayerAction,
  type RecordedRequest,
  readRequestBody,
  type SimulatorKit,
  type SimulatorParts,
  type SimulatorStartOptions,
  startLoopbackServer,
  startSimulator,
  textReply,
  triggerOnSimulator,
  type WebhookDelivery,
} from '../src/testing/index.js';

const stops: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((running) => running.close()));
});

/** An app that records each webhook (body and signature) and answers 200 `ok`. */
async function app() {
  const received: { body: string; signature: string | undefined }[] = [];
  const server: LoopbackServer = await startLoopbackServer(async (req, res) => {
    received.push({ body: await readRequestBody(req), signature: req.headers['x-q-signature'] as string });
    res.end('ok');
  });
  stops.push(server);
  return { url: `${server.url}/webhooks`, received };
}

interface QCharge {
  id: string;
  amount: number;
  status: string;
}

/** Provider Q's trigger options, checked from `pay trigger`'s JSON. */
interface QTriggerOptions {
  to?: string;
  chargeId?: string;
}

const STATUS_AFTER: Record<PayerAction, string> = { pay: 'paid', fail: 'failed', cancel: 'cancelled' };

/** A small "provider-q" simulator on the builder: charges, a bearer token login, signed webhooks. */
async function startProviderQ(options: SimulatorStartOptions = {}) {
  const charges = new Map<string, QCharge>();
  let readInSetup: unknown;
  const simulator = await startSimulator(options, {
    provider: 'provider-q',
    requestIdHeader: 'x-q-request',
    sign: (body) => ({ 'x-q-signature': `signed:${body.length}` }),
    delivery: { backoffMs: [5] },
    tokens: { lifetimeSeconds: 60, prefix: 'q_' },
    setup: (kit: SimulatorKit) => {
      try {
        readInSetup = kit.url;
      } catch (error) {
        readInSetup = error;
      }
      const event = (charge: QCharge) => ({ event: `charge.${charge.status}`, body: JSON.stringify(charge) });
      kit.routes.post('/login', () => jsonReply(200, { token: kit.tokens.issue().token }));
      kit.routes.post('/charges', (request) => {
        if (!kit.tokens.acceptsBearer(request.headers.authorization))
          return jsonReply(401, { q_error: 'token' });
        const id = `ch_${charges.size + 1}`;
        const charge = {
          id,
          amount: Number((jsonBody(request) as { amount: unknown }).amount),
          status: 'open',
        };
        charges.set(id, charge);
        return jsonReply(201, { ...charge, pay_url: `${kit.url}/pay/${id}` });
      });
      return {
        notFound: (request: RecordedRequest) => jsonReply(404, { q_error: `no ${request.path}` }),
        adapterConfig: (overrides = {}) => ({ baseUrl: kit.url, apiKey: 'q_key', ...overrides }),
        books: () => ({ charges: [...charges.values()].map((charge) => ({ ...charge })) }),
        act: (id: string, action: PayerAction) => {
          const charge = charges.get(id);
          if (!charge) throw new Error(`No charge ${id}`);
          charge.status = STATUS_AFTER[action];
          kit.forwarder.enqueue(event(charge));
        },
        async trigger(name: string, given: QTriggerOptions) {
          const to = given.to ?? kit.forwarder.url;
          if (!to) throw new Error('Provider Q trigger needs a URL.');
          const charge = charges.get(given.chargeId ?? '') ?? { id: 'ch_sample', amount: 1, status: name };
          return kit.forwarder.send(to, event(charge));
        },
        triggerOptions: (given: Record<string, unknown>): QTriggerOptions => {
          if (given.chargeId !== undefined && typeof given.chargeId !== 'string')
            throw new Error('chargeId must be a string.');
          return given as QTriggerOptions;
        },
        members: () => ({
          get charges() {
            return charges.size;
          },
          refund: (id: string) => charges.delete(id),
        }),
      };
    },
  });
  stops.push(simulator);
  return { simulator, readInSetup };
}

/** A call to the simulator as an adapter makes it. */
async function call(
  url: string,
  path: string,
  init: { body?: unknown; token?: string; requestId?: string } = {},
) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.requestId ? { 'x-q-request': init.requestId } : {}),
    },
    body: JSON.stringify(init.body ?? {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function login(url: string): Promise<string> {
  return (await call(url, '/login')).body.token as string;
}

/** A simulator forwarding its webhooks to an app, with one open charge `ch_1` of `amount`. */
async function chargeForwarded(amount: number) {
  const { simulator } = await startProviderQ();
  const endpoint = await app();
  simulator.forwardWebhooks(endpoint.url);
  await call(simulator.url, '/charges', { body: { amount }, token: await login(simulator.url) });
  return { simulator, endpoint };
}

describe('startSimulator (the simulator builder on the kit)', () => {
  it('serves the provider routes on 127.0.0.1 with the kit interface: adapterConfig, books, requests with their ids', async () => {
    const { simulator, readInSetup } = await startProviderQ();
    expect(simulator.provider).toBe('provider-q');
    expect(simulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(simulator.adapterConfig({ apiKey: 'other' })).toEqual({ baseUrl: simulator.url, apiKey: 'other' });
    // The URL is known once the simulator serves: read during setup it is an error, not an empty string.
    expect(readInSetup).toBeInstanceOf(Error);

    const token = await login(simulator.url);
    const created = await call(simulator.url, '/charges', {
      body: { amount: 1999 },
      token,
      requestId: 'req-1',
    });
    expect(created).toEqual({
      status: 201,
      body: { id: 'ch_1', amount: 1999, status: 'open', pay_url: `${simulator.url}/pay/ch_1` },
    });
    expect(simulator.books()).toEqual({ charges: [{ id: 'ch_1', amount: 1999, status: 'open' }] });
    const requests = simulator.requests;
    expect(requests.map((request) => [request.method, request.path, request.status])).toEqual([
      ['POST', '/login', 200],
      ['POST', '/charges', 201],
    ]);
    expect(requests[1]?.requestId).toBe('req-1');
    // A snapshot: a later request does not change what was read.
    await call(simulator.url, '/charges', { body: { amount: 1 }, token });
    expect(requests).toHaveLength(2);
    expect(simulator.requests).toHaveLength(3);
  });

  it("answers an unknown call in the provider's refusal shape and runs every provider route behind the faults", async () => {
    const { simulator } = await startProviderQ();
    expect(await call(simulator.url, '/nowhere')).toEqual({ status: 404, body: { q_error: 'no /nowhere' } });

    const token = await login(simulator.url);
    simulator.faults.inject({ method: 'POST', path: '/charges', fault: { kind: 'status', status: 503 } });
    const faulted = await fetch(`${simulator.url}/charges`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ amount: 5 }),
    });
    expect(faulted.status).toBe(503);
    await faulted.arrayBuffer();
    expect(simulator.books().charges).toEqual([]);
    expect((await call(simulator.url, '/charges', { body: { amount: 5 }, token })).status).toBe(201);
  });

  it('a payer action moves the books and resolves once its signed webhook is delivered', async () => {
    const { simulator, endpoint } = await chargeForwarded(700);

    await simulator.payer.pay('ch_1');
    const body = JSON.stringify({ id: 'ch_1', amount: 700, status: 'paid' });
    expect(endpoint.received).toEqual([{ body, signature: `signed:${body.length}` }]);
    expect(simulator.deliveries.map((delivery) => [delivery.event, delivery.state])).toEqual([
      ['charge.paid', 'delivered'],
    ]);
    await simulator.payer.cancel('ch_1');
    expect(simulator.books().charges[0]?.status).toBe('cancelled');
    expect(endpoint.received).toHaveLength(2);
  });

  it('trigger sends one signed event, from a test and through the control route with checked options', async () => {
    const { simulator } = await startProviderQ();
    const endpoint = await app();
    await expect(simulator.trigger('charge.paid')).rejects.toThrow('Provider Q trigger needs a URL.');
    expect(await simulator.trigger('paid', { to: endpoint.url })).toEqual({ status: 200, body: 'ok' });

    const result = await triggerOnSimulator(simulator.url, {
      event: 'refunded',
      to: endpoint.url,
      provider: 'provider-q',
    });
    expect(result).toEqual({
      provider: 'provider-q',
      event: 'refunded',
      to: endpoint.url,
      status: 200,
      body: 'ok',
    });
    expect(endpoint.received.map((delivery) => JSON.parse(delivery.body).status)).toEqual([
      'paid',
      'refunded',
    ]);
    await expect(
      triggerOnSimulator(simulator.url, { event: 'paid', to: endpoint.url, options: { chargeId: 7 } }),
    ).rejects.toMatchObject({ reason: 'refused', status: 400, message: 'chargeId must be a string.' });
    await expect(
      triggerOnSimulator(simulator.url, { event: 'paid', to: endpoint.url, provider: 'provider-t' }),
    ).rejects.toMatchObject({ reason: 'refused', status: 409 });
    expect(endpoint.received).toHaveLength(2);
  });

  it("hands the route table and forwarder to attach once, before serving, and passes the start options' callbacks", async () => {
    const attached: SimulatorParts[] = [];
    const seen: string[] = [];
    const finished: WebhookDelivery[] = [];
    const endpoint = await app();
    const { simulator } = await startProviderQ({
      attach: (parts) => {
        attached.push(parts);
        parts.routes.get(EVENT_LOG_PATH, () => textReply(200, 'event log'));
        parts.forwarder.dropWebhooks(1);
      },
      onRequest: (request) => seen.push(`${request.method} ${request.path}`),
      onDelivery: (delivery) => finished.push(delivery),
    });
    expect(attached).toHaveLength(1);
    const page = await fetch(`${simulator.url}${EVENT_LOG_PATH}`);
    expect(await page.text()).toBe('event log');
    expect(seen).toEqual([`GET ${EVENT_LOG_PATH}`]);

    simulator.forwardWebhooks(endpoint.url);
    const token = await login(simulator.url);
    await call(simulator.url, '/charges', { body: { amount: 3 }, token });
    await simulator.payer.fail('ch_1');
    // The forwarder given to attach is the simulator's: its drop applies, and onDelivery hears of it.
    expect(endpoint.received).toEqual([]);
    expect(finished.map((delivery) => delivery.state)).toEqual(['dropped']);
  });

  it("keeps the provider's own members beside the interface, getters live", async () => {
    const { simulator } = await startProviderQ();
    const token = await login(simulator.url);
    expect(simulator.charges).toBe(0);
    await call(simulator.url, '/charges', { body: { amount: 3 }, token });
    expect(simulator.charges).toBe(1);
    expect(simulator.refund('ch_1')).toBe(true);
    expect(simulator.charges).toBe(0);
  });

  it('issues tokens on its clock: advanceTime expires them, expireTokens revokes them', async () => {
    const { simulator } = await startProviderQ();
    let token = await login(simulator.url);
    expect((await call(simulator.url, '/charges', { body: { amount: 1 }, token })).status).toBe(201);
    simulator.advanceTime(60_000);
    expect(await call(simulator.url, '/charges', { body: { amount: 1 }, token })).toEqual({
      status: 401,
      body: { q_error: 'token' },
    });
    token = await login(simulator.url);
    expect(token).toMatch(/^q_/);
    simulator.expireTokens();
    expect((await call(simulator.url, '/charges', { body: { amount: 1 }, token })).status).toBe(401);
  });

  it('close waits for the deliveries in flight, then stops serving', async () => {
    const { simulator, endpoint } = await chargeForwarded(3);
    // No await: close must still let this delivery land.
    void simulator.payer.pay('ch_1');
    await simulator.close();
    expect(endpoint.received).toHaveLength(1);
    await expect(fetch(`${simulator.url}/login`, { method: 'POST' })).rejects.toThrow();
  });

  it('serves on the port asked for and refuses one in use, naming it', async () => {
    const { simulator } = await startProviderQ();
    const port = Number(new URL(simulator.url).port);
    await expect(startProviderQ({ port })).rejects.toThrow(`Port ${port} on 127.0.0.1 is already in use`);
  });
});
