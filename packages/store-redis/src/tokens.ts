import type { CachedToken, TokenStore } from '@pay/core';
import { unexpectedReply } from './client.js';
import type { RedisStoreOptions } from './options.js';
import { TOKEN_DELETE, TOKEN_GET, TOKEN_SET } from './scripts.js';
import { storeScripts } from './store-calls.js';

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
  const run = storeScripts(options, 'token');
  return {
    async get(name) {
      const reply = await run('tokens.get', TOKEN_GET, name);
      if (Array.isArray(reply) && reply.length === 0) return null;
      const cached = cachedToken(reply);
      // unexpectedReply names only the reply's shape, never its content (a token).
      if (cached === undefined) throw unexpectedReply('tokens.get', reply);
      // Redis expires the key on its own clock; this check keeps a token this process's clock sees as expired
      // from being used.
      return cached.expiresAt > Date.now() ? cached : null;
    },
    async set(name, token) {
      const ttlMs = Math.ceil(token.expiresAt - Date.now());
      await run(
        'tokens.set',
        TOKEN_SET,
        name,
        [token.token, String(token.expiresAt), String(ttlMs)],
        [token.token],
      );
    },
    async delete(name, token) {
      await run('tokens.delete', TOKEN_DELETE, name, [token], [token]);
    },
  };
}

/** The get script's `{token, expiresAt}` row; `undefined` when it is not one. */
function cachedToken(reply: unknown): CachedToken | undefined {
  if (!Array.isArray(reply) || reply.length !== 2) return undefined;
  const [token, expiresAt] = reply as unknown[];
  const expiry = Number(expiresAt);
  if (typeof token !== 'string' || !Number.isFinite(expiry)) return undefined;
  return { token, expiresAt: expiry };
}
