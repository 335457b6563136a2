/**
 * `pay trigger` against a running Provider N simulator: the kit's control route `POST /_simulator/trigger`
 * makes the simulator send one signed event, with options as `pay trigger --option name=value` sends them (text).
 */
import { createPay, toNodeListener } from '@pay/core';
import {
  type LoopbackServer,
  SimulatorTriggerError,
  startLoopbackServer,
  triggerOnSimulator,
} from '@pay/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createProviderN } from '../src/index.js';
import { type ProviderNSimulator, startProviderNSimulator } from '../src/testing/index.js';

let simulator: ProviderNSimulator | undefined;
const servers: LoopbackServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await simulator?.close();
  simulator = undefined;
});

/** An app endpoint with Provider N's real handler, recording the raw events it verified. */
async function app(running: ProviderNSimulator) {
  const config = running.adapterConfig();
  const events: { type: string; data: unknown }[] = [];
  const handler = createPay(createProviderN(config))
    .webhooks.setup({ webhookSecret: config.secretKey })
    .onAny((event) => void events.push({ type: event.type, data: event.data }));
  const server = await startLoopbackServer(toNodeListener(handler));
  servers.push(server);
  return { url: `${server.url}/webhooks`, events };
}

describe('Provider N simulator: pay trigger through the control route', () => {
  it('sends the signed event the running simulator builds, which the real handler verifies', async () => {
    simulator = await startProviderNSimulator();
    const endpoint = await app(simulator);
    const result = await triggerOnSimulator(simulator.url, {
      provider: 'provider-n',
      event: 'SUCCESSFUL_TRANSACTION',
      to: endpoint.url,
    });
    expect(result).toMatchObject({ provider: 'provider-n', event: 'SUCCESSFUL_TRANSACTION', status: 200 });
    expect(endpoint.events.map((event) => event.type)).toContain('providerN.SUCCESSFUL_TRANSACTION');
    expect(simulator.requests.some((request) => request.path === '/_simulator/trigger')).toBe(true);
  });

  it('reads amountSent given as text (pay trigger --option amountSent=2500.5) as the amount the payer sent', async () => {
    simulator = await startProviderNSimulator();
    const endpoint = await app(simulator);
    const result = await triggerOnSimulator(simulator.url, {
      event: 'REJECTED_PAYMENT',
      to: endpoint.url,
      options: { amountSent: '2500.5', reason: 'UNDER_PAYMENT' },
    });
    expect(result.status).toBe(200);
    const raw = endpoint.events.find((event) => event.type === 'providerN.REJECTED_PAYMENT');
    expect(raw?.data).toMatchObject({
      paymentSourceInformation: { amountPaid: 2500.5 },
      paymentRejectionInformation: { rejectionReason: 'UNDER_PAYMENT' },
    });
  });

  it('refuses an amountSent that is not a number (400, saying why) and sends nothing', async () => {
    simulator = await startProviderNSimulator();
    const endpoint = await app(simulator);
    const error = await triggerOnSimulator(simulator.url, {
      event: 'REJECTED_PAYMENT',
      to: endpoint.url,
      options: { amountSent: 'half' },
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SimulatorTriggerError);
    expect(error).toMatchObject({ reason: 'refused', status: 400 });
    expect((error as Error).message).toContain('amountSent must be a non-negative number');
    expect(endpoint.events).toEqual([]);
  });
});
