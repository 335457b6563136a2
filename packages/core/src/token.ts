/**
 * Access-token manager for providers with client-credential logins (Providers N and T, docs/architecture.md#access-tokens and docs/architecture.md#reading-provider-n-token):
 * a valid token is in hand before every API call; it is fetched when none is held or the held one expires
 * within the refresh margin, one in-flight login is shared by every concurrent caller, and a token the
 * provider rejected with 401 is dropped so the next call logs in again. A caller whose signal aborts stops
 * waiting for a shared login at once; the login itself goes on for the others
 * (docs/architecture.md#access-tokens).
 *
 * With a shared {@link TokenStore} (docs/architecture.md#access-tokens) instances reuse one login until it is due
 * for refresh: the token is cached under the provider and a SHA-256 digest of the client id (never the credential
 * itself), and a 401 drops the cached token only while it is still the one that was rejected, so an instance
 * holding a stale token cannot evict the fresh one another instance just stored. A failing token store never fails
 * a call: the manager logs in itself and reports the failure.
 */
import { sha256Hex } from './crypto.js';
import { describeStoreFailure } from './store-errors.js';
import type { TokenStore } from './stores.js';

/** What a login returns. */
export interface AccessToken {
  accessToken: string;
  /**
   * Lifetime in seconds, as the provider reports it. A lifetime that is not positive (0, negative, not a
   * number) is read as {@link MIN_TOKEN_LIFETIME_SECONDS}, so a provider reporting nonsense cannot make every
   * call log in again (docs/architecture.md#access-tokens); if the token really is expired, its 401 drops it and
   * the call is sent once more with a fresh one. A positive lifetime, however short, is honoured.
   */
  expiresInSeconds: number;
}

/**
 * The lifetime a token is held for when the login reports none that is positive
 * (docs/architecture.md#access-tokens).
 */
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
  /**
   * Performs the login. Errors propagate to every caller waiting on it. It gets no caller's signal: one login
   * serves every concurrent caller, so one caller giving up must not fail the others.
   */
  login: () => Promise<AccessToken>;
  /** Refresh this long before expiry (default 60 s, at most half the token's lifetime). */
  refreshMarginMs?: number;
  /** Clock, for tests. */
  now?: () => number;
  /** A token cache shared by instances (`TransportOptions.tokenStore`). Default: this manager's memory only. */
  store?: TokenStore | undefined;
  /**
   * What the cached token belongs to: the provider, the client id (or API key), the secret it logs in with and the
   * base URL. The cache name is `<provider>:<SHA-256 of client id, base URL and secret>` (a digest, never the
   * credential), so instances share a token only when they log in with the same credentials: after a rotation
   * (docs/architecture.md#credential-rotation) no instance takes a token another one got with the old secret.
   * Required with `store`.
   */
  cacheKey?: TokenCacheKey;
  /** Receives a token-store failure (the call goes on with a login of its own). Default: one `console.warn`. */
  onStoreError?: (error: unknown) => void;
}

/** A cached access token shared by one adapter instance. */
export interface TokenManager {
  /**
   * A token valid for at least the refresh margin, logging in when needed. When `signal` aborts, this caller
   * stops waiting (the promise rejects with the signal's reason) while the shared login goes on.
   */
  get(options?: { signal?: AbortSignal | undefined }): Promise<string>;
  /**
   * Drops `token` (the one a 401 rejected), unless a newer one has replaced it already; in the shared store too,
   * only while it still holds that token.
   */
  invalidate(token: string): void;
  /** Number of logins this manager made so far (for diagnostics and benchmarks); shared tokens are not logins. */
  readonly logins: number;
}

/** Creates a {@link TokenManager}. No I/O happens until the first `get()`. */
export function createTokenManager(options: TokenManagerOptions): TokenManager {
  const now = options.now ?? Date.now;
  const margin = options.refreshMarginMs ?? 60_000;
  const store = options.store;
  if (store && !options.cacheKey)
    throw new TypeError('createTokenManager: a token store needs a cacheKey (provider and client id)');
  let cacheName: Promise<string> | undefined;
  const nameOf = () => {
    const key = options.cacheKey!;
    cacheName ??= sha256Hex(`${key.clientId}\n${key.baseUrl ?? ''}\n${key.secret ?? ''}`).then(
      (digest) => `${key.provider}:${digest}`,
    );
    return cacheName;
  };
  const reportStoreError = (error: unknown) => {
    try {
      if (options.onStoreError) options.onStoreError(error);
      else
        console.warn(
          `@pay/core: the token store failed (${describeStoreFailure(error)}); this instance logged in on its own.`,
        );
    } catch {
      // A failing reporter must not fail the call.
    }
  };
  let held: { token: string; refreshAt: number } | undefined;
  let inFlight: Promise<string> | undefined;
  let logins = 0;
  // The last token a 401 rejected: never taken from the store again, even before its delete has landed.
  let rejected: string | undefined;

  /** The shared token when one is cached and not yet due for refresh. A store failure reads as none. */
  async function shared(): Promise<string | undefined> {
    if (!store) return undefined;
    try {
      const cached = await store.get(await nameOf());
      if (!cached || !(now() < cached.expiresAt) || cached.token === rejected) return undefined;
      held = { token: cached.token, refreshAt: cached.expiresAt };
      return cached.token;
    } catch (error) {
      reportStoreError(error);
      return undefined;
    }
  }

  async function loginAndShare(): Promise<string> {
    const fromStore = await shared();
    if (fromStore !== undefined) return fromStore;
    logins += 1;
    const started = now();
    const { accessToken, expiresInSeconds } = await options.login();
    const reported = Number.isFinite(expiresInSeconds) && expiresInSeconds > 0;
    const lifetimeMs = (reported ? expiresInSeconds : MIN_TOKEN_LIFETIME_SECONDS) * 1000;
    const refreshAt = started + lifetimeMs - Math.min(margin, lifetimeMs / 2);
    held = { token: accessToken, refreshAt };
    if (store) {
      // Shared until it is due for refresh here, so every instance refreshes before the provider expires it.
      try {
        await store.set(await nameOf(), { token: accessToken, expiresAt: refreshAt });
      } catch (error) {
        reportStoreError(error);
      }
    }
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
    async get(options = {}) {
      if (held && now() < held.refreshAt) return held.token;
      return abandonedOnAbort(inFlight ?? login(), options.signal);
    },
    invalidate(token) {
      if (held?.token === token) held = undefined;
      rejected = token;
      // Only while the cache still holds the rejected token: another instance may have stored a fresh one.
      if (store)
        void nameOf()
          .then((name) => store.delete(name, token))
          .catch(reportStoreError);
    },
    get logins() {
      return logins;
    },
  };
}

/** Waits for the shared `login`, but lets this caller go when `signal` aborts; the login is not cancelled. */
function abandonedOnAbort(login: Promise<string>, signal: AbortSignal | undefined): Promise<string> {
  if (!signal) return login;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    login.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Options of {@link createRotatingLogin}. */
export interface RotatingLoginOptions<C extends object> {
  /** The credentials to log in with until {@link RotatingLogin.update} replaces them. */
  credentials: C;
  /**
   * The login with one set of credentials: everything it sends (and every retry of it) comes from `credentials`,
   * so one login never mixes an old and a new member.
   */
  login: (credentials: C) => Promise<AccessToken>;
  /** What a cached token of `credentials` belongs to (see {@link TokenManagerOptions.cacheKey}). */
  cacheKey: (credentials: C) => TokenCacheKey;
  /** A token cache shared by instances (see {@link TokenManagerOptions.store}). */
  store?: TokenStore | undefined;
}

/** Bearer authorisation from a client-credentials login whose credentials can be replaced while the process runs. */
export interface RotatingLogin<C extends object> {
  /** The `authorization` of core's HTTP client: `Bearer <token>`, and the one re-login after a 401. */
  readonly authorization: { header(): Promise<string>; rejected(headerValue: string): void };
  /**
   * Replaces the credentials (docs/architecture.md#credential-rotation): the token obtained with the old ones is
   * dropped and the next call that needs a token logs in with the new ones, as does the re-login of a call sent
   * before the change whose token the provider then refuses (401). A login already on its way with the old ones
   * finishes for the calls waiting on it and is not kept.
   */
  update(credentials: C): void;
}

/**
 * Access tokens over credentials that rotate (Providers N and T): each set of credentials gets a token manager of
 * its own, so a token, a shared login or a cached token of one set is never used with another, and replacing the
 * set is a single swap, never member by member.
 */
export function createRotatingLogin<C extends object>(options: RotatingLoginOptions<C>): RotatingLogin<C> {
  const generationOf = (given: C) => {
    // A copy, so a caller changing its object later cannot change the set a login sends member by member.
    const credentials = Object.freeze({ ...given });
    const tokens = createTokenManager({
      // The caller's signal never aborts a login other callers share; the HTTP client's own timeout bounds it.
      login: () => options.login(credentials),
      store: options.store,
      cacheKey: options.cacheKey(credentials),
    });
    return { tokens };
  };
  let generation = generationOf(options.credentials);
  return {
    authorization: {
      header: async () => `Bearer ${await generation.tokens.get()}`,
      // A 401 drops the refused token; core sends the call once more, which logs in with the current credentials.
      rejected: (value) => generation.tokens.invalidate(value.replace(/^Bearer /, '')),
    },
    update(credentials) {
      generation = generationOf(credentials);
    },
  };
}
