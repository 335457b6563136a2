/**
 * The Lua scripts behind every store call. One script per call keeps each read-modify-write atomic on the server
 * (Redis runs a script alone) and each call one round trip. The deduplication and token scripts touch only
 * `KEYS[1]`; the idempotency scripts also keep `KEYS[2]`, the index of keys in progress, and the reconciliation
 * scripts touch only keys of one provider, all under one hash tag, so on Redis Cluster the key prefix needs a hash
 * tag of its own (README: Key layout). Ledger times come from the server's clock (`TIME`), so instances whose
 * clocks disagree still agree on when a lease ran out; reconciliation times are the ones the reconciler passes.
 * Scripts return only strings, integers and arrays of strings: Lua booleans and nils convert differently under
 * RESP2 and RESP3.
 */

/** Epoch milliseconds on the server's clock. */
const NOW = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;

/**
 * Deduplication `begin`: the `SET key leased:<lease> NX PX` of the contract (`webhooks/dedupe.ts`), and on
 * failure the `GET` that tells `done` from in progress — in one script, so a lease that expires between the two
 * cannot read as neither. ARGV: lease, lease milliseconds.
 */
export const DEDUPE_BEGIN = `
if redis.call('SET', KEYS[1], 'leased:' .. ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 'acquired'
end
if redis.call('GET', KEYS[1]) == 'done' then
  return 'done'
end
return 'in_progress'
`;

/** Deduplication `complete`: `SET key done PX ttl` only while `lease` owns the key. ARGV: lease, ttl ms. */
export const DEDUPE_COMPLETE = `
if redis.call('GET', KEYS[1]) ~= 'leased:' .. ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2])
return 1
`;

/** Deduplication `release`: `DEL key` only while `lease` owns the key. ARGV: lease. */
export const DEDUPE_RELEASE = `
if redis.call('GET', KEYS[1]) ~= 'leased:' .. ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
return 1
`;

/**
 * Idempotency `begin`. The entry is a hash: fingerprint, state (`in_progress` | `completed`), recoveryPoint and
 * result (JSON text), lease, leaseUntil and expiresAt (server epoch ms). A new key is created leased and expires
 * with its retention; a key whose lease ran out is leased again keeping its recovery point and its expiry.
 * `KEYS[2]` indexes the keys in progress (the entry's Redis key, scored by the end of its lease) for `stale`.
 * ARGV: fingerprint, lease, lease ms, retention ms. Reply: {state[, recoveryPoint or result JSON]}.
 */
export const IDEMPOTENCY_BEGIN = `${NOW}
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

/** Idempotency `checkpoint`: records the recovery point. ARGV: lease, recoveryPoint JSON. */
export const IDEMPOTENCY_CHECKPOINT = `${HELD}
redis.call('HSET', KEYS[1], 'recoveryPoint', ARGV[2])
return 1
`;

/** Idempotency `renew`: extends the held lease from now (server clock). ARGV: lease, lease milliseconds. */
export const IDEMPOTENCY_RENEW = `${HELD}
local renewed = string.format('%d', now + tonumber(ARGV[2]))
redis.call('HSET', KEYS[1], 'leaseUntil', renewed)
redis.call('ZADD', KEYS[2], renewed, KEYS[1])
return 1
`;

/** Idempotency `complete`: records the result and ends the lease; the entry keeps its expiry. ARGV: lease, JSON. */
export const IDEMPOTENCY_COMPLETE = `${HELD}
redis.call('HSET', KEYS[1], 'state', 'completed', 'result', ARGV[2], 'leaseUntil', '0')
redis.call('HDEL', KEYS[1], 'lease')
redis.call('ZREM', KEYS[2], KEYS[1])
return 1
`;

/** Idempotency `release`: forgets the key (no money moved). ARGV: lease. */
export const IDEMPOTENCY_RELEASE = `${HELD}
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
return 1
`;

/** Idempotency `abandon`: ends the lease now, keeping the entry and its recovery point. ARGV: lease. */
export const IDEMPOTENCY_ABANDON = `${HELD}
redis.call('HSET', KEYS[1], 'leaseUntil', '0')
redis.call('ZADD', KEYS[2], 0, KEYS[1])
return 1
`;

/** Idempotency `read`. Reply: {} or {fingerprint, state, recoveryPoint JSON, result JSON, expiresAt}. */
export const IDEMPOTENCY_READ = `
local row = redis.call('HMGET', KEYS[1], 'fingerprint', 'state', 'recoveryPoint', 'result', 'expiresAt')
if not row[1] then
  return {}
end
return row
`;

/**
 * Idempotency `stale`: the entries of the in-progress index (`KEYS[1]`) whose lease ended by ARGV[1] (epoch ms),
 * still in progress and within their retention, oldest (earliest `expiresAt`) first, at most ARGV[2]. Index
 * members whose entry completed, was released or expired are removed on the way. Reply: a flat array of
 * {Redis key, fingerprint, state, recoveryPoint JSON, result JSON, expiresAt} per entry.
 */
export const IDEMPOTENCY_STALE = `
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
 * Reconciliation keys, all of one provider under the hash tag `{<provider>}` (one Cluster slot): `KEYS[1]` the
 * watched objects scored by `dueAt`, `KEYS[2]` the objects leased now scored by the lease's end, `KEYS[3]` the
 * watched objects scored by `expiresAt`. A member is `<kind>:<id>`; its object is the hash
 * `<object key prefix><kind>:<id>` holding `status` (JSON), `reads`, `dueAt`, `expiresAt` and, while leased,
 * `lease`. Expired objects are dropped by `claim` and `backlog` (at most 1000 per call), before anything else.
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
 * Reconciliation `watch`: starts watching the object unless it is watched already and not expired by ARGV[7]
 * (this process's clock). `KEYS[4]` is the object's hash, which Redis deletes a day after its expiry should no
 * call drop it first. ARGV: member, status JSON, reads, dueAt, expiresAt, ms to keep the hash, now.
 */
export const RECONCILE_WATCH = `
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
 * Reconciliation `claim`: leases up to ARGV[3] due objects, earliest `dueAt` first, skipping those whose lease
 * has not ended at ARGV[2]; each gets the lease ARGV[5]:<n> until ARGV[2] + ARGV[4] ms. ARGV: object key prefix,
 * now, limit, lease ms, lease token. Reply: a flat array of {member, lease, status JSON, reads, dueAt, expiresAt}.
 */
export const RECONCILE_CLAIM = `${DROP_EXPIRED}
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
 * Reconciliation `settle`: with the lease still the object's, records the read (ARGV[3] = 'next': status JSON,
 * reads, dueAt) and frees the lease, or stops watching (ARGV[3] = 'final'). `KEYS[4]` is the object's hash.
 * ARGV: member, lease, 'next' | 'final', status JSON, reads, dueAt. Reply: 1, or 0 when the lease was lost.
 */
export const RECONCILE_SETTLE = `
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
 * Reconciliation `spend`: the minute's counter (`KEYS[1]`) grants what is left of the budget, up to the reads
 * asked for, and expires two minutes later. ARGV: reads, reads per minute. Reply: the reads granted.
 */
export const RECONCILE_SPEND = `
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
 * Reconciliation `backlog`: the objects watched and due at ARGV[2], and the earliest `dueAt` among those due.
 * ARGV: object key prefix, now. Reply: {watched, due, oldest dueAt or ''}.
 */
export const RECONCILE_BACKLOG = `${DROP_EXPIRED}
local now = tonumber(ARGV[2])
dropExpired(ARGV[1], now)
local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, 1)
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCOUNT', KEYS[1], '-inf', now), oldest[2] or ''}
`;

/**
 * Token `set`: replaces the cached token (a hash of token and expiresAt) and lets Redis drop it at its expiry.
 * A token that has already expired is not cached. ARGV: token, expiresAt, ms until then.
 */
export const TOKEN_SET = `
redis.call('DEL', KEYS[1])
if tonumber(ARGV[3]) <= 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'expiresAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** Token `get`. Reply: {} or {token, expiresAt}. */
export const TOKEN_GET = `
local row = redis.call('HMGET', KEYS[1], 'token', 'expiresAt')
if not row[1] then
  return {}
end
return row
`;

/** Token `delete`: drops the cached token only when it is still ARGV[1] (the one a 401 rejected). */
export const TOKEN_DELETE = `
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
return 1
`;
