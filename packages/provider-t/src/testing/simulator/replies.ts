/**
 * How the Provider T simulator answers (docs/providers/provider-t.md#errors, docs/providers/provider-t.md#transfer, docs/providers/provider-t.md#status): reply values, the error
 * envelope, money and date formats, required-field checks and the provider's fixed tables.
 */
import { randomBytes } from 'node:crypto';
import { toMajorUnits, toMinorUnits } from '@pay/core/adapter';
import type { SimulatedTransfer } from './types.js';

/** A reply computed before it is sent, so a fault can drop or corrupt it after the state changed. */
export type Reply = { status: number; body: string; headers?: Record<string, string> };
/** A parsed JSON body. */
export type Json = Record<string, unknown>;

/** Fees and FX are locked for 30 minutes after a quote (docs/providers/provider-t.md#quote). */
export const QUOTE_LOCK_MS = 30 * 60 * 1000;
/** The commit receipt link is valid 5 minutes (docs/providers/provider-t.md#commit). */
export const RECEIPT_LIFETIME_MS = 5 * 60 * 1000;
/** Refunds are possible within 90 days of the send date (docs/providers/provider-t.md#refunds). */
export const REFUND_WINDOW_MS = 90 * 24 * 60 * 60 * 1000;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const REFUND_REASON_CODES = new Set([
  'CUSTOMER_REQUEST',
  'INCORRECT_AMT',
  'WRONG_RECEIVER',
  'DUPLICATE_TRANSACTION',
  'OTHER',
]);
/** Statuses after which the receiver name can no longer change, nor the transfer be refunded. */
export const FINAL_STATUSES = new Set<string>(['RECEIVED', 'DELIVERED', 'REJECTED', 'REFUNDED', 'CLOSED']);
/** Receive currency and FX rate per destination; others receive the send currency at 1. */
export const CORRIDORS: ReadonlyMap<string, { currency: string; fxRate: number }> = new Map([
  ['MEX', { currency: 'MXN', fxRate: 17.25 }],
  ['PHL', { currency: 'PHP', fxRate: 56.1 }],
  ['IND', { currency: 'INR', fxRate: 83.2 }],
  ['GBR', { currency: 'GBP', fxRate: 0.79 }],
  ['NGA', { currency: 'NGN', fxRate: 1520 }],
]);
/** Service options offered, by code, with the name the provider shows. */
export const SERVICE_OPTIONS: ReadonlyMap<string, string> = new Map([
  ['WILL_CALL', '10 Minute Service'],
  ['BANK_DEPOSIT', 'Bank Deposit'],
]);
/** Above this send amount the update also requires `transactionInformation.proofOfFundsCode`. */
export const PROOF_OF_FUNDS_THRESHOLD = 3000;

export const SENDER_FIELDS = [
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
export const RECEIVER_FIELDS = ['name.firstName', 'name.lastName'] as const;
export const COMPLIANCE_FIELDS = ['purposeOfTransactionCode', 'sourceOfFundsCode'] as const;

/** A JSON reply. */
export const json = (status: number, body: unknown): Reply => ({ status, body: JSON.stringify(body) });

/** The provider's error envelope (docs/providers/provider-t.md#errors). */
export function providerError(
  status: number,
  code: string,
  message: string,
  offendingFields: string[] = [],
): Reply {
  return json(status, {
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
}

/** The sandbox answers an unknown transaction id with 400 and code "697" (test/fixtures/status-unknown-697.json). */
export const notFound = (): Reply =>
  json(400, { errors: [{ category: 'IP-20000', code: '697', message: 'Invalid Transaction ID' }] });

/** `count` random decimal digits (reference numbers, amend and refund ids). */
export const digits = (count: number) => Array.from(randomBytes(count), (byte) => String(byte % 10)).join('');
/** `"2026-11-22T10:15:30.123"`: UTC without a zone, as Provider T writes dates. */
export const providerDate = (ms: number) => new Date(ms).toISOString().replace('Z', '');
/** A wire money value. */
export const money = (value: number, currencyCode: string) => ({ value, currencyCode });

/** Dotted paths of `required` missing or empty in `value`. */
export function missingFields(value: unknown, required: readonly string[], prefix: string): string[] {
  return required
    .filter((field) => {
      const found = field.split('.').reduce<unknown>((node, key) => (node as Json | undefined)?.[key], value);
      return typeof found !== 'string' || found.trim() === '';
    })
    .map((field) => `${prefix}.${field}`);
}

/** The send and receive breakdown of a transfer, as the quote, update and status replies carry it. */
export function amounts(transfer: SimulatedTransfer) {
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

/**
 * The identity check of every transfer, refund and amend call (docs/providers/provider-t.md#identity-fields): the fields are
 * present (`operatorId` on transfer calls too) and the agent partner is the simulator's.
 */
export function identityError(
  identity: Json | URLSearchParams,
  transferCall: boolean,
  agentPartnerId: string,
): Reply | undefined {
  const read = (name: string) => (identity instanceof URLSearchParams ? identity.get(name) : identity[name]);
  const missing = [
    'targetAudience',
    'agentPartnerId',
    'userLanguage',
    ...(transferCall ? ['operatorId'] : []),
  ].filter((name) => typeof read(name) !== 'string' || read(name) === '');
  if (missing.length > 0)
    return providerError(400, 'MISSING_REQUIRED_FIELDS', 'Identity fields are missing', missing);
  if (read('agentPartnerId') !== agentPartnerId) {
    return providerError(
      403,
      'INVALID_AGENT_PARTNER',
      'The agent partner id is not authorised for this client',
    );
  }
  return undefined;
}
