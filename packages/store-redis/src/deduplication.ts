import type { DeduplicationStore } from '@pay/core';
import { unexpectedReply } from './client.js';
import { milliseconds, type RedisStoreOptions } from './options.js';
import { DEDUPE_BEGIN, DEDUPE_COMPLETE, DEDUPE_RELEASE } from './scripts.js';
import { storeScripts } from './store-calls.js';

type DeliveryLease = Awaited<ReturnType<DeduplicationStore['begin']>>;

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
  const run = storeScripts(options, 'dedupe');
  return {
    async begin(key, { leaseSeconds }) {
      const leaseMs = milliseconds(leaseSeconds, 'leaseSeconds', 'deduplication.begin');
      const lease = crypto.randomUUID();
      const reply = await run('deduplication.begin', DEDUPE_BEGIN, key, [lease, String(leaseMs)], [lease]);
      const found = deliveryLease(reply, lease);
      if (found === undefined) throw unexpectedReply('deduplication.begin', reply);
      return found;
    },
    async complete(key, lease, ttlSeconds) {
      const ttlMs = milliseconds(ttlSeconds, 'ttlSeconds', 'deduplication.complete');
      await run('deduplication.complete', DEDUPE_COMPLETE, key, [lease, String(ttlMs)], [lease]);
    },
    async release(key, lease) {
      await run('deduplication.release', DEDUPE_RELEASE, key, [lease], [lease]);
    },
  };
}

/** The begin script's answer as the contract's value; `undefined` for anything else. */
function deliveryLease(reply: unknown, lease: string): DeliveryLease | undefined {
  if (reply === 'acquired') return { state: 'acquired', lease };
  if (reply === 'in_progress') return { state: 'in_progress' };
  if (reply === 'done') return { state: 'done' };
  return undefined;
}
