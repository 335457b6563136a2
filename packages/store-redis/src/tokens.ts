import type { TokenStore } from '@pay/core';
import { hashRead, scriptRunner, unexpectedReply } from './client.js';
import type { RedisStoreOptions } from './options.js';

/** `set`: replaces the cached token; one already expired is not cached. ARGV: token, expiresAt, ms until then. */
const SET = `
redis.call('DEL', KEYS[1])
if tonumber(ARGV[3]) <= 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'expiresAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** `get`. Reply: {} or {token, expiresAt}. */
const GET = hashRead('token', 'expiresAt');

/** `delete`: drops the cached token only when it is still ARGV[1] (the one a 401 rejected). */
const DELETE = `
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
return 1
`;

/**
 * A {@link TokenStore} on Redis, so every instance reuses one provider login until it expires. Each token is a
 * hash `<keyPrefix>token:<name>` (token, expiresAt) that Redis deletes at `expiresAt`; `delete` drops it only
 * when it still holds the token a 401 rejected, so an instance cannot throw away a newer login another instance
 * just cached. Tokens are credentials: protect the Redis server with a password or ACL and TLS.
 *
 * Every call fails with core's `StoreError` (`code: 'store_unavailable'`) when Redis does not answer; the error
 * never contains the token.
 */
export function createRedisTokenStore(options: RedisStoreOptions): TokenStore {
  const { run, keyPrefix } = scriptRunner(options);
  const keys = (name: string) => [`${keyPrefix}token:${name}`];
  return {
    async get(name) {
      const reply = await run('tokens.get', GET, keys(name));
      if (Array.isArray(reply) && reply.length === 0) return null;
      const [token, expiresAt] = Array.isArray(reply) && reply.length === 2 ? reply : [];
      const expiry = Number(expiresAt);
      // unexpectedReply names only the reply's shape, never its content (a token).
      if (typeof token !== 'string' || !Number.isFinite(expiry)) throw unexpectedReply('tokens.get', reply);
      // Redis expires the key on its own clock; this check keeps a token this process's clock sees as expired
      // from being used.
      return expiry > Date.now() ? { token, expiresAt: expiry } : null;
    },
    async set(name, token) {
      const ttlMs = Math.ceil(token.expiresAt - Date.now());
      const values = [token.token, String(token.expiresAt), String(ttlMs)];
      await run('tokens.set', SET, keys(name), values, [token.token]);
    },
    async delete(name, token) {
      await run('tokens.delete', DELETE, keys(name), [token], [token]);
    },
  };
}
