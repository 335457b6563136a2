/**
 * The Provider Xyz simulator: the provider's API on 127.0.0.1 (routes.ts) and its books (state.ts), started with
 * the `@pay/core/testing` kit's builder, `startSimulator`
 * (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#simulator-builder). The builder wires the
 * request log, faults, signed webhook forwarding, the `pay trigger` control route and `pay dev`'s event log, and
 * returns the whole `PaymentSimulator` interface the conformance suite and `pay dev` drive; this file adds what
 * is the provider's own: how a payer's action moves a payment, the webhook it causes, and `trigger`.
 */

import { toMajorUnits } from '@pay/core/adapter';
import {
  addHostedPages,
  type PayerAction,
  type PaymentSimulator,
  type SimulatorStartOptions,
  startSimulator,
} from '@pay/core/testing';
import type { ProviderXyzConfig } from '../../config.js';
import { AMOUNT_UNIT } from '../../requests.js';
import { signProviderXyzWebhook } from '../signing.js';
import { addApiRoutes } from './routes.js';
import {
  OPENED_STATUS,
  PAYER_STATUS,
  PAYMENT_PAGE_PATH,
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
  let sequence = 0;
  const nextId = (prefix: string) => {
    sequence += 1;
    return `${prefix}_${String(sequence).padStart(6, '0')}`;
  };
  const find = (id: string) => books.payments.find((payment) => payment.id === id);
  const paymentFor = (id: string) => {
    const payment = find(id);
    if (!payment) throw new Error(`The simulator holds no payment ${id}.`);
    return payment;
  };
  return startSimulator(options, {
    provider: SIMULATOR_NAME,
    requestIdHeader: SIMULATOR_REQUEST_ID_HEADER,
    sign: (body) => signProviderXyzWebhook(body),
    setup: (kit) => {
      addApiRoutes(kit.routes, { books, url: () => kit.url, nextId });
      /** A payer's action: the payment takes the action's status word, and its webhook is queued. */
      const act = (id: string, action: PayerAction) => {
        const payment = paymentFor(id);
        payment.status = PAYER_STATUS[action];
        kit.forwarder.enqueue({
          event: payment.status,
          body: eventBody(payment.status, payment, nextId('evt')),
        });
      };
      // The payer's page (the `url` a checkout hands out points here): `pay dev` and a browser test pay, fail or
      // cancel on it as on ours (docs/architecture.md#pay-dev).
      addHostedPages(kit.routes, {
        provider: 'Provider Xyz',
        path: PAYMENT_PAGE_PATH,
        forwarder: kit.forwarder,
        find: (id) => {
          const payment = find(id);
          return (
            payment && {
              provider: 'Provider Xyz',
              heading: `Pay ${payment.currency} ${AMOUNT_UNIT === 'minor' ? toMajorUnits(payment.amount, payment.currency) : payment.amount}`,
              details: [
                ['Payer', payment.email],
                ['Status', payment.status],
              ],
              actions: payment.status === OPENED_STATUS ? ['pay', 'fail', 'cancel'] : [],
            }
          );
        },
        act: (id, action) => {
          if (paymentFor(id).status !== OPENED_STATUS) throw new Error(`Payment ${id} is no longer open.`);
          act(id, action);
        },
      });
      return {
        adapterConfig: (overrides = {}): ProviderXyzConfig => ({
          baseUrl: kit.url,
          secretKey: PROVIDER_XYZ_SIMULATOR_SECRET_KEY,
          isSandbox: true,
          ...overrides,
        }),
        books: () => structuredClone(books),
        act,
        /**
         * `trigger(event, { id?, to? })`: sends the event about payment `id` (a made-up payment in the event's
         * status when the books hold none), signed, to `to` or the forwarding URL.
         */
        async trigger(event, triggerOptions) {
          const id = String(triggerOptions.id ?? '');
          const payment = find(id) ?? {
            id: id || nextId('pay'),
            reference: 'trigger',
            amount: 1000,
            currency: 'USD',
            email: 'payer@example.com',
            status: event,
          };
          const to = String(triggerOptions.to ?? kit.forwarder.url ?? '');
          if (!to) throw new Error('Name where to send the event (options.to), or forward webhooks first.');
          return kit.forwarder.send(to, {
            event,
            body: eventBody(event, { ...payment, status: event }, nextId('evt')),
          });
        },
        members: () => ({
          setStatus: (id: string, status: string) => {
            paymentFor(id).status = status;
          },
        }),
      };
    },
  });
}

export {
  OPENED_STATUS,
  PAYER_STATUS,
  PAYMENT_PAGE_PATH,
  PROVIDER_XYZ_SIMULATOR_SECRET_KEY,
  type ProviderXyzBooks,
  type SimulatedPayment,
  type SimulatedRefund,
  STATUS_MEANINGS,
} from './state.js';
