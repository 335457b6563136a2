import type { DeduplicationStore } from '@pay/core';
import { runScript, unexpectedReply } from './client.js';
import { milliseconds, type RedisStoreOptions, resolveOptions } from './options.js';
import { DEDUPE_BEGIN, DEDUPE_COMPLETE, DEDUPE_RELEASE } from './scripts.js';

type DeliveryLease = Awaited<ReturnType<DeduplicationStore['begin']>>;

/**
 * A {@link DeduplicationStore} of webhook deliveries on Redis, shared by every instance that handles webhooks.
 * A delivery key is a string key `<keyPrefix>dedupe:<key>` holding `leased:<owner token>` (expires after the
 * lease) or `done` (expires after the time to live). `begin` takes the lease with `SET … NX PX`; `complete` and
 * `release` act only while the caller's token still owns the key, so an attempt whose lease expired and was
 * taken over cannot complete or free the new owner's.
 *
 * Every call fails with `StoreUnavailableError` (`code: 'store_unavailable'`) when Redis does not answer.
 */
export function createRedisDeduplicationStore(options: RedisStoreOptions): DeduplicationStore {
  const { client, keyPrefix, commandTimeoutMs } = resolveOptions(options);
  const storeKey = (key: string): string => `${keyPrefix}dedupe:${key}`;
  return {
    async begin(key, { leaseSeconds }) {
      const leaseMs = milliseconds(leaseSeconds, 'leaseSeconds', 'deduplication.begin');
      const lease = crypto.randomUUID();
      const reply = await runScript(client, commandTimeoutMs, {
        operation: 'deduplication.begin',
        script: DEDUPE_BEGIN,
        keys: [storeKey(key)],
        arguments: [lease, String(leaseMs)],
        secrets: [lease],
      });
      const found = deliveryLease(reply, lease);
      if (found === undefined) throw unexpectedReply('deduplication.begin', reply);
      return found;
    },
    async complete(key, lease, ttlSeconds) {
      const ttlMs = milliseconds(ttlSeconds, 'ttlSeconds', 'deduplication.complete');
      await runScript(client, commandTimeoutMs, {
        operation: 'deduplication.complete',
        script: DEDUPE_COMPLETE,
        keys: [storeKey(key)],
        arguments: [lease, String(ttlMs)],
        secrets: [lease],
      });
    },
    async release(key, lease) {
      await runScript(client, commandTimeoutMs, {
        operation: 'deduplication.release',
        script: DEDUPE_RELEASE,
        keys: [storeKey(key)],
        arguments: [lease],
        secrets: [lease],
      });
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
