import type { HttpRequestInfo, HttpResponseInfo } from '@pay/core';
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
