// The reconciler's cost (docs/architecture.md#intervals-and-cost), counted, not timed: store calls and provider
// requests per watched object per interval, and provider reads per state change, over a scripted run. Provider N's
// simulator on loopback holds the checkouts; every webhook is lost (nothing is forwarded), so the reconciler finds
// every change. Its clock is advanced run by run (one run per 30 s interval, the default) for three days and a bit,
// the time an object is watched, so the figures include the whole backoff schedule and the expiry.
import {
  createMemoryDeduplicationStore,
  createMemoryIdempotencyStore,
  createMemoryReconciliationStore,
  createPay,
  createReconciler,
} from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import { startProviderNSimulator } from '@pay/provider-n/testing';

const MINUTE = 60_000;
const INTERVAL_MS = 30_000;
const READS_PER_MINUTE = 60;
const WATCH_FOR_MS = 3 * 24 * 60 * MINUTE;
const CHECKOUT = {
  customer: { email: 'ada@example.com' },
  item_id: 'plan-basic',
  success_url: 'https://shop.example/thanks',
  provider_metadata: { amount: 5000, currency: 'NGN' },
};

/**
 * What happens to the 100 checkouts, by share: the payer's action and when (after creation). Nobody acts on the
 * last share: those checkouts stay pending until their watch expires.
 */
const FATES = [
  { name: 'paid1min', share: 40, action: 'pay', atMs: 1 * MINUTE, target: '1–2' },
  { name: 'paid20min', share: 20, action: 'pay', atMs: 20 * MINUTE },
  { name: 'failed90min', share: 10, action: 'fail', atMs: 90 * MINUTE },
  { name: 'canceled5h', share: 10, action: 'cancel', atMs: 5 * 60 * MINUTE },
  { name: 'neverSettles', share: 20, action: undefined, atMs: undefined, target: '75' },
];

/** `store` with every method call counted in `counts[method]` (a Proxy keeps core's in-memory mark). */
function counting(store, counts) {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args) => {
        counts[property] = (counts[property] ?? 0) + 1;
        return value.apply(target, args);
      };
    },
  });
}

const total = (counts) => Object.values(counts).reduce((sum, n) => sum + n, 0);

/** The scripted run; returns the rows of `pnpm bench` (see the README's table). */
export async function reconcileBenchmarks() {
  let providerRequests = 0;
  const simulator = await startProviderNSimulator({
    onRequest: () => {
      providerRequests += 1;
    },
  });
  // Every run and every registration on one clock, from a minute boundary (the read budget counts per minute):
  // the checkouts are all created at `start`, so the figures do not depend on when the bench runs.
  const start = Math.ceil(Date.now() / MINUTE) * MINUTE;
  let clock = start;
  const now = () => clock;
  const counts = { reconcile: {}, ledger: {}, deduplicate: {} };
  const memory = createMemoryReconciliationStore(now);
  // The reads of each object, as the claims hand them out (the read a claim leads to is the object's reads + 1).
  const readsOf = new Map();
  const { claim, watch } = memory;
  memory.claim = async (...args) => {
    const claimed = await claim(...args);
    for (const { object } of claimed) readsOf.set(object.id, object.reads + 1);
    return claimed;
  };
  // Registration reads the process's clock (Date.now): moved to `start`, as if every checkout was created then.
  memory.watch = (object) => {
    const shift = start + WATCH_FOR_MS - object.expiresAt;
    return watch({ ...object, dueAt: object.dueAt + shift, expiresAt: object.expiresAt + shift });
  };
  const reconcile = counting(memory, counts.reconcile);
  const idempotency = counting(createMemoryIdempotencyStore(now), counts.ledger);
  const deduplicate = counting(createMemoryDeduplicationStore(), counts.deduplicate);
  const pay = createPay(createProviderN(simulator.adapterConfig()), { reconcile, idempotency });
  let delivered = 0;
  const handler = pay.webhooks
    .setup({ webhookSecret: simulator.credentials.secretKey, deduplicate })
    .onAny(() => {
      delivered += 1;
    });
  const reconciler = createReconciler(pay, handler, {
    intervalMs: INTERVAL_MS,
    readsPerMinute: READS_PER_MINUTE,
    now,
  });

  try {
    // Creating: every checkout is registered (one `watch`) under an idempotency key (`begin`, `checkpoint`,
    // `complete`); the figures below count from the first run.
    const fateOf = new Map();
    const changes = [];
    let sequence = 0;
    for (const fate of FATES) {
      for (let i = 0; i < fate.share; i++) {
        const { id } = await pay.checkouts.create(CHECKOUT, {
          idempotencyKey: `bench-reconcile-${++sequence}`,
        });
        fateOf.set(id, fate.name);
        if (fate.action) changes.push({ id, action: fate.action, atMs: fate.atMs });
      }
    }
    const objects = fateOf.size;
    const created = {
      requests: providerRequests,
      reconcile: total(counts.reconcile),
      ledger: total(counts.ledger),
    };
    for (const store of Object.values(counts)) for (const method of Object.keys(store)) store[method] = 0;
    providerRequests = 0;

    // Running: one run per interval with the clock advanced; the payer acts at the scripted times.
    let runs = 0;
    let objectIntervals = 0;
    let budgetRefused = 0;
    let maxLagMs = 0;
    let idleRunStoreCalls;
    const pending = [...changes].sort((a, b) => a.atMs - b.atMs);
    for (let elapsed = 0; elapsed <= WATCH_FOR_MS + 10 * MINUTE; elapsed += INTERVAL_MS) {
      clock = start + elapsed;
      while (pending.length > 0 && pending[0].atMs <= elapsed) {
        const change = pending.shift();
        const before = providerRequests;
        await simulator.payer[change.action](change.id);
        providerRequests = before; // the payer's action is not the application's request
      }
      const storeCallsBefore = total(counts.reconcile) + total(counts.ledger) + total(counts.deduplicate);
      const run = await reconciler.runOnce();
      const storeCalls =
        total(counts.reconcile) + total(counts.ledger) + total(counts.deduplicate) - storeCallsBefore;
      if (run.paused || run.errors > 0) throw new Error(`reconciler run failed: ${JSON.stringify(run)}`);
      if (run.due === 0 && idleRunStoreCalls === undefined) idleRunStoreCalls = storeCalls;
      runs += 1;
      objectIntervals += run.watched;
      budgetRefused += run.budgetRefused;
      maxLagMs = Math.max(maxLagMs, run.lagMs);
    }
    const left = await memory.backlog('providerN', clock);
    if (left.watched !== 0) throw new Error(`${left.watched} objects still watched after ${WATCH_FOR_MS} ms`);

    const reads = [...readsOf.values()].reduce((sum, n) => sum + n, 0);
    const storeCalls = total(counts.reconcile) + total(counts.ledger) + total(counts.deduplicate);
    const changing = new Set(changes.map((change) => change.id));
    const readsOfChanging = [...readsOf]
      .filter(([id]) => changing.has(id))
      .reduce((sum, [, n]) => sum + n, 0);
    const readsBy = (fate) => {
      const of = [...readsOf].filter(([id]) => fateOf.get(id) === fate).map(([, n]) => n);
      return of.reduce((sum, n) => sum + n, 0) / of.length;
    };
    const interval = `${INTERVAL_MS / 1000} s`;
    const scenario = `${objects} checkouts, ${changes.length} change status, every webhook lost`;
    const detail = `${runs} runs over 3 days`;
    return [
      {
        name: 'reconcile.store.perObject',
        ours: storeCalls / objectIntervals,
        baseline: null,
        unit: `store calls per watched object per ${interval} interval (${scenario}; ${detail}: ${describe(counts)})`,
      },
      {
        name: 'reconcile.store.idleRun',
        ours: idleRunStoreCalls,
        baseline: null,
        unit: 'store calls of a run with nothing due (backlog, stale)',
        target: '2',
      },
      {
        name: 'reconcile.provider.perObject',
        ours: providerRequests / objectIntervals,
        baseline: null,
        unit: `provider HTTP requests per watched object per ${interval} interval (${providerRequests} requests for ${reads} reads)`,
      },
      {
        name: 'reconcile.provider.perChange',
        ours: reads / changes.length,
        baseline: 1,
        unit: `provider reads per state change: every read (${reads}) over the changes (${changes.length}; ${delivered} events delivered); baseline: one read per change`,
      },
      {
        name: 'reconcile.provider.perChange.changed',
        ours: readsOfChanging / changes.length,
        baseline: 1,
        unit: `the same, counting only the reads of the ${changes.length} objects that changed (${readsOfChanging} reads)`,
      },
      ...FATES.map((fate) => ({
        name: `reconcile.reads.${fate.name}`,
        ours: readsBy(fate.name),
        baseline: null,
        unit:
          fate.action === undefined
            ? 'provider reads of a checkout that stays pending, until its watch expires (3 days)'
            : `provider reads of a checkout whose payer acted (${fate.action}) ${fate.atMs / MINUTE} min after creation`,
        ...(fate.target ? { target: fate.target } : {}),
      })),
      {
        name: 'reconcile.lag.max',
        ours: maxLagMs / 1000,
        baseline: null,
        unit: `s: the longest a due object waited (all ${objects} due at once, ${READS_PER_MINUTE} reads a minute; ${budgetRefused} reads the budget deferred)`,
      },
      {
        name: 'reconcile.create',
        ours: (created.reconcile + created.ledger) / objects,
        baseline: null,
        unit: `store calls per keyed checkouts.create (watch ${created.reconcile / objects}, ledger ${created.ledger / objects}); provider requests ${created.requests} for ${objects}`,
      },
    ];
  } finally {
    await simulator.close();
  }
}

/** Each store call made, as `reconcile.backlog 8661, ledger.stale 8661, …`. */
function describe(counts) {
  return Object.entries(counts)
    .flatMap(([store, methods]) =>
      Object.entries(methods)
        .filter(([, n]) => n > 0)
        .map(([method, n]) => `${store}.${method} ${n}`),
    )
    .join(', ');
}
