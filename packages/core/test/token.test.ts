import { describe, expect, it, vi } from 'vitest';
import { createTokenManager } from '../src/index.js';

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
});
