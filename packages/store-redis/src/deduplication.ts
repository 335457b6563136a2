import type { DeduplicationStore } from '@pay/core';
import { scriptRunner, unexpectedReply } from './client.js';
import { milliseconds, type RedisStoreOptions } from './options.js';

/**
 * `begin`: the `SET key leased:<lease> NX PX` of the contract (`webhooks/dedupe.ts`), and on failure the `GET`
 * that tells `done` from in progress — in one script, so a lease that expires between the two cannot read as
 * neither. ARGV: lease, lease milliseconds.
 */
const BEGIN = `
if redis.call('SET', KEYS[1], 'leased:' .. ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 'acquired'
end
if redis.call('GET', KEYS[1]) == 'done' then
  return 'done'
end
return 'in_progress'
`;

/** The writes after `begin` apply only while ARGV[1] (the lease) owns the key. */
const OWNED = `
if redis.call('GET', KEYS[1]) ~= 'leased:' .. ARGV[1] then
  return 0
end
`;

/** `complete`: `SET key done PX ttl`. ARGV: lease, ttl ms. */
const COMPLETE = `${OWNED}redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2])
return 1
`;

/** `release`: `DEL key`. ARGV: lease. */
const RELEASE = `${OWNED}redis.call('DEL', KEYS[1])
return 1
`;

/**
 * A {@link DeduplicationStore} of webhook deliveries on Redis, shared by every instance that handles webhooks.
 * A delivery key is a string key `<keyPrefix>dedupe:<key>` holding `leased:<owner token>` (expires after the
 * lease) or `done` (expires after the time to live). `begin` takes the lease with `SET … NX PX`; `complete` and
 * `release` act only while the caller's token still owns the key, so an attempt whose lease expired and was
 * taken over cannot complete or free the new owner's.
 *
 * Every call fails with core's `StoreError` (`code: 'store_unavailable'`) when Redis does not answer.
 */
export function createRedisDeduplicationStore(options: RedisStoreOptions): DeduplicationStore {
  const { run, keyPrefix } = scriptRunner(options);
  const keys = (key: string) => [`${keyPrefix}dedupe:${key}`];
  return {
    async begin(key, { leaseSeconds }) {
      const leaseMs = milliseconds(leaseSeconds, 'leaseSeconds', 'deduplication.begin');
      const lease = crypto.randomUUID();
      const reply = await run('deduplication.begin', BEGIN, keys(key), [lease, String(leaseMs)], [lease]);
      if (reply === 'acquired') return { state: 'acquired', lease };
      if (reply === 'in_progress' || reply === 'done') return { state: reply };
      throw unexpectedReply('deduplication.begin', reply);
    },
    async complete(key, lease, ttlSeconds) {
      const ttlMs = milliseconds(ttlSeconds, 'ttlSeconds', 'deduplication.complete');
      await run('deduplication.complete', COMPLETE, keys(key), [lease, String(ttlMs)], [lease]);
    },
    async release(key, lease) {
      await run('deduplication.release', RELEASE, keys(key), [lease], [lease]);
    },
  };
}
