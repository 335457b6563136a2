import type { CachedToken, TokenStore } from '@pay/core';
import { runScript, unexpectedReply } from './client.js';
import { type RedisStoreOptions, resolveOptions } from './options.js';
import { TOKEN_DELETE, TOKEN_GET, TOKEN_SET } from './scripts.js';

/**
 * A {@link TokenStore} on Redis, so every instance reuses one provider login until it expires. Each token is a
 * hash `<keyPrefix>token:<name>` (token, expiresAt) that Redis deletes at `expiresAt`; `delete` drops it only
 * when it still holds the token a 401 rejected, so an instance cannot throw away a newer login another instance
 * just cached. Tokens are credentials: protect the Redis server with a password or ACL and TLS.
 *
 * Every call fails with `StoreUnavailableError` (`code: 'store_unavailable'`) when Redis does not answer; the error
 * never contains the token.
 */
export function createRedisTokenStore(options: RedisStoreOptions): TokenStore {
  const { client, keyPrefix, commandTimeoutMs } = resolveOptions(options);
  const storeKey = (name: string): string => `${keyPrefix}token:${name}`;
  return {
    async get(name) {
      const reply = await runScript(client, commandTimeoutMs, {
        operation: 'tokens.get',
        script: TOKEN_GET,
        keys: [storeKey(name)],
        arguments: [],
        secrets: [],
      });
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
      await runScript(client, commandTimeoutMs, {
        operation: 'tokens.set',
        script: TOKEN_SET,
        keys: [storeKey(name)],
        arguments: [token.token, String(token.expiresAt), String(ttlMs)],
        secrets: [token.token],
      });
    },
    async delete(name, token) {
      await runScript(client, commandTimeoutMs, {
        operation: 'tokens.delete',
        script: TOKEN_DELETE,
        keys: [storeKey(name)],
        arguments: [token],
        secrets: [token],
      });
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
