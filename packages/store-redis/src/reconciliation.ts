import { type ClaimedObject, type ReconciliationStore, ValidationError, type WatchedObject } from '@pay/core';
import { parseJson } from '@pay/core/adapter';
import { applied, replyRows, scriptRunner, unexpectedReply } from './client.js';
import { checkNumbers, milliseconds, type RedisStoreOptions } from './options.js';

/**
 * The keys of one provider (see {@link createRedisReconciliationStore}): `KEYS[1]` the `due` set, `KEYS[2]` the
 * `leases` set, `KEYS[3]` the `expiry` set. A member `<kind>:<id>` has its hash `<object key prefix><kind>:<id>`
 * holding `status` (JSON), `reads`, `dueAt`, `expiresAt` and, while leased, `lease`. Expired objects are dropped
 * by `claim` and `backlog` (at most 1000 per call), before anything else.
 */
const DROP_EXPIRED = `
local function dropExpired(objectPrefix, now)
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 1000)) do
    redis.call('DEL', objectPrefix .. member)
    redis.call('ZREM', KEYS[1], member)
    redis.call('ZREM', KEYS[2], member)
    redis.call('ZREM', KEYS[3], member)
  end
end
`;

/**
 * `watch`: starts watching the object unless it is watched already and not expired by ARGV[7] (this process's
 * clock). `KEYS[4]` is the object's hash, which Redis deletes a day after its expiry should no call drop it first.
 * ARGV: member, status JSON, reads, dueAt, expiresAt, ms to keep the hash, now.
 */
const WATCH = `
local expiresAt = redis.call('HGET', KEYS[4], 'expiresAt')
if expiresAt and tonumber(expiresAt) > tonumber(ARGV[7]) then
  return 0
end
redis.call('DEL', KEYS[4])
redis.call('HSET', KEYS[4], 'status', ARGV[2], 'reads', ARGV[3], 'dueAt', ARGV[4], 'expiresAt', ARGV[5])
redis.call('PEXPIRE', KEYS[4], ARGV[6])
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
return 1
`;

/**
 * `claim`: leases up to ARGV[3] due objects, earliest `dueAt` first, skipping those whose lease has not ended at
 * ARGV[2]; each gets the lease ARGV[5]:<n> until ARGV[2] + ARGV[4] ms. ARGV: object key prefix, now, limit, lease
 * ms, lease token. Reply: a flat array of {member, lease, status JSON, reads, dueAt, expiresAt}.
 */
const CLAIM = `${DROP_EXPIRED}
local now = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
dropExpired(ARGV[1], now)
local leaseUntil = string.format('%d', now + tonumber(ARGV[4]))
local reply = {}
local claimed = 0
local offset = 0
while claimed < limit do
  local batch = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', offset, limit - claimed)
  if #batch == 0 then
    break
  end
  for _, member in ipairs(batch) do
    local held = redis.call('ZSCORE', KEYS[2], member)
    local object = ARGV[1] .. member
    local row = redis.call('HMGET', object, 'status', 'reads', 'dueAt', 'expiresAt')
    if not row[3] then
      redis.call('ZREM', KEYS[1], member)
      redis.call('ZREM', KEYS[2], member)
      redis.call('ZREM', KEYS[3], member)
    elseif held and tonumber(held) > now then
      offset = offset + 1
    else
      claimed = claimed + 1
      local lease = ARGV[5] .. ':' .. claimed
      redis.call('HSET', object, 'lease', lease)
      redis.call('ZADD', KEYS[2], leaseUntil, member)
      offset = offset + 1
      reply[#reply + 1] = member
      reply[#reply + 1] = lease
      for _, value in ipairs(row) do
        reply[#reply + 1] = value
      end
    end
  end
end
return reply
`;

/**
 * `settle`: with the lease still the object's, records the read (ARGV[3] = 'next': status JSON, reads, dueAt) and
 * frees the lease, or stops watching (ARGV[3] = 'final'). `KEYS[4]` is the object's hash. ARGV: member, lease,
 * 'next' | 'final', status JSON, reads, dueAt. Reply: 1, or 0 when the lease was lost.
 */
const SETTLE = `
if redis.call('HGET', KEYS[4], 'lease') ~= ARGV[2] then
  return 0
end
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[3] == 'final' then
  redis.call('DEL', KEYS[4])
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return 1
end
redis.call('HSET', KEYS[4], 'status', ARGV[4], 'reads', ARGV[5], 'dueAt', ARGV[6])
redis.call('HDEL', KEYS[4], 'lease')
redis.call('ZADD', KEYS[1], ARGV[6], ARGV[1])
return 1
`;

/**
 * `announce`: records ARGV[1] (status JSON) as the announced status of each object hash in `KEYS` that exists,
 * whoever holds its lease.
 */
const ANNOUNCE = `
for _, object in ipairs(KEYS) do
  if redis.call('EXISTS', object) == 1 then
    redis.call('HSET', object, 'status', ARGV[1])
  end
end
return 1
`;

/**
 * `spend`: the minute's counter (`KEYS[1]`) grants what is left of the budget, up to the reads asked for, and
 * expires two minutes later. ARGV: reads, reads per minute. Reply: the reads granted.
 */
const SPEND = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local granted = math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) - used)
if granted <= 0 then
  return 0
end
redis.call('INCRBY', KEYS[1], granted)
redis.call('PEXPIRE', KEYS[1], 120000)
return granted
`;

/**
 * `backlog`: the objects watched and due at ARGV[2], and the earliest `dueAt` among those due. ARGV: object key
 * prefix, now. Reply: {watched, due, oldest dueAt or ''}.
 */
const BACKLOG = `${DROP_EXPIRED}
local now = tonumber(ARGV[2])
dropExpired(ARGV[1], now)
local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, 1)
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCOUNT', KEYS[1], '-inf', now), oldest[2] or ''}
`;

/** How long Redis keeps an object's hash after its `expiresAt`, should no call drop it before (one day). */
const KEEP_AFTER_EXPIRY_MS = 86_400_000;
const KINDS: readonly WatchedObject['kind'][] = ['payment', 'checkout', 'refund'];

/**
 * The reconciler's {@link ReconciliationStore} on Redis, shared by every instance. Per provider, under the hash
 * tag `{<provider>}` (so each call stays in one Redis Cluster slot): sorted sets of the watched objects by
 * `dueAt` (`<keyPrefix>reconcile:{<provider>}:due`), of the leased ones by the end of their lease (`…:leases`)
 * and of all by `expiresAt` (`…:expiry`); a hash per object (`…:object:<kind>:<id>`); and a counter of the reads
 * granted per minute (`…:reads:<minute>`). Each call is one atomic script, so two concurrent claims never lease
 * one object. Times are the epoch milliseconds the reconciler passes; `watch` judges expiry by this process's
 * clock, as core's in-memory store does (docs/architecture.md#reconciliation).
 *
 * Every call fails with core's `StoreError` (`code: 'store_unavailable'`) when Redis does not answer.
 */
export function createRedisReconciliationStore(options: RedisStoreOptions): ReconciliationStore {
  const { run, keyPrefix } = scriptRunner(options);
  const keysOf = (provider: string) => {
    const base = `${keyPrefix}reconcile:{${provider}}:`;
    return {
      sets: [`${base}due`, `${base}leases`, `${base}expiry`],
      objects: `${base}object:`,
      reads: `${base}reads:`,
    };
  };
  return {
    async watch({ provider, kind, id, status, reads, dueAt, expiresAt }) {
      const member = `${kind}:${id}`;
      checkNumbers('reconciliation.watch', { reads }, { dueAt, expiresAt });
      const { sets, objects } = keysOf(provider);
      const keep = Math.max(1, Math.ceil(expiresAt - Date.now()) + KEEP_AFTER_EXPIRY_MS);
      const numbers = [reads, Math.round(dueAt), Math.round(expiresAt), keep, Date.now()].map(String);
      await run(
        'reconciliation.watch',
        WATCH,
        [...sets, objects + member],
        [member, JSON.stringify(status), ...numbers],
      );
    },
    async claim(provider, { now, limit, leaseSeconds }) {
      const leaseMs = milliseconds(leaseSeconds, 'leaseSeconds', 'reconciliation.claim');
      checkNumbers('reconciliation.claim', { limit }, { now });
      if (limit === 0) return [];
      const { sets, objects } = keysOf(provider);
      const numbers = [Math.round(now), limit, leaseMs].map(String);
      const reply = await run('reconciliation.claim', CLAIM, sets, [
        objects,
        ...numbers,
        crypto.randomUUID(),
      ]);
      const claimed = replyRows('reconciliation.claim', reply, 6, (row) => claimedObject(provider, row));
      // The script takes objects whose lease ended in the order of their `dueAt` too; sorted again for clarity.
      return claimed.sort((a, b) => a.object.dueAt - b.object.dueAt);
    },
    async settle({ provider, kind, id }, lease, next) {
      const member = `${kind}:${id}`;
      if (next !== 'final')
        checkNumbers('reconciliation.settle', { reads: next.reads }, { dueAt: next.dueAt });
      const { sets, objects } = keysOf(provider);
      const read =
        next === 'final'
          ? ['final']
          : ['next', JSON.stringify(next.status), String(next.reads), String(Math.round(next.dueAt))];
      const keys = [...sets, objects + member];
      const reply = await run('reconciliation.settle', SETTLE, keys, [member, lease, ...read], [lease]);
      return applied('reconciliation.settle', reply);
    },
    async announce(provider, kinds, id, status) {
      const { objects } = keysOf(provider);
      const keys = kinds.map((kind) => `${objects}${kind}:${id}`);
      await run('reconciliation.announce', ANNOUNCE, keys, [JSON.stringify(status)]);
    },
    async spend(provider, { now, reads, perMinute }) {
      checkNumbers('reconciliation.spend', { reads }, { now });
      if (Number.isNaN(perMinute)) {
        throw new ValidationError([{ path: 'perMinute', message: 'must be a number of reads' }], {
          operation: 'reconciliation.spend',
        });
      }
      if (reads === 0) return 0;
      const budget = Math.max(0, Math.min(Math.floor(perMinute), Number.MAX_SAFE_INTEGER));
      const counter = `${keysOf(provider).reads}${Math.floor(now / 60_000)}`;
      const reply = await run('reconciliation.spend', SPEND, [counter], [String(reads), String(budget)]);
      if (!Number.isSafeInteger(reply)) throw unexpectedReply('reconciliation.spend', reply);
      return reply as number;
    },
    async backlog(provider, now) {
      checkNumbers('reconciliation.backlog', {}, { now });
      const { sets, objects } = keysOf(provider);
      const reply = await run('reconciliation.backlog', BACKLOG, sets, [objects, String(Math.round(now))]);
      if (!Array.isArray(reply) || reply.length !== 3) throw unexpectedReply('reconciliation.backlog', reply);
      const [watched, due, oldest] = reply as unknown[];
      const oldestDueAt = oldest === '' ? null : Number(oldest);
      if (typeof watched !== 'number' || typeof due !== 'number' || Number.isNaN(oldestDueAt)) {
        throw unexpectedReply('reconciliation.backlog', reply);
      }
      return { watched, due, oldestDueAt };
    },
  };
}

/**
 * One claimed object from the claim script's {member, lease, status JSON, reads, dueAt, expiresAt}. A member is
 * `<kind>:<id>`, and a kind holds no `:`, so the first one splits them.
 */
function claimedObject(provider: string, row: unknown[]): ClaimedObject | undefined {
  const [member, lease, status, ...counts] = row;
  if (typeof member !== 'string' || typeof lease !== 'string' || typeof status !== 'string') return undefined;
  const split = member.indexOf(':');
  const kind = member.slice(0, split) as WatchedObject['kind'];
  const parsedStatus = parseJson(status);
  const [reads, dueAt, expiresAt] = counts.map(Number) as [number, number, number];
  if (
    !KINDS.includes(kind) ||
    (parsedStatus !== null && typeof parsedStatus !== 'string') ||
    ![reads, dueAt, expiresAt].every(Number.isSafeInteger)
  ) {
    return undefined;
  }
  return {
    object: { provider, kind, id: member.slice(split + 1), status: parsedStatus, reads, dueAt, expiresAt },
    lease,
  };
}
