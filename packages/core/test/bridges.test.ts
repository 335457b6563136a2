import { afterEach, describe, expect, it } from 'vitest';
import { createPay, toFetchHandler, toNodeListener } from '../src/index.js';
import { type LoopbackServer, startLoopbackServer } from '../src/testing/index.js';
import { SECRET, signedDelivery, testAdapter } from './fixtures.js';

function handler() {
  return createPay(testAdapter())
    .webhooks.setup({ webhookSecret: SECRET })
    .on('payment.updated', (event) => {
      if (event.data.id.startsWith('FAIL')) throw new Error('callback failed');
    });
}

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function post(url: string, body: string, headers: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', body, headers });
  return { status: response.status, body: await response.json() };
}

describe('the Node bridge, over real loopback HTTP', () => {
  it('answers 200 for a processed delivery', async () => {
    server = await startLoopbackServer(toNodeListener(handler()));
    const delivery = await signedDelivery('{"ref":"OK","items":1}');
    expect(await post(`${server.url}/webhooks`, delivery.body, delivery.headersAsObject)).toEqual({
      status: 200,
      body: { received: true, events: 2, duplicates: 0 },
    });
  });

  it('answers 400 for a forged delivery', async () => {
    server = await startLoopbackServer(toNodeListener(handler()));
    const reply = await post(`${server.url}/webhooks`, '{"ref":"X","items":1}', { 'x-signature': 'forged' });
    expect(reply).toEqual({
      status: 400,
      body: { error: 'webhook_verification_failed', message: 'bad signature' },
    });
  });

  it('answers 500 when a callback fails, so the provider delivers again', async () => {
    server = await startLoopbackServer(toNodeListener(handler()));
    const delivery = await signedDelivery('{"ref":"FAIL","items":1}');
    const reply = await post(`${server.url}/webhooks`, delivery.body, delivery.headersAsObject);
    expect(reply.status).toBe(500);
    expect(reply.body.error).toBe('webhook_handler_failed');
  });

  it('answers 503 for a retryable verification failure', async () => {
    const adapter = testAdapter();
    const retryable = {
      ...adapter,
      webhooks: {
        ...adapter.webhooks,
        verify: async () => {
          const { WebhookVerificationError } = await import('../src/index.js');
          throw new WebhookVerificationError('status not final yet', {
            reason: 'unconfirmed_status',
            retryable: true,
          });
        },
      },
    };
    server = await startLoopbackServer(
      toNodeListener(createPay(retryable).webhooks.setup({ webhookSecret: SECRET })),
    );
    expect((await post(server.url, '{}', {})).status).toBe(503);
  });

  it('refuses a body over the size limit with 400', async () => {
    server = await startLoopbackServer(toNodeListener(handler(), { maxBodyBytes: 16 }));
    const delivery = await signedDelivery('{"ref":"LONG-LONG-LONG","items":1}');
    expect((await post(server.url, delivery.body, delivery.headersAsObject)).status).toBe(400);
  });
});

describe('the Web Request → Response bridge', () => {
  it('maps outcomes to 200 and 400', async () => {
    const fetchHandler = toFetchHandler(handler());
    const delivery = await signedDelivery('{"ref":"W1","items":1}');
    const ok = await fetchHandler(
      new Request('https://shop.example/webhooks', {
        method: 'POST',
        body: delivery.body,
        headers: delivery.headersAsObject,
      }),
    );
    expect(ok.status).toBe(200);
    const forged = await fetchHandler(
      new Request('https://shop.example/webhooks', {
        method: 'POST',
        body: delivery.body,
        headers: { 'x-signature': 'no' },
      }),
    );
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: 'webhook_verification_failed' });
  });
});
