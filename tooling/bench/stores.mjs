// Shared stores (docs/architecture.md#stores): what a money-moving call and a webhook delivery cost with each
// store, next to the in-memory one. Each store runs on a real throwaway server on loopback; the baseline of every
// figure is the same work with no store at all (no idempotency key, no deduplication).
import { createMemoryDeduplicationStore, createMemoryIdempotencyStore, createPay } from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import { providerNWebhookRequest, startProviderNSimulator } from '@pay/provider-n/testing';
import { createPostgresStores } from '@pay/store-postgres';
import { createRedisStores } from '@pay/store-redis';
import { startPostgres } from '@pay/tooling/servers/postgres';
import { startRedis } from '@pay/tooling/servers/redis';
import pg from 'pg';
import { createClient } from 'redis';
import { compareMs } from './harness.mjs';

const CHECKOUT = {
  customer: { email: 'ada@example.com' },
  item_id: 'plan-basic',
  success_url: 'https://shop.example/thanks',
  provider_metadata: { amount: 5000, currency: 'NGN' },
};

/** Each store under test: a name, its deduplication store and idempotency ledger, and how to let it go. */
async function storesUnderTest() {
  const postgres = await startPostgres({ database: 'pay_bench' });
  const pool = new pg.Pool({ connectionString: postgres.url(), max: 4 });
  const postgresStores = createPostgresStores({ client: pool });
  await postgresStores.migrate();
  const redis = await startRedis();
  const redisClient = createClient({ url: redis.url });
  await redisClient.connect();
  const redisStores = createRedisStores({ client: redisClient });
  return {
    stores: [
      {
        name: 'memory',
        deduplication: createMemoryDeduplicationStore(),
        idempotency: createMemoryIdempotencyStore(),
      },
      { name: 'postgres', ...postgresStores },
      { name: 'redis', ...redisStores },
    ],
    async close() {
      await pool.end();
      await postgres.stop();
      await redisClient.quit();
      await redis.stop();
    },
  };
}

/** stores.<name>.checkout and stores.<name>.webhook for the in-memory, PostgreSQL and Redis stores. */
export async function storeBenchmarks() {
  const simulator = await startProviderNSimulator();
  const { stores, close } = await storesUnderTest();
  const { secretKey } = simulator.credentials;
  const adapter = () => createProviderN(simulator.adapterConfig());
  const results = [];
  try {
    let sequence = 0;
    const plainPay = createPay(adapter());
    for (const store of stores) {
      const pay = createPay(adapter(), { idempotency: store.idempotency });
      await pay.checkouts.create(CHECKOUT); // logs in, so neither side below pays for the login
      await plainPay.checkouts.create(CHECKOUT);
      const call = await compareMs(
        () => pay.checkouts.create(CHECKOUT, { idempotencyKey: `bench-${process.pid}-${++sequence}` }),
        () => plainPay.checkouts.create(CHECKOUT),
        { iterations: 150, warmup: 10 },
      );
      results.push({
        name: `stores.${store.name}.checkout`,
        ...call,
        unit: 'ms per keyed checkouts.create (baseline: no key)',
      });

      const deduplicated = createPay(adapter()).webhooks.setup({
        webhookSecret: secretKey,
        deduplicate: store.deduplication,
      });
      const bare = createPay(adapter()).webhooks.setup({ webhookSecret: secretKey });
      const delivery = async () => {
        const reference = `PN|bench|${process.pid}|${++sequence}`;
        return providerNWebhookRequest(
          {
            eventType: 'SUCCESSFUL_TRANSACTION',
            eventData: {
              transactionReference: reference,
              paymentReference: reference,
              amountPaid: 5000,
              totalPayable: 5000,
              paidOn: '2026-11-22 10:20:11',
              paymentStatus: 'PAID',
              currency: 'NGN',
              customer: { email: 'ada@example.com', name: 'Ada' },
              metaData: {},
            },
          },
          { webhookSecret: secretKey },
        );
      };
      const webhook = await compareMs(
        async () => deduplicated.handle(await delivery()),
        async () => bare.handle(await delivery()),
        { iterations: 300, warmup: 20 },
      );
      results.push({
        name: `stores.${store.name}.webhook`,
        ...webhook,
        unit: 'ms per delivery (baseline: no deduplication)',
      });
    }
  } finally {
    await close();
    await simulator.close();
  }
  return results;
}
