/**
 * Access tokens for client-credential logins (docs/architecture.md#access-tokens,
 * docs/architecture.md#reading-provider-n-token): one in-flight login serves every concurrent caller, and a token
 * refused with 401 is dropped — from a shared {@link TokenStore} only while it is still the rejected one, so a
 * stale instance cannot evict a fresh token. A failing token store never fails a call.
 */
import { sha256Hex } from './crypto.js';
import { untilAborted } from './http/deadline.js';
import { describeStoreFailure } from './store-errors.js';
import type { CachedToken, TokenStore } from './stores.js';

/** What a login returns. */
export interface AccessToken {
  accessToken: string;
  /**
   * Lifetime in seconds; one that is not positive is read as {@link MIN_TOKEN_LIFETIME_SECONDS}, so a provider
   * reporting nonsense cannot make every call log in again (docs/architecture.md#access-tokens).
   */
  expiresInSeconds: number;
}

/** The lifetime a token is held for when the login reports none that is positive. */
export const MIN_TOKEN_LIFETIME_SECONDS = 30;

/** What a cached token belongs to (see {@link TokenManagerOptions.cacheKey}). */
export interface TokenCacheKey {
  provider: string;
  clientId: string;
  /** The secret of the login (client secret, secret key): only its digest, with the rest, names the cache. */
  secret?: string | undefined;
  baseUrl?: string | undefined;
}

/** Options of {@link createTokenManager}. */
export interface TokenManagerOptions {
  /** Performs the login, for every caller waiting on it: it gets no caller's signal. */
  login: () => Promise<AccessToken>;
  /** Refresh this long before expiry (default 60 s, at most half the token's lifetime). */
  refreshMarginMs?: number;
  /** Clock, for tests. */
  now?: () => number;
  /** A token cache shared by instances (`TransportOptions.tokenStore`). Default: this manager's memory only. */
  store?: TokenStore | undefined;
  /**
   * What the cached token belongs to; required with `store`. The cache name is a digest of all of it, so after a
   * rotation (docs/architecture.md#credential-rotation) no instance takes a token got with the old secret.
   */
  cacheKey?: TokenCacheKey;
  /** Receives a token-store failure (the call goes on with a login of its own). Default: one `console.warn`. */
  onStoreError?: (error: unknown) => void;
}

/** A cached access token shared by one adapter instance. */
export interface TokenManager {
  /** A token valid for at least the refresh margin; when `signal` aborts, this caller stops waiting. */
  get(options?: { signal?: AbortSignal | undefined }): Promise<string>;
  /** Drops `token` (the one a 401 rejected), here and in the shared store, unless a newer one replaced it. */
  invalidate(token: string): void;
  /** Number of logins this manager made so far (for diagnostics and benchmarks); shared tokens are not logins. */
  readonly logins: number;
}

/** Creates a {@link TokenManager}. No I/O happens until the first `get()`. */
export function createTokenManager(options: TokenManagerOptions): TokenManager {
  const now = options.now ?? Date.now;
  const margin = options.refreshMarginMs ?? 60_000;
  if (options.store && !options.cacheKey)
    throw new TypeError('createTokenManager: a token store needs a cacheKey (provider and client id)');
  const cache = options.store && sharedCache(options.store, options.cacheKey!, options.onStoreError);
  let held: { token: string; refreshAt: number } | undefined;
  let inFlight: Promise<string> | undefined;
  let logins = 0;
  // The last token a 401 rejected: never taken from the store again, even before its delete has landed.
  let rejected: string | undefined;

  async function loginAndShare(): Promise<string> {
    const cached = await cache?.get();
    if (cached && now() < cached.expiresAt && cached.token !== rejected) {
      held = { token: cached.token, refreshAt: cached.expiresAt };
      return cached.token;
    }
    logins += 1;
    const started = now();
    const { accessToken, expiresInSeconds } = await options.login();
    const reported = Number.isFinite(expiresInSeconds) && expiresInSeconds > 0;
    const lifetimeMs = (reported ? expiresInSeconds : MIN_TOKEN_LIFETIME_SECONDS) * 1000;
    const refreshAt = started + lifetimeMs - Math.min(margin, lifetimeMs / 2);
    held = { token: accessToken, refreshAt };
    // Shared until it is due for refresh here, so every instance refreshes before the provider expires it.
    if (cache) await cache.set({ token: accessToken, expiresAt: refreshAt });
    return accessToken;
  }

  function login(): Promise<string> {
    const pending = loginAndShare().finally(() => {
      if (inFlight === pending) inFlight = undefined;
    });
    inFlight = pending;
    return pending;
  }

  return {
    async get({ signal } = {}) {
      if (held && now() < held.refreshAt) return held.token;
      // This caller stops waiting when its signal aborts; the shared login goes on.
      return untilAborted(inFlight ?? login(), signal, () => signal?.reason);
    },
    invalidate(token) {
      if (held?.token === token) held = undefined;
      rejected = token;
      cache?.delete(token);
    },
    get logins() {
      return logins;
    },
  };
}

/** The shared token store under `key`'s cache name: a failing store reads as no token, and is reported. */
function sharedCache(
  store: TokenStore,
  key: TokenCacheKey,
  onStoreError: ((error: unknown) => void) | undefined,
) {
  let cacheName: Promise<string> | undefined;
  const named = <T>(use: (name: string) => Promise<T>) => {
    cacheName ??= sha256Hex(`${key.clientId}\n${key.baseUrl ?? ''}\n${key.secret ?? ''}`).then(
      (digest) => `${key.provider}:${digest}`,
    );
    return cacheName.then(use).catch(report);
  };
  const report = (error: unknown) => {
    try {
      if (onStoreError) onStoreError(error);
      else
        console.warn(
          `@pay/core: the token store failed (${describeStoreFailure(error)}); this instance logged in on its own.`,
        );
    } catch {
      // A failing reporter must not fail the call.
    }
  };
  return {
    get: () => named((name) => store.get(name)),
    set: (token: CachedToken) => named((name) => store.set(name, token)),
    // Only while the cache still holds the rejected token: another instance may have stored a fresh one.
    delete: (token: string) => void named((name) => store.delete(name, token)),
  };
}

/** Options of {@link createRotatingLogin}. */
export interface RotatingLoginOptions<C extends object> {
  /** The credentials to log in with until `update` replaces them. */
  credentials: C;
  /** The login with one set of credentials, so one login never mixes an old and a new member. */
  login: (credentials: C) => Promise<AccessToken>;
  /** What a cached token of `credentials` belongs to (see {@link TokenManagerOptions.cacheKey}). */
  cacheKey: (credentials: C) => TokenCacheKey;
  /** A token cache shared by instances (see {@link TokenManagerOptions.store}). */
  store?: TokenStore | undefined;
}

/**
 * Bearer `authorization` for core's HTTP client over credentials that rotate (Providers N and T): each set gets a
 * token manager of its own, so a token of one set is never used with another. `update` swaps the set whole
 * (docs/architecture.md#credential-rotation): the next call that needs a token, or a re-login after a 401, logs in
 * with the new one; a login already on its way with the old one is not kept.
 */
export function createRotatingLogin<C extends object>(options: RotatingLoginOptions<C>) {
  const managerOf = (given: C) => {
    // A copy, so a caller changing its object later cannot change the set a login sends member by member.
    const credentials = Object.freeze({ ...given });
    return createTokenManager({
      // The caller's signal never aborts a login other callers share; the HTTP client's own timeout bounds it.
      login: () => options.login(credentials),
      store: options.store,
      cacheKey: options.cacheKey(credentials),
    });
  };
  let tokens = managerOf(options.credentials);
  return {
    authorization: {
      header: async () => `Bearer ${await tokens.get()}`,
      // A 401 drops the refused token; core sends the call once more, which logs in with the current credentials.
      rejected: (value: string) => tokens.invalidate(value.replace(/^Bearer /, '')),
    },
    update(credentials: C) {
      tokens = managerOf(credentials);
    },
  };
}
