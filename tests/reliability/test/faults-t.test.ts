/**
 * Fault matrix for Provider T (docs/architecture.md#test-suites), through its simulator over loopback: the login
 * and every step of quote → update → commit, the status read, the receiver-name amendment and the refund read and
 * commit, each under 500/502/503, 429 with Retry-After, a timeout, a dropped connection, a reply lost after
 * processing, a truncated body and a body of the wrong shape (the money-moving operations under the kit's faults
 * run in the contract suite's fault matrix instead: docs/architecture.md#conformance-suite). Each case asserts the typed error and its `context`
 * (`transactionId`, `step`, `outcome`), the attempts the simulator received (the quote is never repeated; the
 * update and commit are, with one `X-Client-Request-Id`, which the provider processes once) and, from the
 * simulator's books, that no transfer was committed twice and nothing was refunded twice.
 */
import { createProviderT, type ProviderTAdapter, type ProviderTConfig } from '@pay/provider-t';
import {
  generateProviderTKeyPair,
  type ProviderTSimulator,
  sampleTransferMetadata,
  startProviderTSimulator,
} from '@pay/provider-t/testing';
import { describe, expect, it } from 'vitest';
import {
  expectedAttempts,
  expectFaultError,
  FAULT_KINDS,
  type FaultKind,
  processedBy,
  recorder,
  rejectionOf,
  runFaulted,
  WRONG_SHAPE_BODY,
} from './support.js';

const RETRY = 1;
// One key pair for every simulator of this file: generating RSA keys is the slow part of a start.
const keyPair = generateProviderTKeyPair();

/** Each case runs against its own simulator, so the cases can run concurrently. */
async function withSimulator<T>(body: (sim: ProviderTSimulator) => Promise<T>): Promise<T> {
  const sim = await startProviderTSimulator({ keyPair });
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}

function adapterFor(sim: ProviderTSimulator, overrides: Partial<ProviderTConfig> = {}): ProviderTAdapter {
  return createProviderT(sim.adapterConfig({ retry: RETRY, timeoutMs: 5_000, ...overrides }));
}

const paymentParams = { amount: 100, currency: 'USD', provider_metadata: sampleTransferMetadata };
const checkoutParams = { provider_metadata: { ...sampleTransferMetadata, amount: 100, currency: 'USD' } };

const LOGIN = /^\/oauth\/accesstoken$/;
const QUOTE = /^\/transfer\/v1\/transactions\/quote$/;
const UPDATE = /^\/transfer\/v1\/transactions\/[^/]+$/;
const COMMIT = /^\/transfer\/v1\/transactions\/[^/]+\/commit$/;
const STATUS = /^\/status\/v1\/transactions\/[^/]+$/;
const AMEND_READ = /^\/amend\/v1\/transactions\/[^/]+$/;
const AMEND = /^\/amend\/v1\/transactions\/[^/]+\/receiver\/name$/;
const REFUND_READ = /^\/refund\/v2\/transactions\/[^/]+$/;
const REFUND_COMMIT = /^\/refund\/v2\/transactions\/[^/]+\/commit$/;

type Setup = 'none' | 'committed';

/** A committed transfer, made through a separate, fault-free adapter. */
async function prepare(sim: ProviderTSimulator, setup: Setup): Promise<string> {
  if (setup === 'none') return '';
  return (await adapterFor(sim).createPayment(paymentParams)).id;
}

const NETWORK = new Set<FaultKind>(['timeout', 'drop', 'drop-after']);
const STATUS_FAULTS = new Set<FaultKind>(['500', '502', '503']);

/** One upstream call of one operation. */
interface Site {
  op: string;
  call: string;
  method: string;
  path: RegExp;
  safe: boolean;
  setup: Setup;
  run(adapter: ProviderTAdapter, id: string): Promise<unknown>;
  /** The context the error must carry for this fault (`id`: the transfer's id, when known before the call). */
  context(kind: FaultKind, id: string, sim: ProviderTSimulator): Record<string, unknown> | undefined;
  networkOutcome?: 'unknown' | 'not_sent';
  /** `retryable` of a provider error for this fault (default true for 429 and 5xx). */
  retryable?(kind: FaultKind): boolean;
  /** The error of a fault where this call deliberately differs from the matrix default. */
  own?: Partial<Record<FaultKind, (error: unknown, id: string) => void>>;
  /** Books after the failed operation, given whether the faulted call was processed. */
  books(sim: ProviderTSimulator, id: string, processed: boolean): void;
  /** Books once the operation took effect exactly once. */
  done(sim: ProviderTSimulator, id: string): void;
}

/** The one transfer a failed create left behind, if any. */
const onlyTransfer = (sim: ProviderTSimulator) => sim.transfers[0]?.transactionId ?? '';

function transferBooks(sim: ProviderTSimulator, quotes: number, committed: number) {
  expect(sim.quotes).toBe(quotes);
  expect(sim.committedTransfers).toBe(committed);
  expect(sim.transfers.filter((t) => t.committed)).toHaveLength(committed);
  expect(sim.refunds).toHaveLength(0);
}

/**
 * Context of a commit failure: the outcome is always unknown here. Even a 429 on the last attempt proves nothing
 * about the earlier attempt, which was retried (docs/architecture.md#outcomes: after an attempt that may have
 * landed, a 4xx proves nothing), so the caller reconciles instead of sending again.
 */
function commitContext(_kind: FaultKind, transactionId: string, extra: Record<string, unknown> = {}) {
  return { transactionId, ...extra, outcome: 'unknown' };
}

function transferSites(op: string, run: (adapter: ProviderTAdapter) => Promise<unknown>): Site[] {
  return [
    {
      op,
      call: 'GET login',
      method: 'GET',
      path: LOGIN,
      safe: true,
      setup: 'none',
      run,
      networkOutcome: 'not_sent',
      context: () => ({ step: 'quote' }),
      books: (sim) => transferBooks(sim, 0, 0),
      done: (sim) => transferBooks(sim, 1, 1),
    },
    {
      op,
      call: 'POST quote',
      method: 'POST',
      path: QUOTE,
      safe: false,
      setup: 'none',
      run,
      context: () => ({ step: 'quote' }),
      books: (sim, _id, processed) => transferBooks(sim, processed ? 1 : 0, 0),
      done: (sim) => transferBooks(sim, 1, 1),
    },
    {
      op,
      call: 'PUT update',
      method: 'PUT',
      path: UPDATE,
      safe: true,
      setup: 'none',
      run,
      context: (_kind, _id, sim) => ({ transactionId: onlyTransfer(sim), step: 'update' }),
      books: (sim, _id, processed) => {
        transferBooks(sim, 1, 0);
        expect(sim.transfers[0]?.status).toBe(processed ? 'READY' : 'QUOTED');
      },
      done: (sim) => transferBooks(sim, 1, 1),
    },
    {
      op,
      call: 'PUT commit',
      method: 'PUT',
      path: COMMIT,
      safe: true,
      setup: 'none',
      run,
      // A commit that may have moved money is never reported as retryable: the caller reconciles first.
      retryable: () => false,
      context: (kind, _id, sim) => commitContext(kind, onlyTransfer(sim), { step: 'commit' }),
      books: (sim, _id, processed) => transferBooks(sim, 1, processed ? 1 : 0),
      done: (sim) => transferBooks(sim, 1, 1),
    },
  ];
}

const unchangedTransfer = (sim: ProviderTSimulator) => {
  transferBooks(sim, 1, 1);
  expect(sim.amendments).toBe(0);
};
const amendedOnce = (sim: ProviderTSimulator, id: string) => {
  transferBooks(sim, 1, 1);
  expect(sim.amendments).toBe(1);
  expect(sim.transfer(id)?.receiver?.name).toMatchObject({ firstName: 'José', lastName: 'Lopez' });
};
const refundedOnce = (sim: ProviderTSimulator, id: string) => {
  expect(sim.refunds).toHaveLength(1);
  expect(sim.transfer(id)?.status).toBe('REFUNDED');
};
const notRefunded = (sim: ProviderTSimulator, id: string) => {
  expect(sim.refunds).toHaveLength(0);
  expect(sim.transfer(id)?.status).toBe('SENT');
};

/**
 * A 200 to the name PATCH without `amendSuccess: true` is read as "the provider did not confirm" (a typed
 * ProviderApiError telling the caller to re-read), not as an unreadable reply.
 */
const notConfirmed = (error: unknown, id: string) =>
  expect(error).toMatchObject({
    code: 'provider_api_error',
    providerCode: 'AMEND_FAILED',
    retryable: false,
    context: { transactionId: id, step: 'amend' },
  });

const amendName = (adapter: ProviderTAdapter, id: string) =>
  adapter.updatePayment(id, { provider_metadata: { receiverFirstName: 'José' } });
const refund = (adapter: ProviderTAdapter, id: string) => adapter.createRefund({ payment_id: id });

const SITES: Site[] = [
  ...transferSites('payments.create', (adapter) => adapter.createPayment(paymentParams)),
  // checkouts.create runs the same quote → update → commit as payments.create; its commit, where the money
  // moves, is faulted here too.
  ...transferSites('checkouts.create', (adapter) => adapter.createCheckout(checkoutParams)).filter(
    (site) => site.path === COMMIT,
  ),
  {
    op: 'payments.retrieve',
    call: 'GET login',
    method: 'GET',
    path: LOGIN,
    safe: true,
    setup: 'committed',
    run: (adapter, id) => adapter.retrievePayment(id),
    networkOutcome: 'not_sent',
    context: (kind, id) => (NETWORK.has(kind) ? { transactionId: id, step: 'status' } : undefined),
    books: unchangedTransfer,
    done: unchangedTransfer,
  },
  {
    op: 'payments.retrieve',
    call: 'GET status',
    method: 'GET',
    path: STATUS,
    safe: true,
    setup: 'committed',
    run: (adapter, id) => adapter.retrievePayment(id),
    context: (_kind, id) => ({ transactionId: id, step: 'status' }),
    books: unchangedTransfer,
    done: unchangedTransfer,
  },
  {
    op: 'checkouts.retrieve',
    call: 'GET status',
    method: 'GET',
    path: STATUS,
    safe: true,
    setup: 'committed',
    run: (adapter, id) => adapter.retrieveCheckout(id),
    context: (_kind, id) => ({ transactionId: id, step: 'status' }),
    books: unchangedTransfer,
    done: unchangedTransfer,
  },
  {
    op: 'payments.update',
    call: 'GET amend read',
    method: 'GET',
    path: AMEND_READ,
    safe: true,
    setup: 'committed',
    run: amendName,
    context: (_kind, id) => ({ transactionId: id, step: 'amend_read' }),
    books: unchangedTransfer,
    done: amendedOnce,
  },
  {
    op: 'payments.update',
    call: 'PATCH receiver name',
    method: 'PATCH',
    path: AMEND,
    safe: true,
    setup: 'committed',
    run: amendName,
    context: (_kind, id) => ({ transactionId: id, step: 'amend' }),
    own: { 'wrong-shape': notConfirmed },
    books: (sim, id, processed) => (processed ? amendedOnce(sim, id) : unchangedTransfer(sim)),
    done: amendedOnce,
  },
  {
    op: 'payments.update',
    call: 'GET status (after the amendment)',
    method: 'GET',
    path: STATUS,
    safe: true,
    setup: 'committed',
    run: amendName,
    context: (_kind, id) => ({ transactionId: id, step: 'status' }),
    books: amendedOnce,
    done: amendedOnce,
  },
  {
    op: 'checkouts.update',
    call: 'PATCH receiver name',
    method: 'PATCH',
    path: AMEND,
    safe: true,
    setup: 'committed',
    run: (adapter, id) => adapter.updateCheckout(id, { provider_metadata: { receiverFirstName: 'José' } }),
    context: (_kind, id) => ({ transactionId: id, step: 'amend' }),
    own: { 'wrong-shape': notConfirmed },
    books: (sim, id, processed) => (processed ? amendedOnce(sim, id) : unchangedTransfer(sim)),
    done: amendedOnce,
  },
  {
    op: 'refunds.create',
    call: 'GET refund read',
    method: 'GET',
    path: REFUND_READ,
    safe: true,
    setup: 'committed',
    run: refund,
    context: (_kind, id) => ({ transactionId: id, step: 'refund_read' }),
    books: notRefunded,
    done: refundedOnce,
  },
  {
    op: 'refunds.create',
    call: 'PUT refund commit',
    method: 'PUT',
    path: REFUND_COMMIT,
    safe: true,
    setup: 'committed',
    run: refund,
    retryable: () => false,
    context: (kind, id) =>
      commitContext(kind, id, { step: 'refund_commit', refundId: expect.stringMatching(/^rfd-/) }),
    books: (sim, id, processed) => (processed ? refundedOnce(sim, id) : notRefunded(sim, id)),
    done: refundedOnce,
  },
];

async function runCase(sim: ProviderTSimulator, site: Site, kind: FaultKind, times: number) {
  const id = await prepare(sim, site.setup);
  const before = sim.requests.length;
  const { rec, outcome } = await runFaulted({
    faults: sim.faults,
    method: site.method,
    path: site.path,
    times,
    kind,
    adapter: (overrides) => adapterFor(sim, overrides),
    run: (adapter) => site.run(adapter, id),
  });
  const requests = sim.requests.slice(before);
  const seen = requests.filter((r) => r.method === site.method && site.path.test(r.path));
  const faultedId = seen[0]?.requestId;
  const faulted = seen.filter((r) => r.requestId === faultedId);
  return { id, outcome, rec, requests, faulted };
}

/**
 * The money-moving operations' calls under the simulator kit's faults (500, 503, a timeout, a dropped connection, a
 * lost reply, a truncated body) are cases of the contract suite's fault matrix, with Provider T's own rules
 * (`expectFailure` in packages/provider-t/test/contract.test.ts); here they meet the faults the kit does not name:
 * 429, 502 and a body of the wrong shape.
 */
const MONEY_MOVING = new Set(['payments.create', 'checkouts.create', 'refunds.create']);
const NOT_IN_SUITE = new Set<FaultKind>(['429', '502', 'wrong-shape']);

const CASES = SITES.flatMap((site) =>
  FAULT_KINDS.filter((kind) => !MONEY_MOVING.has(site.op) || NOT_IN_SUITE.has(kind)).map((kind) => ({
    ...site,
    kind,
  })),
);

describe.concurrent('Provider T fault matrix: a persistent fault on each upstream call', () => {
  it.each(CASES)('$op → $call: $kind', (site) =>
    withSimulator(async (sim) => {
      const { kind } = site;
      const attempts = expectedAttempts(kind, site.safe, RETRY);
      const { id, outcome, requests, faulted } = await runCase(sim, site, kind, attempts);

      expect(outcome.ok, 'the operation must fail').toBe(false);
      const error = outcome.ok ? undefined : outcome.error;
      const own = site.own?.[kind];
      if (own) own(error, id);
      else
        expectFaultError(error, kind, {
          networkOutcome: site.networkOutcome ?? 'unknown',
          context: site.context(kind, id, sim),
          ...(site.retryable && !NETWORK.has(kind) ? { retryable: site.retryable(kind) } : {}),
        });

      // The quote is never repeated; other calls are, every attempt with the same X-Client-Request-Id.
      expect(faulted).toHaveLength(attempts);
      expect(faulted[0]?.requestId).toMatch(/^[0-9a-f-]{36}$/);
      if (STATUS_FAULTS.has(kind) || kind === '429') {
        expect((error as { requestId?: string }).requestId).toBe(faulted[0]?.requestId);
      }
      // The operation stopped at the failed call: it was the last one sent.
      expect(requests.at(-1)?.requestId).toBe(faulted[0]?.requestId);

      site.books(sim, id, processedBy(kind));
    }),
  );
});

const TRANSIENT = SITES.filter((site) => site.safe).flatMap((site) =>
  (['429', 'timeout', 'drop', 'drop-after'] as const).map((kind) => ({ ...site, kind })),
);

describe.concurrent('Provider T: a transient fault on a retry-safe call is retried with the same request id', () => {
  it.each(TRANSIENT)('$op → $call: one $kind', (site) =>
    withSimulator(async (sim) => {
      const { kind } = site;
      const { id, outcome, faulted } = await runCase(sim, site, kind, 1);
      // The provider processes a repeated request id once, so even a lost reply ends in one success.
      if (!outcome.ok) throw outcome.error;
      expect(faulted).toHaveLength(2);
      site.done(sim, id || (outcome.value as { id: string }).id);
    }),
  );
});

describe('Provider T: a refund commit answered 200 with a body of the wrong shape', () => {
  // Found by this matrix and fixed in 8515755: the reply used to be taken as a committed refund.
  it('is an InvalidResponseError with outcome unknown, not a succeeded refund', () =>
    withSimulator(async (sim) => {
      const id = await prepare(sim, 'committed');
      for (const body of [WRONG_SHAPE_BODY, '{}', JSON.stringify({ expectedPayoutDate: '2026-11-23' })]) {
        sim.faults.inject({
          method: 'PUT',
          path: REFUND_COMMIT,
          fault: { kind: 'status', status: 200, body },
        });
        const error = await rejectionOf(refund(adapterFor(sim), id));
        expectFaultError(error, 'wrong-shape', {
          context: { transactionId: id, step: 'refund_commit', outcome: 'unknown' },
        });
      }
      expect(sim.refunds).toHaveLength(0);
    }));
});

describe('Provider T: the commit happened but its reply was lost', () => {
  it.each([0, 1, 2])(
    'with retry %i: outcome unknown, retrievePayment shows it, one committed transfer',
    (retry) =>
      withSimulator(async (sim) => {
        const rec = recorder();
        sim.faults.inject({ method: 'PUT', path: COMMIT, times: retry + 1, fault: { kind: 'drop-after' } });
        const adapter = adapterFor(sim, { retry, hooks: rec.hooks });
        const error = await rejectionOf(adapter.createPayment(paymentParams));
        const transactionId = onlyTransfer(sim);
        expectFaultError(error, 'drop-after', {
          context: { transactionId, step: 'commit', outcome: 'unknown' },
        });
        expect((error as Error).message).toContain(`retrievePayment('${transactionId}')`);
        // Every attempt of the commit carried one request id; the provider committed once.
        const commits = sim.requests.filter((r) => COMMIT.test(r.path));
        expect(commits).toHaveLength(retry + 1);
        expect(new Set(commits.map((r) => r.requestId)).size).toBe(1);
        expect(sim.committedTransfers).toBe(1);
        // Reconciling: the payment is there, sent.
        const payment = await adapter.retrievePayment(transactionId);
        expect(payment).toMatchObject({
          id: transactionId,
          status: 'succeeded',
          amount: 100,
          currency: 'USD',
        });
        expect(sim.committedTransfers).toBe(1);
        expect(sim.quotes).toBe(1);
      }),
  );

  it('a commit whose reply is lost once is replayed by request id: one success, one committed transfer', () =>
    withSimulator(async (sim) => {
      sim.faults.inject({ method: 'PUT', path: COMMIT, fault: { kind: 'drop-after' } });
      const payment = await adapterFor(sim).createPayment(paymentParams);
      expect(payment).toMatchObject({ status: 'succeeded' });
      const commits = sim.requests.filter((r) => COMMIT.test(r.path));
      expect(commits).toHaveLength(2);
      expect(new Set(commits.map((r) => r.requestId)).size).toBe(1);
      expect(sim.committedTransfers).toBe(1);
    }));

  it('an update not ready for commit stops before the commit with NOT_READY_FOR_COMMIT', () =>
    withSimulator(async (sim) => {
      const notReady = JSON.stringify({
        readyForCommit: false,
        sendAmount: { amount: { value: 100, currencyCode: 'USD' } },
      });
      sim.faults.inject({
        method: 'PUT',
        path: UPDATE,
        fault: { kind: 'status', status: 200, body: notReady },
      });
      const error = await rejectionOf(adapterFor(sim).createPayment(paymentParams));
      expect(error).toMatchObject({
        code: 'provider_api_error',
        providerCode: 'NOT_READY_FOR_COMMIT',
        retryable: false,
        context: { transactionId: onlyTransfer(sim), step: 'update' },
      });
      expect(sim.requests.filter((r) => COMMIT.test(r.path))).toHaveLength(0);
      expect(sim.committedTransfers).toBe(0);
    }));

  it('an update that shows another send amount stops before the commit', () =>
    withSimulator(async (sim) => {
      const other = JSON.stringify({
        readyForCommit: true,
        sendAmount: { amount: { value: 1000, currencyCode: 'USD' } },
      });
      sim.faults.inject({ method: 'PUT', path: UPDATE, fault: { kind: 'status', status: 200, body: other } });
      const error = await rejectionOf(adapterFor(sim).createPayment(paymentParams));
      expect(error).toMatchObject({
        code: 'invalid_response',
        context: { transactionId: onlyTransfer(sim), step: 'update' },
      });
      expect(sim.committedTransfers).toBe(0);
    }));
});
