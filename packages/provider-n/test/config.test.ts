import { ConfigurationError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createProviderN, PROVIDER_N_BASE_URLS, PROVIDER_N_ENV, providerN } from '../src/index.js';
import { startProviderNSimulator } from '../src/testing/index.js';
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
    'PROVIDER_N_BASE_URL',
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

describe('PROVIDER_N_BASE_URL (docs/architecture.md#local-loop: an app switches to `pay dev` without code changes)', () => {
  it('sends every call of the default factory to PROVIDER_N_BASE_URL, e.g. a running simulator', async () => {
    const simulator = await startProviderNSimulator();
    try {
      stubEnv({
        PROVIDER_N_API_KEY: simulator.credentials.apiKey,
        PROVIDER_N_SECRET_KEY: simulator.credentials.secretKey,
        PROVIDER_N_SANDBOX: 'true',
        PROVIDER_N_CONTRACT_CODE: String(simulator.credentials.contractCode),
        PROVIDER_N_BASE_URL: simulator.url,
      });
      const checkout = await providerN().createCheckout({
        customer: { email: 'ada@example.com' },
        provider_metadata: { amount: 250.5, currency: 'NGN' },
      });
      expect(checkout.checkoutUrl.startsWith(`${simulator.url}/checkout/`)).toBe(true);
      expect(simulator.books.transactions.map((transaction) => transaction.amount)).toEqual([250.5]);
    } finally {
      await simulator.close();
    }
  });

  it('an explicit baseUrl wins over PROVIDER_N_BASE_URL', async () => {
    stubEnv({
      PROVIDER_N_API_KEY: API_KEY,
      PROVIDER_N_SECRET_KEY: SECRET_KEY,
      PROVIDER_N_SANDBOX: 'true',
      PROVIDER_N_BASE_URL: 'https://not-this-one.example',
    });
    nock('https://proxy.example')
      .post('/v1/auth/login')
      .reply(200, ok({ accessToken: 't', expiresIn: 60 }));
    const read = nock('https://proxy.example')
      .get('/v1/merchant/transactions/query')
      .query(true)
      .reply(200, ok(transactionStatusBody));
    await providerN({ baseUrl: 'https://proxy.example', retry: 0 }).retrievePayment(TRANSACTION_REFERENCE);
    expect(read.isDone()).toBe(true);
  });

  it('refuses a PROVIDER_N_BASE_URL that is not a URL, naming the member, not the value', () => {
    stubEnv({
      PROVIDER_N_API_KEY: API_KEY,
      PROVIDER_N_SECRET_KEY: SECRET_KEY,
      PROVIDER_N_SANDBOX: 'true',
      PROVIDER_N_BASE_URL: 'localhost-4010-oops',
    });
    const error = configurationError(() => providerN());
    expect(error.missing).toEqual(['baseUrl']);
    expect(error.message).not.toContain('localhost-4010-oops');
  });

  it('is listed in PROVIDER_N_ENV, so `pay dev` prints it', () => {
    expect(PROVIDER_N_ENV.map((variable) => variable.env)).toEqual([
      'PROVIDER_N_API_KEY',
      'PROVIDER_N_SECRET_KEY',
      'PROVIDER_N_SANDBOX',
      'PROVIDER_N_CONTRACT_CODE',
      'PROVIDER_N_BASE_URL',
    ]);
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

describe('credentials: checked, then used exactly as checked (docs/architecture.md#configuration)', () => {
  /** Answers one login only when it carries the trimmed credentials, then one status read. */
  function nockTrimmedLoginAndRead() {
    const login = nock(new URL(PROVIDER_N_BASE_URLS.sandbox).origin)
      .post('/api/v1/auth/login')
      .matchHeader('authorization', BASIC)
      .reply(200, ok({ accessToken: 't', expiresIn: 3599 }));
    const read = nock(new URL(PROVIDER_N_BASE_URLS.sandbox).origin)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .reply(200, ok(transactionStatusBody));
    return () => login.isDone() && read.isDone();
  }

  it('logs in with the trimmed key the default factory checked, not the padded one given', async () => {
    stubEnv({ PROVIDER_N_SECRET_KEY: `${SECRET_KEY}\n`, PROVIDER_N_SANDBOX: 'true' });
    const done = nockTrimmedLoginAndRead();
    await providerN({ apiKey: `  ${API_KEY} `, retry: 0 }).retrievePayment(TRANSACTION_REFERENCE);
    expect(done()).toBe(true);
  });

  it('logs in with the trimmed key the explicit factory checked', async () => {
    const done = nockTrimmedLoginAndRead();
    await createProviderN({
      apiKey: ` ${API_KEY}`,
      secretKey: `${SECRET_KEY} `,
      isSandbox: true,
      retry: 0,
    }).retrievePayment(TRANSACTION_REFERENCE);
    expect(done()).toBe(true);
  });

  it('refuses a blank key from the options, the environment or updateCredentials, changing nothing', async () => {
    stubEnv({ PROVIDER_N_API_KEY: '   ', PROVIDER_N_SECRET_KEY: SECRET_KEY, PROVIDER_N_SANDBOX: 'true' });
    expect(configurationError(() => providerN()).missing).toEqual(['apiKey']);
    expect(configurationError(() => providerN({ apiKey: API_KEY, secretKey: '\t' })).missing).toEqual([
      'secretKey',
    ]);
    const adapter = createProviderN({ apiKey: API_KEY, secretKey: SECRET_KEY, isSandbox: true, retry: 0 });
    expect(
      configurationError(() => adapter.updateCredentials({ apiKey: ' ', secretKey: 'x' })).missing,
    ).toEqual(['apiKey']);
    const done = nockTrimmedLoginAndRead();
    await adapter.retrievePayment(TRANSACTION_REFERENCE);
    expect(done()).toBe(true);
  });
});
