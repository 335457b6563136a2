import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHttpClient } from '../src/http/index.js';
import { NetworkError, PayError, ProviderApiError } from '../src/index.js';
import { CredentialSet, knownCredentials, redact, redactError } from '../src/redaction.js';

const SECRET = 'sk_live_DISTINCTIVE_0xC0FFEE';

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterAll(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

function everything(error: unknown): string {
  const parts: string[] = [];
  for (let current = error as { cause?: unknown } | undefined, depth = 0; current && depth < 5; depth++) {
    const e = current as Error;
    parts.push(String(e.message), String(e.stack), JSON.stringify(e));
    current = (current as { cause?: unknown }).cause as typeof current;
  }
  return parts.join('\n');
}

describe('secrets never leak', () => {
  it('redacts every occurrence of a secret', () => {
    expect(redact(`secret=${SECRET}&again=${SECRET}`, [SECRET])).toBe('secret=[REDACTED]&again=[REDACTED]');
  });

  it('redacts a secret in its URL-encoded, form-encoded and JSON-escaped spellings too', () => {
    const secret = 'p@ss wörd/"quoted"+&=';
    const body = [
      encodeURIComponent(secret),
      new URLSearchParams({ secret }).toString(),
      JSON.stringify({ secret }),
    ].join('\n');
    expect(redact(body, [secret])).toBe(
      ['[REDACTED]', 'secret=[REDACTED]', '{"secret":"[REDACTED]"}'].join('\n'),
    );
  });

  it('keeps a secret echoed by an upstream error reply out of the error built from it', async () => {
    nock('https://api.provider.example')
      .post('/v2.0/payment')
      .reply(400, `{"code":1400,"message":"bad secret ${SECRET}"}`);
    const http = createHttpClient({
      provider: 'providerR',
      baseUrl: 'https://api.provider.example',
      secrets: [SECRET],
    });
    const reply = await http.send({
      method: 'POST',
      path: '/v2.0/payment',
      json: { secret: SECRET },
      retrySafe: false,
    });
    const error = new ProviderApiError({
      provider: 'providerR',
      status: reply.status,
      providerCode: '1400',
      providerMessage: redact(JSON.parse(reply.text).message, [SECRET]),
      requestId: reply.requestId,
    });
    expect(everything(error)).not.toContain(SECRET);
    expect(error.providerMessage).toBe('bad secret [REDACTED]');
  });

  it('keeps secrets in a path out of a network error', async () => {
    nock('https://api.provider.example')
      .get(`/x/${SECRET}`)
      .replyWithError({ code: 'ECONNRESET', message: 'reset' });
    const http = createHttpClient({
      provider: 'providerR',
      baseUrl: 'https://api.provider.example',
      secrets: [SECRET],
      retry: 0,
    });
    const error = await http
      .send({ method: 'GET', path: `/x/${SECRET}`, retrySafe: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(String((error as Error).message)).not.toContain(SECRET);
    expect(JSON.stringify(error)).not.toContain(SECRET);
  });
});

describe('redaction of credentials of any length (docs/architecture.md#redaction)', () => {
  it('redacts a secret shorter than 4 characters where it stands as a word, without breaking other words', () => {
    expect(redact('secret=k9&note=k9x kk9 "k9" user:k9', ['k9'])).toBe(
      'secret=[REDACTED]&note=k9x kk9 "[REDACTED]" user:[REDACTED]',
    );
    expect(redact('a=1', ['1'])).toBe('a=[REDACTED]');
  });

  it('redacts the base64 spelling of a secret and removes a longer secret whole before a shorter one', () => {
    expect(redact(`x ${btoa('sk_live_ABCDEF')} y`, ['sk_live_ABCDEF'])).toBe('x [REDACTED] y');
    expect(redact('user:sk_live_ABCDEF', ['sk_live', 'user:sk_live_ABCDEF'])).toBe('[REDACTED]');
  });

  it('derives every spelling of a Basic credential the client sent: header, base64 part, user:secret and each half', () => {
    const set = new CredentialSet(['configured-secret']);
    set.addAuthorization(`Basic ${btoa('merchant-9:p@ss')}`);
    set.addAuthorization('Bearer tok-1');
    expect(set.values()).toEqual(
      expect.arrayContaining([
        'configured-secret',
        `Basic ${btoa('merchant-9:p@ss')}`,
        btoa('merchant-9:p@ss'),
        'merchant-9:p@ss',
        'merchant-9',
        'p@ss',
        'Bearer tok-1',
        'tok-1',
      ]),
    );
  });

  it('remembers every part of a header sent again, even one the set dropped since', () => {
    const set = new CredentialSet();
    const header = `Basic ${btoa('merchant-7:pa55')}`;
    set.addAuthorization(header);
    // 256 later values push every part of the header out of the set (it keeps the 256 most recent).
    for (let index = 0; index < 256; index++) set.add(`later-${index}`);
    set.addAuthorization(header);
    expect(set.values()).toEqual(expect.arrayContaining([header, 'merchant-7:pa55', 'merchant-7', 'pa55']));
  });

  it('removes secrets from every field of an error: message, stack, provider fields, context, cause chain, JSON', () => {
    const secret = 'tok-SECRET-777';
    const root = new Error(`socket said ${secret}`);
    const error = new ProviderApiError(
      {
        provider: 'providerN',
        status: 400,
        providerCode: `C-${secret}`,
        providerMessage: `bad ${secret}`,
        requestId: secret,
      },
      {
        cause: new PayError(`wrapped ${secret}`, { cause: root }),
        context: { sent: { token: secret }, list: [secret] },
      },
    );
    const context = error.context;
    redactError(error, [secret]);
    expect(everything(error)).not.toContain(secret);
    expect(JSON.stringify(error.toJSON())).not.toContain(secret);
    expect(error).toMatchObject({
      providerCode: 'C-[REDACTED]',
      providerMessage: 'bad [REDACTED]',
      context: { sent: { token: '[REDACTED]' }, list: ['[REDACTED]'] },
    });
    expect(root.message).toBe('socket said [REDACTED]');
    // The caller's own objects inside the context are replaced, never changed.
    expect(context).toEqual({ sent: { token: secret }, list: [secret] });
  });
});

describe('a runtime without WeakRef (Cloudflare Workers before compatibility date 2025-05-05)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('builds a credential set, and an error is still redacted with its secret', () => {
    vi.stubGlobal('WeakRef', undefined);
    const secret = 'sk_live_NO_WEAKREF_4711';
    const set = new CredentialSet([secret]);
    set.addAuthorization('Bearer tok-no-weakref-4711');
    const error = redactError(new Error(`upstream echoed ${secret} and tok-no-weakref-4711`));
    expect(error.message).toBe('upstream echoed [REDACTED] and [REDACTED]');
  });

  it('holds only the most recent 64 sets, so an adapter built per request does not grow without bound', () => {
    vi.stubGlobal('WeakRef', undefined);
    const secrets = Array.from({ length: 200 }, (_, index) => `sk_per_request_${index}_0xBEEF`);
    for (const secret of secrets) new CredentialSet([secret]);
    const known = knownCredentials();
    expect(secrets.filter((secret) => known.includes(secret))).toEqual(secrets.slice(-64));
  });
});

describe('references to collected credential sets', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('are dropped as sets are built, so a client built per request that never fails holds no growing list', () => {
    knownCredentials(); // drops what earlier tests left
    let checked = 0;
    // Every set is collected at once (its reference answers nothing), as when each request's client is dropped.
    class CollectedRef {
      deref() {
        checked += 1;
        return undefined;
      }
    }
    vi.stubGlobal('WeakRef', CollectedRef);
    for (let index = 0; index < 10_000; index++) new CredentialSet([`sk_request_${index}`]);
    checked = 0;
    knownCredentials();
    expect(checked).toBeLessThan(512);
  });
});
