import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, NetworkError, ProviderApiError, redact } from '../src/index.js';

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
