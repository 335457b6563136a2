import { ConfigurationError, type HttpRequestInfo, type HttpResponseInfo } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  errorBody,
  HOST,
  nockLogin,
  statusReply,
  TRANSACTION_ID,
  testAdapter,
} from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

afterEach(() => {
  nock.cleanAll();
});

const STATUS_PATH = `/status/v1/transactions/${TRANSACTION_ID}`;

describe('authentication', () => {
  it('logs in once with Basic client credentials and reuses the token', async () => {
    const login = nockLogin('tok-1');
    nock(HOST)
      .get(STATUS_PATH)
      .query(true)
      .matchHeader('authorization', 'Bearer tok-1')
      .times(2)
      .reply(200, statusReply());
    const adapter = testAdapter();
    await adapter.retrievePayment(TRANSACTION_ID);
    await adapter.retrievePayment(TRANSACTION_ID);
    expect(login.isDone()).toBe(true);
  });

  it('logs in again once when the provider rejects the token, and resends with the same request id', async () => {
    const ids: string[] = [];
    nockLogin('tok-old');
    nockLogin('tok-new');
    nock(HOST)
      .get(STATUS_PATH)
      .query(true)
      .matchHeader('authorization', 'Bearer tok-old')
      .reply(function () {
        ids.push(String(this.req.headers['x-client-request-id']));
        return [401, errorBody('UNAUTHORIZED', 'Token expired')];
      });
    nock(HOST)
      .get(STATUS_PATH)
      .query(true)
      .matchHeader('authorization', 'Bearer tok-new')
      .reply(function () {
        ids.push(String(this.req.headers['x-client-request-id']));
        return [200, statusReply()];
      });
    expect(await testAdapter().retrievePayment(TRANSACTION_ID)).toMatchObject({ id: TRANSACTION_ID });
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
  });

  it('reports refused client credentials as a ProviderApiError without echoing them', async () => {
    nock(HOST)
      .get('/oauth/accesstoken')
      .query(true)
      .reply(401, {
        error: { category: 'AUTH', code: 'INVALID_CLIENT', message: `client ${CLIENT_SECRET} unknown` },
      });
    const error = await testAdapter()
      .retrievePayment(TRANSACTION_ID)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'provider_api_error', status: 401, providerCode: 'INVALID_CLIENT' });
    expect(JSON.stringify(error)).not.toContain(CLIENT_SECRET);
    expect((error as Error).message).not.toContain(CLIENT_SECRET);
  });

  it('never shows the credentials or the access token to hooks', async () => {
    const seen: (HttpRequestInfo | HttpResponseInfo)[] = [];
    nockLogin('tok-very-secret-123');
    nock(HOST).get(STATUS_PATH).query(true).reply(200, statusReply());
    await testAdapter({
      hooks: { onRequest: (info) => void seen.push(info), onResponse: (info) => void seen.push(info) },
    }).retrievePayment(TRANSACTION_ID);
    const text = JSON.stringify(seen);
    expect(seen).toHaveLength(4);
    expect(text).not.toContain('tok-very-secret-123');
    expect(text).not.toContain(CLIENT_SECRET);
    expect(text).not.toContain(Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64'));
  });
});

describe('rotating the client credentials (docs/providers/provider-t.md#authentication)', () => {
  const ROTATED = { clientId: 'pt-client-rotated-2b', clientSecret: 'pt-secret-rotated-77d1' };
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

  /** Logins answered with a token named after the pair they sent; records each Authorization sent. */
  function nockLogins(times: number) {
    const sent: string[] = [];
    nock(HOST)
      .get('/oauth/accesstoken')
      .query({ grant_type: 'client_credentials' })
      .times(times)
      .reply(function () {
        const authorization = String(this.req.headers.authorization);
        sent.push(authorization);
        const token =
          authorization === basic(CLIENT_ID, CLIENT_SECRET)
            ? 'tok-old'
            : authorization === basic(ROTATED.clientId, ROTATED.clientSecret)
              ? 'tok-new'
              : undefined;
        return token
          ? [200, { access_token: token, expires_in: 3599, token_type: 'BearerToken' }]
          : [401, errorBody('INVALID_CLIENT', 'Invalid client credentials')];
      });
    return sent;
  }

  function nockStatus(token: string) {
    return nock(HOST)
      .get(STATUS_PATH)
      .query(true)
      .matchHeader('authorization', `Bearer ${token}`)
      .reply(200, statusReply('SENT'));
  }

  it('drops the token of the old pair: the next call logs in with the new one', async () => {
    const logins = nockLogins(2);
    nockStatus('tok-old');
    const adapter = testAdapter({ retry: 0 });
    await adapter.retrievePayment(TRANSACTION_ID);
    adapter.updateCredentials(ROTATED);
    const rotated = nockStatus('tok-new');
    expect(await adapter.retrievePayment(TRANSACTION_ID)).toMatchObject({ id: TRANSACTION_ID });
    expect(logins).toEqual([basic(CLIENT_ID, CLIENT_SECRET), basic(ROTATED.clientId, ROTATED.clientSecret)]);
    expect(rotated.isDone()).toBe(true);
  });

  it('re-logs in with the new pair only when a call held while the credentials changed is then refused (401)', async () => {
    const logins = nockLogins(2);
    const adapter = testAdapter({ retry: 0 });
    nock(HOST)
      .get(STATUS_PATH)
      .query(true)
      .matchHeader('authorization', 'Bearer tok-old')
      .reply(() => {
        // The call is at the provider when the credentials change; the provider then refuses its token.
        adapter.updateCredentials(ROTATED);
        return [401, errorBody('INVALID_TOKEN', 'Access token expired')];
      });
    const resent = nockStatus('tok-new');
    expect(await adapter.retrievePayment(TRANSACTION_ID)).toMatchObject({
      id: TRANSACTION_ID,
      status: 'succeeded',
    });
    expect(logins).toEqual([basic(CLIENT_ID, CLIENT_SECRET), basic(ROTATED.clientId, ROTATED.clientSecret)]);
    expect(resent.isDone()).toBe(true);
  });

  it('refuses an empty client secret with a ConfigurationError naming it, and keeps the old pair', async () => {
    const adapter = testAdapter({ retry: 0 });
    expect(() => adapter.updateCredentials({ clientId: ROTATED.clientId, clientSecret: '' })).toThrow(
      /clientSecret/,
    );
    const logins = nockLogins(1);
    nockStatus('tok-old');
    await adapter.retrievePayment(TRANSACTION_ID);
    expect(logins).toEqual([basic(CLIENT_ID, CLIENT_SECRET)]);
  });

  it('refuses a blank member and keeps the old pair; a padded pair is used trimmed, as checked', async () => {
    const adapter = testAdapter({ retry: 0 });
    for (const blank of [
      { ...ROTATED, clientSecret: '   ' },
      { ...ROTATED, clientId: '\t' },
    ])
      expect(() => adapter.updateCredentials(blank)).toThrow(ConfigurationError);
    const logins = nockLogins(2);
    nockStatus('tok-old');
    await adapter.retrievePayment(TRANSACTION_ID);
    adapter.updateCredentials({
      clientId: ` ${ROTATED.clientId}`,
      clientSecret: `${ROTATED.clientSecret}\n`,
    });
    nockStatus('tok-new');
    await adapter.retrievePayment(TRANSACTION_ID);
    expect(logins).toEqual([basic(CLIENT_ID, CLIENT_SECRET), basic(ROTATED.clientId, ROTATED.clientSecret)]);
  });
});

describe('request ids', () => {
  it('sends X-Client-Request-Id on the login and on every call, a new one per logical call', async () => {
    const ids: string[] = [];
    nock(HOST)
      .get('/oauth/accesstoken')
      .query(true)
      .reply(function () {
        ids.push(String(this.req.headers['x-client-request-id']));
        return [200, { access_token: 'tok', expires_in: 3599 }];
      });
    nock(HOST)
      .get(STATUS_PATH)
      .query(true)
      .times(2)
      .reply(function () {
        ids.push(String(this.req.headers['x-client-request-id']));
        return [200, statusReply()];
      });
    const adapter = testAdapter();
    await adapter.retrievePayment(TRANSACTION_ID);
    await adapter.retrievePayment(TRANSACTION_ID);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
  });
});
