// One application instance, as a user would run it: its own Node process, importing the BUILT packages
// (`@pay/core`, an adapter, `@pay/store-postgres` or `@pay/store-redis`, and the `pg` / `redis` clients), with its
// own `createPay` over the shared provider simulator and the shared store. The test process (the parent) starts it
// with `fork` and talks to it over the IPC channel:
//
//   parent → child  { id, command: 'call', operation: 'payments.create', args: [...] }   run one pay operation
//                   { id, command: 'call', operation: 'adapter.createCheckoutRedirect', args }  or an adapter method
//                   { id, command: 'hold', rules: [{ method, path }] }                 hold matching upstream requests
//                   { id, command: 'release' }                                         send the held ones, hold no more
//                   { id, command: 'failCallbacks', count }                            the next `count` callbacks throw
//                   { id, command: 'hangCallbacks', count }                            the next `count` never settle
//                   { id, command: 'processed' }                                       the webhook events processed
//                   { id, command: 'unresolved' }                                      the reconciler's unresolved()
//                   { id, command: 'close' }                                           close everything, exit 0
//
// With `reconcile` in its configuration it is the application of test/reconcile.test.ts: createPay registers what it
// creates with the store's reconciliation store, a reconciler runs on an interval, and the webhook callbacks (and
// each create's returned record) update the application's view, two tables in PostgreSQL (see reconcile.test.ts).
// Each run's message names the idempotency keys `pay.resolve` asked the ledger about during it (`asked`: the only
// ledger reads core makes are resolve's), and core's `error` log lines go to the parent.
//
//   child → parent  { type: 'ready', pid, webhookUrl }                                 after the store is migrated
//                   { type: 'reply', id, ok, value | error }
//                   { type: 'held', method, path }                                     a held request never left
//                   { type: 'reconcileRun', paused, transitions, unresolved, asked }   a reconciler run ended
//                   { type: 'log', level: 'error', message, details }                  core logged an error
//                   { type: 'fatal', error }                                           start-up failed (then exit 1)
//
// Its configuration is JSON in PAY_INSTANCE_CONFIG (see test/instances.ts). Nothing here is a stub of the library:
// the test hooks are the `fetch` given to the adapter, which can hold a request (not send it until released) so
// that the parent can kill this process, or stop the store, at an exact point of a multi-step call; and, with
// `reconcile`, pass-through wrappers of the stores (a shortened read schedule, the keys read) and the reconciler's
// clock option.
import { subscribe } from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import { createPay, createReconciler, NORMALISED_EVENT_NAMES, toNodeListener } from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import { createProviderR } from '@pay/provider-r';
import { createProviderT } from '@pay/provider-t';
import { createPostgresStores } from '@pay/store-postgres';
import { createRedisStores } from '@pay/store-redis';
import pg from 'pg';
import { createClient } from 'redis';

const config = JSON.parse(process.env.PAY_INSTANCE_CONFIG ?? 'null');
if (config === null || typeof process.send !== 'function') {
  console.error('instance.mjs is started by test/instances.ts with fork() and PAY_INSTANCE_CONFIG');
  process.exit(2);
}

const FACTORIES = new Map([
  ['t', createProviderT],
  ['n', createProviderN],
  ['r', createProviderR],
]);

/** Sends one message to the parent; a parent that is gone ends this process (see 'disconnect'). */
function tell(message) {
  if (process.connected) process.send(message);
}

/** An error as plain JSON: its class name, code, message and the fields callers branch on. */
function serialiseError(error) {
  if (!(error instanceof Error)) return { name: 'NonError', message: String(error) };
  const fields = {};
  for (const name of ['code', 'retryable', 'outcome', 'status', 'providerCode', 'reason', 'context']) {
    if (error[name] !== undefined) fields[name] = error[name];
  }
  return JSON.parse(JSON.stringify({ name: error.name, message: error.message, ...fields }));
}

// Upstream requests matching a hold rule are never sent: the call waits forever, and the parent is told, so it
// can kill this process with the request provably not sent (the simulator's request log shows it never arrived).
let holdRules = [];
const heldRequests = [];
const realFetch = globalThis.fetch;
async function instanceFetch(input, init) {
  const request = new Request(input, init);
  const path = new URL(request.url).pathname;
  const held = holdRules.find(
    (rule) => rule.method.toUpperCase() === request.method.toUpperCase() && new RegExp(rule.path).test(path),
  );
  if (held) {
    tell({ type: 'held', method: request.method, path });
    // Sent only if the parent releases it; a killed instance never sends it.
    await new Promise((resolve) => heldRequests.push(resolve));
  }
  return await realFetch(request);
}

// The shared store this instance uses, over a client it manages as an application would.
const closers = [];
let stores;
if (config.store.kind === 'postgres') {
  // Exactly the pool of @pay/store-postgres's README (no stricter client-side timeout of pg's own): what the
  // stores promise must hold with the configuration users copy.
  const pool = new pg.Pool({
    connectionString: config.store.url,
    connectionTimeoutMillis: 5_000,
    statement_timeout: 5_000,
  });
  // A server that goes away makes idle clients emit 'error'; the stores report it on their next call.
  pool.on('error', () => {});
  closers.push(() => pool.end());
  stores = createPostgresStores({ client: pool, tablePrefix: config.store.tablePrefix });
} else if (config.store.kind === 'redis') {
  const client = createClient({
    url: config.store.url,
    disableOfflineQueue: config.store.disableOfflineQueue ?? false,
    socket: { reconnectStrategy: (retries) => Math.min(50 * (retries + 1), 500), connectTimeout: 3000 },
  });
  client.on('error', () => {});
  await client.connect();
  closers.push(() => client.destroy());
  stores = createRedisStores({
    client,
    keyPrefix: config.store.keyPrefix,
    commandTimeoutMs: config.store.commandTimeoutMs ?? 2000,
  });
} else {
  throw new Error(`unknown store kind ${config.store.kind}`);
}

/**
 * The application's view of its payments (`reconcile` only): `<view>_records` holds each object's last status,
 * `<view>_callbacks` one row per callback run, so the parent counts how often each transition ran.
 */
let view;
if (config.reconcile) {
  const pool = new pg.Pool({ connectionString: config.reconcile.viewUrl, max: 2, statement_timeout: 5_000 });
  pool.on('error', () => {});
  closers.push(() => pool.end());
  const table = config.reconcile.viewTable;
  // A final status is never overwritten: a webhook delivered late and out of order names an earlier status.
  const FINAL = "('succeeded', 'failed', 'canceled')";
  const record = (id, status) =>
    pool.query(
      `INSERT INTO ${table}_records AS r (object_id, status) VALUES ($1, $2)
       ON CONFLICT (object_id) DO UPDATE SET status = excluded.status
       WHERE r.status IS NULL OR r.status NOT IN ${FINAL}`,
      [id, status],
    );
  view = {
    record,
    async callback(event) {
      await pool.query(
        `INSERT INTO ${table}_callbacks (object_id, event_type, status, instance) VALUES ($1, $2, $3, $4)`,
        [event.data.id, event.type, event.data.status, config.name],
      );
      await record(event.data.id, event.data.status);
    },
  };
}

/**
 * The reconciliation store, with every read scheduled at most `readEveryMs` ahead: the reconciler's backoff
 * (minutes, doubling per read) shortened so the proof fits in seconds. Claims, leases, the read budget and the
 * store itself are the package's, unchanged.
 */
function shortenedSchedule(store, readEveryMs) {
  const soon = (dueAt) => Math.min(dueAt, Date.now() + readEveryMs);
  return {
    ...store,
    watch: (object) => store.watch({ ...object, dueAt: soon(object.dueAt) }),
    settle: (object, lease, next) =>
      store.settle(object, lease, next === 'final' ? next : { ...next, dueAt: soon(next.dueAt) }),
  };
}

/**
 * The idempotency store, telling which keys were read: `pay.resolve` is core's only caller of `read` (a call begins
 * its key instead), so these are the stale keys the reconciler asked about. Every call goes to the store unchanged.
 */
function askedKeys(store, asked) {
  return {
    ...store,
    read: (key) => {
      asked.push(key);
      return store.read(key);
    },
  };
}

/**
 * The reconciler's clock: real time, or (`clock`) `speed` times faster from `since` (epoch ms, the same for every
 * instance of a test), so its minutes-long backoff of unresolvable keys passes in seconds. Only the reconciler
 * reads it: leases stay on the stores' own clocks.
 */
function reconcilerClock(clock) {
  if (!clock) return Date.now;
  return () => clock.since + (Date.now() - clock.since) * clock.speed;
}

let pay;
let reconciler;
const askedThisRun = [];
let webhookUrl = null;
const processed = [];
let failingCallbacks = 0;
let hangingCallbacks = 0;

try {
  if (config.store.kind === 'postgres' && config.store.migrate !== false) await stores.migrate();
  const factory = FACTORIES.get(config.provider);
  if (!factory) throw new Error(`unknown provider ${config.provider}`);
  const adapter = factory({
    ...config.adapter,
    fetch: instanceFetch,
    ...(config.sharedTokens ? { tokenStore: stores.tokens } : {}),
  });
  pay = createPay(adapter, {
    idempotency: config.reconcile ? askedKeys(stores.idempotency, askedThisRun) : stores.idempotency,
    ...(config.idempotencyLeaseSeconds ? { idempotencyLeaseSeconds: config.idempotencyLeaseSeconds } : {}),
    ...(config.reconcile
      ? { reconcile: shortenedSchedule(stores.reconciliation, config.reconcile.readEveryMs) }
      : {}),
    onStoreError: () => {},
    ...(config.reconcile
      ? { logger: { error: (message, details) => tell({ type: 'log', level: 'error', message, details }) } }
      : {}),
  });
  if (config.webhooks) {
    const handler = pay.webhooks.setup({
      webhookSecret: config.webhooks.webhookSecret,
      deduplicate: stores.deduplication,
      ...(config.webhooks.leaseSeconds ? { deduplicateLeaseSeconds: config.webhooks.leaseSeconds } : {}),
    });
    handler.on(adapter.webhooks.eventNames ?? NORMALISED_EVENT_NAMES, async (event) => {
      if (hangingCallbacks > 0) {
        hangingCallbacks -= 1;
        processed.push({ eventId: event.id, type: event.type, dataId: event.data?.id, outcome: 'hung' });
        await new Promise(() => {});
      }
      if (view && /^(payment|refund)\./.test(event.type)) await view.callback(event);
      if (failingCallbacks > 0) {
        failingCallbacks -= 1;
        processed.push({ eventId: event.id, type: event.type, dataId: event.data?.id, outcome: 'failed' });
        throw new Error(`instance ${config.name}: callback failure injected by the test`);
      }
      processed.push({ eventId: event.id, type: event.type, dataId: event.data?.id, outcome: 'ok' });
    });
    const server = createServer(toNodeListener(handler));
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    webhookUrl = `http://127.0.0.1:${server.address().port}/webhooks`;
    if (config.reconcile) {
      reconciler = createReconciler(pay, handler, {
        intervalMs: config.reconcile.intervalMs,
        leaseSeconds: config.reconcile.leaseSeconds,
        readsPerMinute: config.reconcile.readsPerMinute,
        ...(config.reconcile.callbackTimeoutMs
          ? { callbackTimeoutMs: config.reconcile.callbackTimeoutMs }
          : {}),
        now: reconcilerClock(config.reconcile.clock),
      });
      // Each run's summary goes to the parent (a paused run: the store did not answer), with the keys it asked.
      subscribe('pay:reconcile', (run) =>
        tell({
          type: 'reconcileRun',
          paused: run.paused,
          transitions: run.transitions,
          unresolved: run.unresolved,
          asked: askedThisRun.splice(0),
        }),
      );
      reconciler.start();
      closers.unshift(() => reconciler.stop());
    }
  }
} catch (error) {
  tell({ type: 'fatal', error: serialiseError(error) });
  await Promise.allSettled(closers.map((close) => close()));
  process.exit(1);
}

/** Runs `pay.<resource>.<method>(...args)` (`operation` is e.g. `payments.create`), or `pay.resolve(...args)`. */
async function call(operation, args) {
  if (operation === 'resolve') return await pay.resolve(...args);
  // A provider-specific method (Provider R's `adapter.createCheckoutRedirect`), outside Pay's operations.
  if (operation.startsWith('adapter.')) return await pay.adapter[operation.slice('adapter.'.length)](...args);
  const [resource, method] = operation.split('.');
  const namespace = pay[resource];
  if (!namespace || typeof namespace[method] !== 'function') throw new Error(`no operation ${operation}`);
  return await namespace[method](...args);
}

async function close() {
  await Promise.allSettled(closers.map((closeOne) => closeOne()));
}

process.on('message', async (message) => {
  const { id, command } = message;
  const reply = (ok, payload) => tell({ type: 'reply', id, ok, ...payload });
  try {
    if (command === 'call') {
      const value = JSON.parse(JSON.stringify((await call(message.operation, message.args)) ?? null));
      // The application keeps what a create returned, as it would in its own orders table.
      if (view && /\.create$/.test(message.operation) && typeof value?.id === 'string') {
        await view.record(value.id, value.status ?? null);
      }
      // A redirect checkout returns its transId, no record: the application knows it, with no status yet.
      if (
        view &&
        message.operation === 'adapter.createCheckoutRedirect' &&
        typeof value?.transId === 'string'
      ) {
        await view.record(value.transId, null);
      }
      reply(true, { value });
    } else if (command === 'hold') {
      holdRules = message.rules;
      reply(true, { value: null });
    } else if (command === 'release') {
      holdRules = [];
      for (const send of heldRequests.splice(0)) send();
      reply(true, { value: null });
    } else if (command === 'failCallbacks') {
      failingCallbacks = message.count;
      reply(true, { value: null });
    } else if (command === 'hangCallbacks') {
      hangingCallbacks = message.count;
      reply(true, { value: null });
    } else if (command === 'processed') {
      reply(true, { value: processed });
    } else if (command === 'unresolved') {
      reply(true, { value: reconciler?.unresolved() ?? null });
    } else if (command === 'close') {
      await close();
      reply(true, { value: null });
      process.disconnect();
      process.exit(0);
    } else {
      reply(false, { error: { name: 'Error', message: `unknown command ${command}` } });
    }
  } catch (error) {
    reply(false, { error: serialiseError(error) });
  }
});

// The parent is gone (it ended or was killed): an orphaned instance must not linger.
process.on('disconnect', () => {
  void close().finally(() => process.exit(0));
});

tell({ type: 'ready', pid: process.pid, webhookUrl });
