import type { IdempotencyEntry, IdempotencyStore, JsonValue } from '@pay/core';
import { parseJson } from '@pay/core/adapter';
import { applied, hashRead, replyRows, scriptRunner, unexpectedReply } from './client.js';
import type { RedisStoreOperation } from './errors.js';
import { checkNumbers, milliseconds, type RedisStoreOptions } from './options.js';

/** Epoch ms on the server's clock, so instances whose clocks disagree still agree on when a lease ran out. */
const NOW = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;

/**
 * `begin`. A new key is created leased and expires with its retention; a key whose lease ran out is leased again
 * keeping its recovery point and its expiry. ARGV: fingerprint, lease, lease ms, retention ms.
 * Reply: {state[, recoveryPoint or result JSON]}.
 */
const BEGIN = `${NOW}
local row = redis.call('HMGET', KEYS[1], 'fingerprint', 'state', 'leaseUntil', 'recoveryPoint', 'result')
local leaseUntil = string.format('%d', now + tonumber(ARGV[3]))
if not row[1] then
  local expiresAt = string.format('%d', now + tonumber(ARGV[4]))
  redis.call('HSET', KEYS[1], 'fingerprint', ARGV[1], 'state', 'in_progress', 'recoveryPoint', 'null',
    'result', 'null', 'lease', ARGV[2], 'leaseUntil', leaseUntil, 'expiresAt', expiresAt)
  redis.call('PEXPIREAT', KEYS[1], expiresAt)
  redis.call('ZADD', KEYS[2], leaseUntil, KEYS[1])
  return {'acquired', 'null'}
end
if row[1] ~= ARGV[1] then
  return {'mismatch'}
end
if row[2] == 'completed' then
  return {'completed', row[5]}
end
if tonumber(row[3]) > now then
  return {'in_progress'}
end
redis.call('HSET', KEYS[1], 'lease', ARGV[2], 'leaseUntil', leaseUntil)
redis.call('ZADD', KEYS[2], leaseUntil, KEYS[1])
return {'acquired', row[4]}
`;

/** Guards the writes after `begin`: they apply only while ARGV[1] holds an unexpired lease on the key. */
const HELD = `${NOW}
local held = redis.call('HMGET', KEYS[1], 'state', 'lease', 'leaseUntil')
if held[1] ~= 'in_progress' or held[2] ~= ARGV[1] or tonumber(held[3]) <= now then
  return 0
end
`;

/** `checkpoint`: records the recovery point. ARGV: lease, recoveryPoint JSON. */
const CHECKPOINT = `${HELD}
redis.call('HSET', KEYS[1], 'recoveryPoint', ARGV[2])
return 1
`;

/** `renew`: extends the held lease from now (server clock). ARGV: lease, lease milliseconds. */
const RENEW = `${HELD}
local renewed = string.format('%d', now + tonumber(ARGV[2]))
redis.call('HSET', KEYS[1], 'leaseUntil', renewed)
redis.call('ZADD', KEYS[2], renewed, KEYS[1])
return 1
`;

/** `complete`: records the result and ends the lease; the entry keeps its expiry. ARGV: lease, result JSON. */
const COMPLETE = `${HELD}
redis.call('HSET', KEYS[1], 'state', 'completed', 'result', ARGV[2], 'leaseUntil', '0')
redis.call('HDEL', KEYS[1], 'lease')
redis.call('ZREM', KEYS[2], KEYS[1])
return 1
`;

/** `release`: forgets the key (no money moved). ARGV: lease. */
const RELEASE = `${HELD}
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
return 1
`;

/** `abandon`: ends the lease now, keeping the entry and its recovery point. ARGV: lease. */
const ABANDON = `${HELD}
redis.call('HSET', KEYS[1], 'leaseUntil', '0')
redis.call('ZADD', KEYS[2], 0, KEYS[1])
return 1
`;

/** `read`. Reply: {} or {fingerprint, state, recoveryPoint JSON, result JSON, expiresAt}. */
const READ = hashRead('fingerprint', 'state', 'recoveryPoint', 'result', 'expiresAt');

/**
 * `stale`: the entries of the in-progress index (`KEYS[1]`) whose lease ended by ARGV[1] (epoch ms), still in
 * progress and within their retention, oldest (earliest `expiresAt`) first, at most ARGV[2]. Index members whose
 * entry completed, was released or expired are removed on the way. Reply: a flat array of
 * {Redis key, fingerprint, state, recoveryPoint JSON, result JSON, expiresAt} per entry.
 */
const STALE = `
local now = tonumber(ARGV[1])
local found = {}
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)) do
  local row = redis.call('HMGET', member, 'fingerprint', 'state', 'recoveryPoint', 'result', 'expiresAt', 'leaseUntil')
  if not row[1] or row[2] ~= 'in_progress' then
    redis.call('ZREM', KEYS[1], member)
  elseif tonumber(row[6]) > now then
    redis.call('ZADD', KEYS[1], row[6], member)
  elseif tonumber(row[5]) > now then
    found[#found + 1] = {member, row[1], row[2], row[3], row[4], row[5]}
  end
end
table.sort(found, function(a, b)
  if a[6] ~= b[6] then return tonumber(a[6]) < tonumber(b[6]) end
  return a[1] < b[1]
end)
local reply = {}
for index = 1, math.min(#found, tonumber(ARGV[2])) do
  for _, value in ipairs(found[index]) do
    reply[#reply + 1] = value
  end
end
return reply
`;

/**
 * The idempotency ledger (`IdempotencyStore`) on Redis. Each caller key is a hash `<keyPrefix>idempotency:<key>`
 * holding the request's fingerprint, the state (`in_progress` | `completed`), the recovery point and result (JSON),
 * the current lease and when it ends (`leaseUntil`), and the entry's expiry (`expiresAt`, server epoch ms); Redis
 * deletes the hash when `retentionSeconds` have passed since the key was first used. The sorted set
 * `<keyPrefix>idempotency-in-progress` indexes the keys in progress (their Redis key) by the end of their lease, so
 * `stale` finds the calls nobody works on without scanning keys. Each call is one atomic script; leases are timed
 * by the server's clock, so instances with skewed clocks agree. A write with a lease that expired or was taken over
 * changes nothing and resolves `false`.
 *
 * Every call fails with core's `StoreError` (`code: 'store_unavailable'`) when Redis does not answer: a payment
 * must not be sent then, since the ledger cannot say whether another attempt already sent it.
 */
export function createRedisIdempotencyStore(options: RedisStoreOptions): IdempotencyStore {
  const { run, keyPrefix } = scriptRunner(options);
  const entryPrefix = `${keyPrefix}idempotency:`;
  const inProgress = `${keyPrefix}idempotency-in-progress`;
  const keys = (key: string) => [entryPrefix + key, inProgress];
  /** Runs one of the lease-guarded writes; `true` when the lease was still held and the write applied. */
  const leasedWrite = async (
    operation: RedisStoreOperation,
    script: string,
    key: string,
    lease: string,
    values: string[] = [],
  ) => applied(operation, await run(operation, script, keys(key), [lease, ...values], [lease]));
  return {
    async begin(key, fingerprint, { leaseSeconds, retentionSeconds }) {
      const leaseMs = milliseconds(leaseSeconds, 'leaseSeconds', 'idempotency.begin');
      const retentionMs = milliseconds(retentionSeconds, 'retentionSeconds', 'idempotency.begin');
      const lease = crypto.randomUUID();
      const values = [fingerprint, lease, String(leaseMs), String(retentionMs)];
      const reply = await run('idempotency.begin', BEGIN, keys(key), values, [lease]);
      const row: unknown[] = Array.isArray(reply) ? reply : [];
      const [state, stored] = row;
      if ((state === 'in_progress' || state === 'mismatch') && row.length === 1) return { state };
      const value = storedJson(stored);
      if (value !== undefined && state === 'acquired') return { state, lease, recoveryPoint: value };
      if (value !== undefined && state === 'completed') return { state, result: value };
      throw unexpectedReply('idempotency.begin', reply);
    },
    checkpoint: (key, lease, recoveryPoint) =>
      leasedWrite('idempotency.checkpoint', CHECKPOINT, key, lease, [JSON.stringify(recoveryPoint)]),
    renew: (key, lease, leaseSeconds) =>
      leasedWrite('idempotency.renew', RENEW, key, lease, [
        String(milliseconds(leaseSeconds, 'leaseSeconds', 'idempotency.renew')),
      ]),
    complete: (key, lease, result) =>
      leasedWrite('idempotency.complete', COMPLETE, key, lease, [JSON.stringify(result)]),
    release: (key, lease) => leasedWrite('idempotency.release', RELEASE, key, lease),
    abandon: (key, lease) => leasedWrite('idempotency.abandon', ABANDON, key, lease),
    async read(key) {
      const reply = await run('idempotency.read', READ, keys(key));
      if (Array.isArray(reply) && reply.length === 0) return null;
      const entry = ledgerEntry(key, reply);
      if (entry === undefined) throw unexpectedReply('idempotency.read', reply);
      return entry;
    },
    async stale({ now, limit }) {
      checkNumbers('idempotency.stale', { limit }, { now });
      if (limit === 0) return [];
      const reply = await run(
        'idempotency.stale',
        STALE,
        [inProgress],
        [String(Math.round(now)), String(limit)],
      );
      return replyRows('idempotency.stale', reply, 6, ([redisKey, ...row]) =>
        typeof redisKey === 'string' ? ledgerEntry(redisKey.slice(entryPrefix.length), row) : undefined,
      );
    },
  };
}

/** Stored JSON text as its value; `undefined` when it is no text or no JSON (a stored `null` is `null`). */
function storedJson(text: unknown): JsonValue | undefined {
  return typeof text === 'string' ? (parseJson(text) as JsonValue | undefined) : undefined;
}

/** The read script's row as an {@link IdempotencyEntry}; `undefined` when it is not one. */
function ledgerEntry(key: string, reply: unknown): IdempotencyEntry | undefined {
  if (!Array.isArray(reply) || reply.length !== 5) return undefined;
  const [fingerprint, state, recoveryPoint, result, expiresAt] = reply as unknown[];
  if (typeof fingerprint !== 'string' || (state !== 'in_progress' && state !== 'completed')) return undefined;
  const recovery = storedJson(recoveryPoint);
  const outcome = storedJson(result);
  const expiry = Number(expiresAt);
  if (recovery === undefined || outcome === undefined || !Number.isSafeInteger(expiry)) return undefined;
  return { key, fingerprint, state, recoveryPoint: recovery, result: outcome, expiresAt: expiry };
}
