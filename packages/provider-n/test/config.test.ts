import { ConfigurationError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createProviderN, PROVIDER_N_BASE_URLS, providerN } from '../src/index.js';
import { API_KEY, BASIC, ok, SECRET_KEY, TRANSACTION_REFERENCE, transactionStatusBody } from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

afterEach(() => {
  vi.unstubAllEnvs();
  nock.cleanAll();
});

function stubEnv(values: Record<string, string>) {
  for (const name of [
    'PROVIDER_N_API_KEY',
    'PROVIDER_N_SECRET_KEY',
    'PROVIDER_N_SANDBOX',
    'PROVIDER_N_CONTRACT_CODE',
  ]) {
    vi.stubEnv(name, values[name] ?? '');
  }
}

function configurationError(build: () => unknown): ConfigurationError {
  try {
    build();
  } catch (error) {
    expect(ConfigurationError.isInstance(error)).toBe(true);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError');
}

describe('providerN() (default factory)', () => {
  it('names every missing variable and the member replacing it in one error', () => {
    stubEnv({});
    const error = configurationError(() => providerN());
    expect(error.missing).toEqual(['PROVIDER_N_API_KEY', 'PROVIDER_N_SECRET_KEY', 'PROVIDER_N_SANDBOX']);
    expect(error.message).toContain('PROVIDER_N_SECRET_KEY (or the config member `secretKey`)');
  });

  it('reads the environment when called, not on import, and explicit overrides win', () => {
    stubEnv({ PROVIDER_N_API_KEY: API_KEY, PROVIDER_N_SANDBOX: 'true' });
    expect(providerN({ secretKey: SECRET_KEY }).provider).toBe('providerN');
  });

  it('refuses a sandbox switch that is neither true nor false', () => {
    stubEnv({ PROVIDER_N_API_KEY: API_KEY, PROVIDER_N_SECRET_KEY: SECRET_KEY, PROVIDER_N_SANDBOX: 'yes' });
    expect(configurationError(() => providerN()).missing).toEqual(['PROVIDER_N_SANDBOX']);
  });

  it('talks to the sandbox host when PROVIDER_N_SANDBOX is true and sends the env contract code', async () => {
    stubEnv({
      PROVIDER_N_API_KEY: API_KEY,
      PROVIDER_N_SECRET_KEY: SECRET_KEY,
      PROVIDER_N_SANDBOX: 'TRUE',
      PROVIDER_N_CONTRACT_CODE: '4934121693',
    });
    let sent: Record<string, unknown> | undefined;
    const host = new URL(PROVIDER_N_BASE_URLS.sandbox);
    nock(host.origin)
      .post('/api/v1/auth/login')
      .matchHeader('authorization', BASIC)
      .reply(200, ok({ accessToken: 't', expiresIn: 3599 }));
    nock(host.origin)
      .post('/api/v1/merchant/transactions/init-transaction', (body) => {
        sent = body;
        return true;
      })
      .reply(200, ok({ transactionReference: TRANSACTION_REFERENCE, checkoutUrl: 'https://x.example/c' }));
    await providerN({ retry: 0 }).createCheckout({
      customer: { email: 'ada@example.com' },
      provider_metadata: { amount: 1, currency: 'NGN' },
    });
    expect(sent?.contractCode).toBe('4934121693');
  });

  it('talks to the production host when PROVIDER_N_SANDBOX is false', async () => {
    stubEnv({ PROVIDER_N_API_KEY: API_KEY, PROVIDER_N_SECRET_KEY: SECRET_KEY, PROVIDER_N_SANDBOX: 'false' });
    const host = new URL(PROVIDER_N_BASE_URLS.production);
    nock(host.origin)
      .post('/api/v1/auth/login')
      .reply(200, ok({ accessToken: 't', expiresIn: 3599 }));
    const read = nock(host.origin)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .reply(200, ok(transactionStatusBody));
    await providerN().retrievePayment(TRANSACTION_REFERENCE);
    expect(read.isDone()).toBe(true);
  });
});

describe('createProviderN() (explicit factory)', () => {
  it('names bad members without their values', () => {
    const error = configurationError(() =>
      createProviderN({ apiKey: '', secretKey: SECRET_KEY, isSandbox: 'true' as never, retry: -1 }),
    );
    expect(error.missing).toEqual(['apiKey', 'isSandbox', 'retry']);
    expect(error.message).not.toContain(SECRET_KEY);
  });

  it('refuses an unknown member (a misspelt option is not silently ignored)', () => {
    const error = configurationError(() =>
      createProviderN({
        apiKey: API_KEY,
        secretKey: SECRET_KEY,
        isSandbox: true,
        contractcode: 'x',
      } as never),
    );
    expect(error.missing).toEqual(['contractcode']);
  });

  it('does no I/O when created', () => {
    const fetch = vi.fn();
    createProviderN({ apiKey: API_KEY, secretKey: SECRET_KEY, isSandbox: true, fetch });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('sends every call to baseUrl when given', async () => {
    nock('https://proxy.example')
      .post('/pn/v1/auth/login')
      .reply(200, ok({ accessToken: 't', expiresIn: 60 }));
    const read = nock('https://proxy.example')
      .get('/pn/v1/merchant/transactions/query')
      .query(true)
      .reply(200, ok(transactionStatusBody));
    await createProviderN({
      apiKey: API_KEY,
      secretKey: SECRET_KEY,
      isSandbox: false,
      baseUrl: 'https://proxy.example/pn/',
    }).retrievePayment(TRANSACTION_REFERENCE);
    expect(read.isDone()).toBe(true);
  });
});
