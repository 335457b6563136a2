/**
 * A Provider T simulator: a real HTTP server on 127.0.0.1 implementing the wire contract with state — OAuth
 * tokens that expire, quotes with fees, FX and the 30-minute lock, updates that enforce sender, receiver and
 * compliance data, commits replayed by `X-Client-Request-Id`, status, amendments, refunds — plus controls that
 * move a transfer, a clock that can be advanced, signed webhook delivery, and fault injection on every route.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { minorDigits, toMajorUnits, toMinorUnits } from '@pay/core';
import { FaultInjector, readRequestBody, startLoopbackServer } from '@pay/core/testing';
import { TRANSACTION_STATUSES, type TransactionStatus } from '../wire.js';
import {
  generateProviderTKeyPair,
  type ProviderTKeyPair,
  providerTStatusEvent,
  signProviderTWebhook,
} from './signing.js';

/** The credentials the simulator accepts by default. */
export const PROVIDER_T_SIMULATOR_CREDENTIALS = {
  clientId: 'sim-client-4d21',
  clientSecret: 'sim-secret-9b7e55c3',
  agentPartnerId: '30014857',
  operatorId: 'sim-operator',
} as const;

/** Credentials of a simulator: what `createProviderT` takes. */
export interface ProviderTSimulatorCredentials {
  clientId: string;
  clientSecret: string;
  agentPartnerId: string;
  operatorId: string;
}

/** Options of {@link startProviderTSimulator}. */
export interface ProviderTSimulatorOptions {
  credentials?: Partial<ProviderTSimulatorCredentials>;
  /** Lifetime of access tokens in seconds (default 3599). */
  tokenLifetimeSeconds?: number;
  /** The simulator's clock in milliseconds (default `Date.now`); `advanceTime()` moves it further. */
  now?: () => number;
  /** Key pair webhooks are signed with (default: generated at start). */
  keyPair?: ProviderTKeyPair;
}

/** A transfer as the simulator holds it. */
export interface SimulatedTransfer {
  transactionId: string;
  /** `QUOTED` → `READY` (update accepted) → a transaction status once committed. */
  status: 'QUOTED' | 'READY' | TransactionStatus;
  committed: boolean;
  destinationCountryCode: string;
  serviceOptionCode: string;
  sendAmount: { value: number; currencyCode: string };
  fees: { value: number; currencyCode: string };
  receiveAmount: { value: number; currencyCode: string; fxRate: number };
  quotedAt: number;
  /** Fees and FX are locked until then (30 minutes after the quote). */
  lockExpiresAt: number;
  sender: Record<string, unknown> | undefined;
  receiver: { name: Record<string, string | undefined>; [field: string]: unknown } | undefined;
  additionalDetails: Record<string, string> | undefined;
  referenceNumber: string | undefined;
  expectedPayoutDate: string | undefined;
  committedAt: number | undefined;
}

/** A refund the simulator committed. */
export interface SimulatedRefund {
  refundId: string;
  transactionId: string;
  amount: { value: number; currencyCode: string };
  refundReasonCode: string;
}

/**
 * One movement of money in the simulator's books: a committed transfer or a committed refund, with the
 * `X-Client-Request-Id` of the commit that moved it. A replayed commit adds nothing.
 */
export interface SimulatedMovement {
  kind: 'transfer' | 'refund';
  transactionId: string;
  amount: { value: number; currencyCode: string };
  requestId: string;
}

/** One request the simulator received (faulted ones included). */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body: string;
  /** The `X-Client-Request-Id` sent, the same on every retry of one call. */
  requestId: string | undefined;
}

/** Options of `deliverWebhook`. */
export interface DeliverWebhookOptions {
  transactionId: string;
  /** Push this status instead of the transfer's current one. */
  status?: string;
  eventId?: string;
  /** The host to sign (default: the URL's). A different one makes a wrong-host delivery. */
  host?: string;
  /** Unix seconds of the signature (default: the simulator's clock). An old one makes a stale delivery. */
  timestamp?: number;
  /** Sign with this key instead of the simulator's (a forgery). */
  privateKey?: string;
}

/** A running simulator. */
export interface ProviderTSimulator {
  /** Base URL to pass as the adapter's `baseUrl`. */
  readonly url: string;
  /** The credentials it accepts. */
  readonly credentials: ProviderTSimulatorCredentials;
  /** Its webhook public key (SPKI DER, base64): pass it as `webhookPublicKey`. */
  readonly publicKey: string;
  /** Its webhook private key (PEM), for `signProviderTWebhook` in your own tests. */
  readonly privateKey: string;
  /** Everything `createProviderT` needs to talk to this simulator: spread it and add `retry`, `hooks`, …. */
  readonly adapterConfig: ProviderTSimulatorCredentials & {
    isSandbox: true;
    baseUrl: string;
    webhookPublicKey: string;
  };
  /** Arm faults: `faults.inject({ method, path, times, fault })`, paths as on the wire (RegExp allowed). */
  readonly faults: FaultInjector;
  /** Copies of every transfer, in quote order. */
  readonly transfers: readonly SimulatedTransfer[];
  /** Number of quotes made. */
  readonly quotes: number;
  /** Number of committed transfers. */
  readonly committedTransfers: number;
  /** Every committed refund. */
  readonly refunds: readonly SimulatedRefund[];
  /** The books: every movement of money (transfer commit, refund commit) in order; replays add none. */
  readonly movements: readonly SimulatedMovement[];
  /** Number of mutations answered with the stored reply of an earlier request with the same request id. */
  readonly replays: number;
  /** Number of receiver-name amendments made. */
  readonly amendments: number;
  /** Number of access tokens issued. */
  readonly tokensIssued: number;
  /** Every request received. */
  readonly requests: readonly RecordedRequest[];
  /** A copy of one transfer, or `undefined`. */
  transfer(transactionId: string): SimulatedTransfer | undefined;
  /** Moves a committed transfer to `status` (e.g. `AVAILABLE`, `RECEIVED`, `REJECTED`). */
  setStatus(transactionId: string, status: TransactionStatus): void;
  /** Moves the simulator's clock forward (expire a quote lock, a token or a receipt link without waiting). */
  advanceTime(ms: number): void;
  /** Invalidates every access token, so the next call is answered 401. */
  expireTokens(): void;
  /**
   * POSTs a signed `TRANSACTION_STATUS_EVENT` for the transfer (its current status unless `status` is given)
   * to `url`; resolves with the reply's HTTP status. Pass the same `eventId` twice to make a redelivery.
   */
  deliverWebhook(url: string, options: DeliverWebhookOptions): Promise<number>;
  close(): Promise<void>;
}

type Reply = { status: number; body: string; headers?: Record<string, string> };
type Json = Record<string, unknown>;

const QUOTE_LOCK_MS = 30 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RECEIPT_LIFETIME_MS = 5 * 60 * 1000;
const REFUND_WINDOW_MS = 90 * 24 * 60 * 60 * 1000;
const REFUND_REASON_CODES = new Set([
  'CUSTOMER_REQUEST',
  'INCORRECT_AMT',
  'WRONG_RECEIVER',
  'DUPLICATE_TRANSACTION',
  'OTHER',
]);
/** Statuses after which the receiver name can no longer change, nor the transfer be refunded. */
const FINAL_STATUSES = new Set<string>(['RECEIVED', 'DELIVERED', 'REJECTED', 'REFUNDED', 'CLOSED']);
/** Receive currency and FX rate per destination; others receive the send currency at 1. */
const CORRIDORS: Record<string, { currency: string; fxRate: number }> = {
  MEX: { currency: 'MXN', fxRate: 17.25 },
  PHL: { currency: 'PHP', fxRate: 56.1 },
  IND: { currency: 'INR', fxRate: 83.2 },
  GBR: { currency: 'GBP', fxRate: 0.79 },
  NGA: { currency: 'NGN', fxRate: 1520 },
};
const SERVICE_OPTIONS: Record<string, string> = {
  WILL_CALL: '10 Minute Service',
  BANK_DEPOSIT: 'Bank Deposit',
};
/** Above this send amount the update also requires `transactionInformation.proofOfFundsCode`. */
const PROOF_OF_FUNDS_THRESHOLD = 3000;

const json = (status: number, body: unknown): Reply => ({ status, body: JSON.stringify(body) });
const providerError = (
  status: number,
  code: string,
  message: string,
  offendingFields: string[] = [],
): Reply =>
  json(status, {
    errors: [
      {
        category: status === 401 ? 'AUTHENTICATION' : 'VALIDATION',
        code,
        message,
        ...(offendingFields.length > 0
          ? { offendingFields: offendingFields.map((field) => ({ field })) }
          : {}),
      },
    ],
  });

const digits = (count: number) => Array.from(randomBytes(count), (byte) => String(byte % 10)).join('');
const providerDate = (ms: number) => new Date(ms).toISOString().replace('Z', '');
const money = (value: number, currencyCode: string) => ({ value, currencyCode });

/** Dotted paths of `required` missing or empty in `value`. */
function missingFields(value: unknown, required: readonly string[], prefix: string): string[] {
  return required
    .filter((field) => {
      const found = field.split('.').reduce<unknown>((node, key) => (node as Json | undefined)?.[key], value);
      return typeof found !== 'string' || found.trim() === '';
    })
    .map((field) => `${prefix}.${field}`);
}

const SENDER_FIELDS = [
  'name.firstName',
  'name.lastName',
  'address.line1',
  'address.city',
  'address.countryCode',
  'mobilePhone.number',
  'mobilePhone.countryDialCode',
  'personalDetails.dateOfBirth',
  'primaryIdentification.typeCode',
  'primaryIdentification.id',
  'primaryIdentification.issueCountryCode',
] as const;
const RECEIVER_FIELDS = ['name.firstName', 'name.lastName'] as const;
const COMPLIANCE_FIELDS = ['purposeOfTransactionCode', 'sourceOfFundsCode'] as const;

/** Starts a simulator on 127.0.0.1 with a free port. */
export async function startProviderTSimulator(
  options: ProviderTSimulatorOptions = {},
): Promise<ProviderTSimulator> {
  const credentials: ProviderTSimulatorCredentials = {
    ...PROVIDER_T_SIMULATOR_CREDENTIALS,
    ...options.credentials,
  };
  const keys = options.keyPair ?? generateProviderTKeyPair();
  const tokenLifetime = options.tokenLifetimeSeconds ?? 3599;
  const basic = `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`;
  let offset = 0;
  const now = () => (options.now ?? Date.now)() + offset;
  const faults = new FaultInjector();
  const transfers = new Map<string, SimulatedTransfer>();
  const refunds: SimulatedRefund[] = [];
  const movements: SimulatedMovement[] = [];
  let replays = 0;
  const requests: RecordedRequest[] = [];
  const tokens = new Map<string, number>();
  const replies = new Map<string, { method: string; path: string; reply: Reply }>();
  const amendIds = new Map<string, string>();
  const refundReads = new Map<string, { refundId: string; refundReasonCode: string; refundFee: boolean }>();
  const receipts = new Map<string, { transactionId: string; expiresAt: number }>();
  let quotes = 0;
  let committed = 0;
  let amendments = 0;
  let tokensIssued = 0;
  let baseUrl = '';

  function issueToken(query: URLSearchParams, headers: Record<string, string>): Reply {
    if (headers.authorization !== basic) {
      return json(401, {
        error: { category: 'AUTHENTICATION', code: 'INVALID_CLIENT', message: 'Invalid client credentials' },
      });
    }
    if (query.get('grant_type') !== 'client_credentials') {
      return json(400, {
        error: {
          category: 'VALIDATION',
          code: 'UNSUPPORTED_GRANT_TYPE',
          message: 'grant_type must be client_credentials',
        },
      });
    }
    const token = randomBytes(18).toString('base64url');
    tokens.set(token, now() + tokenLifetime * 1000);
    tokensIssued += 1;
    // As the sandbox sends it (test/fixtures/token.json): numbers as strings, and more fields than read.
    return json(200, {
      token_type: 'BearerToken',
      issued_at: String(now()),
      access_token: token,
      expires_in: String(tokenLifetime),
      refresh_count: '0',
      status: 'approved',
    });
  }

  function authorised(headers: Record<string, string>): boolean {
    const token = headers.authorization?.startsWith('Bearer ') ? headers.authorization.slice(7) : undefined;
    const expiry = token === undefined ? undefined : tokens.get(token);
    return expiry !== undefined && expiry > now();
  }

  /** Identity check: the agent partner must be ours; transfer calls also name an operator. */
  function identityError(identity: Json | URLSearchParams, transferCall: boolean): Reply | undefined {
    const read = (name: string) =>
      identity instanceof URLSearchParams ? identity.get(name) : identity[name];
    const missing = [
      'targetAudience',
      'agentPartnerId',
      'userLanguage',
      ...(transferCall ? ['operatorId'] : []),
    ].filter((name) => typeof read(name) !== 'string' || read(name) === '');
    if (missing.length > 0)
      return providerError(400, 'MISSING_REQUIRED_FIELDS', 'Identity fields are missing', missing);
    if (read('agentPartnerId') !== credentials.agentPartnerId) {
      return providerError(
        403,
        'INVALID_AGENT_PARTNER',
        'The agent partner id is not authorised for this client',
      );
    }
    return undefined;
  }

  function committedTransfer(transactionId: string): SimulatedTransfer | undefined {
    const transfer = transfers.get(transactionId);
    return transfer?.committed ? transfer : undefined;
  }

  // The sandbox answers an unknown transaction id with 400 and code "697" (test/fixtures/status-unknown-697.json).
  const notFound = (): Reply =>
    json(400, { errors: [{ category: 'IP-20000', code: '697', message: 'Invalid Transaction ID' }] });

  function quote(body: Json): Reply {
    const invalid = identityError(body, true);
    if (invalid) return invalid;
    const sendAmount = body.sendAmount as { value?: unknown; currencyCode?: unknown } | undefined;
    const destination = body.destinationCountryCode;
    const offending = [
      ...(typeof destination === 'string' && /^[A-Z]{3}$/.test(destination)
        ? []
        : ['destinationCountryCode']),
      ...(typeof sendAmount?.value === 'number' && sendAmount.value > 0 ? [] : ['sendAmount.value']),
      ...(typeof sendAmount?.currencyCode === 'string' && /^[A-Z]{3}$/.test(sendAmount.currencyCode)
        ? []
        : ['sendAmount.currencyCode']),
    ];
    if (offending.length > 0)
      return providerError(400, 'INVALID_REQUEST', 'The quote request is invalid', offending);
    const currency = sendAmount?.currencyCode as string;
    const value = sendAmount?.value as number;
    const serviceOptionCode =
      typeof body.serviceOptionCode === 'string' ? body.serviceOptionCode : 'WILL_CALL';
    if (!SERVICE_OPTIONS[serviceOptionCode]) {
      return providerError(400, 'INVALID_SERVICE_OPTION', 'The service option is not offered', [
        'serviceOptionCode',
      ]);
    }
    let sendMinor: number;
    try {
      sendMinor = toMinorUnits(value, currency);
    } catch {
      return providerError(400, 'INVALID_AMOUNT', 'The amount has too many decimals', ['sendAmount.value']);
    }
    const corridor = CORRIDORS[destination as string] ?? { currency, fxRate: 1 };
    const receiveCurrency =
      typeof body.receiveCurrencyCode === 'string' ? body.receiveCurrencyCode : corridor.currency;
    const fxRate = receiveCurrency === currency ? 1 : corridor.fxRate;
    // Fee: 2.99 plus 1% of the amount, in minor units (never float arithmetic on the amount itself).
    const feeMinor = Math.round(2.99 * 10 ** minorDigits(currency)) + Math.round(sendMinor / 100);
    const receiveMinor = Math.round(
      (sendMinor / 10 ** minorDigits(currency)) * fxRate * 10 ** minorDigits(receiveCurrency),
    );
    const transfer: SimulatedTransfer = {
      transactionId: randomUUID(),
      status: 'QUOTED',
      committed: false,
      destinationCountryCode: destination as string,
      serviceOptionCode,
      sendAmount: money(value, currency),
      fees: money(toMajorUnits(feeMinor, currency), currency),
      receiveAmount: {
        value: toMajorUnits(receiveMinor, receiveCurrency),
        currencyCode: receiveCurrency,
        fxRate,
      },
      quotedAt: now(),
      lockExpiresAt: now() + QUOTE_LOCK_MS,
      sender: undefined,
      receiver: undefined,
      additionalDetails: undefined,
      referenceNumber: undefined,
      expectedPayoutDate: undefined,
      committedAt: undefined,
    };
    transfers.set(transfer.transactionId, transfer);
    quotes += 1;
    return json(200, {
      transactions: [
        {
          transactionId: transfer.transactionId,
          serviceOptionCode,
          serviceOptionName: SERVICE_OPTIONS[serviceOptionCode],
          estimatedDelivery: 'A Few Minutes',
          ...amounts(transfer),
        },
      ],
    });
  }

  function amounts(transfer: SimulatedTransfer) {
    const { currencyCode } = transfer.sendAmount;
    const totalMinor =
      toMinorUnits(transfer.sendAmount.value, currencyCode) + toMinorUnits(transfer.fees.value, currencyCode);
    return {
      sendAmount: {
        amount: transfer.sendAmount,
        fees: transfer.fees,
        taxes: money(0, currencyCode),
        total: money(toMajorUnits(totalMinor, currencyCode), currencyCode),
      },
      receiveAmount: {
        amount: money(transfer.receiveAmount.value, transfer.receiveAmount.currencyCode),
        fees: money(0, transfer.receiveAmount.currencyCode),
        total: money(transfer.receiveAmount.value, transfer.receiveAmount.currencyCode),
        fxRate: transfer.receiveAmount.fxRate,
        fxRateEstimated: false,
      },
    };
  }

  function update(transactionId: string, body: Json): Reply {
    const transfer = transfers.get(transactionId);
    if (!transfer) return notFound();
    const invalid = identityError(body, true);
    if (invalid) return invalid;
    if (transfer.committed)
      return providerError(400, 'TRANSACTION_ALREADY_COMMITTED', 'The transaction is already committed');
    if (transfer.lockExpiresAt <= now())
      return providerError(400, 'QUOTE_EXPIRED', 'The quote has expired; request a new quote');
    const sendAmount = body.sendAmount as { value?: unknown; currencyCode?: unknown } | undefined;
    if (
      sendAmount?.value !== transfer.sendAmount.value ||
      sendAmount?.currencyCode !== transfer.sendAmount.currencyCode ||
      body.serviceOptionCode !== transfer.serviceOptionCode
    ) {
      return providerError(400, 'QUOTE_MISMATCH', 'The amount or service option differs from the quote', [
        'sendAmount',
        'serviceOptionCode',
      ]);
    }
    const compliance = [
      ...COMPLIANCE_FIELDS,
      ...(transfer.sendAmount.value >= PROOF_OF_FUNDS_THRESHOLD ? ['proofOfFundsCode'] : []),
    ];
    const offending = [
      ...missingFields(body.sender, SENDER_FIELDS, 'sender'),
      ...missingFields(body.receiver, RECEIVER_FIELDS, 'receiver'),
      ...missingFields(body.transactionInformation, compliance, 'transactionInformation'),
    ];
    if (offending.length > 0) {
      return providerError(
        400,
        'MISSING_REQUIRED_FIELDS',
        'Sender, receiver or compliance data is incomplete',
        offending,
      );
    }
    transfer.sender = body.sender as Json;
    transfer.receiver = body.receiver as SimulatedTransfer['receiver'];
    transfer.additionalDetails = body.additionalDetails as Record<string, string> | undefined;
    transfer.status = 'READY';
    return json(200, {
      readyForCommit: true,
      transactionId,
      serviceOptionCode: transfer.serviceOptionCode,
      serviceOptionName: SERVICE_OPTIONS[transfer.serviceOptionCode],
      ...amounts(transfer),
      preCommitReceipt: { consumerHyperLink: `${baseUrl}/receipts/pre-${transactionId}` },
      ...(transfer.additionalDetails ? { additionalDetails: transfer.additionalDetails } : {}),
    });
  }

  function commit(transactionId: string, body: Json, requestId: string): Reply {
    const transfer = transfers.get(transactionId);
    if (!transfer) return notFound();
    const invalid = identityError(body, true);
    if (invalid) return invalid;
    if (transfer.committed)
      return providerError(400, 'TRANSACTION_ALREADY_COMMITTED', 'The transaction is already committed');
    if (transfer.status !== 'READY')
      return providerError(400, 'TRANSACTION_NOT_READY', 'Update the transaction before committing it');
    if (transfer.lockExpiresAt <= now())
      return providerError(400, 'QUOTE_EXPIRED', 'The quote has expired; request a new quote');
    transfer.committed = true;
    transfer.status = 'SENT';
    transfer.committedAt = now();
    transfer.referenceNumber = digits(8);
    transfer.expectedPayoutDate = new Date(now() + 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    committed += 1;
    movements.push({ kind: 'transfer', transactionId, amount: { ...transfer.sendAmount }, requestId });
    const token = randomBytes(12).toString('base64url');
    receipts.set(token, { transactionId, expiresAt: now() + RECEIPT_LIFETIME_MS });
    return json(200, {
      referenceNumber: transfer.referenceNumber,
      expectedPayoutDate: transfer.expectedPayoutDate,
      commitReceipt: { consumerHyperLink: `${baseUrl}/receipts/${token}` },
    });
  }

  function status(transactionId: string, query: URLSearchParams): Reply {
    const invalid = identityError(query, false);
    if (invalid) return invalid;
    const transfer = committedTransfer(transactionId);
    if (!transfer) return notFound();
    const { sendAmount, receiveAmount } = amounts(transfer);
    return json(200, {
      transactionId,
      referenceNumber: transfer.referenceNumber,
      transactionSendDateTime: providerDate(transfer.committedAt ?? now()),
      expectedPayoutDate: transfer.expectedPayoutDate,
      transactionStatus: transfer.status,
      transactionSubStatus: [],
      originatingCountryCode: 'USA',
      destinationCountryCode: transfer.destinationCountryCode,
      serviceOptionCode: transfer.serviceOptionCode,
      serviceOptionName: SERVICE_OPTIONS[transfer.serviceOptionCode],
      sendAmount: { amount: sendAmount.amount, fees: sendAmount.fees, total: sendAmount.total },
      receiveAmount,
      sender: { name: (transfer.sender as { name?: unknown } | undefined)?.name },
      receiver: { name: transfer.receiver?.name },
      ...(transfer.additionalDetails ? { additionalDetails: transfer.additionalDetails } : {}),
    });
  }

  function amendRead(transactionId: string, query: URLSearchParams): Reply {
    const invalid = identityError(query, false);
    if (invalid) return invalid;
    const transfer = committedTransfer(transactionId);
    if (!transfer) return notFound();
    const amendId = `amd-${digits(6)}`;
    amendIds.set(transactionId, amendId);
    return json(200, {
      amendId,
      transactionId,
      amendable: !FINAL_STATUSES.has(transfer.status),
      receiver: { name: transfer.receiver?.name },
    });
  }

  function amendName(transactionId: string, body: Json): Reply {
    const invalid = identityError(body, false);
    if (invalid) return invalid;
    const transfer = committedTransfer(transactionId);
    if (!transfer) return notFound();
    if (body.amendId === undefined || body.amendId !== amendIds.get(transactionId)) {
      return providerError(
        400,
        'INVALID_AMEND_ID',
        'Read the amendment first; the amendId is unknown or stale',
        ['amendId'],
      );
    }
    if (FINAL_STATUSES.has(transfer.status))
      return providerError(400, 'NOT_AMENDABLE', 'The transaction can no longer be amended');
    const offending = missingFields(
      body.name,
      RECEIVER_FIELDS.map((field) => field.slice('name.'.length)),
      'name',
    );
    if (offending.length > 0)
      return providerError(400, 'MISSING_REQUIRED_FIELDS', 'First and last name are required', offending);
    const name = body.name as Record<string, string | undefined>;
    transfer.receiver = { ...transfer.receiver, name };
    amendIds.delete(transactionId);
    amendments += 1;
    return json(200, { amendSuccess: true });
  }

  function refundable(transfer: SimulatedTransfer): boolean {
    return !FINAL_STATUSES.has(transfer.status) && now() - (transfer.committedAt ?? 0) <= REFUND_WINDOW_MS;
  }

  function refundRead(transactionId: string, query: URLSearchParams): Reply {
    const invalid = identityError(query, false);
    if (invalid) return invalid;
    const reason = query.get('refundReasonCode');
    if (!reason || !REFUND_REASON_CODES.has(reason)) {
      return providerError(400, 'INVALID_REFUND_REASON', 'refundReasonCode is missing or unknown', [
        'refundReasonCode',
      ]);
    }
    const transfer = committedTransfer(transactionId);
    if (!transfer) return notFound();
    const refundFee = query.get('refundFee') === 'true';
    const refundId = `rfd-${digits(8)}`;
    refundReads.set(transactionId, { refundId, refundReasonCode: reason, refundFee });
    const { currencyCode } = transfer.sendAmount;
    const fees = refundFee ? transfer.fees : money(0, currencyCode);
    const totalMinor =
      toMinorUnits(transfer.sendAmount.value, currencyCode) + toMinorUnits(fees.value, currencyCode);
    return json(200, {
      transactionId,
      refundId,
      transactionStatus: transfer.status,
      availableForRefund: refundable(transfer),
      sendAmount: amounts(transfer).sendAmount,
      refundAmount: {
        amount: transfer.sendAmount,
        fees,
        total: money(toMajorUnits(totalMinor, currencyCode), currencyCode),
      },
    });
  }

  function refundCommit(transactionId: string, body: Json, requestId: string): Reply {
    const invalid = identityError(body, false);
    if (invalid) return invalid;
    const transfer = committedTransfer(transactionId);
    if (!transfer) return notFound();
    if (
      refunds.some((refund) => refund.transactionId === transactionId && refund.refundId === body.refundId)
    ) {
      // A second commit of a committed refund with a new request id (wire contract, as for transfers).
      return providerError(400, 'TRANSACTION_ALREADY_COMMITTED', 'The refund is already committed');
    }
    const read = refundReads.get(transactionId);
    if (!read || body.refundId !== read.refundId) {
      return providerError(
        400,
        'INVALID_REFUND_ID',
        'Read the refund first; the refundId is unknown or stale',
        ['refundId'],
      );
    }
    if (!refundable(transfer))
      return providerError(400, 'NOT_AVAILABLE_FOR_REFUND', 'The transaction cannot be refunded');
    transfer.status = 'REFUNDED';
    refundReads.delete(transactionId);
    refunds.push({
      refundId: read.refundId,
      transactionId,
      amount: transfer.sendAmount,
      refundReasonCode: read.refundReasonCode,
    });
    movements.push({ kind: 'refund', transactionId, amount: { ...transfer.sendAmount }, requestId });
    return json(200, {
      referenceNumber: transfer.referenceNumber,
      expectedPayoutDate: new Date(now()).toISOString().slice(0, 10),
      commitReceipt: { hyperlink: `${baseUrl}/receipts/refund-${read.refundId}` },
    });
  }

  function receipt(token: string): Reply {
    const found = receipts.get(token);
    if (!found || found.expiresAt <= now())
      return providerError(410, 'RECEIPT_EXPIRED', 'The receipt link has expired');
    const transfer = transfers.get(found.transactionId);
    return json(200, {
      transactionId: found.transactionId,
      referenceNumber: transfer?.referenceNumber,
      status: transfer?.status,
    });
  }

  /** Routes a call the token check has passed. Mutations are replayed by request id (wire contract). */
  function route(
    method: string,
    path: string,
    query: URLSearchParams,
    headers: Record<string, string>,
    text: string,
  ): Reply {
    const requestId = headers['x-client-request-id'];
    if (!requestId) return providerError(400, 'MISSING_REQUEST_ID', 'X-Client-Request-Id is required');
    // The wire contract's request id is a UUID ("Authentication"): anything else is refused, so an adapter that
    // sent a raw idempotency key would be caught here.
    if (!UUID.test(requestId))
      return providerError(400, 'INVALID_REQUEST_ID', 'X-Client-Request-Id must be a UUID', [
        'X-Client-Request-Id',
      ]);
    const segments = path.split('/').slice(1).map(decodeURIComponent);
    const [area, version, resource, id, action] = segments;
    if (method === 'GET') {
      if (area === 'status' && version === 'v1' && resource === 'transactions' && id && !action)
        return status(id, query);
      if (area === 'amend' && version === 'v1' && resource === 'transactions' && id && !action)
        return amendRead(id, query);
      if (area === 'refund' && version === 'v2' && resource === 'transactions' && id && !action)
        return refundRead(id, query);
      return providerError(404, 'NOT_FOUND', `No route for GET ${path}`);
    }
    // A repeated request id is the same request (wire contract "Authentication"): its original answer again,
    // never a second quote, commit or refund.
    const previous = replies.get(requestId);
    if (previous && previous.method === method && previous.path === path) {
      replays += 1;
      return previous.reply;
    }
    let body: Json;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      return providerError(400, 'INVALID_JSON', 'The body is not JSON');
    }
    const reply = mutate(method, segments, body, requestId);
    if (reply.status < 500) replies.set(requestId, { method, path, reply });
    return reply;
  }

  function mutate(method: string, segments: string[], body: Json, requestId: string): Reply {
    const [area, version, resource, id, action, detail] = segments;
    if (area === 'transfer' && version === 'v1' && resource === 'transactions') {
      if (method === 'POST' && id === 'quote' && !action) return quote(body);
      if (method === 'PUT' && id && !action) return update(id, body);
      if (method === 'PUT' && id && action === 'commit' && !detail) return commit(id, body, requestId);
    }
    if (
      method === 'PATCH' &&
      area === 'amend' &&
      version === 'v1' &&
      id &&
      action === 'receiver' &&
      detail === 'name'
    ) {
      return amendName(id, body);
    }
    if (method === 'PUT' && area === 'refund' && version === 'v2' && id && action === 'commit')
      return refundCommit(id, body, requestId);
    return providerError(404, 'NOT_FOUND', `No route for ${method} /${segments.join('/')}`);
  }

  async function listener(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const text = await readRequestBody(req);
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [
        name.toLowerCase(),
        Array.isArray(value) ? value.join(', ') : String(value),
      ]),
    );
    requests.push({
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: text,
      requestId: headers['x-client-request-id'],
    });
    await faults.run(req, res, async () => {
      if (method === 'GET' && url.pathname === '/oauth/accesstoken')
        return issueToken(url.searchParams, headers);
      if (method === 'GET' && url.pathname.startsWith('/receipts/'))
        return receipt(decodeURIComponent(url.pathname.slice(10)));
      if (!authorised(headers))
        return providerError(401, 'UNAUTHORIZED', 'The access token is missing, invalid or expired');
      return route(method, url.pathname, url.searchParams, headers, text);
    });
  }

  const server = await startLoopbackServer(listener);
  baseUrl = server.url;

  return {
    url: server.url,
    credentials,
    publicKey: keys.publicKey,
    privateKey: keys.privateKey,
    adapterConfig: { ...credentials, isSandbox: true, baseUrl: server.url, webhookPublicKey: keys.publicKey },
    faults,
    get transfers() {
      return [...transfers.values()].map((transfer) => structuredClone(transfer));
    },
    get quotes() {
      return quotes;
    },
    get committedTransfers() {
      return committed;
    },
    get refunds() {
      return refunds.map((refund) => structuredClone(refund));
    },
    get movements() {
      return movements.map((movement) => structuredClone(movement));
    },
    get replays() {
      return replays;
    },
    get amendments() {
      return amendments;
    },
    get tokensIssued() {
      return tokensIssued;
    },
    get requests() {
      return [...requests];
    },
    transfer(transactionId) {
      const transfer = transfers.get(transactionId);
      return transfer && structuredClone(transfer);
    },
    setStatus(transactionId, next) {
      const transfer = committedTransfer(transactionId);
      if (!transfer) throw new Error(`The simulator holds no committed transfer ${transactionId}.`);
      if (!(TRANSACTION_STATUSES as readonly string[]).includes(next))
        throw new Error(`${next} is not a Provider T status.`);
      transfer.status = next;
    },
    advanceTime(ms) {
      offset += ms;
    },
    expireTokens() {
      tokens.clear();
    },
    async deliverWebhook(url, delivery) {
      const transfer = transfers.get(delivery.transactionId);
      const event = providerTStatusEvent({
        transactionId: delivery.transactionId,
        transactionStatus: delivery.status ?? transfer?.status ?? 'SENT',
        eventId: delivery.eventId,
        eventDate: new Date(now()),
        agentPartnerId: credentials.agentPartnerId,
        referenceNumber: transfer?.referenceNumber,
      });
      const body = JSON.stringify(event);
      const signature = signProviderTWebhook({
        body,
        host: delivery.host ?? new URL(url).host,
        privateKey: delivery.privateKey ?? keys.privateKey,
        timestamp: delivery.timestamp ?? Math.floor(now() / 1000),
      });
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', Signature: signature },
        body,
      });
      await response.arrayBuffer();
      return response.status;
    },
    close: () => server.close(),
  };
}
