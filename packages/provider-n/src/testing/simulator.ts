/**
 * A Provider N simulator on 127.0.0.1 (design §7): the wire contract's login, init-transaction, status query (by
 * transaction or payment reference), initiate-refund and the refund status read, with state, Basic and Bearer auth
 * checks, tokens that really expire, unique payment and refund references (a reused one is refused as the
 * provider documents it), the R1–R5 refund codes with remaining-amount bookkeeping, fault injection on every route,
 * and signed webhook delivery to a URL.
 * Amounts are kept in integer minor units inside, so the books never drift.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { minorDigits, toMajorUnits, toMinorUnits } from '@pay/core';
import { FaultInjector, readRequestBody, startLoopbackServer } from '@pay/core/testing';
import type {
  ProviderNPaymentStatus,
  ProviderNRefundEventData,
  ProviderNRejectedPaymentEventData,
  ProviderNSettlementEventData,
  ProviderNTransactionEventData,
} from '../wire.js';
import { type ProviderNWebhookPayload, signProviderNWebhook } from './signing.js';

/** What the simulator accepts: the API credentials, the contract code and the webhook signing secret. */
export interface ProviderNSimulatorCredentials {
  apiKey: string;
  secretKey: string;
  /** Required on init-transaction when set (as the live API does); `undefined` accepts any or none. */
  contractCode: string | undefined;
  /**
   * The key `deliverWebhook` signs with: the secret key, as the provider does (wire contract "Webhooks"; issue 12
   * defect 9). Pass it to `webhooks.setup({ webhookSecret })`. Defaults to `secretKey`.
   */
  webhookSecret: string;
}

/** Default simulator credentials (the webhook key is the secret key, as with the real provider). */
export const PROVIDER_N_SIMULATOR_CREDENTIALS: Readonly<ProviderNSimulatorCredentials> = Object.freeze({
  apiKey: 'PN_SIM_API_KEY',
  secretKey: 'PN_SIM_SECRET_KEY_0f3b9d',
  contractCode: '4934121693',
  webhookSecret: 'PN_SIM_SECRET_KEY_0f3b9d',
});

/** Options of {@link startProviderNSimulator}. */
export interface ProviderNSimulatorOptions {
  /** Overrides of {@link PROVIDER_N_SIMULATOR_CREDENTIALS}. */
  credentials?: Partial<ProviderNSimulatorCredentials>;
  /** Lifetime of issued access tokens in seconds, reported as `expiresIn` (default 3599). */
  tokenLifetimeSeconds?: number;
  /** Smallest refund accepted, in major units (default 10, as the provider's 10.00 NGN); below is R4. */
  minimumRefundAmount?: number;
  /** Merchant balance refunds are paid from, in major units (default 10,000,000); a larger refund is R5. */
  merchantBalance?: number;
}

/** A transaction in the simulator's books (amounts in major units). */
export interface SimulatedTransaction {
  transactionReference: string;
  paymentReference: string;
  amount: number;
  currency: string;
  contractCode: string | undefined;
  customerEmail: string;
  customerName: string | undefined;
  paymentDescription: string;
  redirectUrl: string | undefined;
  paymentMethods: string[];
  metaData: Record<string, unknown>;
  paymentStatus: ProviderNPaymentStatus;
  amountPaid: number;
  /** What can still be refunded. */
  refundableAmount: number;
  paidOn: string | undefined;
  checkoutUrl: string;
}

/** A refund in the simulator's books. */
export interface SimulatedRefund {
  refundReference: string;
  transactionReference: string;
  refundAmount: number;
  refundReason: string;
  customerNote: string | undefined;
  refundStatus: 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
  refundType: 'PARTIAL_REFUND' | 'FULL_REFUND';
  createdOn: string;
  completedOn: string | undefined;
  /** Every body member the simulator received, including forwarded extras. */
  received: Record<string, unknown>;
}

/** One request the simulator received, as it arrived (headers lower-cased). */
export interface SimulatedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

/** Read-only books, for assertions. */
export interface ProviderNSimulatorBooks {
  /** Successful logins. */
  logins: number;
  transactions: readonly SimulatedTransaction[];
  refunds: readonly SimulatedRefund[];
  /** Every request received, in order, including refused and faulted ones. */
  requests: readonly SimulatedRequest[];
  /** Merchant balance left for refunds, in major units (of the first currency used; NGN by default). */
  balance: number;
}

/** Options of `deliverWebhook`. */
export interface DeliverWebhookOptions {
  /** Send this signature instead of the correct one (to test refusals). */
  signature?: string;
  /** Extra headers. */
  headers?: Record<string, string>;
}

/** A running simulator. */
export interface ProviderNSimulator {
  /** Base URL to pass as `baseUrl` (`http://127.0.0.1:<port>`). */
  url: string;
  close(): Promise<void>;
  /** Fault injection for every route: `faults.inject({ method, path: '/v1/auth/login', fault })`. */
  faults: FaultInjector;
  credentials: ProviderNSimulatorCredentials;
  /** A snapshot of the books. */
  readonly books: ProviderNSimulatorBooks;
  /**
   * Moves a checkout as the payer would (default `PAID` with the full amount) and returns the transaction
   * payload a `SUCCESSFUL_TRANSACTION` (or `REJECTED_PAYMENT`) webhook carries.
   */
  complete(
    transactionReference: string,
    outcome?: { status?: ProviderNPaymentStatus; amountPaid?: number; paymentMethod?: string },
  ): ProviderNTransactionEventData;
  /**
   * Finishes a refund (default `COMPLETED`) and returns the payload of the matching `SUCCESSFUL_REFUND` or
   * `FAILED_REFUND` webhook. A failed refund gives its amount back to the transaction and the balance.
   */
  completeRefund(
    refundReference: string,
    outcome?: { status?: 'COMPLETED' | 'FAILED' },
  ): ProviderNRefundEventData;
  /**
   * Settles paid transactions and returns the payload of the `SETTLEMENT` webhook that reports them, in the
   * provider's published shape (amounts as strings, `amountPaid` / `totalPayable` per transaction).
   */
  settle(transactionReferences: readonly string[]): ProviderNSettlementEventData;
  /**
   * The payer sends an amount the provider rejects (default reason `UNDER_PAYMENT`): returns the payload of the
   * `REJECTED_PAYMENT` webhook, in the provider's published shape (no currency or status, `metaData` a JSON
   * string). The transaction stays unpaid.
   */
  rejectPayment(
    transactionReference: string,
    rejection: { amountSent: number; reason?: string },
  ): ProviderNRejectedPaymentEventData;
  /** Invalidates every issued token now, as if they had expired (the next API call gets a 401). */
  expireTokens(): void;
  /** POSTs a correctly signed webhook to `url` and resolves with the HTTP status of the reply. */
  deliverWebhook(
    url: string,
    payload: ProviderNWebhookPayload,
    options?: DeliverWebhookOptions,
  ): Promise<number>;
}

interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

interface StoredTransaction extends Omit<SimulatedTransaction, 'amount' | 'amountPaid' | 'refundableAmount'> {
  amountMinor: number;
  amountPaidMinor: number;
  refundableMinor: number;
}

interface StoredRefund extends Omit<SimulatedRefund, 'refundAmount'> {
  amountMinor: number;
  currency: string;
}

const ROUTES = {
  login: '/v1/auth/login',
  init: '/v1/merchant/transactions/init-transaction',
  query: '/v1/merchant/transactions/query',
  refund: '/v1/refunds/initiate-refund',
  /** `GET /v1/refunds/{refundReference}`: the provider's published refund status read. */
  refundStatus: '/v1/refunds/',
} as const;

/**
 * The provider's published refusals of a reused reference: init-transaction answers 422 / `99` "Duplicate payment
 * reference" (test/fixtures/init-transaction-duplicate-reference.json), initiate-refund `R9` "Supplied refund
 * reference already exists for the merchant" (published refund response codes). The provider never replays the
 * earlier result for a reused reference, so neither does the simulator.
 */
const DUPLICATE_PAYMENT_REFERENCE = { status: 422, code: '99', message: 'Duplicate payment reference' };
const DUPLICATE_REFUND_REFERENCE = {
  status: 400,
  code: 'R9',
  message: 'Supplied refund reference already exists for the merchant.',
};
/** The published refund status read's answer for an unknown refund reference (code `R7`). */
const REFUND_NOT_FOUND = {
  status: 404,
  code: 'R7',
  message: 'No refund was initiated with the supplied refund reference.',
};

function envelope(status: number, responseBody: unknown): Reply {
  return {
    status,
    body: JSON.stringify({
      requestSuccessful: true,
      responseMessage: 'success',
      responseCode: '0',
      responseBody,
    }),
  };
}

function refusal(status: number, responseCode: string, responseMessage: string): Reply {
  return { status, body: JSON.stringify({ requestSuccessful: false, responseMessage, responseCode }) };
}

/** `2026-11-22 10:20:11`, the provider's timestamp format. */
function providerTime(date = new Date()): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

function decimalString(minor: number, currency: string): string {
  return toMajorUnits(minor, currency).toFixed(minorDigits(currency));
}

/** A positive amount with no more digits than the currency has, in minor units; `undefined` when not. */
function minorAmount(value: unknown, currency: string): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  try {
    return toMinorUnits(value, currency);
  } catch {
    return undefined;
  }
}

/** Starts a simulator on 127.0.0.1 with an OS-chosen port. */
export async function startProviderNSimulator(
  options: ProviderNSimulatorOptions = {},
): Promise<ProviderNSimulator> {
  const secretKey = options.credentials?.secretKey ?? PROVIDER_N_SIMULATOR_CREDENTIALS.secretKey;
  const credentials: ProviderNSimulatorCredentials = {
    ...PROVIDER_N_SIMULATOR_CREDENTIALS,
    ...options.credentials,
    // The provider signs webhooks with the merchant's secret key: a changed secret key changes the signing key.
    webhookSecret: options.credentials?.webhookSecret ?? secretKey,
  };
  const lifetimeSeconds = options.tokenLifetimeSeconds ?? 3599;
  const faults = new FaultInjector();
  const tokens = new Map<string, number>();
  const transactions = new Map<string, StoredTransaction>();
  /** paymentReference → transactionReference: references are unique per merchant, and readable. */
  const paymentReferences = new Map<string, string>();
  const refunds = new Map<string, StoredRefund>();
  const requests: SimulatedRequest[] = [];
  const balanceCurrency = 'NGN';
  let balanceMinor = toMinorUnits(options.merchantBalance ?? 10_000_000, balanceCurrency);
  const minimumRefundMinor = toMinorUnits(options.minimumRefundAmount ?? 10, balanceCurrency);
  let logins = 0;
  let sequence = 0;
  let settlements = 0;
  let baseUrl = '';

  function authorised(headers: Record<string, string>): boolean {
    const match = /^Bearer (.+)$/.exec(headers.authorization ?? '');
    const expiresAt = match?.[1] ? tokens.get(match[1]) : undefined;
    return expiresAt !== undefined && Date.now() < expiresAt;
  }

  function login(headers: Record<string, string>): Reply {
    const expected = `Basic ${Buffer.from(`${credentials.apiKey}:${credentials.secretKey}`).toString('base64')}`;
    if (headers.authorization !== expected) return refusal(401, '99', 'Invalid API key or secret key');
    const accessToken = `pn_sim_${crypto.randomUUID()}`;
    tokens.set(accessToken, Date.now() + lifetimeSeconds * 1000);
    logins += 1;
    return envelope(200, { accessToken, expiresIn: lifetimeSeconds });
  }

  function initTransaction(body: Record<string, unknown>): Reply {
    const currency = typeof body.currencyCode === 'string' ? body.currencyCode : '';
    if (!/^[A-Z]{3}$/.test(currency)) return refusal(400, '99', 'currencyCode must be an ISO 4217 code');
    const amountMinor = minorAmount(body.amount, currency);
    if (amountMinor === undefined)
      return refusal(400, '99', 'amount must be a positive amount in major units');
    if (typeof body.customerEmail !== 'string' || !body.customerEmail.includes('@')) {
      return refusal(400, '99', 'customerEmail is required');
    }
    if (typeof body.paymentReference !== 'string' || body.paymentReference === '') {
      return refusal(400, '99', 'paymentReference is required');
    }
    if (credentials.contractCode !== undefined && body.contractCode !== credentials.contractCode) {
      return refusal(400, '99', 'Invalid contract code');
    }
    if (paymentReferences.has(body.paymentReference)) {
      const { status, code, message } = DUPLICATE_PAYMENT_REFERENCE;
      return refusal(status, code, message);
    }
    sequence += 1;
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const transactionReference = `PN|${stamp}|${String(sequence).padStart(6, '0')}`;
    const checkoutUrl = `${baseUrl}/checkout/${encodeURIComponent(transactionReference)}`;
    const methods = Array.isArray(body.paymentMethods)
      ? body.paymentMethods.map(String)
      : ['CARD', 'ACCOUNT_TRANSFER'];
    paymentReferences.set(body.paymentReference, transactionReference);
    transactions.set(transactionReference, {
      transactionReference,
      paymentReference: body.paymentReference,
      amountMinor,
      currency,
      contractCode: typeof body.contractCode === 'string' ? body.contractCode : undefined,
      customerEmail: body.customerEmail,
      customerName: typeof body.customerName === 'string' ? body.customerName : undefined,
      paymentDescription: typeof body.paymentDescription === 'string' ? body.paymentDescription : '',
      redirectUrl: typeof body.redirectUrl === 'string' ? body.redirectUrl : undefined,
      paymentMethods: methods,
      metaData: (body.metaData as Record<string, unknown> | undefined) ?? {},
      paymentStatus: 'PENDING',
      amountPaidMinor: 0,
      refundableMinor: 0,
      paidOn: undefined,
      checkoutUrl,
    });
    return envelope(200, {
      transactionReference,
      paymentReference: body.paymentReference,
      merchantName: 'Simulated Merchant',
      apiKey: credentials.apiKey,
      enabledPaymentMethod: methods,
      checkoutUrl,
    });
  }

  /**
   * The status read in the shapes the provider publishes: a transaction with money received carries
   * `totalPayable`, `currency` and `customer { email, name }`; one not paid yet carries `amount`, `currencyCode` and
   * a flat `customerEmail` / `customerName` (wire contract "retrievePayment"; issue 12 defects 4 and 7).
   */
  function queryTransaction(query: Record<string, string>): Reply {
    // The published v1 read takes either `transactionReference` or the merchant's `paymentReference`.
    const transactionReference =
      query.transactionReference ?? paymentReferences.get(query.paymentReference ?? '') ?? '';
    const transaction = transactions.get(transactionReference);
    if (!transaction) return refusal(404, '99', 'Transaction not found');
    const { currency } = transaction;
    const common = {
      transactionReference: transaction.transactionReference,
      paymentReference: transaction.paymentReference,
      amountPaid: decimalString(transaction.amountPaidMinor, currency),
      settlementAmount: decimalString(transaction.amountPaidMinor, currency),
      paidOn: transaction.paidOn ?? null,
      paymentStatus: transaction.paymentStatus,
      paymentDescription: transaction.paymentDescription,
      paymentMethod: transaction.paymentMethods[0] ?? 'CARD',
      metaData: transaction.metaData,
    };
    if (transaction.amountPaidMinor === 0) {
      return envelope(200, {
        ...common,
        amount: decimalString(transaction.amountMinor, currency),
        currencyCode: currency,
        customerEmail: transaction.customerEmail,
        customerName: transaction.customerName ?? '',
      });
    }
    return envelope(200, {
      ...common,
      totalPayable: decimalString(transaction.amountMinor, currency),
      currency,
      customer: { email: transaction.customerEmail, name: transaction.customerName ?? '' },
    });
  }

  /** The initiate-refund reply body (the reason as `refundReason`). */
  function refundView(refund: StoredRefund): ProviderNRefundEventData {
    return {
      refundReference: refund.refundReference,
      transactionReference: refund.transactionReference,
      refundReason: refund.refundReason,
      ...(refund.customerNote === undefined ? {} : { customerNote: refund.customerNote }),
      refundAmount: toMajorUnits(refund.amountMinor, refund.currency),
      refundStatus: refund.refundStatus,
      refundType: refund.refundType,
      createdOn: refund.createdOn,
      ...(refund.completedOn === undefined ? {} : { completedOn: refund.completedOn }),
    };
  }

  function initiateRefund(body: Record<string, unknown>): Reply {
    if (typeof body.refundReference !== 'string' || body.refundReference === '') {
      return refusal(400, '99', 'refundReference is required');
    }
    if (refunds.has(body.refundReference)) {
      // Even for an identical body: the provider refuses a reused reference, it never replays the refund.
      const { status, code, message } = DUPLICATE_REFUND_REFERENCE;
      return refusal(status, code, message);
    }
    const transaction = transactions.get(String(body.transactionReference ?? ''));
    if (!transaction) return refusal(400, 'R1', 'Transaction not found');
    const paid = transaction.paymentStatus === 'PAID' || transaction.paymentStatus === 'OVERPAID';
    if (!paid || transaction.refundableMinor === 0)
      return refusal(400, 'R2', 'Refund not permitted on this transaction');
    const amountMinor = minorAmount(body.refundAmount, transaction.currency);
    if (amountMinor === undefined) return refusal(400, '99', 'refundAmount must be a positive amount');
    if (typeof body.refundReason !== 'string' || body.refundReason === '' || body.refundReason.length > 64) {
      return refusal(400, '99', 'refundReason is required (at most 64 characters)');
    }
    if (typeof body.customerNote === 'string' && body.customerNote.length > 16) {
      return refusal(400, '99', 'customerNote must be at most 16 characters');
    }
    if (amountMinor < minimumRefundMinor) return refusal(400, 'R4', 'Refund amount is below the minimum');
    if (amountMinor > transaction.refundableMinor)
      return refusal(400, 'R3', 'Refund amount exceeds the transaction amount');
    if (amountMinor > balanceMinor) return refusal(400, 'R5', 'Insufficient balance');
    const refundType = amountMinor === transaction.amountPaidMinor ? 'FULL_REFUND' : 'PARTIAL_REFUND';
    transaction.refundableMinor -= amountMinor;
    balanceMinor -= amountMinor;
    const refund: StoredRefund = {
      refundReference: body.refundReference,
      transactionReference: transaction.transactionReference,
      amountMinor,
      currency: transaction.currency,
      refundReason: body.refundReason,
      customerNote: typeof body.customerNote === 'string' ? body.customerNote : undefined,
      refundStatus: 'IN_PROGRESS',
      refundType,
      createdOn: providerTime(),
      completedOn: undefined,
      received: body,
    };
    refunds.set(refund.refundReference, refund);
    return envelope(200, refundView(refund));
  }

  /** `GET /v1/refunds/{refundReference}`: the refund as initiate-refund answered it, or `R7` when unknown. */
  function readRefund(refundReference: string): Reply {
    const refund = refunds.get(refundReference);
    if (!refund) {
      const { status, code, message } = REFUND_NOT_FOUND;
      return refusal(status, code, message);
    }
    return envelope(200, refundView(refund));
  }

  function checkoutPage(transactionReference: string): Reply {
    const transaction = transactions.get(transactionReference);
    if (!transaction)
      return { status: 404, body: 'Unknown checkout', headers: { 'content-type': 'text/plain' } };
    const amount = decimalString(transaction.amountMinor, transaction.currency);
    return {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<!doctype html><title>Provider N checkout</title><h1>Pay ${transaction.currency} ${amount}</h1><p>${transaction.paymentStatus}</p>`,
    };
  }

  async function route(
    method: string,
    path: string,
    query: Record<string, string>,
    headers: Record<string, string>,
    body: unknown,
  ): Promise<Reply> {
    if (method === 'POST' && path === ROUTES.login) return login(headers);
    if (method === 'GET' && path.startsWith('/checkout/'))
      return checkoutPage(decodeURIComponent(path.slice('/checkout/'.length)));
    const refundRead =
      method === 'GET' && path.startsWith(ROUTES.refundStatus) && path.length > ROUTES.refundStatus.length;
    const known =
      (method === 'POST' && (path === ROUTES.init || path === ROUTES.refund)) ||
      (method === 'GET' && path === ROUTES.query) ||
      refundRead;
    if (!known) return refusal(404, '99', `No route ${method} ${path}`);
    if (!authorised(headers)) return refusal(401, '99', 'Invalid or expired access token');
    if (path === ROUTES.query) return queryTransaction(query);
    if (refundRead) {
      let refundReference: string;
      try {
        refundReference = decodeURIComponent(path.slice(ROUTES.refundStatus.length));
      } catch {
        return refusal(400, '99', 'Malformed refund reference');
      }
      return readRefund(refundReference);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      return refusal(400, '99', 'A JSON object body is required');
    return path === ROUTES.init
      ? initTransaction(body as Record<string, unknown>)
      : initiateRefund(body as Record<string, unknown>);
  }

  async function listener(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const text = await readRequestBody(req);
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(', ') : (value ?? ''),
      ]),
    );
    let body: unknown = text;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const query = Object.fromEntries(url.searchParams);
    const method = req.method ?? 'GET';
    requests.push({ method, path: url.pathname, query, headers, body });
    await faults.run(req, res, () => route(method, url.pathname, query, headers, body));
  }

  const server = await startLoopbackServer(listener);
  baseUrl = server.url;

  function transactionView(
    transaction: StoredTransaction,
    paymentMethod: string,
  ): ProviderNTransactionEventData {
    const { currency } = transaction;
    return {
      transactionReference: transaction.transactionReference,
      paymentReference: transaction.paymentReference,
      amountPaid: toMajorUnits(transaction.amountPaidMinor, currency),
      totalPayable: toMajorUnits(transaction.amountMinor, currency),
      settlementAmount: toMajorUnits(transaction.amountPaidMinor, currency),
      ...(transaction.paidOn === undefined ? {} : { paidOn: transaction.paidOn }),
      paymentStatus: transaction.paymentStatus,
      paymentDescription: transaction.paymentDescription,
      currency,
      paymentMethod,
      customer: { email: transaction.customerEmail, name: transaction.customerName ?? '' },
      metaData: transaction.metaData,
    };
  }

  return {
    url: server.url,
    close: () => server.close(),
    faults,
    credentials,
    get books(): ProviderNSimulatorBooks {
      return {
        logins,
        transactions: [...transactions.values()].map(
          ({ amountMinor, amountPaidMinor, refundableMinor, ...rest }) => ({
            ...rest,
            amount: toMajorUnits(amountMinor, rest.currency),
            amountPaid: toMajorUnits(amountPaidMinor, rest.currency),
            refundableAmount: toMajorUnits(refundableMinor, rest.currency),
          }),
        ),
        refunds: [...refunds.values()].map(({ amountMinor, currency, ...rest }) => ({
          ...rest,
          refundAmount: toMajorUnits(amountMinor, currency),
        })),
        requests: requests.map((request) => ({ ...request })),
        balance: toMajorUnits(balanceMinor, balanceCurrency),
      };
    },
    complete(transactionReference, outcome = {}) {
      const transaction = transactions.get(transactionReference);
      if (!transaction) throw new Error(`The simulator has no transaction ${transactionReference}.`);
      const status = outcome.status ?? 'PAID';
      const paidMinor =
        outcome.amountPaid !== undefined
          ? toMinorUnits(outcome.amountPaid, transaction.currency)
          : status === 'PAID' || status === 'OVERPAID'
            ? transaction.amountMinor
            : 0;
      transaction.paymentStatus = status;
      transaction.amountPaidMinor = paidMinor;
      transaction.refundableMinor = status === 'PAID' || status === 'OVERPAID' ? paidMinor : 0;
      transaction.paidOn = paidMinor > 0 ? providerTime() : undefined;
      return transactionView(transaction, outcome.paymentMethod ?? transaction.paymentMethods[0] ?? 'CARD');
    },
    completeRefund(refundReference, outcome = {}) {
      const refund = refunds.get(refundReference);
      if (!refund) throw new Error(`The simulator has no refund ${refundReference}.`);
      if (refund.refundStatus !== 'IN_PROGRESS')
        throw new Error(`Refund ${refundReference} is already ${refund.refundStatus}.`);
      refund.refundStatus = outcome.status ?? 'COMPLETED';
      refund.completedOn = providerTime();
      if (refund.refundStatus === 'FAILED') {
        const transaction = transactions.get(refund.transactionReference);
        if (transaction) transaction.refundableMinor += refund.amountMinor;
        balanceMinor += refund.amountMinor;
      }
      // Refund webhooks name the reason `merchantReason` (the provider's published examples), not refundReason.
      const { refundReason, ...webhookBody } = refundView(refund);
      return { merchantReason: refundReason, ...webhookBody };
    },
    settle(transactionReferences) {
      settlements += 1;
      let totalMinor = 0;
      const settled = transactionReferences.map((reference) => {
        const transaction = transactions.get(reference);
        if (!transaction || transaction.amountPaidMinor === 0) {
          throw new Error(`The simulator has no paid transaction ${reference} to settle.`);
        }
        totalMinor += transaction.amountPaidMinor;
        const { currency } = transaction;
        // The published SETTLEMENT shape: amounts as strings, no per-transaction `amount`.
        return {
          transactionReference: transaction.transactionReference,
          paymentReference: transaction.paymentReference,
          paidOn: transaction.paidOn ?? providerTime(),
          paymentDescription: transaction.paymentDescription,
          amountPaid: decimalString(transaction.amountPaidMinor, currency),
          totalPayable: decimalString(transaction.amountMinor, currency),
          paymentMethod: transaction.paymentMethods[0] ?? 'CARD',
          currency,
          paymentStatus: transaction.paymentStatus,
          customer: { name: transaction.customerName ?? '', email: transaction.customerEmail },
        };
      });
      return {
        amount: decimalString(totalMinor, balanceCurrency),
        settlementTime: providerTime(),
        settlementReference: `SETL-${String(settlements).padStart(6, '0')}`,
        transactionsCount: settled.length,
        transactions: settled,
      };
    },
    rejectPayment(transactionReference, rejection) {
      const transaction = transactions.get(transactionReference);
      if (!transaction) throw new Error(`The simulator has no transaction ${transactionReference}.`);
      const { currency } = transaction;
      // The provider returns a rejected payment to the payer: nothing is held, the transaction stays unpaid.
      return {
        metaData: JSON.stringify(transaction.metaData),
        amount: toMajorUnits(transaction.amountMinor, currency),
        paymentSourceInformation: { amountPaid: rejection.amountSent, accountName: 'SIMULATED PAYER' },
        transactionReference: transaction.transactionReference,
        created_on: providerTime(),
        paymentReference: transaction.paymentReference,
        paymentRejectionInformation: {
          rejectionReason: rejection.reason ?? 'UNDER_PAYMENT',
          expectedAmount: toMajorUnits(transaction.amountMinor, currency),
        },
        paymentDescription: transaction.paymentDescription,
        customer: { name: transaction.customerName ?? '', email: transaction.customerEmail },
      };
    },
    expireTokens() {
      tokens.clear();
    },
    async deliverWebhook(url, payload, deliveryOptions = {}) {
      const body = JSON.stringify(payload);
      const signature =
        deliveryOptions.signature ?? (await signProviderNWebhook(body, credentials.webhookSecret));
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...deliveryOptions.headers,
          'providerN-signature': signature,
        },
        body,
      });
      await response.arrayBuffer();
      return response.status;
    },
  };
}
