import { describe, expect, it } from 'vitest';
import { createRedisTokenStore } from '../src/index.js';
import { CLIENT_KINDS, sleep, useClients, useRedisServer } from './clients.js';

const server = useRedisServer();

describe.each(CLIENT_KINDS)('token cache over %s', (kind) => {
  const open = useClients(kind, server);
  const fresh = () => `provider-n:login:${crypto.randomUUID()}`;

  it('shares a cached login between instances, stored as a hash under the prefix that expires with the token', async () => {
    const client = await open();
    const instanceA = createRedisTokenStore({ client: client.store, keyPrefix: 'shop1:' });
    const instanceB = createRedisTokenStore({ client: (await open()).store, keyPrefix: 'shop1:' });
    const name = fresh();
    const token = { token: 'eyJhbGciOi.access-1', expiresAt: Date.now() + 600_000 };
    await instanceA.set(name, token);
    expect(await instanceB.get(name)).toEqual(token);
    expect(await client.hgetall(`shop1:token:${name}`)).toEqual({
      token: token.token,
      expiresAt: String(token.expiresAt),
    });
    const ttl = await client.pttl(`shop1:token:${name}`);
    expect(ttl).toBeGreaterThan(595_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
  });

  it('answers null for a name never cached', async () => {
    const store = createRedisTokenStore({ client: (await open()).store });
    expect(await store.get(fresh())).toBeNull();
  });

  it('forgets a token when it expires', async () => {
    const client = await open();
    const store = createRedisTokenStore({ client: client.store });
    const name = fresh();
    // Long enough that the read right after the write comes before the expiry on a loaded machine.
    await store.set(name, { token: 'short-lived', expiresAt: Date.now() + 1_500 });
    expect((await store.get(name))?.token).toBe('short-lived');
    await sleep(1_700);
    expect(await store.get(name)).toBeNull();
    expect(await client.hgetall(`pay:token:${name}`)).toEqual({});
  });

  it('does not cache a token that has already expired, and drops the one it replaces', async () => {
    const client = await open();
    const store = createRedisTokenStore({ client: client.store });
    const name = fresh();
    await store.set(name, { token: 'current', expiresAt: Date.now() + 600_000 });
    await store.set(name, { token: 'stale', expiresAt: Date.now() - 1000 });
    expect(await store.get(name)).toBeNull();
    expect(await client.hgetall(`pay:token:${name}`)).toEqual({});
  });

  it('replaces the cached token on set', async () => {
    const store = createRedisTokenStore({ client: (await open()).store });
    const name = fresh();
    await store.set(name, { token: 'first', expiresAt: Date.now() + 600_000 });
    const second = { token: 'second', expiresAt: Date.now() + 900_000 };
    await store.set(name, second);
    expect(await store.get(name)).toEqual(second);
  });

  it('drops the cached token only when it is still the one a 401 rejected', async () => {
    const instanceA = createRedisTokenStore({ client: (await open()).store });
    const instanceB = createRedisTokenStore({ client: (await open()).store });
    const name = fresh();
    await instanceA.set(name, { token: 'rejected', expiresAt: Date.now() + 600_000 });
    // Instance B logged in again meanwhile; A's late delete of the rejected token must keep B's new login.
    const renewed = { token: 'renewed', expiresAt: Date.now() + 600_000 };
    await instanceB.set(name, renewed);
    await instanceA.delete(name, 'rejected');
    expect(await instanceA.get(name)).toEqual(renewed);
    await instanceB.delete(name, 'renewed');
    expect(await instanceA.get(name)).toBeNull();
  });

  it('keeps tokens of different names and prefixes apart', async () => {
    const client = await open();
    const shopA = createRedisTokenStore({ client: client.store, keyPrefix: 'a:' });
    const shopB = createRedisTokenStore({ client: client.store, keyPrefix: 'b:' });
    const name = fresh();
    await shopA.set(name, { token: 'token-a', expiresAt: Date.now() + 600_000 });
    expect(await shopB.get(name)).toBeNull();
    expect(await shopA.get(`${name}:other`)).toBeNull();
  });
});
