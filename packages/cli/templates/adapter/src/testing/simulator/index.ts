/**
 * The Provider Xyz simulator: the provider's API on 127.0.0.1 (routes.ts), built on the `@pay/core/testing` kit,
 * with the whole `PaymentSimulator` interface the conformance suite and `pay dev` drive: books, request log,
 * faults, payer actions, signed webhook forwarding and `trigger`.
 */
import {
  addTriggerRoute,
  FaultInjector,
  type PaymentSimulator,
  RequestLog,
  Routes,
  SimulatorClock,
  type SimulatorStartOptions,
  simulatorListener,
  startLoopbackServer,
  WebhookForwarder,
} from '@pay/core/testing';
import type { ProviderXyzConfig } from '../../config.js';
import { signProviderXyzWebhook } from '../signing.js';
import { addApiRoutes } from './routes.js';
import {
  PAYER_STATUS,
  PROVIDER_XYZ_SIMULATOR_SECRET_KEY,
  type ProviderXyzBooks,
  SIMULATOR_REQUEST_ID_HEADER,
  type SimulatedPayment,
} from './state.js';

/** A running Provider Xyz simulator, plus a way to put a payment in any status the provider reports. */
export interface ProviderXyzSimulator extends PaymentSimulator<ProviderXyzConfig, ProviderXyzBooks> {
  /** Sets payment `id` to the provider's status word `status`, without a webhook. */
  setStatus(id: string, status: string): void;
}

/** The simulator's name, which `pay trigger` compares. */
export const SIMULATOR_NAME = 'provider-xyz';

/** The webhook payload the provider sends about `payment` (TODO: the provider's payload; wire.ts reads it). */
function eventBody(type: string, payment: SimulatedPayment, eventId: string): string {
  const { id, amount, currency, status } = payment;
  return JSON.stringify({ id: eventId, type, data: { id, amount, currency, status } });
}

/** Starts the simulator on 127.0.0.1 (`options.port`, else a free port). */
export async function startProviderXyzSimulator(
  options: SimulatorStartOptions = {},
): Promise<ProviderXyzSimulator> {
  const books: ProviderXyzBooks = { payments: [], refunds: [] };
  const requests = new RequestLog({
    requestIdHeader: SIMULATOR_REQUEST_ID_HEADER,
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  });
  const faults = new FaultInjector();
  const clock = new SimulatorClock();
  const forwarder = new WebhookForwarder({
    sign: (body) => signProviderXyzWebhook(body),
    ...(options.onDelivery ? { onDelivery: options.onDelivery } : {}),
  });
  let sequence = 0;
  const nextId = (prefix: string) => {
    sequence += 1;
    return `${prefix}_${String(sequence).padStart(6, '0')}`;
  };
  const routes = new Routes();
  addApiRoutes(routes, { books, url: () => server.url, nextId });
  const find = (id: string) => books.payments.find((payment) => payment.id === id);
  const paymentFor = (id: string) => {
    const payment = find(id);
    if (!payment) throw new Error(`The simulator holds no payment ${id}.`);
    return payment;
  };
  const move = async (id: string, status: string) => {
    const payment = paymentFor(id);
    payment.status = status;
    forwarder.enqueue({ event: status, body: eventBody(status, payment, nextId('evt')) });
  };
  const simulator: ProviderXyzSimulator = {
    provider: SIMULATOR_NAME,
    get url() {
      return server.url;
    },
    adapterConfig: (overrides = {}) => ({
      baseUrl: server.url,
      secretKey: PROVIDER_XYZ_SIMULATOR_SECRET_KEY,
      ...overrides,
    }),
    books: () => structuredClone(books),
    get requests() {
      return requests.entries;
    },
    faults,
    get deliveries() {
      return forwarder.deliveries;
    },
    payer: {
      pay: (id) => move(id, PAYER_STATUS.pay),
      fail: (id) => move(id, PAYER_STATUS.fail),
      cancel: (id) => move(id, PAYER_STATUS.cancel),
    },
    forwardWebhooks: (to) => forwarder.forwardTo(to),
    async trigger(event, triggerOptions = {}) {
      const id = String(triggerOptions.id ?? '');
      const payment = find(id) ?? {
        id: id || nextId('pay'),
        reference: 'trigger',
        amount: 1000,
        currency: 'USD',
        email: 'payer@example.com',
        status: event,
      };
      const to = String(triggerOptions.to ?? forwarder.url ?? '');
      if (!to) throw new Error('Name where to send the event (options.to), or forward webhooks first.');
      return forwarder.send(to, {
        event,
        body: eventBody(event, { ...payment, status: event }, nextId('evt')),
      });
    },
    advanceTime: (ms) => clock.advanceTime(ms),
    // The provider authenticates with a static key: there is no token to expire.
    expireTokens: () => undefined,
    setStatus: (id, status) => {
      paymentFor(id).status = status;
    },
    async close() {
      await forwarder.close();
      await server.close();
    },
  };
  addTriggerRoute(routes, {
    provider: SIMULATOR_NAME,
    trigger: (event, given) => simulator.trigger(event, given),
  });
  const server = await startLoopbackServer(
    simulatorListener({ routes, requests, faults }),
    options.port === undefined ? {} : { port: options.port },
  );
  return simulator;
}

export {
  OPENED_STATUS,
  PAYER_STATUS,
  PROVIDER_XYZ_SIMULATOR_SECRET_KEY,
  type ProviderXyzBooks,
  type SimulatedPayment,
  type SimulatedRefund,
} from './state.js';
