import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProviderClient, type HttpRequestInfo, ProviderApiError } from '../src/adapter-toolkit.js';
import * as v from '../src/schema.js';

const BASE = 'https://api.provider.example';

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterEach(() => {
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
});

const readEnvelope = (reply: { status: number; text: string }) =>
  reply.status < 400 ? { ok: true as const, body: JSON.parse(reply.text) } : { ok: false as const };
const ok = v.object({ ok: v.boolean() });
const read = { call: 'read', method: 'GET', path: '/v1/things', retrySafe: true } as const;

describe('declared authorisation of the provider client (docs/architecture.md#provider-client-auth)', () => {
  it('sends HTTP Basic user:password on every call, redacted from what hooks see', async () => {
    const seen: HttpRequestInfo[] = [];
    const client = createProviderClient({
      provider: 'providerX',
      baseUrl: BASE,
      readEnvelope,
      errors: {},
      auth: { basic: ['merchant-1', 'pässword'] },
      hooks: { onRequest: (request) => void seen.push(request) },
    });
    const scope = nock(BASE)
      .get('/v1/things')
      .matchHeader('authorization', `Basic ${Buffer.from('merchant-1:pässword').toString('base64')}`)
      .reply(200, { ok: true });
    expect(await client.request(ok, read)).toEqual({ ok: true });
    scope.done();
    expect(JSON.stringify(seen)).not.toContain(Buffer.from('merchant-1:pässword').toString('base64'));
  });

  it("sends a static bearer token, or a header of the provider's own, and keeps the value out of errors", async () => {
    const bearer = createProviderClient({
      provider: 'providerX',
      baseUrl: BASE,
      readEnvelope,
      errors: {},
      auth: { bearer: 'sk_live_123' },
    });
    nock(BASE).get('/v1/things').matchHeader('authorization', 'Bearer sk_live_123').reply(200, { ok: true });
    expect(await bearer.request(ok, read)).toEqual({ ok: true });

    const keyed = createProviderClient({
      provider: 'providerX',
      baseUrl: BASE,
      readEnvelope,
      errors: {},
      auth: { header: 'X-Api-Key', value: 'key-456' },
    });
    nock(BASE)
      .get('/v1/things')
      .matchHeader('x-api-key', 'key-456')
      .matchHeader('authorization', (value) => value === undefined)
      .reply(400, 'refused key-456');
    const error = await keyed.request(ok, read).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ProviderApiError);
    expect(
      JSON.stringify({ ...(error as ProviderApiError), message: (error as Error).message }),
    ).not.toContain('key-456');
  });

  it('reads a function once per call, so every retry of a call sends the credentials it started with', async () => {
    let password = 'first';
    const client = createProviderClient({
      provider: 'providerX',
      baseUrl: BASE,
      readEnvelope,
      errors: {},
      retry: 1,
      backoffBaseMs: 1,
      auth: () => ({ basic: ['m', password] }),
    });
    const basic = (secret: string) => `Basic ${Buffer.from(`m:${secret}`).toString('base64')}`;
    const scope = nock(BASE)
      .get('/v1/things')
      .matchHeader('authorization', basic('first'))
      .reply(() => {
        password = 'second';
        return [503, ''];
      })
      .get('/v1/things')
      .matchHeader('authorization', basic('first'))
      .reply(200, { ok: true })
      .get('/v1/things')
      .matchHeader('authorization', basic('second'))
      .reply(200, { ok: true });
    await client.request(ok, read);
    await client.request(ok, read);
    scope.done();
  });

  it("lets a call declare its own auth (a login's Basic) and `authorize: false` send none", async () => {
    const client = createProviderClient({
      provider: 'providerX',
      baseUrl: BASE,
      readEnvelope,
      errors: {},
      auth: { bearer: 'token' },
    });
    const scope = nock(BASE)
      .post('/v1/login')
      .matchHeader('authorization', `Basic ${Buffer.from('id:secret').toString('base64')}`)
      .reply(200, { ok: true })
      .get('/v1/public')
      .matchHeader('authorization', (value) => value === undefined)
      .reply(200, { ok: true });
    await client.request(ok, {
      call: 'login',
      method: 'POST',
      path: '/v1/login',
      retrySafe: true,
      auth: { basic: ['id', 'secret'] },
    });
    await client.request(ok, { ...read, path: '/v1/public', authorize: false });
    scope.done();
  });
});

describe('transport options taken whole from the adapter config', () => {
  it("uses the config's fetch, retry and hooks, and leaves out what the config does not set", async () => {
    const fetched: string[] = [];
    const seen: string[] = [];
    const config = {
      merchant: 'm',
      baseUrl: 'https://ignored.example',
      retry: 0,
      fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
        fetched.push(input instanceof Request ? input.url : String(input));
        return globalThis.fetch(input, init);
      },
      hooks: { onRequest: (request: HttpRequestInfo) => void seen.push(request.url) },
      timeoutMs: undefined,
    };
    const client = createProviderClient({
      provider: 'providerX',
      baseUrl: BASE,
      readEnvelope,
      errors: {},
      transport: config,
    });
    nock(BASE).get('/v1/things').reply(503, '');
    await expect(client.request(ok, read)).rejects.toBeInstanceOf(ProviderApiError);
    expect(fetched).toEqual([`${BASE}/v1/things`]);
    expect(seen).toEqual([`${BASE}/v1/things`]);
  });
});
