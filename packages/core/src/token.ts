/**
 * Access-token manager for providers with client-credential logins (Providers N and T, design §6 and §8):
 * a valid token is in hand before every API call; it is fetched when none is held or the held one expires
 * within the refresh margin, one in-flight login is shared by every concurrent caller, and a token the
 * provider rejected with 401 is dropped so the next call logs in again. A caller whose signal aborts stops
 * waiting for a shared login at once; the login itself goes on for the others (issue 11 §1).
 */

/** What a login returns. */
export interface AccessToken {
  accessToken: string;
  /**
   * Lifetime in seconds, as the provider reports it. A lifetime below {@link MIN_TOKEN_LIFETIME_SECONDS}
   * (0, negative, a few seconds) is treated as that floor, so a provider reporting nonsense cannot make every
   * call log in again (issue 11 §3); a token the provider has really expired is refetched on its 401.
   */
  expiresInSeconds: number;
}

/** The shortest lifetime a token is held for, whatever the login reported (issue 11 §3). */
export const MIN_TOKEN_LIFETIME_SECONDS = 30;

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
}

/** A cached access token shared by one adapter instance. */
export interface TokenManager {
  /**
   * A token valid for at least the refresh margin, logging in when needed. When `signal` aborts, this caller
   * stops waiting (the promise rejects with the signal's reason) while the shared login goes on.
   */
  get(options?: { signal?: AbortSignal | undefined }): Promise<string>;
  /** Drops `token` (the one a 401 rejected), unless a newer one has replaced it already. */
  invalidate(token: string): void;
  /** Number of logins made so far (for diagnostics and benchmarks). */
  readonly logins: number;
}

/** Creates a {@link TokenManager}. No I/O happens until the first `get()`. */
export function createTokenManager(options: TokenManagerOptions): TokenManager {
  const now = options.now ?? Date.now;
  const margin = options.refreshMarginMs ?? 60_000;
  let held: { token: string; refreshAt: number } | undefined;
  let inFlight: Promise<string> | undefined;
  let logins = 0;

  function login(): Promise<string> {
    logins += 1;
    const started = now();
    const pending = options
      .login()
      .then(({ accessToken, expiresInSeconds }) => {
        const lifetimeMs =
          Math.max(MIN_TOKEN_LIFETIME_SECONDS, Number.isFinite(expiresInSeconds) ? expiresInSeconds : 0) *
          1000;
        held = { token: accessToken, refreshAt: started + lifetimeMs - Math.min(margin, lifetimeMs / 2) };
        return accessToken;
      })
      .finally(() => {
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
