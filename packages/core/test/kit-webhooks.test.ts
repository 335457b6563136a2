import { afterEach, describe, expect, it } from 'vitest';
import {
  type LoopbackServer,
  readRequestBody,
  startLoopbackServer,
  WebhookForwarder,
} from '../src/testing/index.js';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Received {
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A webhook endpoint answering the given statuses in turn (then 200). */
async function endpoint(statuses: number[] = [], delayMs = 0) {
  const received: Received[] = [];
  const server = await startLoopbackServer(async (req, res) => {
    received.push({ body: await readRequestBody(req), headers: req.headers });
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    res.statusCode = statuses.shift() ?? 200;
    res.end('ok');
  });
  servers.push(server);
  return { url: `${server.url}/webhooks`, received };
}

const sign = (body: string) => ({ 'x-signature': `sig(${body.length})` });

describe('the simulator kit webhook forwarder', () => {
  it('delivers queued webhooks in order, signed over the exact body, and logs each delivery', async () => {
    const app = await endpoint();
    const forwarder = new WebhookForwarder({ sign });
    forwarder.forwardTo(app.url);
    forwarder.enqueue({ event: 'payment.paid', body: '{"n":1}' });
    forwarder.enqueue({ event: 'refund.done', body: '{"n":22}', headers: { 'x-extra': 'yes' } });
    await forwarder.idle();
    expect(app.received.map((entry) => entry.body)).toEqual(['{"n":1}', '{"n":22}']);
    expect(app.received[0]?.headers['x-signature']).toBe('sig(7)');
    expect(app.received[0]?.headers['content-type']).toBe('application/json');
    expect(app.received[1]?.headers['x-extra']).toBe('yes');
    expect(forwarder.deliveries.map((delivery) => [delivery.event, delivery.state])).toEqual([
      ['payment.paid', 'delivered'],
      ['refund.done', 'delivered'],
    ]);
    expect(forwarder.deliveries[0]?.attempts).toEqual([{ at: expect.any(String), status: 200 }]);
  });

  it('redelivers after a non-2xx answer with a short backoff, then stops after the last redelivery', async () => {
    const app = await endpoint([500, 400, 503, 502]);
    const forwarder = new WebhookForwarder({ sign, redeliveries: 3, backoffMs: [5, 10] });
    forwarder.forwardTo(app.url);
    const delivery = forwarder.enqueue({ event: 'payment.paid', body: '{}' });
    await forwarder.idle();
    expect(delivery?.state).toBe('failed');
    expect(delivery?.attempts.map((attempt) => attempt.status)).toEqual([500, 400, 503, 502]);
    expect(app.received).toHaveLength(4);

    const recovering = await endpoint([500]);
    forwarder.forwardTo(recovering.url);
    const second = forwarder.enqueue({ event: 'payment.paid', body: '{}' });
    await forwarder.idle();
    expect(second?.state).toBe('delivered');
    expect(second?.attempts.map((attempt) => attempt.status)).toEqual([500, 200]);
  });

  it("keeps the start of the app's answer to a refused attempt (why it refused), not of a 2xx one", async () => {
    const app = await endpoint([400]);
    const forwarder = new WebhookForwarder({ sign, redeliveries: 1, backoffMs: [5] });
    forwarder.forwardTo(app.url);
    const delivery = forwarder.enqueue({ event: 'payment.paid', body: '{}' });
    await forwarder.idle();
    expect(delivery?.attempts).toEqual([
      { at: expect.any(String), status: 400, answer: 'ok' },
      { at: expect.any(String), status: 200 },
    ]);
  });

  it('records an unreachable endpoint by its network code and tells onDelivery when done', async () => {
    const gone = await startLoopbackServer(() => undefined);
    const url = `${gone.url}/webhooks`;
    await gone.close();
    const finished: string[] = [];
    const forwarder = new WebhookForwarder({
      sign,
      redeliveries: 1,
      backoffMs: [1],
      onDelivery: (delivery) => finished.push(`${delivery.id} ${delivery.state}`),
    });
    forwarder.forwardTo(url);
    const delivery = forwarder.enqueue({ event: 'payment.paid', body: '{}' });
    await forwarder.idle();
    expect(delivery?.attempts.map((attempt) => attempt.error)).toEqual(['ECONNREFUSED', 'ECONNREFUSED']);
    expect(finished).toEqual(['whd_000001 failed']);
  });

  it('delivers and logs nothing while no URL is set, and send() makes one unlogged signed attempt', async () => {
    const app = await endpoint([202]);
    const forwarder = new WebhookForwarder({ sign });
    expect(forwarder.enqueue({ event: 'payment.paid', body: '{}' })).toBeUndefined();
    expect(forwarder.deliveries).toHaveLength(0);
    expect(await forwarder.send(app.url, { event: 'payment.paid', body: '{"x":1}' })).toEqual({
      status: 202,
      body: 'ok',
    });
    expect(app.received[0]?.headers['x-signature']).toBe('sig(7)');
    expect(forwarder.deliveries).toHaveLength(0);
    expect(() => forwarder.forwardTo('not a url')).toThrow();
  });

  it('close() waits for the delivery in flight, cuts the redelivery wait short and refuses new webhooks', async () => {
    const app = await endpoint([500], 100);
    const forwarder = new WebhookForwarder({ sign, backoffMs: [60_000] });
    forwarder.forwardTo(app.url);
    const delivery = forwarder.enqueue({ event: 'payment.paid', body: '{}' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = Date.now();
    await forwarder.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(delivery?.attempts.map((attempt) => attempt.status)).toEqual([500]);
    expect(delivery?.state).toBe('failed');
    expect(() => forwarder.enqueue({ event: 'payment.paid', body: '{}' })).toThrow(
      'This webhook forwarder is closed.',
    );
  });
});
