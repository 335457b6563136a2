/**
 * Crashes: an instance is killed (SIGKILL: no handler runs, its ledger lease is left behind) at each
 * step of a money-moving call, then a NEW instance retries with the same idempotency key, against the same
 * simulator and the same PostgreSQL ledger (docs/architecture.md#test-suites). From the simulator's books, money
 * moved exactly once, and the retry returns the record of the money that moved.
 *
 * Where each kill happens, exactly:
 * - "after the quote" / "after the update": the instance's `fetch` holds the next request (it never leaves the
 *   process; the simulator's log proves it never arrived), then the instance is killed;
 * - "after the commit was sent, before its reply": the simulator delays its handling of the commit (fault
 *   injection), the instance is killed once the simulator's log shows the commit arrived, and the commit then
 *   lands with nobody left to read its reply.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sharedStore, transferInput } from './fixtures.js';
import {
  type CallOutcome,
  type InstanceConfig,
  retryWhileInProgress,
  startInstance,
  stopAllInstances,
  waitUntil,
} from './instances.js';
import { type ProviderUnderTest, providerN, providerR, providerT } from './providers.js';

/** The shortest lease core accepts: a killed instance's key is free again after it. */
const LEASE_SECONDS = 5;

/**
 * Starts the instance that will be killed, makes it hold the upstream requests matching `hold` (if any), and
 * sends it the call without waiting for an answer.
 */
async function startDoomedCall(
  config: InstanceConfig,
  operation: string,
  args: unknown[],
  key: string,
  hold?: { method: string; path: RegExp },
) {
  const doomed = await startInstance('doomed', config);
  if (hold) await doomed.hold([{ method: hold.method, path: hold.path.source }]);
  const answer = doomed.call(operation, ...args, { idempotencyKey: key });
  return { doomed, answer };
}

/** The call never answered: the instance died first. */
async function expectKilledBeforeAnswer(answer: Promise<CallOutcome>) {
  expect(await answer).toMatchObject({ ok: false, error: { name: 'InstanceExited' } });
}

afterEach(async () => {
  await stopAllInstances();
});

describe('Provider T: a transfer killed at each step, retried by a new instance with the same key', () => {
  let provider: Awaited<ReturnType<typeof providerT>>;
  let config: InstanceConfig;

  beforeAll(async () => {
    provider = await providerT();
    config = {
      provider: 't',
      adapter: provider.adapter,
      store: sharedStore('postgres', 'crash_t'),
      idempotencyLeaseSeconds: LEASE_SECONDS,
    };
  });

  afterAll(async () => {
    await provider?.close();
  });

  const sim = () => provider.sim;
  const transfersOf = (amount: number) =>
    sim().transfers.filter((transfer) => transfer.sendAmount.value === amount);
  /** The requests about one transaction that reached the simulator. */
  const requestsFor = (transactionId: string, method: string, pattern: RegExp) =>
    sim().requests.filter(
      (request) =>
        request.method === method && pattern.test(request.path) && request.path.includes(transactionId),
    );
  const UPDATE = /^\/transfer\/v1\/transactions\/[^/]+$/;
  const COMMIT = /^\/transfer\/v1\/transactions\/[^/]+\/commit$/;

  /**
   * The retry's result and the books: one quote, one committed transfer for the amount, and the record returned
   * is that transfer.
   */
  async function expectMovedOnceAndReturned(amount: number, key: string) {
    const retry = await startInstance('retry', config);
    const args = [transferInput(`crash-${amount}`, amount)];
    const { outcome } = await retryWhileInProgress(retry, 'payments.create', args, key, LEASE_SECONDS);
    const transfers = transfersOf(amount);
    expect(
      transfers.filter((transfer) => transfer.committed),
      JSON.stringify(outcome),
    ).toHaveLength(1);
    expect(outcome, JSON.stringify(outcome)).toMatchObject({
      ok: true,
      value: {
        id: transfers.find((transfer) => transfer.committed)?.transactionId,
        status: 'succeeded',
        amount,
      },
    });
    // A second retry is answered from the ledger: the same record, and nothing sent.
    const requests = sim().requests.length;
    expect(await retry.call('payments.create', ...args, { idempotencyKey: key })).toEqual(outcome);
    expect(sim().requests.length).toBe(requests);
    return { transfers, outcome };
  }

  it('killed after the quote (the update never sent): the retry resumes that transaction, commits once', async () => {
    const amount = 111;
    const key = `t-crash-after-quote-${Date.now()}`;
    const { doomed, answer } = await startDoomedCall(
      config,
      'payments.create',
      [transferInput(`crash-${amount}`, amount)],
      key,
      { method: 'PUT', path: UPDATE },
    );
    expect(await doomed.held()).toMatchObject({ method: 'PUT' });
    await doomed.kill();
    await expectKilledBeforeAnswer(answer);
    const [quoted] = transfersOf(amount);
    expect(quoted?.status).toBe('QUOTED');
    expect(requestsFor(quoted!.transactionId, 'PUT', UPDATE)).toEqual([]);

    const { transfers } = await expectMovedOnceAndReturned(amount, key);
    // Resumed from the recovery point: the transaction the dead instance quoted, never a second quote.
    expect(transfers.map((transfer) => transfer.transactionId)).toEqual([quoted!.transactionId]);
  });

  it('killed after the update (the commit never sent): the retry commits that transaction once', async () => {
    const amount = 112;
    const key = `t-crash-after-update-${Date.now()}`;
    const { doomed, answer } = await startDoomedCall(
      config,
      'payments.create',
      [transferInput(`crash-${amount}`, amount)],
      key,
      { method: 'PUT', path: COMMIT },
    );
    expect(await doomed.held()).toMatchObject({ method: 'PUT' });
    await doomed.kill();
    await expectKilledBeforeAnswer(answer);
    const [updated] = transfersOf(amount);
    expect(updated?.status).toBe('READY');
    expect(requestsFor(updated!.transactionId, 'PUT', COMMIT)).toEqual([]);

    const { transfers } = await expectMovedOnceAndReturned(amount, key);
    expect(transfers.map((transfer) => transfer.transactionId)).toEqual([updated!.transactionId]);
  });

  it('killed after the commit was sent and before its reply: the retry reads the committed transfer, no second commit', async () => {
    const amount = 113;
    const key = `t-crash-commit-in-flight-${Date.now()}`;
    const committedBefore = sim().committedTransfers;
    // The commit is handled 3 s after it arrives: long enough to kill the sender while it waits for the reply.
    sim().faults.inject({ method: 'PUT', path: COMMIT, fault: { kind: 'delay', ms: 3000 } });
    const { doomed, answer } = await startDoomedCall(
      config,
      'payments.create',
      [transferInput(`crash-${amount}`, amount)],
      key,
    );
    await waitUntil('the commit reached the simulator', () =>
      transfersOf(amount).some((transfer) => requestsFor(transfer.transactionId, 'PUT', COMMIT).length > 0),
    );
    await doomed.kill();
    await expectKilledBeforeAnswer(answer);
    // The commit lands with nobody left to read its reply.
    await waitUntil('the delayed commit was handled', () => sim().committedTransfers === committedBefore + 1);
    const [committed] = transfersOf(amount);
    expect(requestsFor(committed!.transactionId, 'PUT', COMMIT)).toHaveLength(1);

    const { transfers } = await expectMovedOnceAndReturned(amount, key);
    expect(transfers.map((transfer) => transfer.transactionId)).toEqual([committed!.transactionId]);
    expect(sim().committedTransfers).toBe(committedBefore + 1);
  });
});

/**
 * A single-call money move killed after its request was sent and before its reply (the simulator delays the
 * handling), retried by a new instance with the same key. How the retry answers:
 * - `record`: with the record of the money that moved;
 * - `unknown` (Provider R, as its README documents): Provider R offers no lookup by merchant reference, so the
 *   adapter cannot find what a create whose reply was lost made; it refuses to send again (money moves once) and
 *   answers `outcome: 'unknown'` with the `refId` to look the payment up by, and `pay.resolve(key)` says unknown;
 * - `reported` (Provider N checkouts, as its README documents): Provider N has no call that returns a checkout URL,
 *   so the retry refuses with a `ProviderApiError` naming the transaction that was opened (never a second one),
 *   and `pay.resolve(key)` finds it.
 */
const SINGLE_CALL_CRASHES = [
  [
    'Provider N',
    'checkouts.create',
    providerN,
    /^\/v1\/merchant\/transactions\/init-transaction$/,
    'reported',
  ],
  ['Provider N', 'refunds.create', providerN, /^\/v1\/refunds\/initiate-refund$/, 'record'],
  ['Provider R', 'payments.create', providerR, /^\/v2\.0\/payment$/, 'unknown'],
  ['Provider R', 'refunds.create', providerR, /^\/v2\.0\/refund\.json$/, 'unknown'],
] as const;

describe.each(SINGLE_CALL_CRASHES)(
  '%s %s killed after it was sent, retried by a new instance with the same key',
  (_, operation, start, path, answer) => {
    let provider: ProviderUnderTest;
    let config: InstanceConfig;

    beforeAll(async () => {
      provider = await start();
      config = {
        provider: provider.provider,
        adapter: provider.adapter,
        store: sharedStore('postgres', `crash_${provider.provider}`),
        idempotencyLeaseSeconds: LEASE_SECONDS,
      };
    });

    afterAll(async () => {
      await provider?.close();
    });

    const sent = () =>
      provider.requests().filter((request) => request.method === 'POST' && path.test(request.path)).length;

    it(
      {
        record: 'moves money once, and the retry returns the record of the money that moved',
        reported:
          'opens one transaction; the retry names it instead of opening another, and resolve(key) finds it',
        unknown:
          'moves money once; the retry refuses to send again and says the outcome is unknown, naming the refId',
      }[answer],
      async () => {
        const retry = await startInstance('retry', config);
        const moneyCase = provider.cases.find((candidate) => candidate.operation === operation)!;
        const args = await moneyCase.prepare(90, retry);
        const key = `${provider.provider}-crash-${operation}-${Date.now()}`;
        provider.faults.inject({ method: 'POST', path, fault: { kind: 'delay', ms: 3000 } });
        const sentBefore = sent();
        const { doomed, answer: lost } = await startDoomedCall(config, operation, args, key);
        await waitUntil('the call reached the simulator', () => sent() === sentBefore + 1);
        await doomed.kill();
        await expectKilledBeforeAnswer(lost);
        await waitUntil('the delayed call was handled', () => moneyCase.moved(args) === 1);

        const { outcome } = await retryWhileInProgress(retry, operation, args, key, LEASE_SECONDS);
        const resolved = await retry.call('resolve', key, { operation });
        expect(moneyCase.moved(args), JSON.stringify(outcome)).toBe(1);
        if (answer === 'unknown') {
          expect(outcome, JSON.stringify(outcome)).toMatchObject({
            ok: false,
            error: {
              code: 'network_error',
              outcome: 'unknown',
              context: { refId: expect.any(String), resumedFrom: 'create_sent', idempotencyKey: key },
            },
          });
          expect(resolved, JSON.stringify(resolved)).toMatchObject({
            ok: true,
            value: { status: 'unknown' },
          });
          expect(moneyCase.moved(args)).toBe(1);
          return;
        }
        const expected = moneyCase.expectedRecord(args);
        if (answer === 'record') {
          expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, value: expected });
        } else {
          expect(outcome, JSON.stringify(outcome)).toMatchObject({
            ok: false,
            error: {
              code: 'provider_api_error',
              providerCode: '99',
              context: { transactionReference: expected.id, idempotencyKey: key },
            },
          });
        }
        // What the provider holds for the key, asked the way an application settles an unknown outcome (the
        // ledger keeps the key of a refusal whose outcome is unknown: see the Provider N README).
        expect(resolved, JSON.stringify(resolved)).toMatchObject({
          ok: true,
          value: { status: 'found', record: expected },
        });
        expect(moneyCase.moved(args)).toBe(1);
      },
    );
  },
);
