import { ConfigurationError } from '@pay/core';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createProviderR, providerR } from '../src/index.js';
import { BASE_URL, MERCHANT, REDIRECT, SECRET, TRANS_ID } from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  vi.unstubAllEnvs();
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
});

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const payment = {
  customer: { id: 'cust_42' },
  amount: 100,
  provider_metadata: { email: 'payer@example.com' },
};

describe('configuration', () => {
  it('names every missing variable and the member that replaces it in one ConfigurationError', () => {
    for (const name of ['PROVIDER_R_MERCHANT', 'PROVIDER_R_SECRET', 'PROVIDER_R_SANDBOX'])
      vi.stubEnv(name, '');
    const error = thrown(() => providerR());
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as ConfigurationError).missing).toEqual([
      'PROVIDER_R_MERCHANT',
      'PROVIDER_R_SECRET',
      'PROVIDER_R_SANDBOX',
    ]);
    expect((error as Error).message).toContain('`isSandbox`');
  });

  it('refuses a PROVIDER_R_SANDBOX that is neither true nor false instead of going to production', () => {
    vi.stubEnv('PROVIDER_R_MERCHANT', MERCHANT);
    vi.stubEnv('PROVIDER_R_SECRET', SECRET);
    vi.stubEnv('PROVIDER_R_SANDBOX', 'yes');
    const error = thrown(() => providerR());
    expect(error).toMatchObject({ code: 'configuration_error', missing: ['PROVIDER_R_SANDBOX'] });
    expect((error as Error).message).not.toContain(SECRET);
  });

  it('reads the environment when called, with explicit overrides winning, and sends test: false in production', async () => {
    vi.stubEnv('PROVIDER_R_MERCHANT', 'from-env');
    vi.stubEnv('PROVIDER_R_SECRET', SECRET);
    vi.stubEnv('PROVIDER_R_SANDBOX', 'FALSE');
    const scope = nock(BASE_URL)
      .post('/v2.0/payment', (body) => body.test === false)
      .basicAuth({ user: MERCHANT, pass: SECRET })
      .reply(200, { code: 0, message: 'OK', transId: TRANS_ID, redirect: REDIRECT });
    await providerR({ merchant: MERCHANT, retry: 0 }).createPayment(payment);
    expect(scope.isDone()).toBe(true);
  });

  it('checks an explicit configuration without echoing values', () => {
    const error = thrown(() => createProviderR({ merchant: '', secret: SECRET, isSandbox: 'true' as never }));
    expect(error).toMatchObject({ code: 'configuration_error' });
    expect((error as ConfigurationError).missing).toEqual(['merchant', 'isSandbox']);
    expect((error as Error).message).not.toContain(SECRET);
    expect(() =>
      createProviderR({ merchant: MERCHANT, secret: SECRET, isSandbox: true, baseUrl: 'not a url' }),
    ).toThrow(ConfigurationError);
  });

  it('takes a baseUrl and an injected fetch', async () => {
    const fetch = vi.fn(async () =>
      Response.json({ code: 0, message: 'OK', transId: TRANS_ID, redirect: REDIRECT }),
    );
    const adapter = createProviderR({
      merchant: MERCHANT,
      secret: SECRET,
      isSandbox: true,
      baseUrl: 'https://proxy.example/r/',
      fetch,
    });
    await adapter.createPayment(payment);
    expect(fetch).toHaveBeenCalledTimes(1);
    // Core's HTTP client may call fetch with a Request or with (url, init).
    const [input] = fetch.mock.calls[0] as unknown as [Request | URL | string];
    expect(input instanceof Request ? input.url : String(input)).toBe('https://proxy.example/r/v2.0/payment');
  });

  it('PROVIDER_R_BASE_URL points the default factory at another host (pay dev, a proxy); an explicit baseUrl wins', async () => {
    vi.stubEnv('PROVIDER_R_MERCHANT', MERCHANT);
    vi.stubEnv('PROVIDER_R_SECRET', SECRET);
    vi.stubEnv('PROVIDER_R_SANDBOX', 'true');
    vi.stubEnv('PROVIDER_R_BASE_URL', 'http://127.0.0.1:4010');
    const created = { code: 0, message: 'OK', transId: TRANS_ID, redirect: REDIRECT };
    const local = nock('http://127.0.0.1:4010').post('/v2.0/payment').reply(200, created);
    await providerR({ retry: 0 }).createPayment(payment);
    expect(local.isDone()).toBe(true);
    const proxy = nock('https://proxy.example').post('/r/v2.0/payment').reply(200, created);
    await providerR({ retry: 0, baseUrl: 'https://proxy.example/r/' }).createPayment(payment);
    expect(proxy.isDone()).toBe(true);
  });

  it('without PROVIDER_R_BASE_URL the default factory talks to the production host', async () => {
    vi.stubEnv('PROVIDER_R_MERCHANT', MERCHANT);
    vi.stubEnv('PROVIDER_R_SECRET', SECRET);
    vi.stubEnv('PROVIDER_R_SANDBOX', 'true');
    vi.stubEnv('PROVIDER_R_BASE_URL', '');
    const scope = nock(BASE_URL)
      .post('/v2.0/payment')
      .reply(200, { code: 0, message: 'OK', transId: TRANS_ID, redirect: REDIRECT });
    await providerR({ retry: 0 }).createPayment(payment);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses a PROVIDER_R_BASE_URL that is not an absolute URL, without echoing it', () => {
    vi.stubEnv('PROVIDER_R_MERCHANT', MERCHANT);
    vi.stubEnv('PROVIDER_R_SECRET', SECRET);
    vi.stubEnv('PROVIDER_R_SANDBOX', 'true');
    vi.stubEnv('PROVIDER_R_BASE_URL', 'localhost-4010');
    const error = thrown(() => providerR());
    expect(error).toMatchObject({ code: 'configuration_error', missing: ['baseUrl'] });
    expect((error as Error).message).not.toContain('localhost-4010');
  });
});
