/**
 * The simulator of the fixture gateway the conformance suite's own tests run against: a Paystack-shaped redirect
 * gateway (initialize → authorization URL, verify by reference, refund, HMAC-SHA512 webhooks keyed with the
 * secret key), built on the `@pay/core/testing` kit like every provider simulator, with the whole
 * `PaymentSimulator` interface.
 */
import { hmacSignature, type SignatureScheme } from '../../src/adapter-toolkit.js';
import {
  jsonBody,
  jsonReply,
  type MoneyMeaning,
  type PayerAction,
  type PaymentSimulator,
  type RecordedRequest,
  type SimulatorDescriptor,
  startSimulator,
  type WireMoney,
} from '../../src/testing/index.js';

/** The adapter configuration the simulator hands out. */
export interface GatewayConfig {
  baseUrl: string;
  secretKey: string;
  /** A live key: records say `livemode: true`. */
  live?: boolean;
  retry?: number;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/** One transaction in the books: `status` is the gateway's own word (`success`, `abandoned`, …). */
export interface GatewayTransaction {
  id: number;
  reference: string;
  amount: unknown;
  currency: string;
  email: string;
  status: string;
}

/** One refund in the books. */
export interface GatewayRefund {
  id: number;
  reference: string;
  /** The merchant's reference of the refund: a second refund with it is refused as a duplicate. */
  merchantReference: string;
  amount: unknown;
}

/** What the gateway holds. */
export interface GatewayBooks {
  transactions: GatewayTransaction[];
  refunds: GatewayRefund[];
}

/** The gateway simulator, plus a way to put a transaction in any status the gateway may report. */
export interface GatewaySimulator extends PaymentSimulator<GatewayConfig, GatewayBooks> {
  setStatus(reference: string, status: string): void;
}

export const GATEWAY_SECRET_KEY = 'sk_test_fixture_0123456789abcdef';
export const GATEWAY_REQUEST_ID_HEADER = 'x-request-id';
export const GATEWAY_SIGNATURE_HEADER = 'x-gateway-signature';
/** How the gateway signs: the hex HMAC-SHA512 of the raw body, keyed with the secret key. */
export const GATEWAY_SIGNATURE = {
  header: GATEWAY_SIGNATURE_HEADER,
  encoding: 'hex',
  algorithm: 'SHA-512',
} as const satisfies SignatureScheme;

/** The gateway's status after each payer action. */
const PAYER_STATUS = { pay: 'success', fail: 'failed', cancel: 'abandoned' } as const satisfies Record<
  PayerAction,
  string
>;

/** The gateway's refusal envelope. */
const refused = (status: number, message: string) => jsonReply(status, { status: false, message });

/** Starts the fixture gateway on 127.0.0.1. */
export async function startGatewaySimulator(): Promise<GatewaySimulator> {
  const books: GatewayBooks = { transactions: [], refunds: [] };
  let nextId = 1000;
  const find = (reference: string) => books.transactions.find((entry) => entry.reference === reference);
  const authorised = (authorization: string | undefined) => authorization === `Bearer ${GATEWAY_SECRET_KEY}`;
  const event = (transaction: GatewayTransaction) =>
    JSON.stringify({
      event: transaction.status === 'success' ? 'charge.success' : 'charge.failed',
      data: { ...transaction },
    });
  const setStatus = (reference: string, status: string) => {
    const transaction = find(reference);
    if (!transaction) throw new Error(`No transaction ${reference}`);
    transaction.status = status;
    return transaction;
  };

  return startSimulator(
    {},
    {
      provider: 'fixture-gateway',
      requestIdHeader: GATEWAY_REQUEST_ID_HEADER,
      sign: async (body) => ({
        [GATEWAY_SIGNATURE_HEADER]: await hmacSignature(GATEWAY_SECRET_KEY, body, GATEWAY_SIGNATURE),
      }),
      delivery: { backoffMs: [10] },
      setup: (kit) => {
        const { routes, forwarder } = kit;
        routes.post('/transaction/initialize', (request) => {
          if (!authorised(request.headers.authorization)) return refused(401, 'Invalid key');
          const body = (jsonBody(request) ?? {}) as Record<string, unknown>;
          const reference = String(body.reference ?? `ref_${nextId}`);
          if (find(reference)) return refused(400, 'Duplicate Transaction Reference');
          nextId += 1;
          books.transactions.push({
            id: nextId,
            reference,
            amount: body.amount,
            currency: String(body.currency ?? 'NGN'),
            email: String(body.email ?? ''),
            status: 'ongoing',
          });
          return jsonReply(200, {
            status: true,
            message: 'Authorization URL created',
            data: {
              authorization_url: `${kit.url}/checkout/${reference}`,
              access_code: `ac_${nextId}`,
              reference,
            },
          });
        });
        routes.get('/transaction/verify/:reference', (request) => {
          if (!authorised(request.headers.authorization)) return refused(401, 'Invalid key');
          const transaction = find(request.params.reference ?? '');
          if (!transaction) return refused(404, 'Transaction reference not found');
          return jsonReply(200, { status: true, message: 'Verification successful', data: transaction });
        });
        routes.post('/refund', (request) => {
          if (!authorised(request.headers.authorization)) return refused(401, 'Invalid key');
          const body = (jsonBody(request) ?? {}) as Record<string, unknown>;
          const transaction = find(String(body.transaction ?? ''));
          if (!transaction) return refused(404, 'Transaction reference not found');
          if (transaction.status !== 'success') return refused(400, 'Transaction has not been paid');
          const merchantReference = String(body.merchant_reference ?? '');
          if (
            merchantReference &&
            books.refunds.some((refund) => refund.merchantReference === merchantReference)
          )
            return refused(400, 'Duplicate refund reference');
          nextId += 1;
          const refund = {
            id: nextId,
            reference: transaction.reference,
            merchantReference,
            amount: body.amount ?? transaction.amount,
          };
          books.refunds.push(refund);
          return jsonReply(200, {
            status: true,
            message: 'Refund has been queued for processing',
            data: {
              id: refund.id,
              amount: refund.amount,
              currency: transaction.currency,
              status: 'pending',
              transaction,
            },
          });
        });

        return {
          adapterConfig: (overrides = {}): GatewayConfig => ({
            baseUrl: kit.url,
            secretKey: GATEWAY_SECRET_KEY,
            ...overrides,
          }),
          books: () => structuredClone(books),
          act: (reference, action) => {
            const transaction = setStatus(reference, PAYER_STATUS[action]);
            forwarder.enqueue({ event: transaction.status, body: event(transaction) });
          },
          async trigger(name, options) {
            // An event about a transaction the books do not hold yet opens it there, as the gateway would have.
            let transaction = find(String(options.reference ?? ''));
            if (!transaction) {
              nextId += 1;
              transaction = {
                id: nextId,
                reference: String(options.reference ?? `ref_trigger_${nextId}`),
                amount: 1000,
                currency: 'NGN',
                email: 'payer@example.com',
                status: name === 'charge.success' ? 'success' : 'failed',
              };
              books.transactions.push(transaction);
            }
            const to = String(options.to ?? forwarder.url ?? '');
            return forwarder.send(to, { event: name, body: event(transaction) });
          },
          members: () => ({
            setStatus(reference: string, status: string) {
              setStatus(reference, status);
            },
          }),
        };
      },
    },
  );
}

/** What each gateway status means for the money. */
export const GATEWAY_STATUS_MEANINGS = {
  success: 'paid',
  failed: 'failed',
  abandoned: 'failed',
  reversed: 'refunded',
  ongoing: 'pending',
  pending: 'pending',
  processing: 'pending',
} as const satisfies Record<string, MoneyMeaning>;

/** The money of one request to the gateway, from its JSON body. */
function gatewayWire(request: RecordedRequest): WireMoney | undefined {
  const kind =
    request.path === '/transaction/initialize'
      ? 'payment'
      : request.path === '/refund'
        ? 'refund'
        : undefined;
  if (request.method !== 'POST' || kind === undefined) return undefined;
  const body = (jsonBody(request) ?? {}) as {
    amount?: unknown;
    currency?: unknown;
    reference?: unknown;
    merchant_reference?: unknown;
  };
  const reference = kind === 'payment' ? body.reference : body.merchant_reference;
  return {
    ...(typeof reference === 'string' ? { reference } : {}),
    kind,
    amountMinor: Number(body.amount),
    currency: typeof body.currency === 'string' ? body.currency.toUpperCase() : undefined,
  };
}

/** The fixture gateway's descriptor, as an adapter package exports its own: the oracle the suite reads. */
export const gatewaySimulatorDescriptor: Pick<
  SimulatorDescriptor<GatewayConfig, GatewayBooks>,
  'events' | 'oracle'
> = {
  events: ['charge.success', 'charge.failed'],
  oracle: {
    paymentStatuses: GATEWAY_STATUS_MEANINGS,
    ledger: (books) => [
      ...books.transactions.map((transaction) => ({
        kind: 'payment' as const,
        id: transaction.reference,
        amountMinor: Number(transaction.amount),
        currency: transaction.currency.toUpperCase(),
        status: transaction.status,
        meaning:
          GATEWAY_STATUS_MEANINGS[transaction.status as keyof typeof GATEWAY_STATUS_MEANINGS] ?? 'pending',
      })),
      ...books.refunds.map((refund) => ({
        kind: 'refund' as const,
        id: String(refund.id),
        amountMinor: Number(refund.amount),
        currency: (
          books.transactions.find((t) => t.reference === refund.reference)?.currency ?? 'NGN'
        ).toUpperCase(),
        status: 'pending',
        meaning: 'pending' as const,
      })),
    ],
    wire: gatewayWire,
    setPaymentStatus: (simulator, id, status) => (simulator as GatewaySimulator).setStatus(id, status),
  },
};
