/**
 * What every runtime must do with the built packages, checked from Node over loopback: every adapter factory
 * builds an adapter, a checkout opens on each provider's simulator (the runtime calls the simulator), and each
 * provider's webhook handler, mounted with `toFetchHandler`, accepts the simulator's genuine delivery and refuses
 * a forged one without any callback running.
 */
import {
  type ProviderNSimulator,
  providerNWebhookRequest,
  startProviderNSimulator,
} from '@pay/provider-n/testing';
import {
  buildProviderRPush,
  type ProviderRSimulator,
  startProviderRSimulator,
} from '@pay/provider-r/testing';
import {
  generateProviderTKeyPair,
  type ProviderTSimulator,
  providerTStatusEvent,
  sampleTransferMetadata,
  signedProviderTWebhook,
  startProviderTSimulator,
} from '@pay/provider-t/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FailedCall, OpenedCheckout, RuntimeAppConfig } from '../app/app.js';
import type { RunningRuntime } from './runtimes.js';

/** The three simulators, in this (Node) process on 127.0.0.1. */
export interface Simulators {
  n: ProviderNSimulator;
  r: ProviderRSimulator;
  t: ProviderTSimulator;
  config: RuntimeAppConfig;
  close(): Promise<void>;
}

export async function startSimulators(): Promise<Simulators> {
  const [n, r, t] = await Promise.all([
    startProviderNSimulator(),
    startProviderRSimulator(),
    startProviderTSimulator(),
  ]);
  return {
    n,
    r,
    t,
    config: {
      providerN: { adapter: n.adapterConfig(), webhookSecret: n.credentials.webhookSecret },
      providerR: { adapter: r.adapterConfig(), webhookSecret: r.credentials.secret },
      providerT: { adapter: t.adapterConfig(), transfer: sampleTransferMetadata },
    },
    close: async () => {
      await Promise.all([n.close(), r.close(), t.close()]);
    },
  };
}

/** A POST to the runtime's app; the JSON it answered. */
export async function post(
  runtime: RunningRuntime,
  path: string,
): Promise<{ status: number; body: unknown }> {
  const reply = await fetch(`${runtime.url}${path}`, { method: 'POST' });
  return { status: reply.status, body: await reply.json() };
}

async function events(runtime: RunningRuntime): Promise<string[]> {
  return (await fetch(`${runtime.url}/events`)).json() as Promise<string[]>;
}

/** Opens a checkout through the runtime; fails with the runtime's error when it could not. */
export async function checkout(runtime: RunningRuntime, provider: string): Promise<OpenedCheckout> {
  const { status, body } = await post(runtime, `/checkouts/${provider}`);
  expect(status, JSON.stringify((body as FailedCall).error)).toBe(200);
  return body as OpenedCheckout;
}

/** The simulator's last delivery, as the runtime's handler answered it. */
function lastAnswer(deliveries: readonly { state: string; attempts: { status?: number }[] }[] | undefined) {
  const delivery = deliveries?.at(-1);
  return { state: delivery?.state, status: delivery?.attempts.at(-1)?.status };
}

/** A forged delivery posted to the runtime's handler: the HTTP status it answered. */
async function postForged(
  runtime: RunningRuntime,
  provider: string,
  forged: { body: string; headers: Record<string, string> },
): Promise<number> {
  const reply = await fetch(`${runtime.url}/webhooks/${provider}`, {
    method: 'POST',
    headers: forged.headers,
    body: forged.body,
  });
  await reply.arrayBuffer();
  return reply.status;
}

const strangerKeys = generateProviderTKeyPair();

/**
 * The checks every runtime passes, as vitest tests of the enclosing `describe`: `start` serves the app with the
 * simulators' config; the runtime is stopped after the last test.
 */
export function runtimeChecks(start: (config: RuntimeAppConfig) => Promise<RunningRuntime>): {
  runtime(): RunningRuntime;
  simulators(): Simulators;
} {
  let simulators: Simulators;
  let runtime: RunningRuntime;
  beforeAll(async () => {
    simulators = await startSimulators();
    runtime = await start(simulators.config);
  });
  afterAll(async () => {
    await runtime?.stop();
    await simulators?.close();
  });

  it('imports the built packages, and every adapter factory builds an adapter', async () => {
    const outcomes = await (await fetch(`${runtime.url}/factories`)).json();
    expect(outcomes).toEqual({
      createProviderN: 'ok',
      providerN: 'ok',
      createProviderR: 'ok',
      providerR: 'ok',
      createProviderT: 'ok',
      providerT: 'ok',
    });
  });

  it('Provider N: opens a checkout on the simulator, takes its signed webhook, refuses a forged one', async () => {
    const { n } = simulators;
    const before = await events(runtime);
    const opened = await checkout(runtime, 'provider-n');
    expect(n.books().transactions.map((transaction) => transaction.transactionReference)).toContain(
      opened.paymentId,
    );

    n.forwardWebhooks(`${runtime.url}/webhooks/provider-n`);
    await n.payer.pay(opened.paymentId);
    expect(lastAnswer(n.deliveries)).toEqual({ state: 'delivered', status: 200 });
    const received = await events(runtime);
    expect(received.slice(before.length)).toEqual([
      `provider-n payment.created ${opened.paymentId}`,
      'provider-n providerN.SUCCESSFUL_TRANSACTION',
    ]);

    const forged = await providerNWebhookRequest(
      {
        eventType: 'SUCCESSFUL_TRANSACTION',
        eventData: {
          transactionReference: opened.paymentId,
          paymentStatus: 'PAID',
          amountPaid: 5000,
          totalPayable: 5000,
        },
      },
      { webhookSecret: 'not-the-webhook-secret' },
    );
    expect(
      await postForged(runtime, 'provider-n', { body: forged.body, headers: forged.headersAsObject }),
    ).toBe(400);
    expect(await events(runtime)).toEqual(received);
  });

  it('Provider R: opens a checkout on the simulator, takes its push (confirmed by a status call), refuses a forged one', async () => {
    const { r } = simulators;
    const before = await events(runtime);
    const opened = await checkout(runtime, 'provider-r');
    expect(r.transaction(opened.paymentId)).toBeDefined();

    r.forwardWebhooks(`${runtime.url}/webhooks/provider-r`);
    await r.payer.pay(opened.paymentId);
    expect(lastAnswer(r.deliveries)).toEqual({ state: 'delivered', status: 200 });
    const received = await events(runtime);
    expect(received.slice(before.length)).toEqual([
      `provider-r payment.succeeded ${opened.paymentId}`,
      `provider-r invoice.generated ${opened.paymentId}`,
      'provider-r providerR.PAID',
    ]);
    expect(r.requests.map((request) => `${request.method} ${request.path}`)).toContain('POST /v1.0/status');

    const forged = buildProviderRPush({
      merchant: simulators.config.providerR.adapter.merchant,
      secret: 'guessed-secret',
      transId: opened.paymentId,
      status: 'PAID',
      price: 25_000,
      curr: 'CZK',
    });
    expect(await postForged(runtime, 'provider-r', forged)).toBe(400);
    expect(await events(runtime)).toEqual(received);
  });

  it('Provider T: opens a checkout on the simulator, takes its signed webhook, refuses one signed with another key', async () => {
    const { t } = simulators;
    const before = await events(runtime);
    const opened = await checkout(runtime, 'provider-t');

    t.forwardWebhooks(`${runtime.url}/webhooks/provider-t`);
    await t.payer.pay(opened.paymentId);
    expect(lastAnswer(t.deliveries)).toEqual({ state: 'delivered', status: 200 });
    const received = await events(runtime);
    // A paid transfer is AVAILABLE for pick-up, an update event (docs/providers/provider-t.md#events).
    expect(received.slice(before.length)).toEqual([
      `provider-t payment.updated ${opened.paymentId}`,
      'provider-t providerT.TRANSACTION_STATUS_EVENT',
    ]);

    const url = `${runtime.url}/webhooks/provider-t`;
    const forged = signedProviderTWebhook({
      event: providerTStatusEvent({ transactionId: opened.paymentId, transactionStatus: 'AVAILABLE' }),
      url,
      privateKey: strangerKeys.privateKey,
    });
    expect(
      await postForged(runtime, 'provider-t', { body: forged.body, headers: forged.headersAsObject }),
    ).toBe(400);
    expect(await events(runtime)).toEqual(received);
  });

  return { runtime: () => runtime, simulators: () => simulators };
}
