// One real PostgreSQL and one real Redis server for the whole run, on free loopback ports in temporary folders,
// stopped after the run, also when tests failed (and by a watchdog when the runner itself is killed).
import { type PostgresServer, startPostgres } from '@pay/tooling/servers/postgres';
import { type RedisServer, startRedis } from '@pay/tooling/servers/redis';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    redisUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = await Promise.allSettled([startPostgres({ database: 'pay_multi_instance' }), startRedis()]);
  const [postgres, redis] = started;
  const stop = async () => {
    await Promise.allSettled(
      started.map((server) =>
        server.status === 'fulfilled' ? (server.value as PostgresServer | RedisServer).stop() : undefined,
      ),
    );
  };
  if (postgres.status === 'rejected' || redis.status === 'rejected') {
    await stop();
    throw postgres.status === 'rejected' ? postgres.reason : (redis as PromiseRejectedResult).reason;
  }
  project.provide('postgresUrl', postgres.value.url());
  project.provide('redisUrl', redis.value.url);
  return stop;
}
