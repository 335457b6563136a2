/**
 * Fault matrix for Provider N (docs/architecture.md#test-suites), through its simulator over loopback: the login,
 * init-transaction, the status query and initiate-refund, each under 500/502/503, 429 with Retry-After, a timeout,
 * a dropped connection, a reply lost after processing, a truncated body and a body of the wrong shape (a checkout's
 * and a refund's money calls under the kit's faults run in the contract suite's fault matrix instead:
 * docs/architecture.md#conformance-suite). Each case
 * asserts the typed error and its context, the attempts the simulator received (only the login and reads are
 * retried, with one request id per logical call) and, from the simulator's books, that no checkout or refund was
 * created twice.
 */
import { createProviderN, type ProviderNAdapter, type ProviderNConfig } from '@pay/provider-n';
import { type ProviderNSimulator, startProviderNSimulator } from '@pay/provider-n/testing';
import { describe, expect, it } from 'vitest';
import {
  causeChain,
  expectedAttempts,
  expectFaultError,
  FAULT_KINDS,
  type FaultKind,
  processedBy,
  recorder,
  rejectionOf,
  runFaulted,
} from './support.js';

const RETRY = 1;

/** Each case runs against its own simulator, so the cases can run concurrently. */
async function withSimulator<T>(body: (sim: ProviderNSimulator) => Promise<T>): Promise<T> {
  const sim = await startProviderNSimulator();
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}

function adapterFor(sim: ProviderNSimulator, overrides: Partial<ProviderNConfig> = {}): ProviderNAdapter {
  return createProviderN(sim.adapterConfig({ retry: RETRY, timeoutMs: 5_000, ...overrides }));
}

const checkoutParams = {
  customer: { email: 'ada@example.com' },
  item_id: 'blue-mug',
  success_url: 'https://shop.example/thanks',
  provider_metadata: { amount: 5000, currency: 'NGN' },
};

type Setup = 'none' | 'pending' | 'paid';

/** A checkout in the wanted state, made through a separate, fault-free adapter. */
async function prepare(sim: ProviderNSimulator, setup: Setup): Promise<string> {
  if (setup === 'none') return '';
  const checkout = await adapterFor(sim).createCheckout(checkoutParams);
  if (setup === 'paid') sim.complete(checkout.id);
  return checkout.id;
}

const LOGIN = /^\/v1\/auth\/login$/;
const INIT = /^\/v1\/merchant\/transactions\/init-transaction$/;
const QUERY = /^\/v1\/merchant\/transactions\/query$/;
const REFUND = /^\/v1\/refunds\/initiate-refund$/;

/** One upstream call of one operation. */
interface Site {
  op: string;
  call: string;
  method: string;
  path: RegExp;
  safe: boolean;
  setup: Setup;
  run(adapter: ProviderNAdapter, id: string): Promise<unknown>;
  /** Calls the operation makes after the faulted one (never sent when it fails). */
  later: RegExp[];
  /** `outcome` of a network failure: a failed login proves the API call itself was never sent. */
  networkOutcome: 'unknown' | 'not_sent';
  /** Context the error must carry (beyond the request id). */
  context?(error: unknown, id: string): Record<string, unknown> | undefined;
  /** Books after the failed operation, given whether the faulted call was processed. */
  books(sim: ProviderNSimulator, id: string, processed: boolean, error: unknown): void;
  /** Books once the operation took effect exactly once. */
  done(sim: ProviderNSimulator, id: string): void;
}

const noCheckout = (sim: ProviderNSimulator) => {
  expect(sim.books.transactions).toHaveLength(0);
  expect(sim.books.refunds).toHaveLength(0);
};
const oneCheckout = (sim: ProviderNSimulator) => {
  expect(sim.books.transactions).toHaveLength(1);
  expect(sim.books.refunds).toHaveLength(0);
};
const unchanged = (sim: ProviderNSimulator, id: string) => {
  expect(sim.books.transactions).toHaveLength(1);
  expect(sim.books.transactions[0]).toMatchObject({ transactionReference: id, paymentStatus: 'PENDING' });
  expect(sim.books.refunds).toHaveLength(0);
};
const notRefunded = (sim: ProviderNSimulator) => {
  expect(sim.books.refunds).toHaveLength(0);
  expect(sim.books.transactions[0]?.refundableAmount).toBe(5000);
};
const refundedOnce = (sim: ProviderNSimulator) => {
  expect(sim.books.refunds).toHaveLength(1);
  expect(sim.books.transactions[0]?.refundableAmount).toBe(4000);
};
const contextOf = (error: unknown) => (error as { context?: Record<string, unknown> }).context ?? {};

const refund = (adapter: ProviderNAdapter, id: string) =>
  adapter.createRefund({ payment_id: id, amount: 1000, reason: 'damaged item' });

const SITES: Site[] = [
  {
    op: 'checkouts.create',
    call: 'POST login',
    method: 'POST',
    path: LOGIN,
    safe: true,
    setup: 'none',
    run: (adapter) => adapter.createCheckout(checkoutParams),
    later: [INIT],
    networkOutcome: 'not_sent',
    books: (sim) => noCheckout(sim),
    done: oneCheckout,
  },
  {
    op: 'checkouts.create',
    call: 'POST init-transaction',
    method: 'POST',
    path: INIT,
    safe: false,
    setup: 'none',
    run: (adapter) => adapter.createCheckout(checkoutParams),
    later: [],
    networkOutcome: 'unknown',
    context: () => ({ paymentReference: expect.stringMatching(/^[0-9a-f-]{36}$/) }),
    books: (sim, _id, processed, error) => {
      if (!processed) return noCheckout(sim);
      // Opened once; the reference in the error finds it, so the caller can reconcile instead of opening another.
      oneCheckout(sim);
      expect(sim.books.transactions[0]?.paymentReference).toBe(contextOf(error).paymentReference);
    },
    done: oneCheckout,
  },
  {
    op: 'payments.retrieve',
    call: 'POST login',
    method: 'POST',
    path: LOGIN,
    safe: true,
    setup: 'pending',
    run: (adapter, id) => adapter.retrievePayment(id),
    later: [QUERY],
    networkOutcome: 'not_sent',
    books: unchanged,
    done: unchanged,
  },
  {
    op: 'payments.retrieve',
    call: 'GET query',
    method: 'GET',
    path: QUERY,
    safe: true,
    setup: 'pending',
    run: (adapter, id) => adapter.retrievePayment(id),
    later: [],
    networkOutcome: 'unknown',
    books: unchanged,
    done: unchanged,
  },
  {
    op: 'checkouts.retrieve',
    call: 'GET query',
    method: 'GET',
    path: QUERY,
    safe: true,
    setup: 'pending',
    run: (adapter, id) => adapter.retrieveCheckout(id),
    later: [],
    networkOutcome: 'unknown',
    books: unchanged,
    done: unchanged,
  },
  {
    op: 'refunds.create',
    call: 'POST login',
    method: 'POST',
    path: LOGIN,
    safe: true,
    setup: 'paid',
    run: refund,
    later: [REFUND],
    networkOutcome: 'not_sent',
    books: (sim) => notRefunded(sim),
    done: refundedOnce,
  },
  {
    op: 'refunds.create',
    call: 'POST initiate-refund',
    method: 'POST',
    path: REFUND,
    safe: false,
    setup: 'paid',
    run: refund,
    later: [],
    networkOutcome: 'unknown',
    context: (_error, id) => ({
      transactionReference: id,
      refundReference: expect.stringMatching(/^[0-9a-f-]{36}$/),
    }),
    books: (sim, _id, processed, error) => {
      if (!processed) return notRefunded(sim);
      // Refunded once, under the reference the error names.
      refundedOnce(sim);
      expect(sim.books.refunds[0]?.refundReference).toBe(contextOf(error).refundReference);
    },
    done: refundedOnce,
  },
];

async function runCase(sim: ProviderNSimulator, site: Site, kind: FaultKind, times: number) {
  const id = await prepare(sim, site.setup);
  const before = sim.books.requests.length;
  const { rec, outcome } = await runFaulted({
    faults: sim.faults,
    method: site.method,
    path: site.path,
    times,
    kind,
    adapter: (overrides) => adapterFor(sim, overrides),
    run: (adapter) => site.run(adapter, id),
  });
  const requests = sim.books.requests.slice(before);
  const faulted = requests.filter((r) => r.method === site.method && site.path.test(r.path));
  return { id, outcome, rec, requests, faulted };
}

/**
 * The calls a checkout and a refund make with a fresh token (the login and init-transaction of a checkout,
 * initiate-refund) under the simulator kit's faults (500, 503, a timeout, a dropped connection, a lost reply, a
 * truncated body) are cases of the contract suite's fault matrix, with Provider N's own rules (`expectFailure` in
 * packages/provider-n/test/contract.test.ts); here they meet the faults the kit does not name: 429, 502 and a body
 * of the wrong shape. A refund's login (the suite's refunds reuse a token) and the reads meet every fault here.
 */
const IN_SUITE = (site: Site) =>
  site.op === 'checkouts.create' || (site.op === 'refunds.create' && site.path === REFUND);
const NOT_IN_SUITE = new Set<FaultKind>(['429', '502', 'wrong-shape']);

const CASES = SITES.flatMap((site) =>
  FAULT_KINDS.filter((kind) => !IN_SUITE(site) || NOT_IN_SUITE.has(kind)).map((kind) => ({ ...site, kind })),
);

describe.concurrent('Provider N fault matrix: a persistent fault on each upstream call', () => {
  it.each(CASES)('$op → $call: $kind', (site) =>
    withSimulator(async (sim) => {
      const { kind } = site;
      const attempts = expectedAttempts(kind, site.safe, RETRY);
      const { id, outcome, rec, requests, faulted } = await runCase(sim, site, kind, attempts);

      expect(outcome.ok, 'the operation must fail').toBe(false);
      const error = outcome.ok ? undefined : outcome.error;
      // A 5xx to a money-moving call does not prove nothing moved (docs/architecture.md#outcomes): not retryable,
      // outcome unknown.
      const moneyMay = !site.safe && /^5\d\d$/.test(kind);
      expectFaultError(error, kind, {
        networkOutcome: site.networkOutcome,
        ...(site.context ? { context: site.context(error, id) } : {}),
        ...(moneyMay ? { retryable: false } : {}),
      });
      if (moneyMay) expect(error).toMatchObject({ outcome: 'unknown' });

      // Retried only where repeating cannot move money twice, every attempt with one request id.
      expect(faulted).toHaveLength(attempts);
      const sent = rec.of(site.method, site.path);
      expect(sent.map((a) => a.attempt)).toEqual(Array.from({ length: attempts }, (_, i) => i + 1));
      expect(new Set(sent.map((a) => a.requestId)).size).toBe(1);
      if (kind === 'timeout' || kind === 'drop' || kind === 'drop-after') {
        // The failed call is named by its request id: the login's in the cause when the login failed.
        const named = causeChain(error).map((e) => contextOf(e).requestId);
        expect(named).toContain(sent[0]?.requestId);
      }
      // The operation stopped at the failed call.
      for (const later of site.later) expect(requests.filter((r) => later.test(r.path))).toHaveLength(0);

      site.books(sim, id, processedBy(kind), error);
    }),
  );
});

const TRANSIENT = SITES.filter((site) => site.safe).flatMap((site) =>
  (['429', 'timeout', 'drop', 'drop-after'] as const).map((kind) => ({ ...site, kind })),
);

describe.concurrent('Provider N: a transient fault on a retry-safe call is retried with the same request id', () => {
  it.each(TRANSIENT)('$op → $call: one $kind', (site) =>
    withSimulator(async (sim) => {
      const { kind } = site;
      const { id, outcome, rec, faulted } = await runCase(sim, site, kind, 1);
      if (!outcome.ok) throw outcome.error;
      expect(faulted).toHaveLength(2);
      const sent = rec.of(site.method, site.path);
      expect(sent.map((a) => a.attempt)).toEqual([1, 2]);
      expect(new Set(sent.map((a) => a.requestId)).size).toBe(1);
      site.done(sim, id);
    }),
  );
});

describe('Provider N: reconciling after a lost reply', () => {
  it('a checkout whose reply was lost is found by the paymentReference in the error, and exists once', () =>
    withSimulator(async (sim) => {
      sim.faults.inject({ method: 'POST', path: INIT, fault: { kind: 'drop-after' } });
      const error = await rejectionOf(adapterFor(sim).createCheckout(checkoutParams));
      expectFaultError(error, 'drop-after');
      const [opened] = sim.books.transactions;
      expect(sim.books.transactions).toHaveLength(1);
      expect(opened?.paymentReference).toBe(contextOf(error).paymentReference);
      const read = await adapterFor(sim).retrievePayment(opened?.transactionReference ?? '');
      expect(read).toMatchObject({ id: opened?.transactionReference, status: 'pending', amount: 5000 });
    }));

  it('a refund whose reply was lost is in the books once; a blind repeat cannot exceed what was paid', () =>
    withSimulator(async (sim) => {
      const id = await prepare(sim, 'paid');
      sim.faults.inject({ method: 'POST', path: REFUND, fault: { kind: 'drop-after' } });
      const adapter = adapterFor(sim);
      const error = await rejectionOf(adapter.createRefund({ payment_id: id, amount: 5000 }));
      expectFaultError(error, 'drop-after', { context: { transactionReference: id } });
      expect(sim.books.refunds).toHaveLength(1);
      const again = await rejectionOf(adapter.createRefund({ payment_id: id, amount: 5000 }));
      expect(again).toMatchObject({ code: 'provider_api_error', providerCode: 'R2', retryable: false });
      expect(sim.books.refunds).toHaveLength(1);
      expect(sim.books.transactions[0]?.refundableAmount).toBe(0);
    }));

  it('a login refused with wrong credentials is not retried and sends no API call', () =>
    withSimulator(async (sim) => {
      const rec = recorder();
      const adapter = adapterFor(sim, { secretKey: 'wrong-secret-key', hooks: rec.hooks, retry: 2 });
      const error = await rejectionOf(adapter.createCheckout(checkoutParams));
      expect(error).toMatchObject({ code: 'provider_api_error', status: 401, retryable: false });
      expect(sim.books.requests.map((r) => r.path)).toEqual(['/v1/auth/login']);
      expect(sim.books.transactions).toHaveLength(0);
    }));
});
