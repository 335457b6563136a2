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

  it('forgetOldest keeps the last deliveries, never one still being sent, counts the rest, and ids stay unique', async () => {
    const app = await endpoint([], 50);
    const forwarder = new WebhookForwarder({ sign });
    forwarder.forwardTo(app.url);
    for (let n = 1; n <= 3; n += 1) forwarder.enqueue({ event: 'payment.paid', body: `{"n":${n}}` });
    await forwarder.idle();
    const pending = forwarder.enqueue({ event: 'payment.paid', body: '{"n":4}' });
    forwarder.forgetOldest(1);
    // The one being sent stays, however old the limit says it is; the three delivered ones go.
    expect(forwarder.deliveries.map((delivery) => delivery.id)).toEqual([pending?.id]);
    expect(forwarder.forgotten).toBe(3);
    await forwarder.idle();
    expect(forwarder.enqueue({ event: 'payment.paid', body: '{"n":5}' })?.id).toBe('whd_000005');
    expect(() => forwarder.redeliver('whd_000001')).toThrow(RangeError);
    expect(() => forwarder.forgetOldest(0)).toThrow(RangeError);
    await forwarder.idle();
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

describe('dropping webhooks and sending one again (pay dev --drop-webhooks, docs/architecture.md#pay-dev)', () => {
  it('drops every webhook when told to: signed and logged as dropped, never sent, onDelivery told', async () => {
    const app = await endpoint();
    const finished: string[] = [];
    const forwarder = new WebhookForwarder({
      sign,
      onDelivery: (delivery) => finished.push(`${delivery.id} ${delivery.state}`),
    });
    forwarder.forwardTo(app.url);
    forwarder.dropWebhooks(1);
    forwarder.enqueue({ event: 'payment.paid', body: '{"n":1}' });
    forwarder.enqueue({ event: 'refund.done', body: '{"n":22}' });
    await forwarder.idle();
    expect(app.received).toEqual([]);
    expect(forwarder.deliveries).toEqual([
      expect.objectContaining({
        id: 'whd_000001',
        event: 'payment.paid',
        state: 'dropped',
        attempts: [],
        headers: { 'content-type': 'application/json', 'x-signature': 'sig(7)' },
      }),
      expect.objectContaining({ id: 'whd_000002', event: 'refund.done', state: 'dropped', attempts: [] }),
    ]);
    expect(finished).toEqual(['whd_000001 dropped', 'whd_000002 dropped']);
  });

  it('drops a share at random, each webhook drawn in queue order (a seeded draw drops the same ones)', async () => {
    const app = await endpoint();
    const forwarder = new WebhookForwarder({ sign });
    forwarder.forwardTo(app.url);
    const draws = [0.1, 0.9, 0.29, 0.3];
    forwarder.dropWebhooks(0.3, () => draws.shift() ?? 1);
    for (const n of [1, 2, 3, 4]) forwarder.enqueue({ event: 'payment.paid', body: `{"n":${n}}` });
    await forwarder.idle();
    expect(forwarder.deliveries.map((delivery) => delivery.state)).toEqual([
      'dropped',
      'delivered',
      'dropped',
      'delivered',
    ]);
    expect(app.received.map((entry) => entry.body)).toEqual(['{"n":2}', '{"n":4}']);
    expect(forwarder.dropShare).toBe(0.3);
  });

  it.each([-0.1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses a share of %s', (share) => {
    const forwarder = new WebhookForwarder({ sign });
    expect(() => forwarder.dropWebhooks(share)).toThrow(RangeError);
    expect(forwarder.dropShare).toBe(0);
  });

  it('redeliver() sends a dropped webhook once, with its exact body and signature, and logs the answer on it', async () => {
    const app = await endpoint([200]);
    const signed: string[] = [];
    const forwarder = new WebhookForwarder({
      sign: (body) => {
        signed.push(body);
        return { 'x-signature': `sig-${signed.length}` };
      },
    });
    forwarder.forwardTo(app.url);
    forwarder.dropWebhooks(1);
    const dropped = forwarder.enqueue({
      event: 'payment.paid',
      body: '{"n":1}',
      headers: { 'x-extra': 'yes' },
    });
    await forwarder.idle();
    forwarder.dropWebhooks(0);

    const again = forwarder.redeliver('whd_000001');
    expect(again).toBe(dropped);
    expect(again.state).toBe('pending');
    await forwarder.idle();
    expect(again.state).toBe('delivered');
    expect(again.attempts).toEqual([{ at: expect.any(String), status: 200 }]);
    expect(app.received).toHaveLength(1);
    expect(app.received[0]?.body).toBe('{"n":1}');
    // Signed once, when it was queued: the resend is the provider's delivery of then, not a new one.
    expect(signed).toEqual(['{"n":1}']);
    expect(app.received[0]?.headers['x-signature']).toBe('sig-1');
    expect(app.received[0]?.headers['x-extra']).toBe('yes');
    expect(forwarder.deliveries).toHaveLength(1);
  });

  it('redeliver() makes one attempt, without redeliveries: a refusal leaves the delivery failed with its answer', async () => {
    const app = await endpoint([200, 400]);
    const forwarder = new WebhookForwarder({ sign, backoffMs: [1] });
    forwarder.forwardTo(app.url);
    const delivery = forwarder.enqueue({ event: 'payment.paid', body: '{}' });
    await forwarder.idle();
    expect(delivery?.state).toBe('delivered');
    forwarder.redeliver('whd_000001');
    await forwarder.idle();
    expect(delivery?.state).toBe('failed');
    expect(delivery?.attempts).toEqual([
      { at: expect.any(String), status: 200 },
      { at: expect.any(String), status: 400, answer: 'ok' },
    ]);
    expect(app.received).toHaveLength(2);
  });

  it('redeliver() refuses an unknown delivery, one still being delivered, and a closed forwarder', async () => {
    const app = await endpoint([], 100);
    const forwarder = new WebhookForwarder({ sign });
    forwarder.forwardTo(app.url);
    forwarder.enqueue({ event: 'payment.paid', body: '{}' });
    expect(() => forwarder.redeliver('whd_000009')).toThrow(
      new RangeError("No webhook delivery whd_000009 in this forwarder's log."),
    );
    expect(() => forwarder.redeliver('whd_000001')).toThrow(
      'Webhook delivery whd_000001 is still being delivered: send it again once it is done.',
    );
    await forwarder.close();
    expect(() => forwarder.redeliver('whd_000001')).toThrow('This webhook forwarder is closed.');
    expect(app.received).toHaveLength(1);
  });
});
