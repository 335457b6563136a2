import type { IdempotencyBegin, IdempotencyEntry, IdempotencyStore, JsonValue } from '@pay/core';
import { runScript, unexpectedReply } from './client.js';
import type { RedisStoreOperation } from './errors.js';
import { checkNumbers, milliseconds, type RedisStoreOptions, resolveOptions } from './options.js';
import {
  IDEMPOTENCY_ABANDON,
  IDEMPOTENCY_BEGIN,
  IDEMPOTENCY_CHECKPOINT,
  IDEMPOTENCY_COMPLETE,
  IDEMPOTENCY_READ,
  IDEMPOTENCY_RELEASE,
  IDEMPOTENCY_RENEW,
  IDEMPOTENCY_STALE,
} from './scripts.js';
import { storeScripts } from './store-calls.js';

/**
 * The idempotency ledger (`IdempotencyStore`) on Redis. Each caller key is a hash `<keyPrefix>idempotency:<key>`
 * holding the request's fingerprint, the state, the recovery point and result (JSON), the current lease and when
 * it ends, and the entry's expiry; Redis deletes the hash when `retentionSeconds` have passed since the key was
 * first used. The sorted set `<keyPrefix>idempotency-in-progress` indexes the keys in progress by the end of
 * their lease, so `stale` finds the calls nobody works on without scanning keys. Each call is one atomic script;
 * leases are timed by the server's clock, so instances with skewed clocks agree. A write with a lease that expired or was taken over changes nothing and resolves `false`.
 *
 * Every call fails with core's `StoreError` (`code: 'store_unavailable'`) when Redis does not answer: a payment
 * must not be sent then, since the ledger cannot say whether another attempt already sent it.
 */
export function createRedisIdempotencyStore(options: RedisStoreOptions): IdempotencyStore {
  const run = storeScripts(options, 'idempotency', [IN_PROGRESS]);
  const { client, keyPrefix, commandTimeoutMs } = resolveOptions(options);
  const entryKeyPrefix = `${keyPrefix}idempotency:`;
  /** Runs one of the lease-guarded writes; `true` when the lease was still held and the write applied. */
  async function leasedWrite(
    operation: RedisStoreOperation,
    script: string,
    key: string,
    lease: string,
    values: string[],
  ): Promise<boolean> {
    const reply = await run(operation, script, key, [lease, ...values], [lease]);
    if (reply !== 0 && reply !== 1) throw unexpectedReply(operation, reply);
    return reply === 1;
  }
  return {
    async begin(key, fingerprint, { leaseSeconds, retentionSeconds }) {
      const leaseMs = milliseconds(leaseSeconds, 'leaseSeconds', 'idempotency.begin');
      const retentionMs = milliseconds(retentionSeconds, 'retentionSeconds', 'idempotency.begin');
      const lease = crypto.randomUUID();
      const reply = await run(
        'idempotency.begin',
        IDEMPOTENCY_BEGIN,
        key,
        [fingerprint, lease, String(leaseMs), String(retentionMs)],
        [lease],
      );
      const found = beginResult(reply, lease);
      if (found === undefined) throw unexpectedReply('idempotency.begin', reply);
      return found;
    },
    checkpoint: (key, lease, recoveryPoint) =>
      leasedWrite('idempotency.checkpoint', IDEMPOTENCY_CHECKPOINT, key, lease, [
        JSON.stringify(recoveryPoint),
      ]),
    renew: (key, lease, leaseSeconds) =>
      leasedWrite('idempotency.renew', IDEMPOTENCY_RENEW, key, lease, [
        String(milliseconds(leaseSeconds, 'leaseSeconds', 'idempotency.renew')),
      ]),
    complete: (key, lease, result) =>
      leasedWrite('idempotency.complete', IDEMPOTENCY_COMPLETE, key, lease, [JSON.stringify(result)]),
    release: (key, lease) => leasedWrite('idempotency.release', IDEMPOTENCY_RELEASE, key, lease, []),
    abandon: (key, lease) => leasedWrite('idempotency.abandon', IDEMPOTENCY_ABANDON, key, lease, []),
    async read(key) {
      const reply = await run('idempotency.read', IDEMPOTENCY_READ, key);
      if (Array.isArray(reply) && reply.length === 0) return null;
      const entry = ledgerEntry(key, reply);
      if (entry === undefined) throw unexpectedReply('idempotency.read', reply);
      return entry;
    },
    async stale({ now, limit }) {
      checkNumbers('idempotency.stale', { limit }, { now });
      if (limit === 0) return [];
      const reply = await runScript(client, commandTimeoutMs, {
        operation: 'idempotency.stale',
        script: IDEMPOTENCY_STALE,
        keys: [`${keyPrefix}${IN_PROGRESS}`],
        arguments: [String(Math.round(now)), String(limit)],
        secrets: [],
      });
      if (!Array.isArray(reply) || reply.length % 6 !== 0) throw unexpectedReply('idempotency.stale', reply);
      const entries: IdempotencyEntry[] = [];
      for (let index = 0; index < reply.length; index += 6) {
        const [redisKey, ...row] = reply.slice(index, index + 6) as unknown[];
        const key = typeof redisKey === 'string' ? redisKey.slice(entryKeyPrefix.length) : undefined;
        const entry = key === undefined ? undefined : ledgerEntry(key, row);
        if (entry === undefined) throw unexpectedReply('idempotency.stale', reply);
        entries.push(entry);
      }
      return entries;
    },
  };
}

/** The sorted set (under the key prefix) of the keys in progress, scored by the end of their lease. */
const IN_PROGRESS = 'idempotency-in-progress';

/** The begin script's answer as the contract's value; `undefined` for anything else. */
function beginResult(reply: unknown, lease: string): IdempotencyBegin | undefined {
  if (!Array.isArray(reply)) return undefined;
  const [state, stored] = reply as unknown[];
  if (state === 'in_progress' || state === 'mismatch') return reply.length === 1 ? { state } : undefined;
  const value = typeof stored === 'string' ? parseJson(stored) : undefined;
  if (value === undefined) return undefined;
  if (state === 'acquired') return { state, lease, recoveryPoint: value.json };
  if (state === 'completed') return { state, result: value.json };
  return undefined;
}

/** The read script's row as an {@link IdempotencyEntry}; `undefined` when it is not one. */
function ledgerEntry(key: string, reply: unknown): IdempotencyEntry | undefined {
  if (!Array.isArray(reply) || reply.length !== 5) return undefined;
  const [fingerprint, state, recoveryPoint, result, expiresAt] = reply as unknown[];
  if (typeof fingerprint !== 'string' || (state !== 'in_progress' && state !== 'completed')) return undefined;
  const recovery = typeof recoveryPoint === 'string' ? parseJson(recoveryPoint) : undefined;
  const outcome = typeof result === 'string' ? parseJson(result) : undefined;
  const expiry = Number(expiresAt);
  if (recovery === undefined || outcome === undefined || !Number.isSafeInteger(expiry)) return undefined;
  return { key, fingerprint, state, recoveryPoint: recovery.json, result: outcome.json, expiresAt: expiry };
}

/** Parses stored JSON; wrapped so that a stored `null` is told apart from unreadable text. */
function parseJson(text: string): { json: JsonValue } | undefined {
  try {
    return { json: JSON.parse(text) as JsonValue };
  } catch {
    return undefined;
  }
}
