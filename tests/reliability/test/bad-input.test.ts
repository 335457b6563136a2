/**
 * Bad input (docs/architecture.md#test-suites, docs/architecture.md#records, docs/architecture.md#errors): every
 * supported operation of every adapter, called with missing, wrong-typed, negative, non-finite, over-precise,
 * too-long and unknown fields, rejects with a `ValidationError` whose `issues` name the field, and makes no
 * upstream call: each adapter gets an injected fetch that fails the test if it is ever called.
 */
import { type Operation, ValidationError } from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import { createProviderR } from '@pay/provider-r';
import { createProviderT } from '@pay/provider-t';
import { sampleTransferMetadata } from '@pay/provider-t/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { rejectionOf } from './support.js';

const upstream = vi.fn(async (..._args: unknown[]): Promise<Response> => {
  throw new Error('no upstream call may happen for bad input');
});
const fetchSpy = upstream as unknown as typeof fetch;
beforeEach(() => {
  upstream.mockClear();
});

// Hand-built configs on purpose (no simulator): every call must stop before the injected fetch, which fails the
// test if it is ever reached.
const transport = { baseUrl: 'http://127.0.0.1:9', fetch: fetchSpy, retry: 0 };
const providerR = createProviderR({
  merchant: '100001',
  secret: 'r-secret-value',
  isSandbox: true,
  ...transport,
});
const providerN = createProviderN({ apiKey: 'n-key', secretKey: 'n-secret', isSandbox: true, ...transport });
const providerT = createProviderT({
  clientId: 't-client',
  clientSecret: 't-secret',
  agentPartnerId: '30014857',
  operatorId: 'op-1',
  isSandbox: true,
  ...transport,
});

type Json = Record<string, unknown>;

/** A copy of `base` with the dotted `path` set to `value` (`undefined` removes it). */
function patched(base: Json, path: string, value: unknown): Json {
  const copy = structuredClone(base);
  const keys = path.split('.');
  const last = keys.pop() as string;
  let node = copy;
  for (const key of keys) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Json;
  }
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

const LONG = (n: number) => 'x'.repeat(n);

/** The usual bad values of an amount field, each with its label. */
function badAmounts(options: { overPrecise: number; zeroIsBad?: boolean }): [string, unknown][] {
  return [
    ['missing', undefined],
    ['wrong type (string)', '100'],
    ['wrong type (null)', null],
    ['negative', -1],
    ['non-finite (NaN)', Number.NaN],
    ['non-finite (Infinity)', Number.POSITIVE_INFINITY],
    ['over-precise', options.overPrecise],
    // No upper bound let these reach the wire in exponent notation (docs/architecture.md#money).
    ['too large (1e21)', 1e21],
    ['too large (Number.MAX_VALUE)', Number.MAX_VALUE],
    ...(options.zeroIsBad ? ([['zero', 0]] as [string, unknown][]) : []),
  ];
}

/** One bad call: the operation, a label, the call, and the issue paths the error must name. */
interface Case {
  provider: 'providerR' | 'providerN' | 'providerT';
  op: Operation | 'createCheckoutRedirect';
  label: string;
  call: () => Promise<unknown>;
  paths: string[];
}

/** Cases for one field of an object argument: each bad value replaces the field in `base`. */
function fieldCases(
  provider: Case['provider'],
  op: Case['op'],
  base: Json,
  field: string,
  values: [string, unknown][],
  call: (params: Json) => Promise<unknown>,
  path = field,
): Case[] {
  return values.map(([label, value]) => ({
    provider,
    op,
    label: `${field}: ${label}`,
    call: () => call(patched(base, field, value)),
    paths: [path],
  }));
}

/** Bad identifiers of operations that take one. */
function idCases(provider: Case['provider'], op: Operation, call: (id: unknown) => Promise<unknown>): Case[] {
  return (
    [
      ['missing', undefined],
      ['wrong type', 42],
      ['empty', ''],
      // As a path segment these collapse the URL (`retrievePayment('..')` read `/status/v1/`)
      // (docs/architecture.md#http-client).
      ['dot', '.'],
      ['dot-dot', '..'],
    ] as [string, unknown][]
  ).map(([label, id]) => ({ provider, op, label: `id: ${label}`, call: () => call(id), paths: ['id'] }));
}

const unknownField = (
  provider: Case['provider'],
  op: Case['op'],
  base: Json,
  field: string,
  call: (params: Json) => Promise<unknown>,
): Case => ({
  provider,
  op,
  label: `unknown field ${field}`,
  call: () => call(patched(base, field, 'surprise')),
  paths: [field],
});

/**
 * Metadata keys that JavaScript treats specially were silently dropped; they are refused by name
 * (docs/architecture.md#adapter-operations). The key is set with JSON.parse, the way it arrives from a request
 * body.
 */
function reservedKeyCases(
  provider: Case['provider'],
  op: Case['op'],
  base: Json,
  field: 'metadata' | 'provider_metadata',
  call: (params: Json) => Promise<unknown>,
): Case[] {
  return ['constructor', 'prototype', '__proto__'].map((key) => ({
    provider,
    op,
    label: `${field} key ${key}`,
    call: () => call({ ...base, [field]: { ...(base[field] as Json), ...JSON.parse(`{"${key}":"x"}`) } }),
    paths: [`${field}.${key}`],
  }));
}

// ------------------------------------------------------------------------------------------------ Provider R
const R = 'providerR' as const;
const rCheckout: Json = {
  customer: { email: 'payer@example.com' },
  item_id: 'order-1',
  amount: 250,
  currency: 'CZK',
  success_url: 'https://shop.example/paid',
  cancel_url: 'https://shop.example/cancelled',
};
const rPayment: Json = {
  customer: { id: 'c-1' },
  amount: 100,
  provider_metadata: { email: 'payer@example.com' },
};
const rRefund: Json = { payment_id: 'AB12-CD34-EF56', amount: 10 };
const rCheckoutCall = (params: Json) => providerR.createCheckout(params as never);
const rRedirectCall = (params: Json) => providerR.createCheckoutRedirect(params as never);
const rPaymentCall = (params: Json) => providerR.createPayment(params as never);
const rRefundCall = (params: Json) => providerR.createRefund(params as never);
const rCaptureCall = (params: Json) => providerR.capturePayment('AB12-CD34-EF56', params as never);
// Provider R takes amounts in the currency's standard unit (docs/architecture.md#money): CZK has two decimals, so
// a third one is finer than the minor unit the wire carries.
const rAmounts = badAmounts({ overPrecise: 100.005, zeroIsBad: true });
const badCurrencies: [string, unknown][] = [
  ['wrong type', 203],
  ['too long', 'CZKK'],
  ['not a code', 'C1K'],
];

const R_CASES: Case[] = [
  ...fieldCases(R, 'checkouts.create', rCheckout, 'amount', rAmounts, rCheckoutCall),
  ...fieldCases(
    R,
    'checkouts.create',
    rCheckout,
    'currency',
    [['missing', undefined], ...badCurrencies, ['unsupported', 'JPY']],
    rCheckoutCall,
  ),
  ...fieldCases(
    R,
    'checkouts.create',
    rCheckout,
    'success_url',
    [
      ['missing', undefined],
      ['not a URL', 'shop/paid'],
      ['wrong type', 1],
    ],
    rCheckoutCall,
  ),
  ...fieldCases(R, 'checkouts.create', rCheckout, 'cancel_url', [['missing', undefined]], rCheckoutCall),
  ...fieldCases(
    R,
    'checkouts.create',
    rCheckout,
    'customer',
    [
      ['missing', undefined],
      ['wrong type', 'payer@example.com'],
      ['bad e-mail', { email: 'nope' }],
    ],
    rCheckoutCall,
  ),
  ...fieldCases(
    R,
    'checkouts.create',
    rCheckout,
    'provider_metadata.label',
    [
      ['too long', LONG(17)],
      ['empty', ''],
      ['wrong type', 7],
    ],
    rCheckoutCall,
  ),
  ...fieldCases(R, 'checkouts.create', rCheckout, 'metadata.orderId', [['wrong type', 1001]], rCheckoutCall),
  ...fieldCases(
    R,
    'checkouts.create',
    rCheckout,
    'quantity',
    [
      ['over-precise', 1.5],
      ['negative', -2],
    ],
    rCheckoutCall,
  ),
  unknownField(R, 'checkouts.create', rCheckout, 'colour', rCheckoutCall),
  unknownField(R, 'checkouts.create', rCheckout, 'provider_metadata.labl', rCheckoutCall),
  ...fieldCases(R, 'createCheckoutRedirect', rCheckout, 'amount', rAmounts, rRedirectCall),
  unknownField(R, 'createCheckoutRedirect', rCheckout, 'colour', rRedirectCall),
  ...fieldCases(R, 'payments.create', rPayment, 'amount', rAmounts, rPaymentCall),
  ...fieldCases(
    R,
    'payments.create',
    rPayment,
    'currency',
    [...badCurrencies, ['unsupported', 'JPY']],
    rPaymentCall,
  ),
  ...fieldCases(
    R,
    'payments.create',
    rPayment,
    'customer',
    [
      ['missing', undefined],
      ['by e-mail', { email: 'a@b.cz' }],
      ['empty id', { id: '' }],
    ],
    rPaymentCall,
  ),
  ...fieldCases(
    R,
    'payments.create',
    rPayment,
    'provider_metadata.email',
    [
      ['missing', undefined],
      ['not an e-mail', 'payer'],
      ['wrong type', true],
    ],
    rPaymentCall,
  ),
  ...fieldCases(
    R,
    'payments.create',
    rPayment,
    'provider_metadata.paymentLabel',
    [['too long', LONG(17)]],
    rPaymentCall,
  ),
  ...fieldCases(
    R,
    'payments.create',
    rPayment,
    'item_id',
    [
      ['wrong type', 5],
      ['empty', '  '],
    ],
    rPaymentCall,
  ),
  unknownField(R, 'payments.create', rPayment, 'amount_minor', rPaymentCall),
  ...reservedKeyCases(R, 'payments.create', rPayment, 'metadata', rPaymentCall),
  ...reservedKeyCases(R, 'payments.create', rPayment, 'provider_metadata', rPaymentCall),
  unknownField(R, 'payments.create', rPayment, 'provider_metadata.mail', rPaymentCall),
  ...idCases(R, 'payments.retrieve', (id) => providerR.retrievePayment(id as never)),
  ...idCases(R, 'payments.capture', (id) => providerR.capturePayment(id as never, {})),
  ...fieldCases(
    R,
    'payments.capture',
    { amount: 5 },
    'amount',
    badAmounts({ overPrecise: 1.505, zeroIsBad: true }).slice(1),
    rCaptureCall,
  ),
  unknownField(R, 'payments.capture', {}, 'amout', rCaptureCall),
  unknownField(R, 'payments.capture', {}, 'provider_metadata.final', rCaptureCall),
  ...idCases(R, 'payments.cancel', (id) => providerR.cancelPayment(id as never)),
  ...fieldCases(
    R,
    'refunds.create',
    rRefund,
    'payment_id',
    [
      ['missing', undefined],
      ['wrong type', 7],
      ['empty', ''],
    ],
    rRefundCall,
  ),
  ...fieldCases(
    R,
    'refunds.create',
    rRefund,
    'amount',
    badAmounts({ overPrecise: 0.505, zeroIsBad: true }).slice(1),
    rRefundCall,
  ),
  ...fieldCases(R, 'refunds.create', rRefund, 'currency', badCurrencies, rRefundCall),
  ...fieldCases(R, 'refunds.create', rRefund, 'reason', [['wrong type', 12]], rRefundCall),
  ...fieldCases(
    R,
    'refunds.create',
    rRefund,
    'provider_metadata.refId',
    [
      ['empty', ''],
      ['wrong type', 9],
    ],
    rRefundCall,
  ),
  unknownField(R, 'refunds.create', rRefund, 'refund_all', rRefundCall),
  ...fieldCases(
    R,
    'refunds.create',
    rRefund,
    'payment_id',
    [
      ['dot', '.'],
      ['dot-dot', '..'],
    ],
    rRefundCall,
  ),
];

// ------------------------------------------------------------------------------------------------ Provider N
const N = 'providerN' as const;
const nCheckout: Json = {
  customer: { email: 'ada@example.com' },
  provider_metadata: { amount: 5000, currency: 'NGN' },
};
const nRefund: Json = { payment_id: 'PN|20261122101530|000123', amount: 1000 };
const nCheckoutCall = (params: Json) => providerN.createCheckout(params as never);
const nRefundCall = (params: Json) => providerN.createRefund(params as never);
const majorAmounts = (overPrecise: number) => badAmounts({ overPrecise, zeroIsBad: true });

const N_CASES: Case[] = [
  ...fieldCases(
    N,
    'checkouts.create',
    nCheckout,
    'provider_metadata.amount',
    majorAmounts(10.001),
    nCheckoutCall,
  ),
  ...fieldCases(
    N,
    'checkouts.create',
    nCheckout,
    'provider_metadata.currency',
    [['missing', undefined], ...badCurrencies],
    nCheckoutCall,
  ),
  ...fieldCases(
    N,
    'checkouts.create',
    nCheckout,
    'amount',
    [['given at the top level', 5000]],
    nCheckoutCall,
  ),
  ...fieldCases(
    N,
    'checkouts.create',
    nCheckout,
    'customer',
    [
      ['missing', undefined],
      ['by id', { id: 'c-1' }],
    ],
    nCheckoutCall,
    'customer.email',
  ),
  ...fieldCases(
    N,
    'checkouts.create',
    nCheckout,
    'customer.email',
    [['not an e-mail', 'ada']],
    nCheckoutCall,
    'customer',
  ),
  ...fieldCases(
    N,
    'checkouts.create',
    nCheckout,
    'provider_metadata.customerName',
    [
      ['empty', ''],
      ['wrong type', 3],
    ],
    nCheckoutCall,
  ),
  ...fieldCases(
    N,
    'checkouts.create',
    nCheckout,
    'provider_metadata.paymentMethods',
    [
      ['empty', []],
      ['wrong type', 'CARD'],
    ],
    nCheckoutCall,
  ),
  ...fieldCases(N, 'checkouts.create', nCheckout, 'success_url', [['not a URL', 'thanks']], nCheckoutCall),
  unknownField(N, 'checkouts.create', nCheckout, 'provider_metadata.amountMinor', nCheckoutCall),
  unknownField(N, 'checkouts.create', nCheckout, 'redirect', nCheckoutCall),
  ...idCases(N, 'payments.retrieve', (id) => providerN.retrievePayment(id as never)),
  ...idCases(N, 'checkouts.retrieve', (id) => providerN.retrieveCheckout(id as never)),
  ...fieldCases(
    N,
    'refunds.create',
    nRefund,
    'payment_id',
    [
      ['missing', undefined],
      ['wrong type', 5],
    ],
    nRefundCall,
  ),
  ...fieldCases(N, 'refunds.create', nRefund, 'amount', majorAmounts(10.005), nRefundCall),
  ...fieldCases(N, 'refunds.create', nRefund, 'currency', badCurrencies, nRefundCall),
  ...fieldCases(
    N,
    'refunds.create',
    nRefund,
    'reason',
    [
      ['too long', LONG(65)],
      ['wrong type', 4],
    ],
    nRefundCall,
  ),
  ...fieldCases(
    N,
    'refunds.create',
    nRefund,
    'provider_metadata.refundReason',
    [['too long', LONG(65)]],
    nRefundCall,
  ),
  ...fieldCases(
    N,
    'refunds.create',
    nRefund,
    'provider_metadata.customerNote',
    [
      ['too long', LONG(17)],
      ['wrong type', 1],
    ],
    nRefundCall,
  ),
  ...fieldCases(
    N,
    'refunds.create',
    nRefund,
    'provider_metadata.currency',
    [['too long', 'NGNN']],
    nRefundCall,
  ),
  ...fieldCases(
    N,
    'refunds.create',
    nRefund,
    'provider_metadata.refundReference',
    [['reserved', 'mine']],
    nRefundCall,
  ),
  ...fieldCases(
    N,
    'refunds.create',
    nRefund,
    'provider_metadata.refundAmount',
    [['reserved', 10]],
    nRefundCall,
  ),
  ...fieldCases(
    N,
    'refunds.create',
    nRefund,
    'metadata',
    [['not stored by the provider', { a: 'b' }]],
    nRefundCall,
  ),
  unknownField(N, 'refunds.create', nRefund, 'refundAll', nRefundCall),
  ...fieldCases(N, 'refunds.create', nRefund, 'payment_id', [['dot-dot', '..']], nRefundCall),
  ...reservedKeyCases(N, 'checkouts.create', nCheckout, 'provider_metadata', nCheckoutCall),
  ...reservedKeyCases(N, 'refunds.create', nRefund, 'provider_metadata', nRefundCall),
];

// ------------------------------------------------------------------------------------------------ Provider T
const T = 'providerT' as const;
const transfer: Json = sampleTransferMetadata;
const tPayment: Json = { amount: 100, currency: 'USD', provider_metadata: transfer };
const tCheckout: Json = { provider_metadata: { ...transfer, amount: 100, currency: 'USD' } };
const tUpdate: Json = { provider_metadata: { receiverFirstName: 'José' } };
const tRefund: Json = { payment_id: '71a5cba1-6f8e-4bd0-9cc1-0e5e8b2a7a11' };
const tPaymentCall = (params: Json) => providerT.createPayment(params as never);
const tCheckoutCall = (params: Json) => providerT.createCheckout(params as never);
const tRefundCall = (params: Json) => providerT.createRefund(params as never);
const TX = '71a5cba1-6f8e-4bd0-9cc1-0e5e8b2a7a11';
const tUpdatePayment = (params: Json) => providerT.updatePayment(TX, params as never);
const tUpdateCheckout = (params: Json) => providerT.updateCheckout(TX, params as never);
const senderCases: [string, unknown, string][] = [
  ['sender missing', undefined, 'provider_metadata.sender'],
  ['sender last name missing', undefined, 'provider_metadata.sender.name.lastName'],
  ['sender first name wrong type', 42, 'provider_metadata.sender.name.firstName'],
  ['sender birth date not a date', '12/04/1985', 'provider_metadata.sender.personalDetails.dateOfBirth'],
  ['sender e-mail not an e-mail', 'maria', 'provider_metadata.sender.email'],
  ['receiver missing', undefined, 'provider_metadata.receiver'],
  ['receiver address city empty', ' ', 'provider_metadata.receiver.address.city'],
  ['destination too long', 'MEXX', 'provider_metadata.destinationCountryCode'],
  ['additionalDetails value wrong type', 7, 'provider_metadata.additionalDetails.orderId'],
];
const transferDataCases = (op: Operation, base: Json, call: (params: Json) => Promise<unknown>): Case[] =>
  senderCases.map(([label, value, path]) => ({
    provider: T,
    op,
    label,
    call: () => call(patched(base, path, value)),
    paths: [path],
  }));

const T_CASES: Case[] = [
  ...fieldCases(T, 'payments.create', tPayment, 'amount', majorAmounts(100.001), tPaymentCall),
  ...fieldCases(
    T,
    'payments.create',
    { ...tPayment, currency: 'JPY' },
    'amount',
    [['over-precise for JPY', 100.5]],
    tPaymentCall,
  ),
  ...fieldCases(
    T,
    'payments.create',
    tPayment,
    'currency',
    [['missing', undefined], ...badCurrencies],
    tPaymentCall,
  ),
  ...transferDataCases('payments.create', tPayment, tPaymentCall),
  unknownField(T, 'payments.create', tPayment, 'provider_metadata.senderName', tPaymentCall),
  unknownField(T, 'payments.create', tPayment, 'fee', tPaymentCall),
  ...fieldCases(
    T,
    'checkouts.create',
    tCheckout,
    'provider_metadata.amount',
    majorAmounts(100.001),
    tCheckoutCall,
  ),
  ...fieldCases(
    T,
    'checkouts.create',
    tCheckout,
    'provider_metadata.currency',
    [['missing', undefined], ...badCurrencies],
    tCheckoutCall,
  ),
  ...fieldCases(T, 'checkouts.create', tCheckout, 'amount', [['given at the top level', 100]], tCheckoutCall),
  ...transferDataCases('checkouts.create', tCheckout, tCheckoutCall),
  unknownField(T, 'checkouts.create', tCheckout, 'provider_metadata.amountMinor', tCheckoutCall),
  ...idCases(T, 'payments.retrieve', (id) => providerT.retrievePayment(id as never)),
  ...idCases(T, 'checkouts.retrieve', (id) => providerT.retrieveCheckout(id as never)),
  ...idCases(T, 'payments.update', (id) => providerT.updatePayment(id as never, tUpdate as never)),
  ...fieldCases(
    T,
    'payments.update',
    tUpdate,
    'provider_metadata.receiverFirstName',
    [
      ['empty', ''],
      ['wrong type', 5],
    ],
    tUpdatePayment,
  ),
  ...fieldCases(T, 'payments.update', tUpdate, 'metadata', [['not amendable', { a: 'b' }]], tUpdatePayment),
  unknownField(T, 'payments.update', tUpdate, 'provider_metadata.receiverName', tUpdatePayment),
  unknownField(T, 'payments.update', tUpdate, 'receiver', tUpdatePayment),
  ...idCases(T, 'checkouts.update', (id) => providerT.updateCheckout(id as never, tUpdate as never)),
  ...fieldCases(
    T,
    'checkouts.update',
    tUpdate,
    'provider_metadata.receiverLastName',
    [['wrong type', ['Lopez']]],
    tUpdateCheckout,
  ),
  unknownField(T, 'checkouts.update', tUpdate, 'provider_metadata.amount', tUpdateCheckout),
  ...fieldCases(
    T,
    'refunds.create',
    tRefund,
    'payment_id',
    [
      ['missing', undefined],
      ['wrong type', 1],
    ],
    tRefundCall,
  ),
  ...fieldCases(T, 'refunds.create', tRefund, 'amount', majorAmounts(100.001).slice(1), tRefundCall),
  ...fieldCases(T, 'refunds.create', tRefund, 'currency', badCurrencies, tRefundCall),
  ...fieldCases(
    T,
    'refunds.create',
    tRefund,
    'provider_metadata.refundReasonCode',
    [
      ['not a code', 'customer request'],
      ['wrong type', 3],
    ],
    tRefundCall,
  ),
  ...fieldCases(
    T,
    'refunds.create',
    tRefund,
    'provider_metadata.refundFee',
    [['wrong type', 'yes']],
    tRefundCall,
  ),
  unknownField(T, 'refunds.create', tRefund, 'provider_metadata.refundAll', tRefundCall),
  unknownField(T, 'refunds.create', tRefund, 'partial', tRefundCall),
  ...fieldCases(T, 'refunds.create', tRefund, 'payment_id', [['dot-dot', '..']], tRefundCall),
  ...reservedKeyCases(T, 'payments.create', tPayment, 'metadata', tPaymentCall),
  ...reservedKeyCases(T, 'checkouts.create', tCheckout, 'provider_metadata', tCheckoutCall),
];

const ALL = [...R_CASES, ...N_CASES, ...T_CASES];

describe('bad input is a ValidationError naming the field, before any upstream call', () => {
  it.each(ALL)('$provider $op — $label', async ({ call, paths }) => {
    const error = await rejectionOf(call());
    expect(ValidationError.isInstance(error), String(error)).toBe(true);
    const { issues, code, message } = error as ValidationError;
    expect(code).toBe('validation_error');
    const named = issues.map((issue) => issue.path);
    for (const path of paths) {
      expect(
        named.some((found) => found === path || found.startsWith(`${path}.`)),
        `issues ${JSON.stringify(named)} should name ${path}`,
      ).toBe(true);
      expect(message).toContain(path);
    }
    for (const issue of issues) expect(issue.message.length).toBeGreaterThan(0);
    expect(upstream).not.toHaveBeenCalled();
  });
});

describe('the bad-input table covers every supported operation', () => {
  it.each([
    ['providerR', providerR.capabilities, R_CASES],
    ['providerN', providerN.capabilities, N_CASES],
    ['providerT', providerT.capabilities, T_CASES],
  ] as const)('%s', (_name, capabilities, cases) => {
    const covered = new Set(cases.map((c) => c.op));
    for (const operation of capabilities) expect(covered, operation).toContain(operation);
  });
});

describe('control: the same calls with good input do reach the injected fetch', () => {
  it.each([
    ['providerR payments.create', () => rPaymentCall(rPayment)],
    ['providerR refunds.create', () => rRefundCall(rRefund)],
    ['providerN checkouts.create', () => nCheckoutCall(nCheckout)],
    ['providerN refunds.create', () => nRefundCall(nRefund)],
    ['providerT payments.create', () => tPaymentCall(tPayment)],
    ['providerT payments.update', () => tUpdatePayment(tUpdate)],
    ['providerT refunds.create', () => tRefundCall(tRefund)],
  ] as const)('%s', async (_label, call) => {
    const error = await rejectionOf(call());
    expect(ValidationError.isInstance(error), String(error)).toBe(false);
    expect(upstream).toHaveBeenCalled();
  });
});
