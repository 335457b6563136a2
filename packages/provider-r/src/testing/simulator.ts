/**
 * A Provider R simulator: a real HTTP server on 127.0.0.1 implementing every call of the wire contract with
 * state (transactions, their status, refunds and what remains refundable), HTTP Basic checks, the provider's
 * codes, controls that move a transaction, push delivery to a URL, and fault injection on every route.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultInjector, readRequestBody, startLoopbackServer } from '@pay/core/testing';
import { PROVIDER_R_CURRENCIES, type ProviderRStatus } from '../wire.js';
import { buildProviderRPush } from './push.js';

/** The merchant the simulator accepts by default. */
export const SIMULATOR_MERCHANT = '100001';
/** The secret the simulator accepts by default (also the `webhookSecret` of its pushes). */
export const SIMULATOR_SECRET = 'sim-secret-4f2a9c71';

/** Options of {@link startProviderRSimulator}. */
export interface ProviderRSimulatorOptions {
  merchant?: string;
  secret?: string;
  /** How the status call answers: `form` (the provider's default) or `json`. */
  statusFormat?: 'form' | 'json';
}

/** A transaction as the simulator holds it. */
export interface SimulatedTransaction {
  transId: string;
  /** `checkout` (paymentRedirect) or `payment` (v2.0/payment). */
  kind: 'checkout' | 'payment';
  status: ProviderRStatus;
  /** Integer minor units; a partial capture lowers it to the captured amount. */
  price: number;
  curr: string;
  label: string;
  refId: string | undefined;
  email: string;
  payerId: string | undefined;
  method: string;
  test: boolean;
  /** Minor units refunded so far. */
  refunded: number;
  urls: { paid?: string; cancelled?: string; pending?: string };
}

/** A refund the simulator accepted. */
export interface SimulatedRefund {
  transId: string;
  amount: number;
  curr: string;
  refId: string | undefined;
  test: boolean;
}

/** One request the simulator received (faulted ones included). */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body: string;
  /** The `x-request-id` the adapter sent, the same on every retry of one call. */
  requestId: string | undefined;
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

/** A running simulator. */
export interface ProviderRSimulator {
  /** Base URL to pass as the adapter's `baseUrl`. */
  readonly url: string;
  /** The credentials it accepts: pass them as `merchant` / `secret` (and `webhookSecret`). */
  readonly credentials: { merchant: string; secret: string };
  /** Arm faults: `faults.inject({ method, path, times, fault })`; paths are the wire paths. */
  readonly faults: FaultInjector;
  /** Copies of every transaction, in creation order. */
  readonly transactions: readonly SimulatedTransaction[];
  /** Every refund accepted. */
  readonly refunds: readonly SimulatedRefund[];
  /** Every request received. */
  readonly requests: readonly RecordedRequest[];
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
  close(): Promise<void>;
}

type Reply = { status: number; body: string; headers?: Record<string, string> };

const json = (status: number, body: unknown): Reply => ({ status, body: JSON.stringify(body) });
const providerError = (status: number, code: number, message: string): Reply =>
  json(status, { code, message });
const ok = (extra: Record<string, unknown> = {}): Reply => json(200, { code: 0, message: 'OK', ...extra });

/** Minimum prices the provider states (1.00 CZK / 0.10 EUR); other currencies are not checked here. */
const MINIMUM_PRICE: Record<string, number> = { CZK: 100, EUR: 10 };

function newTransId(): string {
  const text = randomBytes(6).toString('hex').toUpperCase();
  return `${text.slice(0, 4)}-${text.slice(4, 8)}-${text.slice(8, 12)}`;
}

/** Starts a simulator on 127.0.0.1 with a free port. */
export async function startProviderRSimulator(
  options: ProviderRSimulatorOptions = {},
): Promise<ProviderRSimulator> {
  const credentials = {
    merchant: options.merchant ?? SIMULATOR_MERCHANT,
    secret: options.secret ?? SIMULATOR_SECRET,
  };
  const basic = `Basic ${Buffer.from(`${credentials.merchant}:${credentials.secret}`).toString('base64')}`;
  const faults = new FaultInjector();
  const transactions = new Map<string, SimulatedTransaction>();
  const refunds: SimulatedRefund[] = [];
  const requests: RecordedRequest[] = [];
  let baseUrl = '';
  let locationRefusedNow = false;

  function find(transId: string): SimulatedTransaction {
    const found = transactions.get(transId);
    if (!found) throw new Error(`The simulator has no transaction ${transId}.`);
    return found;
  }

  function move(transId: string, from: readonly ProviderRStatus[], to: ProviderRStatus): void {
    const transaction = find(transId);
    if (!from.includes(transaction.status))
      throw new Error(`Transaction ${transId} is ${transaction.status}; it cannot become ${to}.`);
    transaction.status = to;
  }

  /** Checks the fields both creations share; a reply when they are wrong. */
  function createTransaction(kind: SimulatedTransaction['kind'], body: Record<string, unknown>): Reply {
    const curr = body.curr === undefined ? 'CZK' : String(body.curr);
    const { price, label, email } = body;
    if (!(PROVIDER_R_CURRENCIES as readonly string[]).includes(curr))
      return providerError(400, 1310, 'Unknown currency');
    if (typeof price !== 'number' || !Number.isSafeInteger(price) || price < (MINIMUM_PRICE[curr] ?? 1)) {
      return providerError(400, 1309, 'Wrong amount');
    }
    if (typeof label !== 'string' || label.length < 1 || label.length > 16)
      return providerError(400, 1400, 'Invalid label');
    if (typeof email !== 'string' || !email.includes('@')) return providerError(400, 1400, 'Invalid e-mail');
    const transId = newTransId();
    transactions.set(transId, {
      transId,
      kind,
      status: 'PENDING',
      price,
      curr,
      label,
      refId: typeof body.refId === 'string' ? body.refId : undefined,
      email,
      payerId: typeof body.payerId === 'string' ? body.payerId : undefined,
      method: typeof body.method === 'string' ? body.method : 'ALL',
      test: body.test === true,
      refunded: 0,
      urls: {
        ...(typeof body.url_paid === 'string' ? { paid: body.url_paid } : {}),
        ...(typeof body.url_cancelled === 'string' ? { cancelled: body.url_cancelled } : {}),
        ...(typeof body.url_pending === 'string' ? { pending: body.url_pending } : {}),
      },
    });
    return ok({
      transId,
      redirect: `${baseUrl}/client/instructions/index?id=${encodeURIComponent(transId)}`,
    });
  }

  function statusFields(transaction: SimulatedTransaction): Record<string, string> {
    return {
      code: '0',
      message: 'OK',
      merchant: credentials.merchant,
      test: String(transaction.test),
      price: String(transaction.price),
      curr: transaction.curr,
      label: transaction.label,
      ...(transaction.refId === undefined ? {} : { refId: transaction.refId }),
      ...(transaction.payerId === undefined ? {} : { payerId: transaction.payerId }),
      method: transaction.method === 'ALL' ? 'CARD' : transaction.method,
      email: transaction.email,
      transId: transaction.transId,
      // The real status reply echoes the secret; the adapter must drop it.
      secret: credentials.secret,
      status: transaction.status,
      fee: 'unknown',
    };
  }

  /** The status call's answer, form-encoded as the provider sends it (charset included), or JSON. */
  function statusAnswer(fields: Record<string, string>): Reply {
    return options.statusFormat === 'json'
      ? json(200, fields)
      : {
          status: 200,
          body: new URLSearchParams(fields).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
        };
  }

  function status(form: URLSearchParams): Reply {
    if (form.get('merchant') !== credentials.merchant || form.get('secret') !== credentials.secret) {
      return statusAnswer({ code: '1400', message: 'Unauthorized access' });
    }
    const transId = form.get('transId') ?? '';
    const transaction = transactions.get(transId);
    if (!transaction) {
      // The published answer to an unknown payment: `error` (not `code`) 1400, and the request echoed, secret
      // included (test/fixtures/status-not-found-1400.json).
      return statusAnswer({
        error: '1400',
        message: `Payment not found (status), params: array (\n  'merchant' => '${credentials.merchant}',\n  'secret' => '${credentials.secret}',\n  'transId' => '${transId}',\n)\n`,
      });
    }
    return statusAnswer(statusFields(transaction));
  }

  /** The answer to any call from outside the merchant's IP whitelist (published, see refuseLocation). */
  function locationRefused(path: string): Reply {
    const fields = { code: '1400', message: 'Access from unauthorized location [127.0.0.1]!' };
    return path === '/v1.0/status' ? statusAnswer(fields) : json(200, { ...fields, code: 1400 });
  }

  function refund(body: Record<string, unknown>): Reply {
    const transaction = transactions.get(String(body.transId ?? ''));
    if (!transaction) return providerError(404, 1104, 'Transaction cannot be loaded');
    if (transaction.status === 'CANCELLED') return providerError(400, 1401, 'Refund of a cancelled payment');
    if (transaction.status !== 'PAID') return providerError(400, 1400, 'The payment is not paid');
    const { amount } = body;
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0)
      return providerError(400, 1309, 'Wrong amount');
    if (body.curr !== undefined && body.curr !== transaction.curr)
      return providerError(400, 1310, 'Unknown currency');
    if (amount > transaction.price - transaction.refunded)
      return providerError(400, 1402, 'Refund amount too high');
    transaction.refunded += amount;
    refunds.push({
      transId: transaction.transId,
      amount,
      curr: transaction.curr,
      refId: typeof body.refId === 'string' ? body.refId : undefined,
      test: body.test === true,
    });
    return ok();
  }

  function capture(transId: string, body: Record<string, unknown>): Reply {
    const transaction = transactions.get(transId);
    if (!transaction) return providerError(404, 1104, 'Transaction cannot be loaded');
    if (transaction.status !== 'AUTHORIZED')
      return providerError(400, 1400, 'The payment is not pre-authorised');
    const amount = body.amount ?? transaction.price;
    if (
      typeof amount !== 'number' ||
      !Number.isSafeInteger(amount) ||
      amount <= 0 ||
      amount > transaction.price
    ) {
      return providerError(400, 1309, 'Wrong amount');
    }
    transaction.price = amount;
    transaction.status = 'PAID';
    return ok();
  }

  function cancelCall(transId: string, from: ProviderRStatus): Reply {
    const transaction = transactions.get(transId);
    if (!transaction) return providerError(404, 1104, 'Transaction cannot be loaded');
    if (transaction.status !== from) return providerError(400, 1400, `The payment is ${transaction.status}`);
    transaction.status = 'CANCELLED';
    return ok();
  }

  function route(method: string, path: string, text: string, contentType: string): Reply {
    if (path === '/v1.0/status' && method === 'POST') return status(new URLSearchParams(text));
    let body: Record<string, unknown> = {};
    if (text !== '') {
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return providerError(400, 1400, 'Malformed JSON body');
      }
      if (!contentType.toLowerCase().startsWith('application/json'))
        return providerError(400, 1400, 'Expected a JSON body');
    }
    const redirect = /^\/v2\.0\/paymentRedirect\/merchant\/([^/]+)$/.exec(path);
    if (redirect && method === 'POST') {
      if (decodeURIComponent(redirect[1] ?? '') !== credentials.merchant)
        return providerError(400, 1301, 'Unknown merchant');
      return createTransaction('checkout', body);
    }
    if (path === '/v2.0/payment' && method === 'POST') return createTransaction('payment', body);
    if (path === '/v2.0/refund.json' && method === 'POST') return refund(body);
    const preauth = /^\/v2\.0\/preauth\/transId\/([^/]+)\.json$/.exec(path);
    if (preauth && method === 'PUT') return capture(decodeURIComponent(preauth[1] ?? ''), body);
    if (preauth && method === 'DELETE') return cancelCall(decodeURIComponent(preauth[1] ?? ''), 'AUTHORIZED');
    const payment = /^\/v2\.0\/payment\/transId\/([^/]+)\.json$/.exec(path);
    if (payment && method === 'DELETE') return cancelCall(decodeURIComponent(payment[1] ?? ''), 'PENDING');
    return providerError(404, 1400, `No such call: ${method} ${path}`);
  }

  async function listener(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readRequestBody(req);
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(', ') : String(value ?? ''),
      ]),
    );
    requests.push({ method, path, headers, body: text, requestId: headers['x-request-id'] });
    await faults.run(req, res, async () => {
      if (locationRefusedNow) return locationRefused(path);
      if (headers.authorization !== basic) return providerError(401, 1400, 'Unauthorized access');
      return route(method, path, text, headers['content-type'] ?? '');
    });
  }

  const server = await startLoopbackServer(listener);
  baseUrl = server.url;

  return {
    url: server.url,
    credentials,
    faults,
    get transactions() {
      return [...transactions.values()].map((transaction) => structuredClone(transaction));
    },
    get refunds() {
      return refunds.map((entry) => ({ ...entry }));
    },
    get requests() {
      return [...requests];
    },
    transaction: (transId) => {
      const found = transactions.get(transId);
      return found && structuredClone(found);
    },
    refundable: (transId) => {
      const transaction = find(transId);
      return transaction.status === 'PAID' ? transaction.price - transaction.refunded : 0;
    },
    pay: (transId) => move(transId, ['PENDING', 'AUTHORIZED'], 'PAID'),
    authorize: (transId) => move(transId, ['PENDING'], 'AUTHORIZED'),
    cancel: (transId) => move(transId, ['PENDING', 'AUTHORIZED'], 'CANCELLED'),
    refuseLocation: (refused) => {
      locationRefusedNow = refused;
    },
    async deliverWebhook(url, delivery) {
      const transaction = find(delivery.transId);
      const push = buildProviderRPush(
        {
          merchant: delivery.merchant ?? credentials.merchant,
          secret: delivery.secret ?? credentials.secret,
          transId: transaction.transId,
          status: delivery.status ?? transaction.status,
          price: transaction.price,
          curr: transaction.curr,
          test: delivery.test ?? transaction.test,
          label: transaction.label,
          refId: transaction.refId,
          payerId: transaction.payerId,
          method: transaction.method === 'ALL' ? 'CARD' : transaction.method,
          email: transaction.email,
        },
        {
          format: delivery.format ?? 'form',
          ...(delivery.contentType ? { contentType: delivery.contentType } : {}),
        },
      );
      const response = await fetch(url, { method: 'POST', headers: push.headers, body: push.body });
      await response.arrayBuffer();
      return response.status;
    },
    close: () => server.close(),
  };
}
