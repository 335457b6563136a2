/**
 * A Provider R simulator: a real HTTP server on 127.0.0.1 implementing every call of the wire contract (docs/providers/provider-r.md#calls) with
 * state (`state.ts`), the provider's codes and checks (`routes.ts`), the hosted page where a person pays, fails or
 * cancels (`pages.ts`), push notifications forwarded the way the provider sends them (form-encoded, carrying the
 * merchant and its secret: the provider signs nothing), and fault injection on every route. Built on the
 * `@pay/core/testing` kit and exposing its `PaymentSimulator` interface beside its own controls.
 */
import {
  type PayerAction,
  type PaymentSimulator,
  type SimulatorStartOptions,
  startSimulator,
  type WebhookDelivery,
} from '@pay/core/testing';
import type { ProviderRConfig } from '../../config.js';
import type { ProviderRStatus } from '../../wire.js';
import { buildProviderRPush } from '../signing.js';
import { addHostedPage, HOSTED_PAGE_PATH, PAYER_TRANSITIONS } from './pages.js';
import { addWireRoutes, statusFields } from './routes.js';
import {
  type ProviderRBooks,
  ProviderRLedger,
  type SimulatedRefund,
  type SimulatedTransaction,
} from './state.js';
import { triggeredStatus } from './triggers.js';

export type { RecordedRequest } from '@pay/core/testing';
export { HOSTED_PAGE_PATH } from './pages.js';
export type { ProviderRBooks, SimulatedRefund, SimulatedTransaction } from './state.js';

/** The merchant the simulator accepts by default. */
export const SIMULATOR_MERCHANT = '100001';
/** The secret the simulator accepts by default (also the `webhookSecret` of its pushes). */
export const SIMULATOR_SECRET = 'sim-secret-4f2a9c71';

/** Options of {@link startProviderRSimulator}: the kit's (`port`, `onRequest`, `onDelivery`) and R's own. */
export interface ProviderRSimulatorOptions extends SimulatorStartOptions {
  merchant?: string;
  secret?: string;
  /** How the status call answers: `form` (the provider's default) or `json`. */
  statusFormat?: 'form' | 'json';
}

/** Options of `deliverWebhook`. */
export interface DeliverWebhookOptions {
  transId: string;
  /** `form` (default) or `json`. */
  format?: 'form' | 'json';
  /** Push this status instead of the current one (e.g. to test an unconfirmed PAID, or an odd name). */
  status?: ProviderRStatus | (string & {});
  /** Push this `test` flag instead of the transaction's (e.g. a test push to a production handler). */
  test?: boolean;
  /** Override the secret or merchant sent (tamper tests). */
  secret?: string;
  merchant?: string;
  contentType?: string;
}

/** A running simulator: the kit's `PaymentSimulator` plus Provider R's own controls. */
export interface ProviderRSimulator extends PaymentSimulator<ProviderRConfig, ProviderRBooks> {
  /** The credentials it accepts: pass them as `merchant` / `secret` (and `webhookSecret`). */
  readonly credentials: { merchant: string; secret: string };
  /** Copies of every transaction, in creation order (`price` in minor units, as the provider holds it). */
  readonly transactions: readonly SimulatedTransaction[];
  /** Every refund accepted. */
  readonly refunds: readonly SimulatedRefund[];
  /** Every push forwarded to the `forwardWebhooks` URL, with its attempts. */
  readonly deliveries: readonly WebhookDelivery[];
  /** A copy of one transaction, or `undefined`. */
  transaction(transId: string): SimulatedTransaction | undefined;
  /** Minor units that can still be refunded. */
  refundable(transId: string): number;
  /** The payer paid (PENDING or AUTHORIZED → PAID). */
  pay(transId: string): void;
  /** The payer pre-authorised (PENDING → AUTHORIZED). */
  authorize(transId: string): void;
  /** The payer cancelled or the payment expired (PENDING or AUTHORIZED → CANCELLED). */
  cancel(transId: string): void;
  /**
   * `true` answers every call as the provider answers a server outside the merchant's IP whitelist
   * (`code=1400`, "Access from unauthorized location [ip]!"); `false` restores normal answers.
   */
  refuseLocation(refused: boolean): void;
  /** POSTs the push for the transaction's current status to `url`; resolves with the reply status. */
  deliverWebhook(url: string, options: DeliverWebhookOptions): Promise<number>;
}

/** Provider R's controls beside the kit's interface. */
type ProviderROwnMembers = Omit<ProviderRSimulator, keyof PaymentSimulator<ProviderRConfig, ProviderRBooks>>;

/** Starts a simulator on 127.0.0.1 (a free port unless `options.port` is set). */
export async function startProviderRSimulator(
  options: ProviderRSimulatorOptions = {},
): Promise<ProviderRSimulator> {
  const credentials = {
    merchant: options.merchant ?? SIMULATOR_MERCHANT,
    secret: options.secret ?? SIMULATOR_SECRET,
  };
  let locationRefused = false;

  /** The push of a transaction's current status (or of `overrides`), as the provider sends it. */
  const pushOf = (transaction: SimulatedTransaction, overrides: Partial<DeliverWebhookOptions> = {}) => {
    const { code: _code, message: _message, fee: _fee, ...fields } = statusFields(transaction, credentials);
    return buildProviderRPush(
      {
        ...fields,
        transId: transaction.transId,
        curr: transaction.curr,
        merchant: overrides.merchant ?? credentials.merchant,
        // `webhookSecret` (the kit's option, `pay dev --webhook-secret`): pushes carry another secret than the API's.
        secret: overrides.secret ?? options.webhookSecret ?? credentials.secret,
        status: overrides.status ?? transaction.status,
        price: transaction.price,
        test: overrides.test ?? transaction.test,
      },
      {
        format: overrides.format ?? 'form',
        ...(overrides.contentType ? { contentType: overrides.contentType } : {}),
      },
    );
  };
  const outgoing = (transaction: SimulatedTransaction, overrides?: Partial<DeliverWebhookOptions>) => {
    const push = pushOf(transaction, overrides);
    return {
      event: `providerR.${overrides?.status ?? transaction.status}`,
      body: push.body,
      headers: push.headers,
    };
  };

  return startSimulator(options, {
    provider: 'provider-r',
    requestIdHeader: 'x-request-id',
    // The provider signs nothing: a push is genuine because it carries the merchant and its secret.
    sign: () => ({}),
    setup: (kit) => {
      const { routes, forwarder } = kit;
      const ledger = new ProviderRLedger(
        (transId) => `${kit.url}${HOSTED_PAGE_PATH}?id=${encodeURIComponent(transId)}`,
        // Every status change is pushed to the forwarding URL, when one is set (`forwardWebhooks`).
        (transaction) => forwarder.enqueue(outgoing(transaction)),
      );
      const payerAct = (transId: string, action: PayerAction) =>
        ledger.move(transId, PAYER_TRANSITIONS.get(action) ?? 'cancel');
      addHostedPage(routes, ledger, payerAct, forwarder);
      const notFound = addWireRoutes(routes, ledger, {
        credentials,
        statusFormat: options.statusFormat ?? 'form',
        locationRefused: () => locationRefused,
      });
      return {
        notFound,
        adapterConfig: (overrides = {}): ProviderRConfig => ({
          ...credentials,
          isSandbox: true,
          baseUrl: kit.url,
          ...overrides,
        }),
        books: () => ledger.books(),
        act: payerAct,
        /**
         * `trigger('PAID', { transId?, to? })` (or `payment.succeeded`, triggers.ts): pushes the status for `transId`, or for a new transaction opened in
         * that status (so the adapter's status confirmation agrees), to `to` or the forwarding URL.
         */
        async trigger(event, triggerOptions) {
          const status = triggeredStatus(event);
          const to = typeof triggerOptions.to === 'string' ? triggerOptions.to : forwarder.url;
          if (to === null) throw new Error('trigger needs options.to or a forwarding URL (forwardWebhooks).');
          let transId = typeof triggerOptions.transId === 'string' ? triggerOptions.transId : undefined;
          if (transId === undefined) {
            const opened = JSON.parse(
              ledger.create('payment', {
                price: 10000,
                curr: 'CZK',
                label: 'Triggered event',
                email: 'payer@example.com',
                test: true,
              }).body,
            ) as { transId: string };
            transId = opened.transId;
            ledger.find(transId).status = status;
          }
          return forwarder.send(to, outgoing(ledger.find(transId), { status }));
        },
        members: (): ProviderROwnMembers => ({
          credentials,
          get transactions() {
            return ledger.books().transactions;
          },
          get refunds() {
            return ledger.books().refunds;
          },
          transaction: (transId) => {
            const found = ledger.transactions.get(transId);
            return found && structuredClone(found);
          },
          refundable: (transId) => ledger.refundable(transId),
          pay: (transId) => ledger.move(transId, 'pay'),
          authorize: (transId) => ledger.move(transId, 'authorize'),
          cancel: (transId) => ledger.move(transId, 'cancel'),
          refuseLocation: (refused) => {
            locationRefused = refused;
          },
          async deliverWebhook(url, delivery) {
            const push = pushOf(ledger.find(delivery.transId), delivery);
            const response = await fetch(url, { method: 'POST', headers: push.headers, body: push.body });
            await response.arrayBuffer();
            return response.status;
          },
        }),
      };
    },
  });
}
