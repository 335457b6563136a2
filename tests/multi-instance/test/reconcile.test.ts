/**
 * The reconciler on four application processes (docs/architecture.md#reconciliation): each process runs
 * `createPay` with the shared store's reconciliation store, the webhook handler with its deduplication and a
 * reconciler every second (test/child/instance.mjs). No webhook reaches them (the simulators forward none), and
 * the test kills a random process with SIGKILL every second or so while payments are created and paid, failed or
 * abandoned at the provider, and starts a new one in its place. Afterwards the application's view (a table its
 * callbacks and its creates update) must equal the simulator's books for every object, within a few reconciler
 * intervals of the last kill, and each transition's callback must have run exactly once (one row each). Then the
 * same with the webhooks delivered as well (duplicated, out of order), and with the store frozen (SIGSTOP) for a
 * while: reconciliation pauses and catches up. Every provider runs on PostgreSQL and on Redis, and with webhooks
 * delivered (on PostgreSQL).
 *
 * Refunds: Provider N's paid checkouts are refunded through `pay.refunds.create` under an idempotency key from a
 * random live instance while the kills go on, and the provider then finishes each refund it took (completed or
 * failed), webhooks dropped: the reconciler reads each refund (the adapter's `reconcile.retrieveRefund`) and
 * announces its final status as `refund.created`, once. Provider N is the only adapter that can read a refund back.
 * Neither of the others shows "refunded" on the payment through a read: Provider R's status read has no refunded
 * state (a paid payment stays `PAID`; its refund reply is the only record of the refund), and Provider T's
 * `REFUNDED` (read as `canceled`) comes after `SENT`, which is final, so the reconciler stops watching a transfer
 * before it could be refunded (docs/architecture.md#reconciliation).
 *
 * The reconciler's schedule of reads (minutes, doubling per read) is shortened in the instances to one read
 * every half second at most, so that the proof takes seconds; claims, leases, the shared read budget and the
 * stores are the packages' own.
 *
 * What nobody can resolve: keyed Provider R payments whose reply is lost after the provider created them (the
 * simulator closes the connection once it acted), no caller retrying. Provider R has no lookup by our reference, so
 * each key stays `unknown`; every instance must ask about it with the stale keys' backoff (not on every run), report
 * it unresolved after 6 asks (`reconciler.unresolved()`, an `error` line, the `pay:reconcile` count) and never ask
 * again, while one instance is killed and replaced. That backoff lives in each instance's memory, out of the
 * shortened schedule's reach: in that scenario alone the reconcilers' clock runs 600 times faster.
 */
import { startProviderNSimulator } from '@pay/provider-n/testing';
import { startProviderRSimulator } from '@pay/provider-r/testing';
import { startProviderTSimulator } from '@pay/provider-t/testing';
import { type PostgresServer, startPostgres } from '@pay/tooling/servers/postgres';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import {
  providerNCheckoutInput,
  providerRCheckoutInput,
  providerRPaymentInput,
  transferInput,
} from './fixtures.js';
import {
  errorLogs,
  type Instance,
  type InstanceConfig,
  reconcileRuns,
  type StoreConfig,
  startInstance,
  stopAllInstances,
  uniqueName,
  waitUntil,
} from './instances.js';

const INSTANCES = 4;
const INTERVAL_MS = 1_000;
/** The reconciler of every instance: a run a second, claims held 2 s, a read budget no test exhausts. */
const RECONCILE = {
  intervalMs: INTERVAL_MS,
  leaseSeconds: 2,
  readsPerMinute: 6_000,
  readEveryMs: 500,
  // A hung callback holds its instance's run 1 s, then the run goes on (docs/architecture.md#reconciliation).
  callbackTimeoutMs: 1_000,
};
/**
 * Idempotency leases of 5 s (the least createPay takes): a key a killed process held is soon stale, and resolved by
 * the reconciler.
 */
const LEDGER_LEASE_SECONDS = 5;
/**
 * Transition leases of 4 s (the handler's default is 60 s): a worker killed while a transition's callbacks run
 * holds that transition until its lease ends, so the lease must end within the settle bound below, and still
 * outlast a callback (one insert into the view) on a loaded machine.
 */
const TRANSITION_LEASE_SECONDS = 4;
/**
 * How long after the last kill every object must show its booked status: two reconciler intervals, plus what a
 * killed process holds until it runs out (a claim's lease, or the ledger lease of a call it was making) and the
 * half second the shortened schedule waits before a read.
 */
const SETTLED_WITHIN_MS = 2 * INTERVAL_MS + LEDGER_LEASE_SECONDS * 1_000 + RECONCILE.readEveryMs;

type Plan = 'paid' | 'failed' | 'abandoned';

/** A provider under test: how to create an object, move it at the provider, and read the books. */
interface Scenario {
  provider: InstanceConfig['provider'];
  adapter: object;
  webhookSecret: string | null;
  operation: 'payments.create' | 'checkouts.create';
  input(label: string): unknown;
  /**
   * Another way to create the `index`th object, when the provider has one (Provider R's `createCheckoutRedirect`,
   * unkeyed): the operation, its input and how to read the id from what it returns.
   */
  otherCreate?(
    index: number,
    label: string,
  ): { operation: string; input: unknown; id(value: Record<string, unknown>): unknown } | undefined;
  /** What the payer (or the network) does to the object at the provider, unless it was moved already. */
  move(id: string, plan: Plan): void;
  /** Every object the provider holds for this run, with its status as the books say it, normalised. */
  books(): Map<string, string>;
  /**
   * A booked status no event announces, which the view may therefore not show (Provider N: a checkout nobody
   * paid yet is `pending` at the provider and has no status in the application until it is paid or failed).
   */
  unannounced?: string;
  /**
   * The status a new object has at the provider. A create that died with its instance after the provider took it
   * and after its ledger entry completed (so no stale key leads the reconciler to it) leaves an object the
   * application never learnt; until its status changes there is nothing to announce, so the view may lack it.
   */
  createdAs: string;
  /** Pushes the object's webhook for its current status to `url` (or for `status`, an earlier one: out of order). */
  deliver(url: string, id: string, status?: string): Promise<number>;
  /** Kills an instance in the middle of a create, at the provider's own steps (Provider T's transfers). */
  interrupt?(fleet: Fleet, label: string): Promise<{ mustAnnounce: string[] }>;
  /**
   * Refunds paid objects through random live instances while the kills go on, then finishes each refund the
   * provider took (also one whose create died with its instance) at the provider; resolves with each refund whose
   * create returned and the status it returned (Provider N only: docs/architecture.md#reconciliation).
   */
  refund?(fleet: Fleet, created: readonly string[], label: string): Promise<Map<string, string | null>>;
  close(): Promise<void>;
}

async function providerR(): Promise<Scenario> {
  const sim = await startProviderRSimulator();
  const STATUS: Record<string, string> = { PENDING: 'pending', PAID: 'succeeded', CANCELLED: 'canceled' };
  return {
    provider: 'r',
    adapter: sim.adapterConfig({ retry: 1 }),
    webhookSecret: sim.credentials.secret,
    operation: 'payments.create',
    input: (label) => providerRPaymentInput(label),
    // Every third object a checkout made with createCheckoutRedirect: watched by its transId though it returns no
    // record (docs/architecture.md#reconciliation).
    otherCreate: (index, label) =>
      index % 3 === 1
        ? {
            operation: 'adapter.createCheckoutRedirect',
            input: providerRCheckoutInput(label),
            id: (value) => value.transId,
          }
        : undefined,
    createdAs: 'pending',
    move(id, plan) {
      if (sim.transaction(id)?.status !== 'PENDING') return;
      if (plan === 'paid') sim.pay(id);
      else if (plan === 'failed') sim.cancel(id);
    },
    books: () =>
      new Map(
        sim.transactions.map((transaction) => [
          transaction.transId,
          STATUS[transaction.status] ?? transaction.status,
        ]),
      ),
    deliver: (url, transId, status) => sim.deliverWebhook(url, { transId, ...(status ? { status } : {}) }),
    close: () => sim.close(),
  };
}

async function providerN(): Promise<Scenario> {
  const sim = await startProviderNSimulator();
  const STATUS: Record<string, string> = { PENDING: 'pending', PAID: 'succeeded', FAILED: 'failed' };
  /** `refundStatus` normalised (docs/providers/provider-n.md#refunds): a refund is final once finished. */
  const REFUND_STATUS: Record<string, string> = {
    IN_PROGRESS: 'pending',
    COMPLETED: 'succeeded',
    FAILED: 'failed',
  };
  return {
    provider: 'n',
    adapter: sim.adapterConfig({ retry: 1 }),
    webhookSecret: sim.credentials.webhookSecret,
    operation: 'checkouts.create',
    input: (label) => providerNCheckoutInput(label),
    unannounced: 'pending',
    createdAs: 'pending',
    move(id, plan) {
      const pending = sim.books.transactions.some(
        (transaction) => transaction.transactionReference === id && transaction.paymentStatus === 'PENDING',
      );
      if (!pending) return;
      if (plan === 'paid') sim.complete(id);
      else if (plan === 'failed') sim.complete(id, { status: 'FAILED', amountPaid: 0 });
    },
    books: () =>
      new Map([
        ...sim.books.transactions.map(
          (transaction) =>
            [
              transaction.transactionReference,
              STATUS[transaction.paymentStatus] ?? transaction.paymentStatus,
            ] as const,
        ),
        ...sim.books.refunds.map(
          (refund) =>
            [refund.refundReference, REFUND_STATUS[refund.refundStatus] ?? refund.refundStatus] as const,
        ),
      ]),
    async refund(fleet, created, label) {
      const paid = created.filter((id) =>
        sim.books.transactions.some(
          (transaction) => transaction.transactionReference === id && transaction.paymentStatus === 'PAID',
        ),
      );
      const returned = new Map<string, string | null>();
      for (const [index, id] of paid.entries()) {
        await sleep(200 + Math.random() * 300);
        const outcome = await pick(fleet.live()).call(
          'refunds.create',
          { payment_id: id, amount: 1_000, reason: 'Returned by the payer' },
          { idempotencyKey: `${label}-refund-${index}` },
        );
        // A refund create that died with its instance: the provider may hold it, under a key now stale.
        if (outcome.ok) returned.set(outcome.value.id, outcome.value.status ?? null);
      }
      // The provider finishes every refund it took (every second one fails), each a little later; the last one a
      // second after this returns, after any delivery of the refunds' webhooks: only a read can announce it.
      const unfinished = sim.books.refunds.filter((refund) => refund.refundStatus === 'IN_PROGRESS');
      const last = unfinished.pop();
      await Promise.all(
        unfinished.map((refund, index) =>
          sleep(Math.random() * 1_500).then(() =>
            sim.completeRefund(refund.refundReference, { status: index % 2 === 1 ? 'FAILED' : 'COMPLETED' }),
          ),
        ),
      );
      if (last) void sleep(1_000).then(() => sim.completeRefund(last.refundReference));
      return returned;
    },
    // The webhook the provider sends for the object's current status (docs/providers/provider-n.md#events); a
    // pending checkout or refund has none. Provider N raises no event for an earlier status: `status` is unused.
    async deliver(url, id) {
      const refund = sim.books.refunds.find((entry) => entry.refundReference === id);
      if (refund) {
        if (refund.refundStatus === 'IN_PROGRESS') return 0;
        const eventType = refund.refundStatus === 'FAILED' ? 'FAILED_REFUND' : 'SUCCESSFUL_REFUND';
        return (await sim.trigger(eventType, { to: url, refundReference: id })).status;
      }
      const status = sim.books.transactions.find((entry) => entry.transactionReference === id)?.paymentStatus;
      if (status === 'PAID') {
        return (await sim.trigger('SUCCESSFUL_TRANSACTION', { to: url, transactionReference: id })).status;
      }
      if (status === 'FAILED') {
        const rejected = { to: url, transactionReference: id, amountSent: 0, reason: 'PAYMENT_FAILED' };
        return (await sim.trigger('REJECTED_PAYMENT', rejected)).status;
      }
      return 0;
    },
    close: () => sim.close(),
  };
}

/**
 * Provider T: a committed transfer is `SENT` (succeeded, final) at once, so what the reconciler must find here is
 * the transfer whose create was interrupted: a process killed between the quote, the update and the commit, whose
 * key the reconciler resolves (committed: watched and announced; never committed: freed, nothing to announce).
 */
async function providerT(): Promise<Scenario> {
  const sim = await startProviderTSimulator();
  const STATUS: Record<string, string> = { SENT: 'succeeded', AVAILABLE: 'succeeded', REJECTED: 'failed' };
  return {
    provider: 't',
    adapter: sim.adapterConfig({ retry: 1 }),
    webhookSecret: null,
    operation: 'payments.create',
    input: (label) => transferInput(label),
    createdAs: 'succeeded',
    move(id, plan) {
      if (plan === 'paid') sim.setStatus(id, 'AVAILABLE');
    },
    books: () =>
      new Map(
        sim.transfers
          .filter((transfer) => transfer.committed)
          .map((transfer) => [transfer.transactionId, STATUS[transfer.status] ?? transfer.status]),
      ),
    deliver: (url, transactionId) =>
      sim.deliverWebhook(url, { transactionId, eventId: `redelivery-${crypto.randomUUID()}` }),
    async interrupt(fleet, label) {
      // Killed after the update, before the commit left the process: nothing moved; the key is freed.
      await fleet.killDuring(
        { operation: 'payments.create', args: [transferInput(`${label}-before-commit`)], key: `${label}-bc` },
        async (instance) => {
          await instance.hold([{ method: 'PUT', path: COMMIT.source }]);
        },
        (instance) => instance.held().then(() => undefined),
      );
      // Killed after the commit reached the provider, before its reply: money moved and the application never
      // heard of it; the reconciler resolves the key, watches the transfer and announces it.
      const commits = () =>
        sim.requests.filter((request) => request.method === 'PUT' && COMMIT.test(request.path)).length;
      const before = commits();
      const committedBefore = sim.committedTransfers;
      sim.faults.inject({ method: 'PUT', path: COMMIT, times: 1, fault: { kind: 'delay', ms: 1_500 } });
      await fleet.killDuring(
        { operation: 'payments.create', args: [transferInput(`${label}-commit-sent`)], key: `${label}-cs` },
        async () => {},
        () => waitUntil('the commit reached the simulator', () => commits() > before),
      );
      await waitUntil('the delayed commit was handled', () => sim.committedTransfers > committedBefore);
      const landed = sim.transfers
        .filter((transfer) => transfer.committed)
        .sort((a, b) => (b.committedAt ?? 0) - (a.committedAt ?? 0))[0];
      // This one the view must show whatever its status: its key is stale, and the reconciler must find it.
      return { mustAnnounce: landed ? [landed.transactionId] : [] };
    },
    close: () => sim.close(),
  };
}

/** Provider T's commit path. */
const COMMIT = /^\/transfer\/v1\/transactions\/[^/]+\/commit$/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

/** The application's view: `<table>_records` (object → last status) and `<table>_callbacks` (one row per run). */
async function createView(url: string, table: string): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => {});
  await pool.query(`CREATE TABLE ${table}_records (object_id text PRIMARY KEY, status text);
CREATE TABLE ${table}_callbacks (object_id text NOT NULL, event_type text NOT NULL, status text NOT NULL,
  instance text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`);
  return pool;
}

/** Four instances that a test kills and replaces: `slots[i]` is the one running in place `i`. */
class Fleet {
  readonly slots: (Instance | undefined)[] = [];
  kills = 0;
  lastKillAt = 0;
  /** When each killed instance got its SIGKILL, by name. */
  readonly killedAt = new Map<string, number>();
  #generation = 0;
  /** While true, the random killer kills nobody (a replacement could not start while the store is frozen). */
  #holdKills = false;
  /** The random killer's kill (and replacement) under way. */
  #killing: Promise<void> = Promise.resolve();
  /** Slots a deliberate kill is working on: the random killer leaves them alone. */
  readonly #busy = new Set<number>();
  constructor(readonly config: InstanceConfig) {}

  async start(): Promise<void> {
    await Promise.all(Array.from({ length: INSTANCES }, (_, slot) => this.#replace(slot)));
  }

  async #replace(slot: number): Promise<void> {
    this.#generation += 1;
    this.slots[slot] = await startInstance(`app-${slot + 1}.${this.#generation}`, this.config);
  }

  live(): Instance[] {
    return this.slots.filter((instance): instance is Instance => instance !== undefined);
  }

  async #kill(slot: number): Promise<void> {
    const victim = this.slots[slot];
    if (victim === undefined) return;
    this.slots[slot] = undefined;
    this.killedAt.set(victim.name, Date.now());
    await victim.kill();
    this.kills += 1;
    this.lastKillAt = Date.now();
    await this.#replace(slot);
  }

  /** Kills a random running instance (SIGKILL) and starts another in its place. */
  async killOne(): Promise<void> {
    const slot = Math.floor(Math.random() * INSTANCES);
    if (this.#holdKills || this.#busy.has(slot)) return;
    this.#killing = this.#kill(slot);
    await this.#killing;
  }

  /** Stops the random kills (after the one under way, replacement started) until `resumeKills()`. */
  async holdKills(): Promise<void> {
    this.#holdKills = true;
    await this.#killing;
  }

  resumeKills(): void {
    this.#holdKills = false;
  }

  /** Makes one instance start `call` (after `prepare`), and kills it once `killWhen` resolves. */
  async killDuring(
    call: { operation: string; args: unknown[]; key: string },
    prepare: (instance: Instance) => Promise<void>,
    killWhen: (instance: Instance) => Promise<void>,
  ): Promise<void> {
    const slot = this.slots.findIndex((instance, index) => instance !== undefined && !this.#busy.has(index));
    const victim = this.slots[slot];
    if (victim === undefined) throw new Error('no instance to interrupt');
    this.#busy.add(slot);
    try {
      await prepare(victim);
      const pending = victim.call(call.operation, ...call.args, { idempotencyKey: call.key });
      await killWhen(victim);
      await this.#kill(slot);
      expect((await pending).ok).toBe(false);
    } finally {
      this.#busy.delete(slot);
    }
  }
}

/** The view's records and its callbacks as counted per transition. */
async function readView(view: pg.Pool, table: string) {
  const { rows: records } = await view.query(`SELECT object_id, status FROM ${table}_records`);
  const { rows: runs } = await view.query(
    `SELECT object_id, event_type, status, count(*)::int AS runs,
       array_agg(instance ORDER BY at) AS instances,
       array_agg((extract(epoch FROM at) * 1000)::float8 ORDER BY at) AS at_ms
     FROM ${table}_callbacks GROUP BY object_id, event_type, status`,
  );
  return {
    records: new Map(records.map((row) => [String(row.object_id), row.status as string | null])),
    runs: runs as {
      object_id: string;
      event_type: string;
      status: string;
      runs: number;
      instances: string[];
      at_ms: number[];
    }[],
  };
}

/** Polls until the view shows every booked object in its booked status; resolves with the time it was so. */
async function settled(
  scenario: Scenario,
  view: pg.Pool,
  table: string,
  created: ReadonlySet<string>,
  mustAnnounce: ReadonlySet<string>,
  timeoutMs: number,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { records } = await readView(view, table).catch(() => ({
      records: new Map<string, string | null>(),
    }));
    const books = scenario.books();
    const differ = [...books].filter(
      ([id, status]) =>
        records.get(id) !== status &&
        !(status === scenario.unannounced && (records.get(id) ?? null) === null) &&
        !(status === scenario.createdAs && !created.has(id) && !mustAnnounce.has(id) && !records.has(id)),
    );
    const unknown = [...records.keys()].filter((id) => !books.has(id));
    if (differ.length === 0 && unknown.length === 0) return Date.now();
    if (Date.now() > deadline) {
      throw new Error(
        `the view still differs from the books after ${timeoutMs} ms: ${JSON.stringify(
          differ.map(([id, status]) => ({ id, booked: status, view: records.get(id) ?? null })),
        )}, in the view but not in the books: ${JSON.stringify(unknown)}`,
      );
    }
    await sleep(50);
  }
}

interface Run {
  scenario: Scenario;
  store: StoreConfig;
  /** PostgreSQL of the view (the run's shared server unless a test brings its own). */
  viewUrl: string;
  objects: number;
  /** Called between creates: deliveries, an outage. */
  during?(fleet: Fleet, created: string[]): Promise<void>;
}

/** What a proof ends with: how soon after the last kill the view was settled, the kills, the callbacks' runs. */
interface Proved {
  settledAfterLastKillMs: number;
  kills: number;
  runs: Awaited<ReturnType<typeof readView>>['runs'];
}

/**
 * Creates `objects` objects through random instances while a random instance is killed (and replaced) about
 * every second; moves each at the provider (paid, failed, abandoned) a little later, and refunds the paid ones where
 * the scenario can (Provider N), the kills still going. Then waits until the view
 * equals the books and checks each transition ran its callback once.
 */
async function proveReconciled(run: Run): Promise<Proved> {
  const table = uniqueName('view').toLowerCase();
  const view = await createView(run.viewUrl, table);
  try {
    const fleet = new Fleet({
      provider: run.scenario.provider,
      adapter: run.scenario.adapter,
      store: run.store,
      idempotencyLeaseSeconds: LEDGER_LEASE_SECONDS,
      webhooks: { webhookSecret: run.scenario.webhookSecret, leaseSeconds: TRANSITION_LEASE_SECONDS },
      reconcile: { ...RECONCILE, viewUrl: run.viewUrl, viewTable: table },
    });
    await fleet.start();
    const created: string[] = [];
    const mustAnnounce = new Set<string>();
    /** The status each create returned (a checkout's: none). */
    const createdStatus = new Map<string, string | null>();
    const moves: Promise<void>[] = [];
    let creating = true;
    const killer = (async () => {
      while (creating) {
        await sleep(600 + Math.random() * 900);
        if (creating) await fleet.killOne();
      }
    })();
    for (let index = 0; index < run.objects; index += 1) {
      await sleep(200 + Math.random() * 300);
      if (index === 4) {
        const interrupted = await run.scenario.interrupt?.(fleet, table);
        for (const id of interrupted?.mustAnnounce ?? []) mustAnnounce.add(id);
      }
      const instance = pick(fleet.live());
      const other = run.scenario.otherCreate?.(index, `${table}-${index}`);
      const outcome = other
        ? await instance.call(other.operation, other.input)
        : await instance.call(run.scenario.operation, run.scenario.input(`${table}-${index}`), {
            idempotencyKey: `${table}-${index}`,
          });
      // A create that died with its instance is not retried: what it left at the provider is the reconciler's.
      if (!outcome.ok) continue;
      const id = (other ? other.id(outcome.value) : outcome.value.id) as string;
      created.push(id);
      createdStatus.set(id, typeof outcome.value.status === 'string' ? outcome.value.status : null);
      const plan = (['paid', 'failed', 'abandoned'] as const)[index % 3] as Plan;
      moves.push(sleep(Math.random() * 1_500).then(() => run.scenario.move(id, plan)));
      await run.during?.(fleet, created);
    }
    await Promise.all(moves);
    const refunds = (await run.scenario.refund?.(fleet, created, table)) ?? new Map<string, string | null>();
    for (const [id, status] of refunds) {
      created.push(id);
      createdStatus.set(id, status);
    }
    // The refunds' webhooks too (the objects' were delivered after each create, before their moves).
    if (refunds.size > 0) await run.during?.(fleet, [...refunds.keys()]);
    creating = false;
    await killer;
    // Creates killed in flight too: the provider holds what they left.
    expect(run.scenario.books().size).toBeGreaterThan(0);
    const settledAt = await settled(run.scenario, view, table, new Set(created), mustAnnounce, 30_000);
    const settledAfterLastKillMs = settledAt - Math.max(fleet.lastKillAt, 0);

    const { runs } = await readView(view, table);
    // Once per transition, on whatever instance, through whichever path. The one repeat the docs allow
    // (docs/architecture.md#reconciliation): a process killed while a transition's callbacks run, before it could
    // record them done, holds the transition until its lease ends, and then it runs again elsewhere. So every run
    // but the last must have been in an instance killed within the transition lease after that run began.
    const killedWhileRunning = (instance: string, atMs: number) => {
      const killedAt = fleet.killedAt.get(instance);
      return (
        killedAt !== undefined && killedAt >= atMs && killedAt - atMs <= TRANSITION_LEASE_SECONDS * 1_000
      );
    };
    const repeated = runs.filter(
      (row) =>
        row.runs !== 1 &&
        !row.instances
          .slice(0, -1)
          .every((instance, i) => killedWhileRunning(instance, row.at_ms[i] as number)),
    );
    expect(repeated).toEqual([]);
    // Every object whose booked status is not the one its create returned (none, for a create that died with its
    // instance) was announced, once, with that status.
    for (const [id, status] of run.scenario.books()) {
      if (status === createdStatus.get(id) || status === run.scenario.unannounced) continue;
      if (status === run.scenario.createdAs && !created.includes(id) && !mustAnnounce.has(id)) continue;
      expect(
        runs.filter((row) => row.object_id === id && row.status === status),
        id,
      ).toHaveLength(1);
    }
    await Promise.all(fleet.live().map((instance) => instance.close()));
    return { settledAfterLastKillMs, kills: fleet.kills, runs };
  } finally {
    await view.end();
  }
}

/** The run's shared store, with tables or keys of its own. */
function sharedStore(kind: 'postgres' | 'redis'): StoreConfig {
  return kind === 'postgres'
    ? { kind, url: inject('postgresUrl'), tablePrefix: uniqueName('recon').toLowerCase().slice(0, 36) }
    : { kind, url: inject('redisUrl'), keyPrefix: `pay:${uniqueName('recon')}` };
}

/** What each test started and the next `afterEach` closes: scenarios, simulators. */
const scenarios: Pick<Scenario, 'close'>[] = [];
afterEach(async () => {
  await stopAllInstances();
  await Promise.all(scenarios.splice(0).map((scenario) => scenario.close()));
});

describe('four processes reconcile what lost webhooks and killed processes miss', () => {
  const runs = [
    { name: 'Provider R', start: providerR, kind: 'postgres' },
    { name: 'Provider N', start: providerN, kind: 'postgres' },
    { name: 'Provider T', start: providerT, kind: 'postgres' },
    { name: 'Provider R', start: providerR, kind: 'redis' },
    { name: 'Provider N', start: providerN, kind: 'redis' },
    { name: 'Provider T', start: providerT, kind: 'redis' },
  ] as const;
  for (const { name, start, kind } of runs) {
    it(`${name} on ${kind}: every webhook dropped, workers killed at random`, async () => {
      const scenario = await start();
      scenarios.push(scenario);
      const result = await proveReconciled({
        scenario,
        store: sharedStore(kind),
        viewUrl: inject('postgresUrl'),
        objects: 12,
      });
      expect(result.kills).toBeGreaterThan(0);
      expect(result.settledAfterLastKillMs).toBeLessThanOrEqual(SETTLED_WITHIN_MS);
      // Provider N: refunds were finished at the provider with every webhook dropped, and reads announced them.
      if (scenario.refund) {
        expect(result.runs.filter((row) => row.event_type === 'refund.created').length).toBeGreaterThan(0);
      }
    });
  }

  const deliveredRuns = [
    { name: 'Provider R', start: providerR, objects: 9 },
    { name: 'Provider N', start: providerN, objects: 9 },
    { name: 'Provider T', start: providerT, objects: 6 },
  ] as const;
  for (const { name, start, objects } of deliveredRuns) {
    it(`${name} on postgres: webhooks delivered as well, each twice and out of order, still once per transition`, async () => {
      const scenario = await start();
      scenarios.push(scenario);
      let deliveries = 0;
      const result = await proveReconciled({
        scenario,
        store: sharedStore('postgres'),
        viewUrl: inject('postgresUrl'),
        objects,
        async during(fleet, created) {
          // Every object so far: its current push to two instances at once (a duplicate, racing itself and any
          // read), then an earlier push late (Provider R's PENDING; N and T raise none, so their current one again).
          const statuses = await Promise.all(
            created.flatMap((id) =>
              [pick(fleet.live()), pick(fleet.live())].map((instance) =>
                scenario.deliver(instance.webhookUrl, id).catch(() => 0),
              ),
            ),
          );
          deliveries += statuses.filter((status) => status >= 200 && status < 300).length;
          await scenario.deliver(pick(fleet.live()).webhookUrl, pick(created), 'PENDING').catch(() => 0);
        },
      });
      // The webhooks did arrive (and were answered): what is proved is their composition with the reads.
      expect(deliveries).toBeGreaterThan(0);
      expect(result.settledAfterLastKillMs).toBeLessThanOrEqual(SETTLED_WITHIN_MS);
    });
  }
});

describe('a callback that hangs in one instance', () => {
  it('Provider R on postgres: the others keep announcing, and each hung transition is announced once elsewhere', async () => {
    const scenario = await providerR();
    scenarios.push(scenario);
    let hanging: Instance | undefined;
    const result = await proveReconciled({
      scenario,
      store: sharedStore('postgres'),
      viewUrl: inject('postgresUrl'),
      objects: 9,
      async during(fleet, created) {
        if (hanging !== undefined || created.length < 2) return;
        hanging = pick(fleet.live());
        await hanging.hangCallbacks(3);
      },
    });
    expect(hanging).toBeDefined();
    expect(result.settledAfterLastKillMs).toBeLessThanOrEqual(30_000);
  });
});

/**
 * `unknown` answers after which an instance reports a stale key as needing a person (core's
 * `UNRESOLVED_AFTER_ASKS`, docs/architecture.md#reconciliation: asked 2, 4, 8, 16 and 32 minutes apart).
 */
const UNRESOLVED_AFTER_ASKS = 6;
/**
 * How much faster than real time the instances' reconciler clock runs in the lost-replies scenario: the backoff's
 * 2 … 32 minutes pass in 0.2 … 3.2 s, the last gaps longer than a run interval, so a key asked on every run shows.
 */
const CLOCK_SPEED = 600;
/** Keyed payments whose reply is lost after the provider created them. */
const LOST_REPLIES = 4;

describe('keyed Provider R payments whose reply was lost after the provider created them', () => {
  // Only the lost payments' keys exist here, and nothing is watched: the accelerated clock moves only what the
  // reconciler decides (which keys are stale, when a key is asked again). Who holds a key stays the store's own
  // clock: pay.resolve writes to the ledger (begin, then abandon) under the key's lease, which a call still in
  // flight holds, so a key listed early is answered "in progress" and nothing races.
  it('Provider R on postgres: every key is reported unresolved, asked with backoff and never again after', async () => {
    // Instance names repeat from test to test: only this test's runs and lines.
    reconcileRuns.length = 0;
    errorLogs.length = 0;
    const sim = await startProviderRSimulator();
    scenarios.push(sim);
    const table = uniqueName('lost').toLowerCase();
    const view = await createView(inject('postgresUrl'), table);
    try {
      const fleet = new Fleet({
        provider: 'r',
        adapter: sim.adapterConfig({ retry: 1 }),
        store: sharedStore('postgres'),
        idempotencyLeaseSeconds: LEDGER_LEASE_SECONDS,
        webhooks: { webhookSecret: sim.credentials.secret, leaseSeconds: TRANSITION_LEASE_SECONDS },
        reconcile: {
          ...RECONCILE,
          viewUrl: inject('postgresUrl'),
          viewTable: table,
          clock: { since: Date.now(), speed: CLOCK_SPEED },
        },
      });
      await fleet.start();
      const keys = await loseReplies(sim, fleet, table);
      const sentUpstream = sim.requests.length;
      // One instance dies once the keys are being asked about; its replacement starts asking from the beginning.
      await waitUntil('a reconciler asked about a lost key', () =>
        reconcileRuns.some((run) => run.asked.some((key) => keys.includes(key))),
      );
      await fleet.killOne();
      expect(fleet.kills).toBe(1);
      const reported = (instance: string, key: string) =>
        errorLogs.some((line) => line.instance === instance && line.details.idempotencyKey === key);
      await waitUntil(
        'every live instance reported every lost key',
        () => fleet.live().every((instance) => keys.every((key) => reported(instance.name, key))),
        30_000,
      );
      // Further runs of every live instance, in which none may ask about a reported key again (three: the run
      // whose error line arrived may not have reported its end yet).
      const runsOf = (instance: string) => reconcileRuns.filter((run) => run.instance === instance);
      const runsSoFar = new Map(
        fleet.live().map((instance) => [instance.name, runsOf(instance.name).length]),
      );
      await waitUntil('three more runs of every live instance', () =>
        fleet.live().every((instance) => runsOf(instance.name).length >= runsSoFar.get(instance.name)! + 3),
      );

      const transactions = keys.map((key) =>
        sim.transactions.find((entry) => entry.payerId === `customer-${key}`),
      );
      for (const instance of fleet.live()) {
        // Listed by reconciler.unresolved() with what a person needs to settle it at the provider: the refId and
        // price the provider holds, and when it was sent.
        const unresolved = await instance.unresolved();
        expect(sortedByKey(unresolved)).toEqual(
          keys.map((key, index) => ({
            idempotencyKey: key,
            provider: 'providerR',
            operation: 'payments.create',
            recoveryPoint: expect.objectContaining({
              step: 'create_sent',
              refId: transactions[index]?.refId,
              price: transactions[index]?.price,
              sentAt: expect.any(String),
            }),
            reason: expect.any(String),
            firstSeenAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
            asks: UNRESOLVED_AFTER_ASKS,
          })),
        );
        // One error line per key, with the same fields; counted on pay:reconcile.
        for (const key of keys) {
          const lines = errorLogs.filter(
            (line) => line.instance === instance.name && line.details.idempotencyKey === key,
          );
          expect(lines, `${instance.name} ${key}`).toHaveLength(1);
          expect(lines[0]?.message).toContain(key);
          expect(lines[0]?.details).toEqual(unresolved.find((entry) => entry.idempotencyKey === key));
        }
        expect(runsOf(instance.name).at(-1)?.unresolved).toBe(LOST_REPLIES);
      }
      // Asked at most UNRESOLVED_AFTER_ASKS times per instance (the killed one too); an instance that reported a
      // key asked it exactly that often, not on every run (its asks span more runs than there were asks), and
      // never after the run that reported it.
      const reporters = new Set(fleet.live().map((instance) => instance.name));
      for (const instance of new Set(reconcileRuns.map((run) => run.instance))) {
        const runs = runsOf(instance);
        for (const key of keys) {
          const asking = runs.flatMap((run, index) => (run.asked.includes(key) ? [index] : []));
          expect(asking.length, `${instance} ${key}`).toBeLessThanOrEqual(UNRESOLVED_AFTER_ASKS);
          if (!reporters.has(instance)) continue;
          expect(asking, `${instance} ${key}`).toHaveLength(UNRESOLVED_AFTER_ASKS);
          const [first, last] = [asking[0]!, asking.at(-1)!];
          expect(last - first + 1, `${instance} ${key}: runs from its first ask to its last`).toBeGreaterThan(
            UNRESOLVED_AFTER_ASKS,
          );
          expect(
            runs.length - 1 - last,
            `${instance} ${key}: runs after it was reported`,
          ).toBeGreaterThanOrEqual(2);
        }
      }
      // The provider was asked nothing more (Provider R has no lookup by our reference), and nothing was
      // announced: the application never learnt of these payments, only the report says they may exist.
      expect(sim.requests.slice(sentUpstream)).toEqual([]);
      expect((await readView(view, table)).runs).toEqual([]);
    } finally {
      await view.end();
    }
  });
});

/**
 * Creates `LOST_REPLIES` keyed payments through random instances, each handled by the provider and its reply lost
 * (the connection closed after the provider acted); no caller retries. Resolves with their keys.
 */
async function loseReplies(
  sim: Awaited<ReturnType<typeof startProviderRSimulator>>,
  fleet: Fleet,
  label: string,
): Promise<string[]> {
  const CREATE = /^\/v2\.0\/payment$/;
  sim.faults.inject({ method: 'POST', path: CREATE, times: LOST_REPLIES, fault: { kind: 'drop-after' } });
  const keys = Array.from({ length: LOST_REPLIES }, (_, index) => `${label}-lost-${index}`);
  for (const key of keys) {
    const outcome = await pick(fleet.live()).call('payments.create', providerRPaymentInput(key), {
      idempotencyKey: key,
    });
    expect(outcome, key).toMatchObject({ ok: false, error: { name: 'NetworkError', outcome: 'unknown' } });
  }
  // Each was sent once (no retry) and created once at the provider.
  expect(sim.faults.pending).toBe(0);
  expect(
    sim.requests.filter((request) => request.method === 'POST' && CREATE.test(request.path)),
  ).toHaveLength(LOST_REPLIES);
  for (const key of keys) {
    expect(
      sim.transactions.filter((entry) => entry.payerId === `customer-${key}`),
      key,
    ).toHaveLength(1);
  }
  return keys;
}

function sortedByKey(entries: Record<string, unknown>[]) {
  return [...entries].sort((a, b) => String(a.idempotencyKey).localeCompare(String(b.idempotencyKey)));
}

describe('a store outage pauses reconciliation and loses nothing', () => {
  let server: PostgresServer | undefined;
  afterAll(async () => {
    server?.thaw();
    await server?.stop();
  });

  it('Provider R: PostgreSQL frozen (SIGSTOP) past the stores’ 5 s deadline while payments are paid; afterwards every one is announced once', async () => {
    reconcileRuns.length = 0;
    server = await startPostgres({ database: 'pay_reconcile_outage' });
    const frozen = server;
    const scenario = await providerR();
    scenarios.push(scenario);
    let froze = false;
    const result = await proveReconciled({
      scenario,
      store: { kind: 'postgres', url: frozen.url(), tablePrefix: 'outage_' },
      viewUrl: frozen.url(),
      objects: 9,
      async during(fleet, created) {
        if (froze || created.length < 6) return;
        froze = true;
        await fleet.holdKills();
        frozen.freeze();
        // Payers pay while nobody can reach the store, for longer than a store call's 5 s deadline: the
        // reconciler's runs pause (StoreError), nothing is lost.
        for (const id of created) scenario.move(id, 'paid');
        await sleep(6_500);
        frozen.thaw();
        fleet.resumeKills();
      },
    });
    expect(froze).toBe(true);
    // Runs paused while the store did not answer, and later runs delivered what was paid meanwhile.
    expect(reconcileRuns.filter((run) => run.paused).length).toBeGreaterThan(0);
    expect(result.settledAfterLastKillMs).toBeLessThanOrEqual(SETTLED_WITHIN_MS);
  });
});
