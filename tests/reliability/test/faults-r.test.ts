/**
 * Fault matrix for Provider R (docs/architecture.md#test-suites), through its simulator over loopback: every
 * upstream call of every operation under 500/502/503, 429 with Retry-After, a timeout, a dropped connection, a
 * reply lost after processing, a truncated body and a body of the wrong shape (the money-moving operations under
 * the kit's faults run in the contract suite's fault matrix instead: docs/architecture.md#conformance-suite). Each
 * case asserts the typed error,
 * how many attempts reached the simulator (retries only on calls that cannot move money twice, all with one
 * request id) and, from the simulator's books, that nothing was created, captured, cancelled or refunded twice.
 */
import { ProviderApiError } from '@pay/core';
import { createProviderR, type ProviderRAdapter, type ProviderRConfig } from '@pay/provider-r';
import { type ProviderRSimulator, startProviderRSimulator } from '@pay/provider-r/testing';
import { describe, expect, it } from 'vitest';
import {
  expectedAttempts,
  expectFaultError,
  FAULT_KINDS,
  type FaultKind,
  processedBy,
  rejectionOf,
  runFaulted,
} from './support.js';

const RETRY = 1;

/**
 * Each case runs against its own simulator, so cases run concurrently (they mostly wait on backoffs and
 * timeouts); `withSimulator` closes it whatever happens.
 */
async function withSimulator<T>(body: (sim: ProviderRSimulator) => Promise<T>): Promise<T> {
  const sim = await startProviderRSimulator();
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}

function adapterFor(sim: ProviderRSimulator, overrides: Partial<ProviderRConfig> = {}): ProviderRAdapter {
  return createProviderR(sim.adapterConfig({ retry: RETRY, timeoutMs: 5_000, ...overrides }));
}

// Amounts in the currency's standard unit (docs/architecture.md#money): 100 CZK is `price: 10000` in the
// simulator's books, which keep the provider's minor units.
const checkoutParams = {
  customer: { email: 'payer@example.com' },
  item_id: 'order-1001',
  amount: 250,
  currency: 'CZK',
  success_url: 'https://shop.example/paid',
  cancel_url: 'https://shop.example/cancelled',
};
const paymentParams = {
  customer: { id: 'cust_42' },
  item_id: 'order-2002',
  amount: 100,
  provider_metadata: { email: 'payer@example.com' },
};

type Setup = 'none' | 'pending' | 'authorized' | 'paid';

/** A transaction in the wanted state, made through a separate, fault-free adapter. */
async function prepare(sim: ProviderRSimulator, setup: Setup): Promise<string> {
  if (setup === 'none') return '';
  const payment = await adapterFor(sim).createPayment(paymentParams);
  if (setup === 'authorized') sim.authorize(payment.id);
  if (setup === 'paid') sim.pay(payment.id);
  return payment.id;
}

/** One upstream call of one operation. */
interface Site {
  op: string;
  call: string;
  method: string;
  path: RegExp;
  /** Which call of this method and path within the operation is faulted (0-based). */
  nth?: number;
  /** Whether the adapter may repeat the call (docs/architecture.md#http-client). */
  safe: boolean;
  /** The call can move money (create, capture, cancel, refund): a refusal must prove nothing happened. */
  movesMoney?: true;
  setup: Setup;
  run(adapter: ProviderRAdapter, transId: string): Promise<unknown>;
  /** The books after the failed operation, given whether the faulted call was processed by the simulator. */
  books(sim: ProviderRSimulator, transId: string, processed: boolean): void;
  /** The books after the whole operation took effect exactly once. */
  done(sim: ProviderRSimulator, transId: string): void;
  /**
   * A refused capture or cancel is reconciled with one status read: its first attempt may have landed with the
   * reply lost, and then the retry is refused although the payment is already in the state asked for.
   */
  reconciles?: true;
}

const STATUS = /^\/v1\.0\/status$/;
const CHECKOUT = /^\/v2\.0\/paymentRedirect\/merchant\/[^/]+$/;
const PAYMENT = /^\/v2\.0\/payment$/;
const PREAUTH = /^\/v2\.0\/preauth\/transId\/[^/]+\.json$/;
const PENDING_PAYMENT = /^\/v2\.0\/payment\/transId\/[^/]+\.json$/;
const REFUND = /^\/v2\.0\/refund\.json$/;

const statusOf = (sim: ProviderRSimulator, transId: string) => sim.transaction(transId)?.status;

function createdAtMostOnce(sim: ProviderRSimulator, processed: boolean) {
  // The faulted creation was not repeated: one transaction when the simulator handled it, none otherwise.
  expect(sim.transactions).toHaveLength(processed ? 1 : 0);
  expect(sim.refunds).toHaveLength(0);
}

/** The books once each operation took effect exactly once. */
const retrieved = (sim: ProviderRSimulator, id: string) => {
  expect(sim.transactions).toHaveLength(1);
  expect(statusOf(sim, id)).toBe('PENDING');
};
const captured = (sim: ProviderRSimulator, id: string) => {
  expect(sim.transaction(id)).toMatchObject({ status: 'PAID', price: 6000 });
  expect(sim.refunds).toHaveLength(0);
};
const cancelled = (sim: ProviderRSimulator, id: string) => expect(statusOf(sim, id)).toBe('CANCELLED');
const refunded = (sim: ProviderRSimulator, id: string) => {
  expect(sim.refunds).toHaveLength(1);
  expect(sim.refundable(id)).toBe(6000);
};

const SITES: Site[] = [
  {
    op: 'checkouts.create',
    call: 'POST paymentRedirect',
    movesMoney: true,
    method: 'POST',
    path: CHECKOUT,
    safe: false,
    setup: 'none',
    run: (adapter) => adapter.createCheckout(checkoutParams),
    books: (sim, _id, processed) => createdAtMostOnce(sim, processed),
    done: (sim) => createdAtMostOnce(sim, true),
  },
  {
    op: 'createCheckoutRedirect',
    call: 'POST paymentRedirect',
    movesMoney: true,
    method: 'POST',
    path: CHECKOUT,
    safe: false,
    setup: 'none',
    run: (adapter) => adapter.createCheckoutRedirect(checkoutParams),
    books: (sim, _id, processed) => createdAtMostOnce(sim, processed),
    done: (sim) => createdAtMostOnce(sim, true),
  },
  {
    op: 'payments.create',
    call: 'POST payment',
    movesMoney: true,
    method: 'POST',
    path: PAYMENT,
    safe: false,
    setup: 'none',
    run: (adapter) => adapter.createPayment(paymentParams),
    books: (sim, _id, processed) => createdAtMostOnce(sim, processed),
    done: (sim) => createdAtMostOnce(sim, true),
  },
  {
    op: 'payments.retrieve',
    call: 'POST status',
    method: 'POST',
    path: STATUS,
    safe: true,
    setup: 'pending',
    done: retrieved,
    run: (adapter, id) => adapter.retrievePayment(id),
    books: (sim, id) => {
      expect(sim.transactions).toHaveLength(1);
      expect(statusOf(sim, id)).toBe('PENDING');
    },
  },
  {
    op: 'payments.capture',
    call: 'PUT preauth',
    movesMoney: true,
    reconciles: true,
    method: 'PUT',
    path: PREAUTH,
    safe: true,
    setup: 'authorized',
    done: captured,
    run: (adapter, id) => adapter.capturePayment(id, { amount: 60 }),
    books: (sim, id, processed) => {
      // Captured once at most: the partial amount is applied once, never to an already captured payment.
      expect(sim.transaction(id)).toMatchObject(
        processed ? { status: 'PAID', price: 6000 } : { status: 'AUTHORIZED', price: 10000 },
      );
    },
  },
  {
    op: 'payments.capture',
    call: 'POST status (before the capture)',
    method: 'POST',
    path: STATUS,
    safe: true,
    setup: 'authorized',
    done: captured,
    run: (adapter, id) => adapter.capturePayment(id, { amount: 60 }),
    // The capture reads the authorisation first (what is authorised, whether it is already captured).
    books: (sim, id) => expect(sim.transaction(id)).toMatchObject({ status: 'AUTHORIZED', price: 10000 }),
  },
  {
    op: 'payments.capture',
    call: 'POST status (after the capture)',
    method: 'POST',
    path: STATUS,
    nth: 1,
    safe: true,
    setup: 'authorized',
    done: captured,
    run: (adapter, id) => adapter.capturePayment(id, { amount: 60 }),
    books: (sim, id) => expect(sim.transaction(id)).toMatchObject({ status: 'PAID', price: 6000 }),
  },
  {
    op: 'payments.cancel',
    call: 'POST status (before)',
    method: 'POST',
    path: STATUS,
    safe: true,
    setup: 'pending',
    done: cancelled,
    run: (adapter, id) => adapter.cancelPayment(id),
    books: (sim, id) => expect(statusOf(sim, id)).toBe('PENDING'),
  },
  {
    op: 'payments.cancel',
    call: 'DELETE payment',
    movesMoney: true,
    reconciles: true,
    method: 'DELETE',
    path: PENDING_PAYMENT,
    safe: true,
    setup: 'pending',
    done: cancelled,
    run: (adapter, id) => adapter.cancelPayment(id),
    books: (sim, id, processed) => expect(statusOf(sim, id)).toBe(processed ? 'CANCELLED' : 'PENDING'),
  },
  {
    op: 'payments.cancel',
    call: 'POST status (after)',
    method: 'POST',
    path: STATUS,
    nth: 1,
    safe: true,
    setup: 'pending',
    done: cancelled,
    run: (adapter, id) => adapter.cancelPayment(id),
    books: (sim, id) => expect(statusOf(sim, id)).toBe('CANCELLED'),
  },
  {
    op: 'payments.cancel (authorised)',
    call: 'DELETE preauth',
    movesMoney: true,
    reconciles: true,
    method: 'DELETE',
    path: PREAUTH,
    safe: true,
    setup: 'authorized',
    done: cancelled,
    run: (adapter, id) => adapter.cancelPayment(id),
    books: (sim, id, processed) => expect(statusOf(sim, id)).toBe(processed ? 'CANCELLED' : 'AUTHORIZED'),
  },
  {
    op: 'refunds.create',
    call: 'POST status (before)',
    method: 'POST',
    path: STATUS,
    safe: true,
    setup: 'paid',
    done: refunded,
    run: (adapter, id) => adapter.createRefund({ payment_id: id, amount: 40 }),
    books: (sim, id) => {
      expect(sim.refunds).toHaveLength(0);
      expect(sim.refundable(id)).toBe(10000);
    },
  },
  {
    op: 'refunds.create',
    call: 'POST refund',
    movesMoney: true,
    method: 'POST',
    path: REFUND,
    safe: false,
    setup: 'paid',
    done: refunded,
    run: (adapter, id) => adapter.createRefund({ payment_id: id, amount: 40 }),
    books: (sim, id, processed) => {
      // Refunded once when the simulator handled the call, never twice.
      expect(sim.refunds).toHaveLength(processed ? 1 : 0);
      expect(sim.refundable(id)).toBe(processed ? 6000 : 10000);
    },
  },
];

/**
 * Every call of the money-moving operations (creations, the capture, the cancel of a pending payment, the refund,
 * and the status reads around them) under the simulator kit's faults (500, 503, a timeout, a dropped connection, a
 * lost reply, a truncated body) is a case of the contract suite's fault matrix, with Provider R's own rules
 * (`expectFailure` in packages/provider-r/test/contract.test.ts); here they meet the faults the kit does not name:
 * 429, 502 and a body of the wrong shape. `createCheckoutRedirect`, the cancel of an authorised payment and the
 * status read of `payments.retrieve` meet every fault here.
 */
const IN_SUITE = new Set([
  'checkouts.create',
  'payments.create',
  'payments.capture',
  'payments.cancel',
  'refunds.create',
]);
const NOT_IN_SUITE = new Set<FaultKind>(['429', '502', 'wrong-shape']);

const CASES = SITES.flatMap((site) =>
  FAULT_KINDS.filter((kind) => !IN_SUITE.has(site.op) || NOT_IN_SUITE.has(kind)).map((kind) => ({
    ...site,
    kind,
  })),
);

/** Runs `site` with `kind` armed for `times` attempts; returns what it needs for the assertions. */
async function runCase(sim: ProviderRSimulator, site: Site, kind: FaultKind, times: number) {
  const transId = await prepare(sim, site.setup);
  const before = sim.requests.length;
  const { rec, outcome } = await runFaulted({
    faults: sim.faults,
    method: site.method,
    path: site.path,
    nth: site.nth ?? 0,
    times,
    kind,
    adapter: (overrides) => adapterFor(sim, overrides),
    run: (adapter) => site.run(adapter, transId),
  });
  const requests = sim.requests.slice(before);
  const seen = requests.filter((r) => r.method === site.method && site.path.test(r.path));
  // Every attempt of the faulted logical call (they share its request id).
  const faultedId = seen[site.nth ?? 0]?.requestId;
  const faulted = seen.filter((r) => r.requestId === faultedId);
  return { transId, outcome, rec, requests, faulted };
}

describe.concurrent('Provider R fault matrix: a persistent fault on each upstream call', () => {
  it.each(CASES)('$op → $call: $kind', (site) =>
    withSimulator(async (sim) => {
      const { kind } = site;
      const attempts = expectedAttempts(kind, site.safe, RETRY);
      const { transId, outcome, rec, requests, faulted } = await runCase(sim, site, kind, attempts);

      expect(outcome.ok, 'the operation must fail').toBe(false);
      const error = outcome.ok ? undefined : outcome.error;
      // A refusal of a money-moving call proves nothing when it is a 5xx, or follows an earlier attempt that got
      // a retryable answer (docs/architecture.md#outcomes): not retryable, outcome unknown. A single 429 to a
      // creation is a plain "not now": nothing was processed.
      const moneyMay = site.movesMoney === true && (/^5\d\d$/.test(kind) || (kind === '429' && site.safe));
      expectFaultError(error, kind, moneyMay ? { retryable: false } : {});
      if (moneyMay) expect(error).toMatchObject({ outcome: 'unknown' });

      // Retried only where repeating cannot move money twice; every attempt carries the same request id.
      expect(faulted).toHaveLength(attempts);
      const ids = new Set(faulted.map((r) => r.requestId));
      expect(ids.size).toBe(1);
      const [requestId] = ids;
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(rec.attempts.filter((a) => a.requestId === requestId).map((a) => a.attempt)).toEqual(
        Array.from({ length: attempts }, (_, index) => index + 1),
      );
      if (kind === 'timeout' || kind === 'drop' || kind === 'drop-after') {
        expect((error as { context?: { requestId?: string } }).context?.requestId).toBe(requestId);
      } else if (kind !== 'malformed' && kind !== 'wrong-shape') {
        expect((error as { requestId?: string }).requestId).toBe(requestId);
      }
      // The operation stopped at the failed call: nothing after it was sent, but for the one status read that
      // reconciles a refused capture or cancel.
      const reconciled = site.reconciles === true && ProviderApiError.isInstance(error);
      expect(requests.at(reconciled ? -2 : -1)?.requestId).toBe(requestId);
      if (reconciled) expect(requests.at(-1)?.path).toMatch(STATUS);
      // Distinct logical calls never share a request id: each id names one method and path.
      const callOf = new Map<string | undefined, string>();
      for (const r of requests) {
        expect(callOf.get(r.requestId) ?? `${r.method} ${r.path}`).toBe(`${r.method} ${r.path}`);
        callOf.set(r.requestId, `${r.method} ${r.path}`);
      }

      site.books(sim, transId, processedBy(kind));
    }),
  );
});

const TRANSIENT = SITES.filter((site) => site.safe).flatMap((site) =>
  (['429', 'timeout', 'drop', 'drop-after'] as const).map((kind) => ({ ...site, kind })),
);

describe.concurrent('Provider R: a transient fault on a retry-safe call is retried with the same request id', () => {
  it.each(TRANSIENT)('$op → $call: one $kind', (site) =>
    withSimulator(async (sim) => {
      const { kind } = site;
      const { transId, outcome, faulted } = await runCase(sim, site, kind, 1);

      expect(faulted).toHaveLength(2);
      expect(new Set(faulted.map((r) => r.requestId)).size).toBe(1);
      if (!processedBy(kind) || site.method === 'POST') {
        // Nothing was applied before the retry (or the call only reads): the retry makes the operation succeed.
        if (!outcome.ok) throw outcome.error;
      } else if (!outcome.ok) {
        // The first attempt was applied and its reply lost; the provider refuses to apply the retry again.
        // The caller gets a typed, non-retryable error and reconciles with payments.retrieve.
        expect(outcome.error).toMatchObject({ code: 'provider_api_error', providerCode: '1400' });
      }
      // Either way the operation took effect exactly once.
      site.done(sim, transId);
    }),
  );
});

describe('Provider R: reconciling after a lost reply', () => {
  it('a payment whose reply was lost exists once and can be found; the caller sees outcome unknown', () =>
    withSimulator(async (sim) => {
      sim.faults.inject({ method: 'POST', path: '/v2.0/payment', fault: { kind: 'drop-after' } });
      const error = await rejectionOf(adapterFor(sim).createPayment(paymentParams));
      expectFaultError(error, 'drop-after');
      expect(sim.transactions).toHaveLength(1);
      const [created] = sim.transactions;
      const read = await adapterFor(sim).retrievePayment(created?.transId ?? '');
      expect(read).toMatchObject({ id: created?.transId, status: 'pending', amount: 100 });
      expect(sim.transactions).toHaveLength(1);
    }));

  it('a refund whose reply was lost is in the books once; repeating it is refused by the provider', () =>
    withSimulator(async (sim) => {
      const transId = await prepare(sim, 'paid');
      sim.faults.inject({ method: 'POST', path: '/v2.0/refund.json', fault: { kind: 'drop-after' } });
      const error = await rejectionOf(adapterFor(sim).createRefund({ payment_id: transId, amount: 100 }));
      expectFaultError(error, 'drop-after');
      expect(sim.refunds).toHaveLength(1);
      const again = await rejectionOf(adapterFor(sim).createRefund({ payment_id: transId, amount: 100 }));
      expect(again).toMatchObject({ code: 'provider_api_error', providerCode: '1402', retryable: false });
      expect(sim.refunds).toHaveLength(1);
      expect(sim.refundable(transId)).toBe(0);
    }));
});
