/**
 * Load (docs/architecture.md#test-suites). Counts only, never timings:
 * - 10,000 webhook deliveries over loopback HTTP through core's Node bridge (`toNodeListener`), 50 in flight,
 *   one endpoint per provider (N, T, R), 10% redeliveries and 5% forgeries: every genuine event is dispatched
 *   exactly once (dedupe store), every forgery is refused with 400, nothing is left unhandled. A redelivery that
 *   arrives while its original is still being processed is answered 503 and posted again, as a provider does.
 *   Providers T and R confirm each new delivery through their simulators; redeliveries are skipped before that
 *   upstream read (docs/architecture.md#webhook-deduplication) and forgeries never reach it.
 * - 1,000 concurrent operations against Provider N's simulator while its tokens expire (short lifetime and
 *   forced expiries): all succeed, no checkout is created twice, logins stay bounded.
 */
import {
  createMemoryDeduplicationStore,
  createPay,
  NORMALISED_EVENT_NAMES,
  type PayEvent,
  toNodeListener,
} from '@pay/core';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import { createProviderN } from '@pay/provider-n';
import { type ProviderNSimulator, startProviderNSimulator } from '@pay/provider-n/testing';
import { type ProviderRSimulator, startProviderRSimulator } from '@pay/provider-r/testing';
import { createProviderT } from '@pay/provider-t';
import {
  type ProviderTSimulator,
  providerTStatusEvent,
  signedProviderTWebhook,
  startProviderTSimulator,
} from '@pay/provider-t/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createPoster,
  N_WEBHOOK_SECRET,
  providerNAdapter,
  providerNTransactionPayload,
  providerRAdapterFor,
  providerRPushFor,
  providerTTransferParams,
  recordUnhandled,
  runPool,
  signedProviderN,
} from './support-webhooks.js';

const DELIVERIES = 10_000;
const OPERATIONS = 1_000;
const IN_FLIGHT = 50;
/** Provider T transfers in the simulator: its genuine deliveries are one per transfer (the key is transfer + state). */
const T_TRANSFERS = 60;
const PROVIDERS = ['providerN', 'providerT', 'providerR'] as const;
type Provider = (typeof PROVIDERS)[number];

/** Events each genuine delivery raises (N: SUCCESSFUL_TRANSACTION, T: SENT, R: PAID). */
const EVENTS_PER_DELIVERY: Record<Provider, number> = { providerN: 2, providerT: 2, providerR: 3 };

/** A deterministic generator, so a failure replays identically. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface PlannedDelivery {
  provider: Provider;
  kind: 'genuine' | 'redelivery' | 'forgery';
  /** Index of the genuine delivery of that provider it is (or repeats); -1 for a forgery. */
  genuine: number;
}

/**
 * 10,000 deliveries: half Provider N, a quarter each T and R (their genuine deliveries cost an RSA signature or
 * a simulator transaction to set up), 5% forgeries, 10% redeliveries of an earlier genuine one (Provider T: every
 * delivery after its first `T_TRANSFERS` genuine ones is a redelivery).
 */
function plan(random: () => number): {
  deliveries: PlannedDelivery[];
  genuineCount: Record<Provider, number>;
} {
  const genuineCount: Record<Provider, number> = { providerN: 0, providerT: 0, providerR: 0 };
  const deliveries: PlannedDelivery[] = [];
  const rotation: Provider[] = ['providerN', 'providerT', 'providerN', 'providerR'];
  for (let i = 0; i < DELIVERIES; i += 1) {
    const provider = rotation[i % rotation.length]!;
    const roll = random();
    // Provider T deduplicates on transfer + pushed state: once every transfer was pushed, the rest repeat.
    const exhausted = provider === 'providerT' && genuineCount.providerT >= T_TRANSFERS;
    if (roll < 0.05) deliveries.push({ provider, kind: 'forgery', genuine: -1 });
    else if ((roll < 0.15 || exhausted) && genuineCount[provider] > 0) {
      deliveries.push({
        provider,
        kind: 'redelivery',
        genuine: Math.floor(random() * genuineCount[provider]),
      });
    } else {
      deliveries.push({ provider, kind: 'genuine', genuine: genuineCount[provider] });
      genuineCount[provider] += 1;
    }
  }
  return { deliveries, genuineCount };
}

interface Wire {
  body: string;
  headers: Record<string, string>;
}

describe('load: webhook deliveries through the Node bridge', () => {
  let rSimulator: ProviderRSimulator;
  let tSimulator: ProviderTSimulator;
  const endpoints: LoopbackServer[] = [];

  // Starting the simulators (Provider T's generates an RSA key pair) can take long on a loaded machine.
  beforeAll(async () => {
    rSimulator = await startProviderRSimulator();
    tSimulator = await startProviderTSimulator();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(endpoints.map((endpoint) => endpoint.close()));
    await rSimulator?.close();
    await tSimulator?.close();
  });

  it('10,000 deliveries, 50 in flight, 3 providers, 10% redeliveries, 5% forgeries: each genuine event once, every forgery 400', async () => {
    const { deliveries, genuineCount } = plan(seeded(7));
    const tAdapter = createProviderT(tSimulator.adapterConfig({ retry: 1 }));
    const rAdapter = providerRAdapterFor(rSimulator, 1);
    const adapters = {
      providerN: { adapter: providerNAdapter(), secret: N_WEBHOOK_SECRET as string | null },
      providerT: { adapter: tAdapter, secret: null },
      providerR: { adapter: rAdapter, secret: rSimulator.credentials.secret },
    };

    // One endpoint per provider, each with its own dedupe store and a counting callback on every event name.
    const counts = new Map<string, number>();
    const urls = {} as Record<Provider, string>;
    for (const provider of PROVIDERS) {
      const { adapter, secret } = adapters[provider];
      const handler = createPay(adapter as Parameters<typeof createPay>[0]).webhooks.setup({
        webhookSecret: secret,
        deduplicate: createMemoryDeduplicationStore(),
      });
      handler.on(
        [
          ...(adapter.webhooks.eventNames ?? NORMALISED_EVENT_NAMES),
          ...adapter.webhooks.rawEventNames,
        ] as never,
        (event: PayEvent) => {
          counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
        },
      );
      const endpoint = await startLoopbackServer(toNodeListener(handler));
      // The poster's keep-alive sockets are reused only without the kit's 1 s idle timeout, whose hint
      // (`keep-alive: timeout=1`) Node's agent shortens by 1 s to nothing: 10,000 connections otherwise. With no
      // idle timeout only the poster closes its sockets (`poster.close()`), so none is closed under a post.
      endpoint.server.keepAliveTimeout = 0;
      endpoints.push(endpoint);
      urls[provider] = `${endpoint.url}/webhooks/${provider}`;
    }
    // Provider T: committed transfers in its simulator, one genuine status event each (a second push of the same
    // transfer and state is a redelivery, whatever its event id).
    const transferIds: string[] = [];
    await runPool(T_TRANSFERS, 10, async (i) => {
      transferIds.push((await tAdapter.createPayment(providerTTransferParams(100 + i))).id);
    });
    const tSigned = (transactionId: string, eventId: string) =>
      signedProviderTWebhook({
        event: providerTStatusEvent({ transactionId, transactionStatus: 'SENT', eventId }),
        url: urls.providerT,
        privateKey: tSimulator.privateKey,
      });

    // Genuine deliveries, built up front. Provider R: one PAID transaction per delivery in its simulator, created
    // with the provider's own call (the adapter's createPayment is covered elsewhere; this keeps the setup short).
    const transIds: string[] = [];
    const basic = `Basic ${Buffer.from(`${rSimulator.credentials.merchant}:${rSimulator.credentials.secret}`).toString('base64')}`;
    await runPool(genuineCount.providerR, IN_FLIGHT, async (i) => {
      const response = await fetch(`${rSimulator.url}/v2.0/payment`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/json' },
        body: JSON.stringify({
          price: 10_000 + i,
          curr: 'CZK',
          label: 'Load',
          email: 'payer@example.com',
          method: 'ALL',
          prepareOnly: true,
          test: true,
        }),
      });
      const { transId } = (await response.json()) as { transId: string };
      rSimulator.pay(transId);
      transIds.push(transId);
    });
    const genuine: Record<Provider, Wire[]> = {
      providerN: await Promise.all(
        Array.from({ length: genuineCount.providerN }, async (_, i) => {
          const signed = await signedProviderN(
            JSON.stringify(providerNTransactionPayload(`PN|load|${i}`, 100 + i)),
          );
          return { body: signed.body as string, headers: signed.headersAsObject };
        }),
      ),
      providerT: Array.from({ length: genuineCount.providerT }, (_, i) => {
        const signed = tSigned(transferIds[i]!, `evt-load-${i}`);
        return { body: signed.body, headers: signed.headersAsObject };
      }),
      providerR: transIds.map((transId) => providerRPushFor(rSimulator, transId)),
    };
    const forgery = async (provider: Provider, index: number): Promise<Wire> => {
      if (provider === 'providerN') {
        const body = JSON.stringify(providerNTransactionPayload(`PN|forged|${index}`, 999_999));
        const signed = await signedProviderN(body, 'not-the-webhook-secret');
        return { body, headers: signed.headersAsObject };
      }
      if (provider === 'providerT') {
        // A genuine body with its amount-bearing status changed after signing.
        const signed = tSigned(transferIds[0]!, `evt-forged-${index}`);
        return { body: signed.body.replace('"SENT"', '"REFUNDED"'), headers: signed.headersAsObject };
      }
      const target = transIds[index % transIds.length]!;
      const push = providerRPushFor(rSimulator, target);
      const fields = Object.fromEntries(new URLSearchParams(push.body));
      return {
        body: new URLSearchParams({ ...fields, secret: `guess-${index}` }).toString(),
        headers: push.headers,
      };
    };

    const unhandled = recordUnhandled();
    const statuses: Record<PlannedDelivery['kind'], Map<number, number>> = {
      genuine: new Map(),
      redelivery: new Map(),
      forgery: new Map(),
    };
    const tally = (kind: PlannedDelivery['kind'], status: number) =>
      statuses[kind].set(status, (statuses[kind].get(status) ?? 0) + 1);
    let inProgressReplies = 0;
    const statusCallsBefore = rSimulator.requests.length;
    const tRequestsBefore = tSimulator.requests.length;
    const poster = createPoster(IN_FLIGHT);
    try {
      await runPool(deliveries.length, IN_FLIGHT, async (index) => {
        const delivery = deliveries[index]!;
        const wire =
          delivery.kind === 'forgery'
            ? await forgery(delivery.provider, index)
            : genuine[delivery.provider][delivery.genuine]!;
        let status = await poster.post(urls[delivery.provider], wire.body, wire.headers);
        // 503: the same delivery is being processed right now; the provider delivers it again a little later.
        for (let attempt = 0; status === 503 && delivery.kind !== 'forgery' && attempt < 200; attempt += 1) {
          inProgressReplies += 1;
          await new Promise((resolve) => setTimeout(resolve, 20));
          status = await poster.post(urls[delivery.provider], wire.body, wire.headers);
        }
        tally(delivery.kind, status);
      });
    } finally {
      poster.close();
      unhandled.stop();
    }

    const planned = (kind: PlannedDelivery['kind']) =>
      deliveries.filter((delivery) => delivery.kind === kind).length;
    expect(planned('forgery')).toBeGreaterThan(400);
    expect(planned('redelivery')).toBeGreaterThan(800);
    expect(Object.fromEntries(statuses.genuine)).toEqual({ 200: planned('genuine') });
    expect(Object.fromEntries(statuses.redelivery)).toEqual({ 200: planned('redelivery') });
    expect(Object.fromEntries(statuses.forgery)).toEqual({ 400: planned('forgery') });
    expect(unhandled.errors).toEqual([]);
    // Only a redelivery racing its original can be told "in progress"; far fewer than the redeliveries.
    expect(inProgressReplies).toBeLessThan(planned('redelivery'));

    // Every genuine event exactly once, and nothing else.
    const expectedEvents = PROVIDERS.reduce(
      (sum, provider) => sum + genuineCount[provider] * EVENTS_PER_DELIVERY[provider],
      0,
    );
    const repeated = [...counts].filter(([, count]) => count !== 1);
    expect(repeated).toEqual([]);
    expect(counts.size).toBe(expectedEvents);
    // Event ids start with the delivery's own key (N: the transaction reference, T: the event id, R: transId).
    const perKey = new Map<string, number>();
    for (const id of counts.keys()) {
      const key = id.slice(0, id.indexOf(':'));
      perKey.set(key, (perKey.get(key) ?? 0) + 1);
    }
    const keyed = (key: string) => perKey.get(key) ?? 0;
    expect([...perKey.keys()].filter((key) => key.includes('forged'))).toEqual([]);
    for (let i = 0; i < genuineCount.providerN; i += 1) expect(keyed(`PN|load|${i}`)).toBe(2);
    for (let i = 0; i < genuineCount.providerT; i += 1) expect(keyed(`evt-load-${i}`)).toBe(2);
    for (const transId of transIds) expect(keyed(transId)).toBe(3);
    // Provider R: a forged push never reached the status call, nor did a redelivery (deduplicated before it);
    // each genuine one made exactly one.
    expect(
      rSimulator.requests.slice(statusCallsBefore).filter((entry) => entry.path === '/v1.0/status').length,
    ).toBe(genuineCount.providerR);
    // Provider T: each genuine delivery read its status once, behind one login; redeliveries read nothing.
    const tStatusReads = tSimulator.requests
      .slice(tRequestsBefore)
      .filter((entry) => entry.method === 'GET' && entry.path.startsWith('/status/')).length;
    expect(tStatusReads).toBe(genuineCount.providerT);
    expect(tSimulator.tokensIssued).toBe(1);
  }, 180_000);
});

describe('load: 1,000 operations against Provider N while its tokens expire', () => {
  let simulator: ProviderNSimulator;
  afterEach(async () => {
    await simulator?.close();
  });

  const adapterFor = (sim: ProviderNSimulator) => createProviderN(sim.adapterConfig({ retry: 1 }));

  /**
   * Runs 1,000 operations (every fifth creates a checkout, the others read one of 20 seeded checkouts) with at
   * most `inFlight` at once, revoking every token once when half are done. Returns what the assertions need.
   */
  async function run(inFlight: number) {
    const adapter = adapterFor(simulator);
    const checkout = (i: number) =>
      adapter.createCheckout({
        customer: { email: `payer${i}@example.com` },
        item_id: `item-${i}`,
        quantity: 1,
        success_url: 'https://shop.example/thanks',
        provider_metadata: { amount: 1000 + i, currency: 'NGN' },
      });
    const seeds = await Promise.all(Array.from({ length: 20 }, (_, i) => checkout(i)));
    const loginsBefore = simulator.books.logins;
    const unhandled = recordUnhandled();
    const results: { ok: boolean; id: string | undefined; error?: string }[] = [];
    let done = 0;
    let revoked = 0;
    const started = Date.now();
    try {
      await runPool(OPERATIONS, inFlight, async (i) => {
        try {
          const result =
            i % 5 === 0
              ? await checkout(1_000 + i)
              : await adapter.retrievePayment(seeds[i % seeds.length]!.id);
          results[i] = { ok: true, id: result?.id };
        } catch (error) {
          results[i] = { ok: false, id: undefined, error: String(error) };
        }
        done += 1;
        if (done === OPERATIONS / 2) {
          simulator.expireTokens();
          revoked += 1;
        }
      });
    } finally {
      unhandled.stop();
    }
    return {
      seeds,
      results,
      revoked,
      elapsedMs: Date.now() - started,
      logins: simulator.books.logins - loginsBefore,
      unhandled: unhandled.errors,
    };
  }

  function expectAllSucceeded(outcome: Awaited<ReturnType<typeof run>>): void {
    expect(outcome.results.filter((result) => !result.ok).map((result) => result.error)).toEqual([]);
    expect(outcome.results).toHaveLength(OPERATIONS);
    outcome.results.forEach((result, i) => {
      expect(result.id).toEqual(
        i % 5 === 0 ? expect.any(String) : outcome.seeds[i % outcome.seeds.length]!.id,
      );
    });
    expect(outcome.unhandled).toEqual([]);
    expect(outcome.revoked).toBe(1);
    // Books: exactly the checkouts asked for. A 401 is refused before anything is created, so the call sent
    // again after the new login cannot create a second one.
    const { transactions } = simulator.books;
    expect(transactions).toHaveLength(20 + OPERATIONS / 5);
    expect(new Set(transactions.map((transaction) => transaction.paymentReference)).size).toBe(
      transactions.length,
    );
  }

  it('1,000 at once, every token revoked mid-run: all succeed with one shared new login', async () => {
    simulator = await startProviderNSimulator();
    const outcome = await run(OPERATIONS);
    expectAllSucceeded(outcome);
    // The revocation: every call in flight got a 401, dropped the token and shared one new login.
    expect(outcome.logins).toBeGreaterThanOrEqual(1);
    expect(outcome.logins).toBeLessThanOrEqual(2);
  });

  it('1,000 with 100 in flight, tokens living 6 s and revoked once: all succeed, logins bounded by the refreshes', async () => {
    // A 6 s token is refreshed after 3 s (half its lifetime): it expires several times during a loaded run. (With
    // 2 s tokens a loaded CI machine, where one call of 100 in flight takes ~2 s, saw tokens expire twice within
    // one call: a test of the machine's speed, not of the token manager.)
    simulator = await startProviderNSimulator({ tokenLifetimeSeconds: 6 });
    const outcome = await run(100);
    expectAllSucceeded(outcome);
    // One login per refresh interval of the run, one for the revocation, one spare for a 401 at an expiry edge.
    const bound = 3 + Math.ceil(outcome.elapsedMs / 3_000);
    expect(outcome.logins).toBeGreaterThanOrEqual(1);
    expect(outcome.logins).toBeLessThanOrEqual(bound);
    expect(outcome.logins).toBeLessThan(OPERATIONS / 20);
  });
});

describe('load: 1,000 Provider T status reads while its tokens expire', () => {
  it('all succeed with 100 in flight while the simulator clock jumps past token expiry twice; one login per expiry', async () => {
    const simulator = await startProviderTSimulator();
    try {
      const adapter = createProviderT(simulator.adapterConfig({ retry: 1 }));
      const transferIds: string[] = [];
      for (let i = 0; i < 10; i += 1)
        transferIds.push((await adapter.createPayment(providerTTransferParams(100 + i))).id);
      const tokensBefore = simulator.tokensIssued;
      const committedBefore = simulator.committedTransfers;
      const unhandled = recordUnhandled();
      const failures: string[] = [];
      let done = 0;
      let expiries = 0;
      try {
        await runPool(OPERATIONS, 100, async (i) => {
          try {
            const payment = await adapter.retrievePayment(transferIds[i % transferIds.length]!);
            if (payment?.id !== transferIds[i % transferIds.length]) failures.push(`wrong payment for ${i}`);
          } catch (error) {
            failures.push(String(error));
          }
          done += 1;
          // The provider's clock passes the token's expiry (the adapter's clock does not): the next calls get 401.
          if (done === Math.floor(OPERATIONS / 3) || done === Math.floor((2 * OPERATIONS) / 3)) {
            simulator.advanceTime(3_600_000);
            expiries += 1;
          }
        });
      } finally {
        unhandled.stop();
      }
      expect(failures).toEqual([]);
      expect(unhandled.errors).toEqual([]);
      expect(expiries).toBe(2);
      const logins = simulator.tokensIssued - tokensBefore;
      expect(logins).toBeGreaterThanOrEqual(expiries);
      expect(logins).toBeLessThanOrEqual(expiries + 1);
      // Reads moved no money.
      expect(simulator.committedTransfers).toBe(committedBefore);
    } finally {
      await simulator.close();
    }
  });
});
