/**
 * `pay trigger` against a running Provider R simulator: the kit's control route `POST /_simulator/trigger`
 * makes the simulator push one status, which the real handler confirms with a status read to the same simulator.
 */
import { createPay, type Payment, toNodeListener } from '@pay/core';
import { type LoopbackServer, startLoopbackServer, triggerOnSimulator } from '@pay/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createProviderR } from '../src/index.js';
import { type ProviderRSimulator, startProviderRSimulator } from '../src/testing/index.js';

let simulator: ProviderRSimulator | undefined;
let endpoint: LoopbackServer | undefined;

afterEach(async () => {
  await endpoint?.close();
  await simulator?.close();
  endpoint = undefined;
  simulator = undefined;
});

describe('Provider R simulator: pay trigger through the control route', () => {
  it('pushes PAID for a transaction it opens, and the handler confirms it with a status read there', async () => {
    const running = await startProviderRSimulator();
    simulator = running;
    const succeeded: Payment[] = [];
    const handler = createPay(createProviderR(running.adapterConfig({ retry: 0 })))
      .webhooks.setup({ webhookSecret: running.credentials.secret })
      .on('payment.succeeded', (event) => void succeeded.push(event.data));
    endpoint = await startLoopbackServer(toNodeListener(handler));

    const result = await triggerOnSimulator(running.url, {
      provider: 'provider-r',
      event: 'PAID',
      to: `${endpoint.url}/webhooks`,
    });

    expect(result).toMatchObject({ provider: 'provider-r', event: 'PAID', status: 200 });
    expect(succeeded).toEqual([expect.objectContaining({ status: 'succeeded', livemode: false })]);
    const paymentId = succeeded[0]?.id ?? '';
    expect(running.transaction(paymentId)?.status).toBe('PAID');
    const paths = running.requests.map((request) => `${request.method} ${request.path}`);
    expect(paths).toEqual(['POST /_simulator/trigger', 'POST /v1.0/status']);
  });

  it('webhookSecret (pay dev --webhook-secret): its pushes carry that secret, so a handler holding it and the old one verifies, the old one alone refuses', async () => {
    const running = await startProviderRSimulator({ webhookSecret: 'rotated-secret-2b9d' });
    simulator = running;
    const succeeded: Payment[] = [];
    const pay = createPay(createProviderR(running.adapterConfig({ retry: 0 })));
    const rotating = pay.webhooks
      .setup({ webhookSecret: ['rotated-secret-2b9d', running.credentials.secret] })
      .on('payment.succeeded', (event) => void succeeded.push(event.data));
    endpoint = await startLoopbackServer(toNodeListener(rotating));
    const stale = await startLoopbackServer(
      toNodeListener(pay.webhooks.setup({ webhookSecret: running.credentials.secret })),
    );
    try {
      expect(await running.trigger('PAID', { to: `${endpoint.url}/webhooks` })).toMatchObject({
        status: 200,
      });
      expect(succeeded).toEqual([expect.objectContaining({ status: 'succeeded' })]);
      expect(await running.trigger('PAID', { to: `${stale.url}/webhooks` })).toMatchObject({ status: 400 });
    } finally {
      await stale.close();
    }
  });
});
