/**
 * The clients the stores are tested with, each connected to a real server: node-redis (RESP2 and RESP3) as it
 * is, and ioredis through `fromIoredis`. Every test file runs its behaviours once per client.
 */

import { type RedisServer, startRedis } from '@pay/tooling/servers/redis';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { fromIoredis, type RedisScriptClient } from '../src/index.js';

/** A connected client as the stores take it, and how to close it. */
export interface TestClient {
  store: RedisScriptClient;
  /** Raw commands, to look at the keys the stores wrote. */
  get(key: string): Promise<string | null>;
  hgetall(key: string): Promise<Record<string, string>>;
  pttl(key: string): Promise<number>;
  /** Any raw command, e.g. `['HSET', key, field, value]`. */
  command(args: string[]): Promise<unknown>;
  close(): Promise<void>;
}

/** Which client library a test runs against. */
export type ClientKind = 'node-redis' | 'node-redis RESP3' | 'ioredis';

export const CLIENT_KINDS: ClientKind[] = ['node-redis', 'node-redis RESP3', 'ioredis'];

/** Errors a client reports while reconnecting, kept so they do not crash the test process. */
export const clientErrors: unknown[] = [];

/** Connects a client of `kind` to `url`; `disableOfflineQueue` makes node-redis fail at once while disconnected. */
export async function connect(
  kind: ClientKind,
  url: string,
  options: { disableOfflineQueue?: boolean } = {},
): Promise<TestClient> {
  if (kind === 'ioredis') {
    const client = new Redis(url, { lazyConnect: true, enableOfflineQueue: !options.disableOfflineQueue });
    client.on('error', (error) => clientErrors.push(error));
    await client.connect();
    return {
      store: fromIoredis(client),
      get: (key) => client.get(key),
      hgetall: (key) => client.hgetall(key),
      pttl: (key) => client.pttl(key),
      command: ([name, ...args]) => client.call(name!, ...args),
      close: async () => {
        client.disconnect();
      },
    };
  }
  const client = createClient({
    url,
    RESP: kind === 'node-redis RESP3' ? 3 : 2,
    disableOfflineQueue: options.disableOfflineQueue ?? false,
    socket: { reconnectStrategy: (retries) => Math.min(retries * 50, 500) },
  });
  client.on('error', (error) => clientErrors.push(error));
  await client.connect();
  return {
    store: client,
    get: (key) => client.get(key),
    hgetall: async (key) => ({ ...(await client.hGetAll(key)) }),
    pttl: (key) => client.pTTL(key),
    command: (args) => client.sendCommand(args),
    close: async () => {
      client.destroy();
    },
  };
}

/** Resolves after `ms` milliseconds (lease and retention expiry are real time on the server). */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts one real server for the test file (before its first test) and stops it after the last; returns the
 * running server. When the server cannot start (not installed), every test of the file fails with the reason,
 * rather than being reported as skipped as a failed `beforeAll` would make it.
 */
export function useRedisServer(): () => RedisServer {
  let server: RedisServer | undefined;
  let startFailure: unknown;
  beforeAll(async () => {
    server = await startRedis().catch((failure: unknown) => {
      startFailure = failure;
      return undefined;
    });
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw startFailure ?? new Error('the Redis server has not started');
    return server;
  };
}

/** Opens clients of `kind` to the file's server, each closed after the test that opened it. */
export function useClients(kind: ClientKind, server: () => RedisServer): () => Promise<TestClient> {
  const opened: TestClient[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((client) => client.close()));
  });
  return async () => {
    const client = await connect(kind, server().url);
    opened.push(client);
    return client;
  };
}
