/**
 * Webhooks on many instances: four Node processes, each serving core's webhook handler
 * (`toNodeListener`) with the shared deduplication store (PostgreSQL, then Redis), receive the SAME deliveries at
 * the same time from the provider's simulator. From what their callbacks report, every event is processed exactly
 * once across the instances, a redelivery of a processed delivery is skipped before any upstream read, and an
 * instance whose callback fails lets the next delivery run it (nothing lost).
 */
import { startProviderNSimulator } from '@pay/provider-n/testing';
import { startProviderRSimulator } from '@pay/provider-r/testing';
import { startProviderTSimulator } from '@pay/provider-t/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerNCheckoutInput, providerRPaymentInput, sharedStore, transferInput } from './fixtures.js';
import { type Instance, type ProcessedEvent, startInstances, stopAllInstances } from './instances.js';

const INSTANCES = 4;

/** One push of the provider, addressed to an instance's endpoint; resolves with the HTTP status of the reply. */
type Delivery = (url: string) => Promise<number>;

/** A provider's simulator, how to make records it will push about, and how its pushes are sent. */
interface Scenario {
  provider: 't' | 'n' | 'r';
  adapter: object;
  webhookSecret: string | null;
  /** Normalised events one push raises (Provider R: `payment.succeeded` then `invoice.generated` for PAID). */
  eventsPerDelivery: number;
  /** Upstream reads the webhook handler makes (to show a skipped redelivery makes none). */
  upstreamReads(): number;
  /** Creates `count` records through `creator` and makes each ready to be pushed; one delivery per record. */
  deliveries(
    creator: Instance,
    count: number,
    label: string,
  ): Promise<{ recordIds: string[]; deliveries: Delivery[] }>;
  /** A second, different push for each record (a new status), when the provider has one. */
  secondDeliveries?(recordIds: string[]): Delivery[];
  close(): Promise<void>;
}

async function providerT(): Promise<Scenario> {
  const sim = await startProviderTSimulator();
  return {
    provider: 't',
    adapter: sim.adapterConfig({ retry: 1 }),
    webhookSecret: null,
    eventsPerDelivery: 1,
    upstreamReads: () => sim.requests.filter((request) => request.path.startsWith('/status/')).length,
    async deliveries(creator, count, label) {
      const recordIds: string[] = [];
      for (let index = 0; index < count; index += 1) {
        const created = await creator.call('payments.create', transferInput(`${label}-${index}`));
        if (!created.ok) throw new Error(`payments.create failed: ${JSON.stringify(created.error)}`);
        recordIds.push(created.value.id);
      }
      const deliveries = recordIds.map(
        (transactionId, index): Delivery =>
          (url) =>
            sim.deliverWebhook(url, { transactionId, eventId: `${label}-sent-${index}` }),
      );
      return { recordIds, deliveries };
    },
    secondDeliveries(recordIds) {
      return recordIds.map((transactionId, index): Delivery => {
        sim.setStatus(transactionId, 'AVAILABLE');
        return (url) => sim.deliverWebhook(url, { transactionId, eventId: `available-${index}` });
      });
    },
    close: () => sim.close(),
  };
}

async function providerN(): Promise<Scenario> {
  const sim = await startProviderNSimulator();
  return {
    provider: 'n',
    adapter: sim.adapterConfig({ retry: 1 }),
    webhookSecret: sim.credentials.webhookSecret,
    eventsPerDelivery: 1,
    upstreamReads: () => sim.books.requests.filter((request) => request.method === 'GET').length,
    async deliveries(creator, count, label) {
      const recordIds: string[] = [];
      const deliveries: Delivery[] = [];
      for (let index = 0; index < count; index += 1) {
        const created = await creator.call('checkouts.create', providerNCheckoutInput(`${label}-${index}`));
        if (!created.ok) throw new Error(`checkouts.create failed: ${JSON.stringify(created.error)}`);
        recordIds.push(created.value.id);
        const eventData = sim.complete(created.value.id);
        deliveries.push((url) => sim.deliverWebhook(url, { eventType: 'SUCCESSFUL_TRANSACTION', eventData }));
      }
      return { recordIds, deliveries };
    },
    close: () => sim.close(),
  };
}

async function providerR(): Promise<Scenario> {
  const sim = await startProviderRSimulator();
  return {
    provider: 'r',
    adapter: sim.adapterConfig({ retry: 1 }),
    webhookSecret: sim.credentials.secret,
    eventsPerDelivery: 2,
    upstreamReads: () =>
      sim.requests.filter((request) => request.method === 'GET' || /status/i.test(request.path)).length,
    async deliveries(creator, count, label) {
      const recordIds: string[] = [];
      for (let index = 0; index < count; index += 1) {
        const created = await creator.call('payments.create', providerRPaymentInput(`${label}-${index}`));
        if (!created.ok) throw new Error(`payments.create failed: ${JSON.stringify(created.error)}`);
        recordIds.push(created.value.id);
        sim.pay(created.value.id);
      }
      return {
        recordIds,
        deliveries: recordIds.map(
          (transId): Delivery =>
            (url) =>
              sim.deliverWebhook(url, { transId }),
        ),
      };
    },
    close: () => sim.close(),
  };
}

/**
 * Sends `delivery` to every instance at once, then again to each one that answered 503 (another instance held
 * the delivery's lease), as the provider redelivers, until every instance answered 200. Each round waits for all
 * replies, so the instance holding the lease has finished before the next round: two rounds suffice; the bound is
 * there so a bug fails the test instead of looping. Resolves with every status seen.
 */
async function deliverToAll(delivery: Delivery, instances: Instance[]): Promise<number[]> {
  const seen: number[] = [];
  let pending = instances;
  for (let round = 0; round < 5 && pending.length > 0; round += 1) {
    const statuses = await Promise.all(pending.map((instance) => delivery(instance.webhookUrl)));
    seen.push(...statuses);
    const unexpected = statuses.filter((status) => status !== 200 && status !== 503);
    if (unexpected.length > 0) throw new Error(`unexpected webhook replies ${statuses.join(', ')}`);
    pending = pending.filter((_, index) => statuses[index] === 503);
  }
  if (pending.length > 0) throw new Error(`instances still answered 503 after 5 rounds: ${seen.join(', ')}`);
  return seen;
}

/** Every event the instances' callbacks received, with the instance that received it. */
async function processedEverywhere(
  instances: Instance[],
): Promise<(ProcessedEvent & { instance: string })[]> {
  const lists = await Promise.all(instances.map((instance) => instance.processed()));
  return lists.flatMap((list, index) =>
    list.map((event) => ({ ...event, instance: instances[index]!.name })),
  );
}

/** How many times each event id was processed successfully. */
function successesPerEvent(events: ProcessedEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events)
    if (event.outcome === 'ok') counts.set(event.eventId, (counts.get(event.eventId) ?? 0) + 1);
  return counts;
}

const SCENARIOS = [
  ['Provider T', providerT],
  ['Provider N', providerN],
  ['Provider R', providerR],
] as const;

describe.each(['postgres', 'redis'] as const)('webhooks on %s, four instances', (storeKind) => {
  describe.each(SCENARIOS)('%s', (_, startScenario) => {
    let scenario: Scenario;
    let instances: Instance[];

    beforeAll(async () => {
      scenario = await startScenario();
      instances = await startInstances(INSTANCES, {
        provider: scenario.provider,
        adapter: scenario.adapter,
        store: sharedStore(storeKind, `hooks_${scenario.provider}`),
        webhooks: { webhookSecret: scenario.webhookSecret },
      });
    });

    afterAll(async () => {
      await Promise.allSettled((instances ?? []).map((instance) => instance.close()));
      await stopAllInstances();
      await scenario?.close();
    });

    it('processes every event exactly once across the instances when all of them receive every delivery at once', async () => {
      const { recordIds, deliveries } = await scenario.deliveries(instances[0]!, 3, `once-${storeKind}`);
      const statuses = await Promise.all(deliveries.map((delivery) => deliverToAll(delivery, instances)));
      const second = scenario.secondDeliveries?.(recordIds) ?? [];
      await Promise.all(second.map((delivery) => deliverToAll(delivery, instances)));

      const events = await processedEverywhere(instances);
      const successes = successesPerEvent(events);
      // Every event of every delivery, each processed by exactly one instance.
      const pushes = [...recordIds, ...(second.length > 0 ? recordIds : [])];
      expect(successes.size).toBe(pushes.length * scenario.eventsPerDelivery);
      expect([...successes.values()].every((count) => count === 1)).toBe(true);
      expect(events.filter((event) => event.outcome === 'failed')).toEqual([]);
      // The events are about the records made, every record once per push.
      expect(events.map((event) => event.dataId).sort()).toEqual(
        pushes.flatMap((id) => Array(scenario.eventsPerDelivery).fill(id)).sort(),
      );
      // All events of one delivery were processed together, by the one instance that held its lease.
      for (const id of new Set(pushes)) {
        const holders = new Set(events.filter((event) => event.dataId === id).map((event) => event.instance));
        expect(holders.size).toBeLessThanOrEqual(second.length > 0 ? 2 : 1);
      }
      // Every instance got every delivery: one of them processed it (200), the others were told it was done (200)
      // or in progress elsewhere (503, then 200 on redelivery).
      for (const seen of statuses) expect(seen.filter((status) => status === 200)).toHaveLength(INSTANCES);
    });

    it('skips a redelivery of processed deliveries on every instance, before any upstream read', async () => {
      const { deliveries } = await scenario.deliveries(instances[0]!, 2, `replay-${storeKind}`);
      await Promise.all(deliveries.map((delivery) => deliverToAll(delivery, instances)));
      const before = await processedEverywhere(instances);
      const readsBefore = scenario.upstreamReads();

      const replies = await Promise.all(
        deliveries.flatMap((delivery) => instances.map((instance) => delivery(instance.webhookUrl))),
      );

      expect(replies).toEqual(Array(deliveries.length * INSTANCES).fill(200));
      expect(await processedEverywhere(instances)).toEqual(before);
      expect(scenario.upstreamReads()).toBe(readsBefore);
    });

    it('lets a redelivery run a delivery whose callback failed on one instance: processed once, nothing lost', async () => {
      const { recordIds, deliveries } = await scenario.deliveries(instances[0]!, 1, `fail-${storeKind}`);
      const delivery = deliveries[0]!;
      const failing = instances[1]!;
      await failing.failCallbacks(scenario.eventsPerDelivery);

      // The failing instance takes the delivery first: its callbacks throw, the lease is released, it answers 500.
      expect(await delivery(failing.webhookUrl)).toBe(500);
      // The provider delivers again, to every instance at once.
      await deliverToAll(delivery, instances);

      const events = (await processedEverywhere(instances)).filter((event) => event.dataId === recordIds[0]);
      const failed = events.filter((event) => event.outcome === 'failed');
      expect(failed.map((event) => event.instance)).toEqual(
        Array(scenario.eventsPerDelivery).fill(failing.name),
      );
      // The redelivery ran every event of the failed attempt again, each exactly once, on one instance.
      const successes = events.filter((event) => event.outcome === 'ok');
      expect(successes.map((event) => event.eventId).sort()).toEqual(
        failed.map((event) => event.eventId).sort(),
      );
      expect(new Set(successes.map((event) => event.instance)).size).toBe(1);
    });
  });
});
