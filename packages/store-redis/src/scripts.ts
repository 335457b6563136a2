/**
 * The Lua scripts behind every store call. One script per call keeps each read-modify-write atomic on the server
 * (Redis runs a script alone) and each call one round trip. Every script touches only `KEYS[1]`, so the stores
 * also work on Redis Cluster. Times come from the server's clock (`TIME`), so instances whose clocks disagree
 * still agree on when a lease ran out. Scripts return only strings, integers and arrays of strings: Lua booleans
 * and nils convert differently under RESP2 and RESP3.
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
redis.call('HSET', KEYS[1], 'leaseUntil', string.format('%d', now + tonumber(ARGV[2])))
return 1
`;

/** Idempotency `complete`: records the result and ends the lease; the entry keeps its expiry. ARGV: lease, JSON. */
export const IDEMPOTENCY_COMPLETE = `${HELD}
redis.call('HSET', KEYS[1], 'state', 'completed', 'result', ARGV[2], 'leaseUntil', '0')
redis.call('HDEL', KEYS[1], 'lease')
return 1
`;

/** Idempotency `release`: forgets the key (no money moved). ARGV: lease. */
export const IDEMPOTENCY_RELEASE = `${HELD}
redis.call('DEL', KEYS[1])
return 1
`;

/** Idempotency `abandon`: ends the lease now, keeping the entry and its recovery point. ARGV: lease. */
export const IDEMPOTENCY_ABANDON = `${HELD}
redis.call('HSET', KEYS[1], 'leaseUntil', '0')
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
