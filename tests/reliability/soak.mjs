#!/usr/bin/env node
/**
 * `pnpm soak`: the webhook load scenario of test/load.test.ts, longer, against the BUILT packages (run the build
 * first; the root `soak` script does). Deliveries go over loopback HTTP through core's Node bridge, one endpoint
 * per provider (N, T, R: half N, a quarter each T and R), 50 in flight, 10% redeliveries, 5% forgeries; Providers
 * R and T confirm through their simulators. Prints heap used before and after (after a forced GC when run with
 * `--expose-gc`), deliveries per second, and checks the counts: every genuine event dispatched exactly once, every
 * forgery refused with 400, no unhandled rejection. Exit code 1 when a count is wrong. Nothing here is asserted in
 * the test command.
 *
 *   node --expose-gc soak.mjs [--deliveries 50000] [--seconds 60] [--in-flight 50]
 *
 * With --seconds, deliveries are made until the time is up (at most --deliveries).
 */
import { Agent, request as httpRequest } from 'node:http';
import { parseArgs } from 'node:util';
import { createMemoryDeduplicationStore, createPay, NORMALISED_EVENT_NAMES, toNodeListener } from '@pay/core';
import { startLoopbackServer } from '@pay/core/testing';
import { createProviderN } from '@pay/provider-n';
import { signProviderNWebhook } from '@pay/provider-n/testing';
import { createProviderR } from '@pay/provider-r';
import { buildProviderRPush, startProviderRSimulator } from '@pay/provider-r/testing';
import { createProviderT } from '@pay/provider-t';
import {
  providerTStatusEvent,
  sampleTransferMetadata,
  signedProviderTWebhook,
  startProviderTSimulator,
} from '@pay/provider-t/testing';

const { values: args } = parseArgs({
  options: {
    deliveries: { type: 'string', default: '50000' },
    seconds: { type: 'string' },
    'in-flight': { type: 'string', default: '50' },
  },
});
const MAX_DELIVERIES = Number(args.deliveries);
const SECONDS = args.seconds === undefined ? undefined : Number(args.seconds);
const IN_FLIGHT = Number(args['in-flight']);
const N_SECRET = 'pn-soak-webhook-secret-5e1d';
const ROTATION = ['providerN', 'providerT', 'providerN', 'providerR'];
const EVENTS_PER_DELIVERY = { providerN: 2, providerT: 2, providerR: 3 };
/** Provider T transfers committed in its simulator; each is pushed once as a genuine delivery. */
const T_TRANSFERS = 50;

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
function heap(label) {
  if (typeof globalThis.gc === 'function') {
    globalThis.gc();
    globalThis.gc();
  }
  const usage = process.memoryUsage();
  console.log(
    `${label}: heap used ${mb(usage.heapUsed)}, rss ${mb(usage.rss)}${globalThis.gc ? ' (after forced GC)' : ' (no --expose-gc: not collected first)'}`,
  );
  return usage.heapUsed;
}

/** A deterministic generator, so a run can be repeated. */
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

async function runPool(count, concurrency, task, keepGoing = () => true) {
  let next = 0;
  const worker = async () => {
    while (next < count && keepGoing()) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return next;
}

function poster(maxSockets) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  return {
    post: (url, body, headers) =>
      new Promise((resolve, reject) => {
        const req = httpRequest(url, { method: 'POST', agent, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}

const unhandled = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

const started = Date.now();
let rSim = await startProviderRSimulator();
let tSim = await startProviderTSimulator();
const adapters = {
  providerN: {
    // No Provider N simulator in the soak: its webhooks are signed here with N_SECRET and need no upstream call.
    adapter: createProviderN({ apiKey: 'PN_SOAK', secretKey: 'PN_SOAK_SECRET_1', isSandbox: true }),
    secret: N_SECRET,
  },
  providerT: { adapter: createProviderT(tSim.adapterConfig({ retry: 1 })), secret: null },
  providerR: {
    adapter: createProviderR(rSim.adapterConfig({ retry: 1 })),
    secret: rSim.credentials.secret,
  },
};

const counts = new Map();
const urls = {};
const endpoints = [];
const handlers = [];
for (const [provider, { adapter, secret }] of Object.entries(adapters)) {
  const handler = createPay(adapter).webhooks.setup({
    webhookSecret: secret,
    deduplicate: createMemoryDeduplicationStore(),
  });
  handler.on(
    [...(adapter.webhooks.eventNames ?? NORMALISED_EVENT_NAMES), ...adapter.webhooks.rawEventNames],
    (event) => {
      counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
    },
  );
  handlers.push(handler);
  const endpoint = await startLoopbackServer(toNodeListener(handler));
  endpoints.push(endpoint);
  urls[provider] = `${endpoint.url}/webhooks/${provider}`;
}

// Provider T: committed transfers, one genuine status event each. Provider T deduplicates on transfer + pushed
// state (docs/architecture.md#webhook-deduplication), so once every transfer was pushed, further Provider T
// deliveries are redeliveries.
const tPayer = createProviderT(tSim.adapterConfig({ retry: 1 }));
const transferIds = [];
for (let i = 0; i < T_TRANSFERS; i += 1) {
  const payment = await tPayer.createPayment({
    amount: 100 + i,
    currency: 'USD',
    provider_metadata: sampleTransferMetadata,
  });
  transferIds.push(payment.id);
}
const tHost = new URL(urls.providerT).host;
const rBasic = `Basic ${Buffer.from(`${rSim.credentials.merchant}:${rSim.credentials.secret}`).toString('base64')}`;

/** The wire form of delivery `index` of `provider` (genuine ones are built once and kept for redeliveries). */
const genuine = { providerN: [], providerT: [], providerR: [] };
let tPushed = 0;
async function newGenuine(provider, i) {
  if (provider === 'providerN') {
    const body = JSON.stringify({
      eventType: 'SUCCESSFUL_TRANSACTION',
      eventData: {
        transactionReference: `PN|soak|${i}`,
        paymentReference: `ref-${i}`,
        amountPaid: 100 + i,
        totalPayable: 100 + i,
        paymentStatus: 'PAID',
        currency: 'NGN',
        customer: { email: 'ada@example.com', name: 'Ada' },
        metaData: {},
      },
    });
    return {
      key: `PN|soak|${i}`,
      body,
      headers: {
        'content-type': 'application/json',
        'providerN-signature': await signProviderNWebhook(body, N_SECRET),
      },
    };
  }
  if (provider === 'providerT') {
    const signed = signedProviderTWebhook({
      event: providerTStatusEvent({
        transactionId: transferIds[tPushed++],
        transactionStatus: 'SENT',
        eventId: `evt-soak-${i}`,
      }),
      url: urls.providerT,
      privateKey: tSim.privateKey,
    });
    return { key: `evt-soak-${i}`, body: signed.body, headers: signed.headersAsObject };
  }
  const response = await fetch(`${rSim.url}/v2.0/payment`, {
    method: 'POST',
    headers: { authorization: rBasic, 'content-type': 'application/json' },
    body: JSON.stringify({
      price: 10_000,
      curr: 'CZK',
      label: 'Soak',
      email: 'payer@example.com',
      method: 'ALL',
      prepareOnly: true,
      test: true,
    }),
  });
  const { transId } = await response.json();
  rSim.pay(transId);
  const push = buildProviderRPush({
    ...rSim.credentials,
    transId,
    status: 'PAID',
    price: 10_000,
    curr: 'CZK',
    test: true,
    label: 'Soak',
    email: 'payer@example.com',
  });
  return { key: transId, body: push.body, headers: push.headers };
}
async function forgery(provider, i) {
  if (provider === 'providerN') {
    const body = JSON.stringify({
      eventType: 'SUCCESSFUL_TRANSACTION',
      eventData: {
        transactionReference: `PN|forged|${i}`,
        totalPayable: 1,
        currency: 'NGN',
        customer: {},
        metaData: {},
      },
    });
    return { body, headers: { 'providerN-signature': await signProviderNWebhook(body, 'not-the-secret') } };
  }
  if (provider === 'providerT') {
    const signed = signedProviderTWebhook({
      event: providerTStatusEvent({
        transactionId: transferIds[0],
        transactionStatus: 'SENT',
        eventId: `evt-forged-${i}`,
      }),
      url: urls.providerT,
      privateKey: tSim.privateKey,
    });
    return { body: signed.body.replace('"SENT"', '"REFUNDED"'), headers: signed.headersAsObject };
  }
  const push = buildProviderRPush({
    merchant: rSim.credentials.merchant,
    secret: `guess-${i}`,
    transId: 'AAAA-BBBB-CCCC',
    status: 'PAID',
    price: 1,
    curr: 'CZK',
  });
  return { body: push.body, headers: push.headers };
}

const random = seeded(11);
const tally = { genuine: new Map(), redelivery: new Map(), forgery: new Map() };
let inProgressReplies = 0;
const note = (kind, status) => tally[kind].set(status, (tally[kind].get(status) ?? 0) + 1);
const http = poster(IN_FLIGHT);
const setupMs = Date.now() - started;
console.log(
  `setup ${setupMs} ms (simulators, endpoints, ${transferIds.length} Provider T transfers); host ${tHost}`,
);
const heapBefore = heap('before');

const deadline = SECONDS === undefined ? Number.POSITIVE_INFINITY : Date.now() + SECONDS * 1000;
const runStarted = Date.now();
const made = await runPool(
  MAX_DELIVERIES,
  IN_FLIGHT,
  async (index) => {
    const provider = ROTATION[index % ROTATION.length];
    const roll = random();
    let kind;
    let wire;
    if (roll < 0.05) {
      kind = 'forgery';
      wire = await forgery(provider, index);
    } else if (
      (roll < 0.15 || (provider === 'providerT' && tPushed >= transferIds.length)) &&
      genuine[provider].length > 0
    ) {
      kind = 'redelivery';
      wire = genuine[provider][Math.floor(random() * genuine[provider].length)];
    } else {
      kind = 'genuine';
      wire = await newGenuine(provider, index);
      genuine[provider].push(wire);
    }
    let status = await http.post(urls[provider], wire.body, wire.headers);
    // 503: the same delivery is being processed right now (its lease is held); a provider delivers it again.
    for (let attempt = 0; status === 503 && kind !== 'forgery' && attempt < 200; attempt += 1) {
      inProgressReplies += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = await http.post(urls[provider], wire.body, wire.headers);
    }
    note(kind, status);
  },
  () => Date.now() < deadline,
);
const runMs = Date.now() - runStarted;
http.close();

// Counts: every genuine event once, nothing from a forgery, every forgery 400, every genuine delivery 200.
const problems = [];
const expected = Object.entries(genuine).reduce(
  (sum, [provider, list]) => sum + list.length * EVENTS_PER_DELIVERY[provider],
  0,
);
const repeated = [...counts.values()].filter((count) => count !== 1).length;
if (repeated > 0) problems.push(`${repeated} event(s) dispatched more than once`);
if (counts.size !== expected)
  problems.push(`${counts.size} distinct events dispatched, expected ${expected}`);
for (const [kind, statuses] of Object.entries(tally)) {
  const want = kind === 'forgery' ? 400 : 200;
  const wrong = [...statuses].filter(([status]) => status !== want);
  if (wrong.length > 0)
    problems.push(`${kind}: replies ${JSON.stringify(Object.fromEntries(wrong))}, expected all ${want}`);
}
if ([...counts.keys()].some((id) => id.includes('forged'))) problems.push('a forged event was dispatched');
if (unhandled.length > 0)
  problems.push(`${unhandled.length} unhandled rejection(s): ${String(unhandled[0])}`);

const heapAfter = heap('after');
const total = (kind) => [...tally[kind].values()].reduce((sum, count) => sum + count, 0);
console.log(
  `deliveries ${made} in ${(runMs / 1000).toFixed(1)} s: ${(made / (runMs / 1000)).toFixed(0)} deliveries/s ` +
    `(genuine ${total('genuine')}, redeliveries ${total('redelivery')}, forgeries ${total('forgery')}; ` +
    `events dispatched ${counts.size}; Provider T status reads ${tSim.requests.filter((r) => r.path.startsWith('/status/')).length}, ` +
    `tokens issued ${tSim.tokensIssued}; "in progress" 503s answered and delivered again ${inProgressReplies})`,
);
console.log(
  `heap delta ${mb(heapAfter - heapBefore)} (includes the dedupe stores' entries, the simulators' request books and the kept genuine deliveries)`,
);

await Promise.all(endpoints.map((endpoint) => endpoint.close()));
await rSim.close();
await tSim.close();
// Drop the soak's own state (kept deliveries, counters, simulators) and measure again. What remains above the
// first reading is the handlers' dedupe entries (one per processed delivery, about 100 bytes each), warm-up (compiled
// code) and the simulators' request books: they record every request with its headers and body, and stay
// reachable after close through compiled code's feedback, so they are not a library leak (a heap snapshot of a
// 20,000-delivery run showed them as the bulk of the growth).
const deliveriesKept = Object.values(genuine).reduce((sum, list) => sum + list.length, 0);
for (const list of Object.values(genuine)) list.length = 0;
counts.clear();
rSim = undefined;
tSim = undefined;
const heapKept = heap(`after releasing the soak's own state (${deliveriesKept} dedupe entries still held)`);
console.log(
  `growth kept: ${mb(heapKept - heapBefore)} (${((heapKept - heapBefore) / made).toFixed(0)} bytes per delivery)`,
);
void handlers;

if (problems.length > 0) {
  console.error(`FAILED:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log(
  'OK: every genuine event dispatched exactly once, every forgery refused with 400, no unhandled rejection',
);
