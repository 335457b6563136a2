import { describe, expect, it, vi } from 'vitest';
import { createMemoryTokenStore, type TokenStore } from '../src/index.js';
import { createRotatingLogin, createTokenManager } from '../src/token.js';

describe('the token manager', () => {
  it('makes exactly one login for 50 concurrent callers on a cold cache', async () => {
    const login = vi.fn(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { accessToken: 'tok-1', expiresInSeconds: 3599 };
    });
    const tokens = createTokenManager({ login });
    const all = await Promise.all(Array.from({ length: 50 }, () => tokens.get()));
    expect(new Set(all)).toEqual(new Set(['tok-1']));
    expect(login).toHaveBeenCalledTimes(1);
    expect(tokens.logins).toBe(1);
  });

  it('reuses the token until 60 s before it expires, then logs in again', async () => {
    let now = 0;
    let issued = 0;
    const tokens = createTokenManager({
      now: () => now,
      login: async () => ({ accessToken: `tok-${++issued}`, expiresInSeconds: 3600 }),
    });
    expect(await tokens.get()).toBe('tok-1');
    now = 3_539_000;
    expect(await tokens.get()).toBe('tok-1');
    now = 3_540_001;
    expect(await tokens.get()).toBe('tok-2');
  });

  it('drops a token the provider rejected, but not a newer one', async () => {
    let issued = 0;
    const tokens = createTokenManager({
      login: async () => ({ accessToken: `tok-${++issued}`, expiresInSeconds: 3600 }),
    });
    expect(await tokens.get()).toBe('tok-1');
    tokens.invalidate('tok-1');
    expect(await tokens.get()).toBe('tok-2');
    tokens.invalidate('tok-1');
    expect(await tokens.get()).toBe('tok-2');
  });

  it('gives the shared login no caller signal, so one caller giving up cannot fail the others', async () => {
    const login = vi.fn(async (...args: unknown[]) => {
      expect(args).toEqual([]);
      return { accessToken: 'tok', expiresInSeconds: 3600 };
    });
    const tokens = createTokenManager({ login });
    expect(await Promise.all([tokens.get(), tokens.get()])).toEqual(['tok', 'tok']);
  });

  it('passes a failing login to every waiting caller, and tries again on the next call', async () => {
    let attempts = 0;
    const tokens = createTokenManager({
      login: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('login refused');
        return { accessToken: 'tok', expiresInSeconds: 60 };
      },
    });
    const results = await Promise.allSettled([tokens.get(), tokens.get()]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(await tokens.get()).toBe('tok');
    expect(attempts).toBe(2);
  });

  it("stops a caller's wait when its signal aborts, while the shared login goes on for the others", async () => {
    let finish: () => void = () => {};
    const login = vi.fn(
      () =>
        new Promise<{ accessToken: string; expiresInSeconds: number }>((resolve) => {
          finish = () => resolve({ accessToken: 'tok', expiresInSeconds: 3600 });
        }),
    );
    const tokens = createTokenManager({ login });
    const controller = new AbortController();
    const waiting = tokens.get({ signal: controller.signal });
    const other = tokens.get();
    controller.abort();
    await expect(waiting).rejects.toBeDefined();
    finish();
    expect(await other).toBe('tok');
    expect(login).toHaveBeenCalledTimes(1);
  });

  it('does not log in on every call when the provider reports a lifetime of zero or less', async () => {
    let now = 0;
    let issued = 0;
    for (const lifetime of [0, -5]) {
      issued = 0;
      const tokens = createTokenManager({
        now: () => now,
        login: async () => ({ accessToken: `tok-${++issued}`, expiresInSeconds: lifetime }),
      });
      expect(await tokens.get()).toBe('tok-1');
      now += 1_000;
      expect(await tokens.get()).toBe('tok-1');
      expect(tokens.logins).toBe(1);
    }
  });

  it('still honours a short positive lifetime (a 2 s token is refreshed before it runs out)', async () => {
    let now = 0;
    let issued = 0;
    const tokens = createTokenManager({
      now: () => now,
      login: async () => ({ accessToken: `tok-${++issued}`, expiresInSeconds: 2 }),
    });
    expect(await tokens.get()).toBe('tok-1');
    now = 1_500;
    expect(await tokens.get()).toBe('tok-2');
  });
});

describe('the token manager with a shared token store (docs/architecture.md#access-tokens)', () => {
  const cacheKey = { provider: 'providerN', clientId: 'client-1', baseUrl: 'https://api.example.test' };

  it('two instances over one token store share one login until it is due for refresh', async () => {
    let now = 1_000;
    let issued = 0;
    const store = createMemoryTokenStore(() => now);
    const login = vi.fn(async () => ({ accessToken: `tok-${++issued}`, expiresInSeconds: 3600 }));
    const first = createTokenManager({ login, store, cacheKey, now: () => now });
    const second = createTokenManager({ login, store, cacheKey, now: () => now });
    expect(await first.get()).toBe('tok-1');
    expect(await second.get()).toBe('tok-1');
    expect(login).toHaveBeenCalledTimes(1);
    expect(second.logins).toBe(0);
    // Due for refresh (60 s before expiry): the next caller logs in, and the other instance picks that up.
    now = 1_000 + 3_540_001;
    expect(await second.get()).toBe('tok-2');
    expect(await first.get()).toBe('tok-2');
    expect(login).toHaveBeenCalledTimes(2);
  });

  it('caches under the provider and a digest of the client id, never the client id or the token name in clear', async () => {
    const names: string[] = [];
    const memory = createMemoryTokenStore();
    const store: TokenStore = {
      get: (name) => memory.get(name),
      set: async (name, token) => {
        names.push(name);
        await memory.set(name, token);
      },
      delete: (name, token) => memory.delete(name, token),
    };
    const tokens = createTokenManager({
      login: async () => ({ accessToken: 'tok', expiresInSeconds: 600 }),
      store,
      cacheKey,
    });
    await tokens.get();
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^providerN:[0-9a-f]{64}$/);
    expect(names[0]).not.toContain('client-1');
  });

  it('a 401 drops the shared token only while it is still the rejected one', async () => {
    let issued = 0;
    const store = createMemoryTokenStore();
    const login = async () => ({ accessToken: `tok-${++issued}`, expiresInSeconds: 3600 });
    const stale = createTokenManager({ login, store, cacheKey });
    const fresh = createTokenManager({ login, store, cacheKey });
    expect(await stale.get()).toBe('tok-1');
    // `fresh` got a 401 for tok-1 and logged in again: tok-2 is shared now.
    fresh.invalidate('tok-1');
    expect(await fresh.get()).toBe('tok-2');
    // `stale` now gets its own 401 for tok-1: tok-2 stays shared, no third login.
    stale.invalidate('tok-1');
    expect(await stale.get()).toBe('tok-2');
    expect(issued).toBe(2);
  });

  it('a failing token store never fails the call: the instance logs in itself and reports it', async () => {
    const reported: unknown[] = [];
    const broken: TokenStore = {
      get: async () => {
        throw new Error('connect ECONNREFUSED redis://:hunter22@127.0.0.1:6390');
      },
      set: async () => {
        throw new Error('down');
      },
      delete: async () => {},
    };
    const tokens = createTokenManager({
      login: async () => ({ accessToken: 'tok-own', expiresInSeconds: 600 }),
      store: broken,
      cacheKey,
      onStoreError: (error) => reported.push(error),
    });
    expect(await tokens.get()).toBe('tok-own');
    expect(reported).toHaveLength(2);
  });

  it('refuses a token store without a cache key', () => {
    expect(() =>
      createTokenManager({
        login: async () => ({ accessToken: 'x', expiresInSeconds: 60 }),
        store: createMemoryTokenStore(),
      }),
    ).toThrow(/cacheKey/);
  });
});

describe('the token manager after a 401 with a slow shared store', () => {
  it('never takes the rejected token back from the store while its delete is still on the way', async () => {
    let issued = 0;
    const memory = createMemoryTokenStore();
    const slowDelete: TokenStore = {
      get: (name) => memory.get(name),
      set: (name, token) => memory.set(name, token),
      delete: (name, token) => new Promise((done) => setTimeout(() => done(memory.delete(name, token)), 50)),
    };
    const tokens = createTokenManager({
      login: async () => ({ accessToken: `tok-${++issued}`, expiresInSeconds: 3600 }),
      store: slowDelete,
      cacheKey: { provider: 'providerT', clientId: 'c' },
    });
    expect(await tokens.get()).toBe('tok-1');
    tokens.invalidate('tok-1');
    expect(await tokens.get()).toBe('tok-2');
  });
});

describe('a rotating login (docs/architecture.md#credential-rotation)', () => {
  type Pair = { clientId: string; secret: string };
  const cacheKey = ({ clientId, secret }: Pair) => ({ provider: 'providerT', clientId, secret });

  it('logs in with one whole set of credentials at a time, and never keeps a login of the replaced set', async () => {
    let finishOldLogin!: () => void;
    const oldLoginHeld = new Promise<void>((resolve) => {
      finishOldLogin = resolve;
    });
    const sent: Pair[] = [];
    const login = vi.fn(async (credentials: Pair) => {
      sent.push({ ...credentials });
      if (credentials.secret === 'old-secret') await oldLoginHeld;
      return { accessToken: `token-of-${credentials.secret}`, expiresInSeconds: 3599 };
    });
    const rotating = createRotatingLogin({
      credentials: { clientId: 'c1', secret: 'old-secret' },
      login,
      cacheKey,
    });
    const before = rotating.authorization.header();
    rotating.update({ clientId: 'c2', secret: 'new-secret' });
    const after = rotating.authorization.header();
    finishOldLogin();
    // The call that asked before the change gets the old set's token; every later one the new set's.
    expect(await before).toBe('Bearer token-of-old-secret');
    expect(await after).toBe('Bearer token-of-new-secret');
    expect(await rotating.authorization.header()).toBe('Bearer token-of-new-secret');
    rotating.authorization.rejected('Bearer token-of-old-secret');
    expect(await rotating.authorization.header()).toBe('Bearer token-of-new-secret');
    expect(sent).toEqual([
      { clientId: 'c1', secret: 'old-secret' },
      { clientId: 'c2', secret: 'new-secret' },
    ]);
  });

  it('logs in again with the current set after a 401 drops its token', async () => {
    let issued = 0;
    const rotating = createRotatingLogin({
      credentials: { clientId: 'c1', secret: 's1' },
      login: async (credentials: Pair) => ({
        accessToken: `${credentials.secret}-${++issued}`,
        expiresInSeconds: 3599,
      }),
      cacheKey,
    });
    const first = await rotating.authorization.header();
    rotating.update({ clientId: 'c1', secret: 's2' });
    rotating.authorization.rejected(first);
    expect(await rotating.authorization.header()).toBe('Bearer s2-2');
  });
});
