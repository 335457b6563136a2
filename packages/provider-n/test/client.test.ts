import { ConfigurationError, createMemoryTokenStore, NetworkError, ProviderApiError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  API_KEY,
  BASIC,
  HOST,
  nockLogin,
  ok,
  refused,
  SECRET_KEY,
  TRANSACTION_REFERENCE,
  testAdapter,
  transactionStatusBody,
} from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

afterEach(() => {
  nock.cleanAll();
  vi.useRealTimers();
});

function nockQuery(token: string, times = 1) {
  return nock(HOST)
    .get('/api/v1/merchant/transactions/query')
    .query(true)
    .matchHeader('authorization', `Bearer ${token}`)
    .times(times)
    .reply(200, ok(transactionStatusBody));
}

describe('access tokens', () => {
  it('logs in once for 20 parallel calls on a cold adapter', async () => {
    let logins = 0;
    nock(HOST)
      .post('/api/v1/auth/login')
      .times(20)
      .reply(200, () => {
        logins += 1;
        return ok({ accessToken: 'shared', expiresIn: 3599 });
      });
    const query = nockQuery('shared', 20);
    const adapter = testAdapter();
    const payments = await Promise.all(
      Array.from({ length: 20 }, () => adapter.retrievePayment(TRANSACTION_REFERENCE)),
    );
    expect(payments).toHaveLength(20);
    expect(query.isDone()).toBe(true);
    expect(logins).toBe(1);
  });

  it('reuses a valid token, and logs in again once it is within 60 s of expiry', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-22T10:00:00Z') });
    const adapter = testAdapter();
    nockLogin('first', 300);
    nockQuery('first', 2);
    await adapter.retrievePayment(TRANSACTION_REFERENCE);
    vi.setSystemTime(new Date('2026-11-22T10:03:59Z'));
    await adapter.retrievePayment(TRANSACTION_REFERENCE);
    vi.setSystemTime(new Date('2026-11-22T10:04:01Z'));
    nockLogin('second', 300);
    nockQuery('second');
    await adapter.retrievePayment(TRANSACTION_REFERENCE);
    expect(nock.isDone()).toBe(true);
  });

  it('drops a token the provider rejects with 401, logs in once more and repeats the call', async () => {
    nockLogin('stale');
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .matchHeader('authorization', 'Bearer stale')
      .reply(401, refused('99', 'Invalid token'));
    nockLogin('fresh');
    nockQuery('fresh');
    const payment = await testAdapter().retrievePayment(TRANSACTION_REFERENCE);
    expect(payment?.id).toBe(TRANSACTION_REFERENCE);
    expect(nock.isDone()).toBe(true);
  });

  it('re-logs in only once: a second 401 is a ProviderApiError', async () => {
    nockLogin('a');
    nockLogin('b');
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .times(2)
      .reply(401, refused('99', 'Invalid token'));
    await expect(testAdapter().retrievePayment(TRANSACTION_REFERENCE)).rejects.toMatchObject({
      code: 'provider_api_error',
      status: 401,
    });
    expect(nock.isDone()).toBe(true);
  });

  it('repeats a refused init-transaction after the 401 re-login: the 401 proves it was not processed', async () => {
    nockLogin('stale');
    nock(HOST)
      .post('/api/v1/merchant/transactions/init-transaction')
      .matchHeader('authorization', 'Bearer stale')
      .reply(401, refused('99', 'Invalid token'));
    nockLogin('fresh');
    nock(HOST)
      .post('/api/v1/merchant/transactions/init-transaction')
      .matchHeader('authorization', 'Bearer fresh')
      .reply(
        200,
        ok({
          transactionReference: TRANSACTION_REFERENCE,
          checkoutUrl: 'https://sandbox.provider-n.example/checkout/x',
        }),
      );
    const checkout = await testAdapter().createCheckout({
      customer: { email: 'ada@example.com' },
      provider_metadata: { amount: 100, currency: 'NGN' },
    });
    expect(checkout.checkoutUrl).toBe('https://sandbox.provider-n.example/checkout/x');
  });

  it('a 401 that persists after the one re-login is kind authentication and names the variables to check', async () => {
    for (const token of ['first', 'second']) {
      nockLogin(token);
      nock(HOST)
        .get('/api/v1/merchant/transactions/query')
        .query(true)
        .matchHeader('authorization', `Bearer ${token}`)
        .reply(401, refused('99', 'Invalid token'));
    }
    const error = await testAdapter()
      .retrievePayment(TRANSACTION_REFERENCE)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 401, kind: 'authentication', retryable: false });
    expect((error as Error).message).toContain('PROVIDER_N_API_KEY / PROVIDER_N_SECRET_KEY');
    expect(nock.isDone()).toBe(true);
  });

  it('reports a refused login as a ProviderApiError that names the credentials to check, with no secret', async () => {
    nock(HOST)
      .post('/api/v1/auth/login')
      .reply(401, refused('99', `Invalid credentials for ${SECRET_KEY}`));
    const error = await testAdapter()
      .retrievePayment(TRANSACTION_REFERENCE)
      .catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 401,
      providerCode: '99',
      retryable: false,
      kind: 'authentication',
    });
    expect((error as Error).message).toMatch(/apiKey and secretKey/);
    const everything = JSON.stringify({ ...(error as object), message: (error as Error).message });
    expect(everything).not.toContain(SECRET_KEY);
    expect(everything).not.toContain(BASIC.slice(6));
    expect((error as ProviderApiError).providerMessage).toBe('Invalid credentials for [REDACTED]');
  });

  it('treats requestSuccessful: false on a 200 login as a refused login', async () => {
    nock(HOST).post('/api/v1/auth/login').reply(200, refused('99', 'Bad credentials'));
    await expect(testAdapter().retrievePayment(TRANSACTION_REFERENCE)).rejects.toThrow(/secretKey/);
  });

  it('retries the login on a 503: it only reads', async () => {
    nock(HOST).post('/api/v1/auth/login').reply(503, 'busy');
    nockLogin('after-503');
    nockQuery('after-503');
    await expect(testAdapter({ retry: 1 }).retrievePayment(TRANSACTION_REFERENCE)).resolves.toMatchObject({
      id: TRANSACTION_REFERENCE,
    });
  });

  it('reports a login lost on the network as not_sent for the call itself', async () => {
    nock(HOST).post('/api/v1/auth/login').replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    const error = await testAdapter()
      .createRefund({ payment_id: TRANSACTION_REFERENCE, amount: 100 })
      .catch((thrown: unknown) => thrown);
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ outcome: 'not_sent' });
  });

  it('reports a login reply without a token as InvalidResponseError', async () => {
    nock(HOST)
      .post('/api/v1/auth/login')
      .reply(200, ok({ expiresIn: 3599 }));
    await expect(testAdapter().retrievePayment(TRANSACTION_REFERENCE)).rejects.toMatchObject({
      code: 'invalid_response',
    });
  });

  it('never shows the token, the Basic credential or the secret to hooks', async () => {
    const seen: string[] = [];
    nockLogin('very-secret-token');
    nockQuery('very-secret-token');
    await testAdapter({
      hooks: {
        onRequest: (request) => {
          seen.push(JSON.stringify(request));
        },
        onResponse: (response) => {
          seen.push(JSON.stringify(response));
        },
      },
    }).retrievePayment(TRANSACTION_REFERENCE);
    const all = seen.join('\n');
    expect(seen).toHaveLength(4);
    expect(all).not.toContain(SECRET_KEY);
    expect(all).not.toContain(BASIC.slice(6));
    expect(all).not.toContain('Bearer very-secret-token');
  });
});

describe('the envelope', () => {
  it('accepts a numeric responseCode 0 as success', async () => {
    nockLogin();
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .reply(200, { ...ok(transactionStatusBody), responseCode: 0 });
    await expect(testAdapter().retrievePayment(TRANSACTION_REFERENCE)).resolves.toMatchObject({
      status: 'succeeded',
    });
  });

  it('treats a non-"0" code as an error even when requestSuccessful is true', async () => {
    nockLogin();
    nock(HOST)
      .get('/api/v1/merchant/transactions/query')
      .query(true)
      .reply(200, { ...ok(transactionStatusBody), responseCode: '42' });
    await expect(testAdapter().retrievePayment(TRANSACTION_REFERENCE)).rejects.toMatchObject({
      code: 'provider_api_error',
      providerCode: '42',
    });
  });

  it('reports an HTML error page as a ProviderApiError with the HTTP status', async () => {
    nockLogin();
    nock(HOST).get('/api/v1/merchant/transactions/query').query(true).reply(400, '<html>Bad request</html>');
    await expect(testAdapter().retrievePayment(TRANSACTION_REFERENCE)).rejects.toMatchObject({
      code: 'provider_api_error',
      status: 400,
      providerCode: undefined,
    });
  });

  it('reports a 200 that is not an envelope as InvalidResponseError', async () => {
    nockLogin();
    nock(HOST).get('/api/v1/merchant/transactions/query').query(true).reply(200, '{"hello":');
    await expect(testAdapter().retrievePayment(TRANSACTION_REFERENCE)).rejects.toMatchObject({
      code: 'invalid_response',
    });
  });
});

describe('rotating the API key and secret key (docs/providers/provider-n.md#authentication)', () => {
  const ROTATED = { apiKey: 'PN_APIKEY_rotated_51c3', secretKey: 'PN_SECRET_rotated_9e07' };
  const ROTATED_BASIC = `Basic ${Buffer.from(`${ROTATED.apiKey}:${ROTATED.secretKey}`).toString('base64')}`;
  const QUERY = '/api/v1/merchant/transactions/query';

  /** Logins answered with a token named after the pair they sent; records each Authorization sent. */
  function nockLogins(times: number) {
    const sent: string[] = [];
    nock(HOST)
      .post('/api/v1/auth/login')
      .times(times)
      .reply(function () {
        const authorization = String(this.req.headers.authorization);
        sent.push(authorization);
        const token =
          authorization === BASIC ? 'token-old' : authorization === ROTATED_BASIC ? 'token-new' : '';
        return token
          ? [200, ok({ accessToken: token, expiresIn: 3599 })]
          : [401, refused('99', 'Invalid API key or secret key')];
      });
    return sent;
  }

  it('drops the token of the old pair: the next call logs in with the new one', async () => {
    const logins = nockLogins(2);
    const old = nockQuery('token-old');
    const adapter = testAdapter();
    await adapter.retrievePayment(TRANSACTION_REFERENCE);
    adapter.updateCredentials(ROTATED);
    const rotated = nockQuery('token-new');
    expect(await adapter.retrievePayment(TRANSACTION_REFERENCE)).toMatchObject({ id: TRANSACTION_REFERENCE });
    expect(logins).toEqual([BASIC, ROTATED_BASIC]);
    expect(old.isDone() && rotated.isDone()).toBe(true);
  });

  it('re-logs in with the new pair only when a call held while the keys changed is then refused (401)', async () => {
    const logins = nockLogins(2);
    const adapter = testAdapter();
    nock(HOST)
      .get(QUERY)
      .query(true)
      .matchHeader('authorization', 'Bearer token-old')
      .reply(() => {
        // The call is at the provider when the keys change; the provider then refuses its token.
        adapter.updateCredentials(ROTATED);
        return [401, refused('99', 'Invalid or expired access token')];
      });
    const resent = nockQuery('token-new');
    expect(await adapter.retrievePayment(TRANSACTION_REFERENCE)).toMatchObject({
      id: TRANSACTION_REFERENCE,
      status: 'succeeded',
    });
    expect(logins).toEqual([BASIC, ROTATED_BASIC]);
    expect(resent.isDone()).toBe(true);
  });

  it('never takes a token another instance got with the old secret key from a shared token store', async () => {
    const sameKeyBasic = `Basic ${Buffer.from(`${API_KEY}:${ROTATED.secretKey}`).toString('base64')}`;
    const logins: string[] = [];
    nock(HOST)
      .post('/api/v1/auth/login')
      .times(2)
      .reply(function () {
        logins.push(String(this.req.headers.authorization));
        return [200, ok({ accessToken: `token-${logins.length}`, expiresIn: 3599 })];
      });
    const tokenStore = createMemoryTokenStore();
    nockQuery('token-1');
    await testAdapter({ tokenStore }).retrievePayment(TRANSACTION_REFERENCE);
    const rotated = testAdapter({ tokenStore });
    rotated.updateCredentials({ apiKey: API_KEY, secretKey: ROTATED.secretKey });
    const fresh = nockQuery('token-2');
    await rotated.retrievePayment(TRANSACTION_REFERENCE);
    expect(logins).toEqual([BASIC, sameKeyBasic]);
    expect(fresh.isDone()).toBe(true);
  });

  it('refuses an empty key with a ConfigurationError naming it, and keeps logging in with the old pair', async () => {
    const adapter = testAdapter();
    const error = (() => {
      try {
        adapter.updateCredentials({ apiKey: ROTATED.apiKey, secretKey: ' ' });
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('secretKey');
    const logins = nockLogins(1);
    nockQuery('token-old');
    await adapter.retrievePayment(TRANSACTION_REFERENCE);
    expect(logins).toEqual([BASIC]);
  });

  it('redacts the new secret key from errors, as the configured one', async () => {
    nock(HOST)
      .post('/api/v1/auth/login')
      .reply(401, refused('99', `Invalid secret ${ROTATED.secretKey}`));
    const adapter = testAdapter();
    adapter.updateCredentials(ROTATED);
    const error = await adapter.retrievePayment(TRANSACTION_REFERENCE).catch((thrown: unknown) => thrown);
    expect(ProviderApiError.isInstance(error)).toBe(true);
    expect(JSON.stringify(error)).not.toContain(ROTATED.secretKey);
    expect(String((error as Error).stack)).not.toContain(ROTATED.secretKey);
  });
});
