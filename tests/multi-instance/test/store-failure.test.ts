/**
 * The store itself fails: its server is stopped (or hangs: SIGSTOP) before or during a money-moving call or a
 * webhook delivery. The call fails closed with a typed error (`StoreError`, code `store_unavailable`, saying
 * nothing was sent), a webhook is answered 503, and the simulator's books show that no money moved, nor was any
 * request sent after the failure. Each test runs its own server (started here, on a free port in a temporary folder), so stopping it
 * touches no other test.
 */
import { type PostgresServer, startPostgres } from '@pay/tooling/servers/postgres';
import { type RedisServer, startRedis } from '@pay/tooling/servers/redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { transferInput } from './fixtures.js';
import {
  type Instance,
  type InstanceConfig,
  retryWhileInProgress,
  startInstance,
  stopAllInstances,
  uniqueName,
} from './instances.js';
import { type MoneyCase, type ProviderUnderTest, providerN, providerR, providerT } from './providers.js';

/** The shortest lease core accepts. */
const LEASE_SECONDS = 5;

const cleanups: (() => Promise<void>)[] = [];

/** Stops what the tests started (servers, simulators), whatever happened. */
async function runCleanups(): Promise<void> {
  await Promise.allSettled(cleanups.splice(0).map((cleanup) => cleanup()));
}

/** A server of `kind` of this test's own, stopped after it whatever happens. */
async function startOwnServer(kind: 'postgres' | 'redis'): Promise<PostgresServer | RedisServer> {
  const server = kind === 'postgres' ? await startPostgres({ database: 'pay_outage' }) : await startRedis();
  cleanups.push(() => server.stop());
  return server;
}

function storeOn(kind: 'postgres' | 'redis', server: PostgresServer | RedisServer): InstanceConfig['store'] {
  return kind === 'postgres'
    ? {
        kind,
        url: (server as PostgresServer).url(),
        tablePrefix: uniqueName('outage').slice(0, 36),
      }
    : {
        kind,
        url: (server as RedisServer).url,
        keyPrefix: `pay:${uniqueName('outage')}`,
        commandTimeoutMs: 1500,
      };
}

/** A provider's simulator, its first money-moving operation and an instance using `store`. */
async function instanceOf(
  start: () => Promise<ProviderUnderTest>,
  store: InstanceConfig['store'],
): Promise<{ provider: ProviderUnderTest; instance: Instance }> {
  const provider = await start();
  cleanups.push(() => provider.close());
  const instance = await startInstance(`outage-${provider.provider}`, {
    provider: provider.provider,
    adapter: provider.adapter,
    store,
    idempotencyLeaseSeconds: LEASE_SECONDS,
  });
  return { provider, instance };
}

/** The typed fail-closed error of a store that could not be asked before the call. */
function expectFailedClosed(outcome: unknown, key: string) {
  expect(outcome, JSON.stringify(outcome)).toMatchObject({
    ok: false,
    error: {
      name: 'StoreError',
      code: 'store_unavailable',
      retryable: true,
      context: { idempotencyKey: key },
    },
  });
  expect((outcome as { error: { message: string } }).error.message).toMatch(/Nothing was sent/);
}

/**
 * Retries `key` while the attempt that gave up on the hung store still holds its lease, as a caller retrying a
 * retryable error does: the call then returns its record and money moved exactly once.
 */
async function expectMovesOnceOnRetry(
  instance: Instance,
  moneyCase: MoneyCase,
  args: unknown[],
  key: string,
) {
  const { outcome } = await retryWhileInProgress(instance, moneyCase.operation, args, key, LEASE_SECONDS);
  expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, value: moneyCase.expectedRecord(args) });
  expect(moneyCase.moved(args)).toBe(1);
}

const PROVIDERS = [
  ['Provider T', providerT],
  ['Provider N', providerN],
  ['Provider R', providerR],
] as const;

describe.each(['postgres', 'redis'] as const)('the %s store stopped before a money-moving call', (kind) => {
  // One server for the three providers: each has an instance that used the store, then the server is stopped.
  const ready = new Map<string, { provider: ProviderUnderTest; instance: Instance; args: unknown[] }>();
  let requestsBefore = new Map<string, number>();

  beforeAll(async () => {
    const server = await startOwnServer(kind);
    for (const [label, start] of PROVIDERS) {
      const { provider, instance } = await instanceOf(start, storeOn(kind, server));
      ready.set(label, { provider, instance, args: await provider.cases[0]!.prepare(70, instance) });
    }
    requestsBefore = new Map([...ready].map(([label, { provider }]) => [label, provider.requests().length]));
    await server.stop();
  });

  afterAll(async () => {
    await stopAllInstances();
    await runCleanups();
  });

  it.each(PROVIDERS)('%s: typed store_unavailable error, nothing sent to the provider', async (label) => {
    const { provider, instance, args } = ready.get(label)!;
    const [moneyCase] = provider.cases;
    const key = `outage-${kind}-${provider.provider}-${Date.now()}`;

    const outcome = await instance.call(moneyCase!.operation, ...args, { idempotencyKey: key });

    expectFailedClosed(outcome, key);
    expect(provider.requests().slice(requestsBefore.get(label))).toEqual([]);
    expect(moneyCase!.moved(args)).toBe(0);
  });
});

describe('a Redis store that hangs (no answer) before a money-moving call', () => {
  afterEach(async () => {
    await stopAllInstances();
    await runCleanups();
  });

  it('fails closed after the command timeout, and once Redis answers again the same key moves money once', async () => {
    const server = (await startOwnServer('redis')) as RedisServer;
    const { provider, instance } = await instanceOf(providerT, storeOn('redis', server));
    const [moneyCase] = provider.cases;
    const args = await moneyCase!.prepare(71, instance);
    const requestsBefore = provider.requests().length;
    const key = `hang-${Date.now()}`;
    server.freeze();
    cleanups.unshift(async () => server.thaw());

    const outcome = await instance.call(moneyCase!.operation, ...args, { idempotencyKey: key });

    expectFailedClosed(outcome, key);
    expect(provider.requests().slice(requestsBefore)).toEqual([]);
    expect(moneyCase!.moved(args)).toBe(0);

    // The begin that timed out was still in Redis's socket buffer: when Redis wakes it runs and leases the key
    // to an attempt that already gave up, so the retry is told "in progress" until that lease runs out.
    server.thaw();
    await expectMovesOnceOnRetry(instance, moneyCase!, args, key);
  });
});

describe('a PostgreSQL store that hangs (SIGSTOP), its pool configured as the README says', () => {
  afterEach(async () => {
    await stopAllInstances();
    await runCleanups();
  });

  it('fails a keyed payment closed and answers a webhook 503 within the store deadline; both succeed once it answers', async () => {
    const server = (await startOwnServer('postgres')) as PostgresServer;
    const provider = await providerT();
    cleanups.push(() => provider.close());
    const instance = await startInstance('hang-postgres', {
      provider: 't',
      adapter: provider.adapter,
      store: storeOn('postgres', server),
      idempotencyLeaseSeconds: LEASE_SECONDS,
      webhooks: { webhookSecret: null, leaseSeconds: LEASE_SECONDS },
    });
    const [moneyCase] = provider.cases;
    const args = await moneyCase!.prepare(73, instance);
    const paid = await instance.call('payments.create', transferInput('hang-webhook', 173));
    if (!paid.ok) throw new Error(`payments.create failed: ${JSON.stringify(paid.error)}`);
    const requestsBefore = provider.requests().length;
    const key = `hang-postgres-${Date.now()}`;
    server.freeze();
    cleanups.unshift(async () => server.thaw());

    const started = Date.now();
    const [outcome, webhookStatus] = await Promise.all([
      instance.call(moneyCase!.operation, ...args, { idempotencyKey: key }),
      provider.sim.deliverWebhook(instance.webhookUrl, { transactionId: paid.value.id, eventId: 'hang-1' }),
    ]);
    const waited = Date.now() - started;

    // The default deadline of @pay/store-postgres (5 s), not the test's patience, ended both.
    expect(waited).toBeLessThan(9_000);
    expectFailedClosed(outcome, key);
    expect((outcome as { ok: false; error: { message: string } }).error.message).toContain(
      'no answer within 5000 ms',
    );
    expect(webhookStatus).toBe(503);
    expect(provider.requests().slice(requestsBefore)).toEqual([]);
    expect(moneyCase!.moved(args)).toBe(0);
    expect(await instance.processed()).toEqual([]);

    // Once PostgreSQL runs again, the statements it had in its buffers run too (their callers gave up): a lease
    // each, which runs out after LEASE_SECONDS. The same key then moves money once, the delivery is processed once.
    server.thaw();
    await expectMovesOnceOnRetry(instance, moneyCase!, args, key);
    await waitUntilDelivered(() =>
      provider.sim.deliverWebhook(instance.webhookUrl, { transactionId: paid.value.id, eventId: 'hang-1' }),
    );
    expect((await instance.processed()).map((event) => event.dataId)).toEqual([paid.value.id]);
  });
});

/** Delivers again while the answer is 503 (a lease left by the frozen attempt), as a provider does; bounded. */
async function waitUntilDelivered(deliver: () => Promise<number>): Promise<void> {
  const deadline = Date.now() + (LEASE_SECONDS + 15) * 1000;
  for (let status = await deliver(); status !== 200; status = await deliver()) {
    if (status !== 503 || Date.now() > deadline) throw new Error(`delivery answered ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe.each(['postgres', 'redis'] as const)(
  'the %s store stopped in the middle of a Provider T transfer',
  (kind) => {
    it('stops before the commit when the ledger cannot record the update: typed error, no money moved', async () => {
      const server = await startOwnServer(kind);
      const { provider, instance } = await instanceOf(providerT, storeOn(kind, server));
      const sim = (provider as Awaited<ReturnType<typeof providerT>>).sim;
      const amount = 172;
      const key = `mid-transfer-${kind}-${Date.now()}`;
      // The update is held in the instance until the store is down, so the checkpoint after it is the first write
      // that fails: the adapter must then stop before the commit (fail closed) and say how far it got.
      await instance.hold([{ method: 'PUT', path: '^/transfer/v1/transactions/[^/]+$' }]);
      const answer = instance.call('payments.create', transferInput(`mid-${amount}`, amount), {
        idempotencyKey: key,
      });
      await instance.held();
      await server.stop();
      await instance.release();

      const outcome = await answer;

      const [transfer] = sim.transfers.filter((candidate) => candidate.sendAmount.value === amount);
      expect(transfer?.status).toBe('READY');
      expect(transfer?.committed).toBe(false);
      expect(sim.requests.filter((request) => request.path.endsWith('/commit'))).toEqual([]);
      expect(outcome, JSON.stringify(outcome)).toMatchObject({
        ok: false,
        error: {
          name: 'StoreError',
          code: 'store_unavailable',
          context: { idempotencyKey: key, transactionId: transfer?.transactionId, outcome: 'not_sent' },
        },
      });
    });
  },
);
