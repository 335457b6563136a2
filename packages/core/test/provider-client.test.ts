import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HttpRequestInfo, parseForm, parseJson } from '../src/adapter-toolkit.js';
import {
  ANY_PROVIDER_CODE,
  CREDENTIALS_HINT,
  createProviderClient,
  type EnvelopeReading,
  type ProviderClientOptions,
  type ProviderErrorTable,
} from '../src/http/index.js';
import { InvalidResponseError, NetworkError, ProviderApiError } from '../src/index.js';
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

/** Provider N's envelope: success only when `requestSuccessful` and `responseCode` "0", whatever the status. */
function readNEnvelope(reply: { status: number; text: string }): EnvelopeReading {
  const json = parseJson(reply.text) as
    | { requestSuccessful?: boolean; responseCode?: string; responseMessage?: string; responseBody?: unknown }
    | undefined;
  if (json === undefined || typeof json !== 'object') return { ok: false };
  if (json.requestSuccessful && (json.responseCode ?? '0') === '0')
    return { ok: true, body: json.responseBody };
  return { ok: false, code: json.responseCode, message: json.responseMessage };
}

/** Provider T's error envelope: 2xx is success; errors carry code, message and offending fields. */
function readTEnvelope(reply: { status: number; text: string }): EnvelopeReading {
  const json = parseJson(reply.text);
  if (reply.status >= 200 && reply.status < 300) return { ok: true, body: json };
  const first = (
    json as { errors?: { code?: string; message?: string; offendingFields?: { field: string }[] }[] }
  )?.errors?.[0];
  return {
    ok: false,
    code: first?.code,
    message: first?.message,
    details: first?.offendingFields
      ? { offendingFields: first.offendingFields.map((f) => f.field) }
      : undefined,
  };
}

/** Provider R: JSON or form-encoded replies, `code == 0` is success; an error page has no envelope. */
function readREnvelope(reply: { status: number; headers: Headers; text: string }): EnvelopeReading {
  const form = (reply.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded');
  const body = (form ? parseForm(reply.text) : parseJson(reply.text)) as Record<string, unknown> | undefined;
  if (body === undefined || typeof body !== 'object' || !('code' in body)) {
    if (reply.status >= 400) return { ok: false };
    throw new InvalidResponseError('providerR answered with a body that carries no `code`');
  }
  if (String(body.code) === '0') return { ok: true, body };
  return { ok: false, code: String(body.code), message: body.message as string | undefined };
}

const N_ERRORS: ProviderErrorTable = {
  R3: { kind: 'invalid_request', advice: 'the amount is below the minimum for this contract.' },
  '99': { kind: 'provider_unavailable', retryable: true },
  D1: { kind: 'declined' },
  TXN404: { kind: 'not_found', notFound: true },
};

function client(extra: Partial<ProviderClientOptions> = {}) {
  return createProviderClient({
    provider: 'providerN',
    baseUrl: BASE,
    backoffBaseMs: 1,
    requestIdHeader: 'X-Request-Id',
    readEnvelope: readNEnvelope,
    errors: N_ERRORS,
    secrets: ['sk_live_secret'],
    ...extra,
  });
}

const transactionSchema = v.looseObject({ transactionReference: v.string(), amountPaid: v.number() });

describe('the provider client', () => {
  it('returns the envelope body of a successful call, read with the schema', async () => {
    nock(BASE)
      .get('/v1/transactions/MNFY-1')
      .reply(200, {
        requestSuccessful: true,
        responseCode: '0',
        responseBody: { transactionReference: 'MNFY-1', amountPaid: 250.5 },
      });
    const body = await client().request(transactionSchema, {
      call: 'get-transaction',
      method: 'GET',
      path: '/v1/transactions/MNFY-1',
      retrySafe: true,
    });
    expect(body).toEqual({ transactionReference: 'MNFY-1', amountPaid: 250.5 });
  });

  it('takes kind, retryable and advice from the error table when it lists the provider code', async () => {
    nock(BASE)
      .post('/v1/merchant/transactions/init-transaction')
      .reply(200, { requestSuccessful: false, responseCode: 'R3', responseMessage: 'Amount too small' });
    const error = await client()
      .request(v.unknown(), {
        call: 'init-transaction',
        method: 'POST',
        path: '/v1/merchant/transactions/init-transaction',
        json: { amount: 1 },
        retrySafe: false,
        requestId: 'req-1',
        context: { paymentReference: 'order-1' },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderApiError);
    expect(error).toMatchObject({
      provider: 'providerN',
      status: 200,
      providerCode: 'R3',
      providerMessage: 'Amount too small',
      requestId: 'req-1',
      kind: 'invalid_request',
      retryable: false,
      context: { paymentReference: 'order-1' },
      message: 'providerN answered HTTP 200 (code R3): the amount is below the minimum for this contract.',
    });
    expect((error as ProviderApiError).outcome).toBeUndefined();
  });

  it('marks a refusal the table calls declined or retryable, whatever the HTTP status says', async () => {
    nock(BASE)
      .post('/v1/charge')
      .reply(400, { requestSuccessful: false, responseCode: 'D1', responseMessage: 'Card declined' })
      .post('/v1/charge')
      .reply(400, { requestSuccessful: false, responseCode: '99', responseMessage: 'Try later' });
    const call = { call: 'charge', method: 'POST', path: '/v1/charge', json: {}, retrySafe: false } as const;
    const declined = await client().send(call);
    const busy = await client().send(call);
    expect(declined).toMatchObject({ ok: false, code: 'D1', rule: { kind: 'declined' } });
    expect(declined.ok || [declined.error.kind, declined.error.retryable]).toEqual(['declined', false]);
    expect(busy.ok || [busy.error.kind, busy.error.retryable, busy.error.status]).toEqual([
      'provider_unavailable',
      true,
      400,
    ]);
  });

  it.each([
    [401, 'authentication', false],
    [403, 'authentication', false],
    [404, 'not_found', false],
    [409, 'conflict', false],
    [422, 'invalid_request', false],
    [400, 'invalid_request', false],
    [429, 'rate_limited', true],
    [500, 'provider_unavailable', true],
    [503, 'provider_unavailable', true],
  ] as const)(
    'takes the kind from HTTP %i when the table does not list the code',
    async (status, kind, retryable) => {
      nock(BASE)
        .post('/v1/refunds')
        .reply(status, { requestSuccessful: false, responseCode: 'UNLISTED', responseMessage: 'no' });
      const outcome = await client().send({
        call: 'refund',
        method: 'POST',
        path: '/v1/refunds',
        json: {},
        retrySafe: false,
      });
      expect(outcome.ok).toBe(false);
      if (outcome.ok) return;
      expect(outcome.rule).toBeUndefined();
      expect(outcome.error).toBeInstanceOf(ProviderApiError);
      expect([outcome.error.status, outcome.error.kind, outcome.error.retryable]).toEqual([
        status,
        kind,
        retryable,
      ]);
    },
  );

  it('reads the table with own-property checks: a provider code "constructor" is no rule', async () => {
    nock(BASE)
      .post('/v1/charge')
      .reply(400, { requestSuccessful: false, responseCode: 'constructor', responseMessage: 'odd' });
    const outcome = await client().send({
      call: 'charge',
      method: 'POST',
      path: '/v1/charge',
      json: {},
      retrySafe: false,
    });
    expect(outcome).toMatchObject({ ok: false, code: 'constructor', rule: undefined });
    expect(outcome.ok || outcome.error.kind).toBe('invalid_request');
  });

  it('tells rules of one provider code apart by their message (Provider R 1400 "Payment not found")', async () => {
    const errors: ProviderErrorTable = {
      '1104': { kind: 'not_found', notFound: true },
      '1400': [
        { kind: 'not_found', notFound: true, message: /payment not found/i },
        { kind: 'invalid_request' },
      ],
      '1200': { kind: 'provider_unavailable', retryable: true },
    };
    const r = client({ provider: 'providerR', readEnvelope: readREnvelope, errors });
    nock(BASE)
      .post('/v1.0/status')
      .reply(200, 'code=1400&message=Payment+not+found', {
        'content-type': 'application/x-www-form-urlencoded',
      })
      .post('/v1.0/status')
      .reply(200, 'code=1400&message=Bad+request', { 'content-type': 'application/x-www-form-urlencoded' });
    const call = {
      call: 'POST /v1.0/status',
      method: 'POST',
      path: '/v1.0/status',
      form: { transId: 'X' },
      retrySafe: true,
    } as const;
    await expect(r.find(v.unknown(), call)).resolves.toBeNull();
    const error = await r.find(v.unknown(), call).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderApiError);
    expect(error).toMatchObject({
      providerCode: '1400',
      providerMessage: 'Bad request',
      kind: 'invalid_request',
    });
  });

  it('reads a form-encoded success reply (Provider R v1.0) through the adapter reader', async () => {
    nock(BASE)
      .post('/v1.0/status', 'merchant=m1&transId=ABC-123')
      .reply(200, 'code=0&message=OK&transId=ABC-123&status=PAID', {
        'content-type': 'application/x-www-form-urlencoded',
      });
    const r = client({ provider: 'providerR', readEnvelope: readREnvelope, errors: {} });
    const body = await r.request(v.looseObject({ transId: v.string(), status: v.string() }), {
      call: 'POST /v1.0/status',
      method: 'POST',
      path: '/v1.0/status',
      form: { merchant: 'm1', transId: 'ABC-123' },
      retrySafe: true,
    });
    expect(body).toEqual({ code: '0', message: 'OK', transId: 'ABC-123', status: 'PAID' });
  });

  it('turns an error page without an envelope (a proxy 502) into a ProviderApiError from the status', async () => {
    nock(BASE).post('/v2.0/payment').reply(502, '<html><body>Bad gateway</body></html>', {
      'content-type': 'text/html',
    });
    const r = client({ provider: 'providerR', readEnvelope: readREnvelope, errors: {} });
    const error = await r
      .request(v.unknown(), {
        call: 'POST /v2.0/payment',
        method: 'POST',
        path: '/v2.0/payment',
        json: {},
        retrySafe: false,
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderApiError);
    expect(error).toMatchObject({
      provider: 'providerR',
      status: 502,
      providerCode: undefined,
      kind: 'provider_unavailable',
      retryable: true,
    });
  });

  it("lets the reader's InvalidResponseError through for a 2xx that is not the envelope", async () => {
    nock(BASE).post('/v2.0/payment').reply(200, '<html>maintenance</html>', { 'content-type': 'text/html' });
    const r = client({ provider: 'providerR', readEnvelope: readREnvelope, errors: {} });
    await expect(
      r.send({
        call: 'POST /v2.0/payment',
        method: 'POST',
        path: '/v2.0/payment',
        json: {},
        retrySafe: false,
      }),
    ).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it("copies Provider T's offending fields into the error context, and redacts secrets from the provider's words", async () => {
    nock(BASE)
      .post('/transfer/v1/transactions')
      .reply(400, {
        errors: [
          {
            code: '9104',
            message: 'Sender incomplete (key sk_live_secret)',
            offendingFields: [{ field: 'sender.name.lastName' }],
          },
        ],
      });
    const t = client({ provider: 'providerT', readEnvelope: readTEnvelope, errors: {} });
    const error = await t
      .request(v.unknown(), {
        call: 'POST /transfer/v1/transactions',
        method: 'POST',
        path: '/transfer/v1/transactions',
        json: {},
        retrySafe: false,
        context: { step: 'create' },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderApiError);
    expect(error).toMatchObject({
      status: 400,
      providerCode: '9104',
      providerMessage: 'Sender incomplete (key [REDACTED])',
      kind: 'invalid_request',
      context: { step: 'create', offendingFields: ['sender.name.lastName'] },
    });
    expect(JSON.stringify(error)).not.toContain('sk_live_secret');
  });

  it('send resolves a refusal as { ok: false } and throws only for transport failures', async () => {
    nock(BASE).get('/v1/a').reply(400, { requestSuccessful: false, responseCode: 'R3' });
    nock(BASE).get('/v1/b').replyWithError({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' });
    const c = client({ retry: 0 });
    await expect(c.send({ call: 'a', method: 'GET', path: '/v1/a', retrySafe: true })).resolves.toMatchObject(
      {
        ok: false,
        code: 'R3',
      },
    );
    const failure = await c
      .send({ call: 'b', method: 'GET', path: '/v1/b', retrySafe: true })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(NetworkError);
  });

  describe('find', () => {
    const call = {
      call: 'get-transaction',
      method: 'GET',
      path: '/v1/transactions/MNFY-9',
      retrySafe: true,
    } as const;

    it('resolves to null when the rule says notFound', async () => {
      nock(BASE).get('/v1/transactions/MNFY-9').reply(400, {
        requestSuccessful: false,
        responseCode: 'TXN404',
        responseMessage: 'No such transaction',
      });
      await expect(client().find(v.unknown(), call)).resolves.toBeNull();
    });

    it('throws a 404 no rule calls notFound (a proxy\'s HTML error page is not "the payment does not exist")', async () => {
      nock(BASE).get('/v1/transactions/MNFY-9').reply(404, '<html><body>Not Found</body></html>', {
        'content-type': 'text/html',
      });
      const error = await client()
        .find(v.unknown(), call)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderApiError);
      expect(error).toMatchObject({
        status: 404,
        providerCode: undefined,
        kind: 'not_found',
        retryable: false,
      });
    });

    it('throws a refusal whose rule says notFound when the status is 5xx (a gateway failure proves no absence)', async () => {
      nock(BASE).get('/v1/transactions/MNFY-9').reply(503, {
        requestSuccessful: false,
        responseCode: 'TXN404',
        responseMessage: 'No such transaction',
      });
      const error = await client({ retry: 0 })
        .find(v.unknown(), call)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderApiError);
      expect(error).toMatchObject({ status: 503, providerCode: 'TXN404' });
    });

    it('applies a rule that names a status only to that status (Provider N: 404 + catch-all 99 is not found)', async () => {
      const errors: ProviderErrorTable = {
        '99': [{ status: 404, kind: 'not_found', notFound: true }],
      };
      const refusal = { requestSuccessful: false, responseCode: '99', responseMessage: 'Unexpected' };
      nock(BASE)
        .get('/v1/transactions/MNFY-9')
        .reply(404, refusal)
        .get('/v1/transactions/MNFY-9')
        .reply(400, refusal);
      await expect(client({ errors }).find(v.unknown(), call)).resolves.toBeNull();
      const error = await client({ errors })
        .find(v.unknown(), call)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderApiError);
      expect(error).toMatchObject({ status: 400, providerCode: '99', kind: 'invalid_request' });
    });

    it('applies ANY_PROVIDER_CODE rules to any code no rule of its own matched, never to a reply without a code', async () => {
      const errors: ProviderErrorTable = {
        R3: { kind: 'invalid_request' },
        [ANY_PROVIDER_CODE]: [{ status: 404, kind: 'not_found', notFound: true }],
      };
      nock(BASE)
        .get('/v1/transactions/MNFY-9')
        .reply(404, { requestSuccessful: false, responseCode: 'TRANSACTION_NOT_FOUND' })
        .get('/v1/transactions/MNFY-9')
        .reply(404, { requestSuccessful: false, responseCode: 'R3' })
        .get('/v1/transactions/MNFY-9')
        .reply(404, 'Not Found');
      await expect(client({ errors }).find(v.unknown(), call)).resolves.toBeNull();
      await expect(client({ errors }).find(v.unknown(), call)).rejects.toMatchObject({
        status: 404,
        providerCode: 'R3',
        kind: 'invalid_request',
      });
      await expect(client({ errors }).find(v.unknown(), call)).rejects.toMatchObject({
        status: 404,
        providerCode: undefined,
      });
    });

    it('findReplied returns the parsed and raw body, the reply and the request id sent with the call', async () => {
      let sent: string | undefined;
      nock(BASE)
        .get('/v1/transactions/MNFY-9')
        .reply(function () {
          sent = String(this.req.headers['x-request-id']);
          return [
            200,
            {
              requestSuccessful: true,
              responseCode: '0',
              responseBody: { transactionReference: 'MNFY-9', amountPaid: 0, extra: 'kept' },
            },
          ];
        });
      const found = await client().findReplied(v.object({ transactionReference: v.string() }), call);
      expect(sent).toMatch(/^[0-9a-f-]{36}$/);
      expect(found).toMatchObject({
        body: { transactionReference: 'MNFY-9' },
        raw: { transactionReference: 'MNFY-9', amountPaid: 0, extra: 'kept' },
        reply: { status: 200, requestId: sent },
        requestId: sent,
      });
    });

    it("findReplied's request id is the provider's own when providerRequestIdHeader names a header the reply carries", async () => {
      const body = { requestSuccessful: true, responseCode: '0', responseBody: {} };
      nock(BASE)
        .get('/v1/transactions/MNFY-9')
        .reply(200, body, { 'x-provider-request-id': 'prov-77' })
        .get('/v1/transactions/MNFY-9')
        .reply(200, body);
      const withHeader = client({ providerRequestIdHeader: 'X-Provider-Request-Id' });
      expect((await withHeader.findReplied(v.unknown(), { ...call, requestId: 'ours-1' }))?.requestId).toBe(
        'prov-77',
      );
      expect((await withHeader.findReplied(v.unknown(), { ...call, requestId: 'ours-2' }))?.requestId).toBe(
        'ours-2',
      );
    });

    it('throws a 404 whose rule is not notFound (the route, not the resource, is missing)', async () => {
      nock(BASE)
        .get('/v1/transactions/MNFY-9')
        .reply(404, { requestSuccessful: false, responseCode: 'R3', responseMessage: 'wrong' });
      const error = await client()
        .find(v.unknown(), call)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderApiError);
      expect(error).toMatchObject({ status: 404, providerCode: 'R3', kind: 'invalid_request' });
    });

    it('throws any other refusal, and returns the parsed body on success', async () => {
      nock(BASE)
        .get('/v1/transactions/MNFY-9')
        .reply(403, { requestSuccessful: false, responseCode: 'X', responseMessage: 'forbidden' })
        .get('/v1/transactions/MNFY-9')
        .reply(200, {
          requestSuccessful: true,
          responseCode: '0',
          responseBody: { transactionReference: 'MNFY-9', amountPaid: 0 },
        });
      await expect(client().find(v.unknown(), call)).rejects.toMatchObject({
        status: 403,
        kind: 'authentication',
      });
      await expect(client().find(transactionSchema, call)).resolves.toEqual({
        transactionReference: 'MNFY-9',
        amountPaid: 0,
      });
    });
  });

  describe('a money-moving call refused after an earlier attempt may have reached the provider', () => {
    it("throws with outcome 'unknown', not retryable, and the reconcile advice", async () => {
      // A capture is retry-safe (the provider refuses a second capture) but moves money: the first attempt
      // got a 503, so the 409 to the retry proves nothing about the first.
      nock(BASE)
        .put('/v2.0/preauth/transId/T1.json')
        .reply(503, { requestSuccessful: false, responseCode: '99' })
        .put('/v2.0/preauth/transId/T1.json')
        .reply(409, {
          requestSuccessful: false,
          responseCode: 'ALREADY',
          responseMessage: 'already captured',
        });
      const error = await client()
        .request(v.unknown(), {
          call: 'capture',
          method: 'PUT',
          path: '/v2.0/preauth/transId/T1.json',
          json: {},
          retrySafe: true,
          movesMoney: true,
          context: { transId: 'T1' },
        })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderApiError);
      expect(error).toMatchObject({
        status: 409,
        providerCode: 'ALREADY',
        kind: 'conflict',
        outcome: 'unknown',
        retryable: false,
        context: { transId: 'T1' },
      });
      expect((error as Error).message).toContain(
        'providerN refused capture (HTTP 409, code ALREADY) after an earlier attempt of it may have reached the provider',
      );
      expect((error as Error).message).toMatch(/reconcile|look .* up/i);
    });

    it('leaves the refusal as it is for a read, and for a first attempt', async () => {
      nock(BASE)
        .get('/v1/transactions/T2')
        .reply(503, {})
        .get('/v1/transactions/T2')
        .reply(409, { requestSuccessful: false, responseCode: 'ALREADY' })
        .put('/v2.0/preauth/transId/T3.json')
        .reply(409, { requestSuccessful: false, responseCode: 'ALREADY' });
      const read = await client()
        .request(v.unknown(), { call: 'get', method: 'GET', path: '/v1/transactions/T2', retrySafe: true })
        .catch((caught: unknown) => caught);
      const firstAttempt = await client()
        .request(v.unknown(), {
          call: 'capture',
          method: 'PUT',
          path: '/v2.0/preauth/transId/T3.json',
          json: {},
          retrySafe: true,
          movesMoney: true,
        })
        .catch((caught: unknown) => caught);
      for (const error of [read, firstAttempt]) {
        expect(error).toBeInstanceOf(ProviderApiError);
        expect((error as ProviderApiError).outcome).toBeUndefined();
        expect((error as ProviderApiError).kind).toBe('conflict');
      }
    });

    it('send reports the earlier attempt on the reply, so an adapter can reconcile itself', async () => {
      nock(BASE)
        .put('/v2.0/preauth/transId/T4.json')
        .replyWithError({ code: 'ECONNRESET', message: 'socket hang up' })
        .put('/v2.0/preauth/transId/T4.json')
        .reply(400, { requestSuccessful: false, responseCode: 'R3' });
      const outcome = await client().send({
        call: 'capture',
        method: 'PUT',
        path: '/v2.0/preauth/transId/T4.json',
        json: {},
        retrySafe: true,
        movesMoney: true,
      });
      expect(outcome).toMatchObject({
        ok: false,
        reply: { status: 400, earlierAttemptMayHaveReached: true },
      });
    });
  });

  describe('credentials refused for good', () => {
    it("a 401 after the one re-login is kind 'authentication' and names the adapter's credential variables", async () => {
      const seen: string[] = [];
      const rejected: string[] = [];
      let token = 0;
      nock(BASE)
        .get('/v1/transactions/T5')
        .times(2)
        .reply(function () {
          seen.push(String(this.req.headers.authorization));
          return [401, { requestSuccessful: false, responseCode: '401', responseMessage: 'Unauthorized' }];
        });
      const error = await client({
        credentialsHint: 'Check PROVIDER_N_API_KEY and PROVIDER_N_SECRET_KEY.',
        authorization: {
          header: async () => `Bearer token-${++token}`,
          rejected: (value) => rejected.push(value),
        },
      })
        .request(v.unknown(), {
          call: 'get-transaction',
          method: 'GET',
          path: '/v1/transactions/T5',
          retrySafe: true,
        })
        .catch((caught: unknown) => caught);
      expect(seen).toEqual(['Bearer token-1', 'Bearer token-2']);
      expect(rejected).toEqual(['Bearer token-1']);
      expect(error).toBeInstanceOf(ProviderApiError);
      expect(error).toMatchObject({ status: 401, kind: 'authentication', retryable: false });
      expect((error as Error).message).toContain(CREDENTIALS_HINT);
      expect((error as Error).message).toMatch(
        /CREDENTIALS_HINT|Check PROVIDER_N_API_KEY and PROVIDER_N_SECRET_KEY\.$/,
      );
      expect((error as Error).message).not.toContain('token-');
    });

    it('a refused login (403 to an unauthorised call) carries the hint once, with the table advice kept', async () => {
      nock(BASE)
        .post('/v1/auth/login')
        .reply(403, { requestSuccessful: false, responseCode: 'AUTH', responseMessage: 'bad key' });
      const error = await client({
        credentialsHint: 'Check PROVIDER_N_API_KEY.',
        errors: { AUTH: { kind: 'authentication', advice: 'the login was refused.' } },
      })
        .request(v.unknown(), {
          call: 'login',
          method: 'POST',
          path: '/v1/auth/login',
          authorize: false,
          retrySafe: true,
        })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderApiError);
      expect((error as Error).message).toBe(
        `providerN answered HTTP 403 (code AUTH): the login was refused. ${CREDENTIALS_HINT} Check PROVIDER_N_API_KEY.`,
      );
      expect(error).toMatchObject({ kind: 'authentication', providerCode: 'AUTH' });
    });

    it('a 403 to an authorised call (a permission, not the credentials) gets no credentials hint', async () => {
      nock(BASE).get('/v1/x').reply(403, { requestSuccessful: false, responseCode: 'PERM' });
      const outcome = await client({ authorization: { header: async () => 'Bearer t' } }).send({
        call: 'x',
        method: 'GET',
        path: '/v1/x',
        retrySafe: true,
      });
      expect(outcome.ok || outcome.error.kind).toBe('authentication');
      expect(outcome.ok || outcome.error.message).not.toContain(CREDENTIALS_HINT);
    });
  });
});

const readPlainEnvelope = (reply: { status: number; text: string }) =>
  reply.status < 400 ? { ok: true as const, body: JSON.parse(reply.text) } : { ok: false as const };
const ok = v.object({ ok: v.boolean() });
const read = { call: 'read', method: 'GET', path: '/v1/things', retrySafe: true } as const;

describe('declared authorisation of the provider client (docs/architecture.md#provider-client-auth)', () => {
  it('sends HTTP Basic user:password on every call, redacted from what hooks see', async () => {
    const seen: HttpRequestInfo[] = [];
    const client = createProviderClient({
      provider: 'providerX',
      baseUrl: BASE,
      readEnvelope: readPlainEnvelope,
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
      readEnvelope: readPlainEnvelope,
      errors: {},
      auth: { bearer: 'sk_live_123' },
    });
    nock(BASE).get('/v1/things').matchHeader('authorization', 'Bearer sk_live_123').reply(200, { ok: true });
    expect(await bearer.request(ok, read)).toEqual({ ok: true });

    const keyed = createProviderClient({
      provider: 'providerX',
      baseUrl: BASE,
      readEnvelope: readPlainEnvelope,
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
      readEnvelope: readPlainEnvelope,
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
      readEnvelope: readPlainEnvelope,
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
      readEnvelope: readPlainEnvelope,
      errors: {},
      transport: config,
    });
    nock(BASE).get('/v1/things').reply(503, '');
    await expect(client.request(ok, read)).rejects.toBeInstanceOf(ProviderApiError);
    expect(fetched).toEqual([`${BASE}/v1/things`]);
    expect(seen).toEqual([`${BASE}/v1/things`]);
  });
});

describe('a declared token login whose credentials rotate (docs/architecture.md#provider-client-auth)', () => {
  type Credentials = { id: string; secret: string };
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const loginClient = (hooks?: { onRequest: (request: HttpRequestInfo) => void }) =>
    createProviderClient<Credentials>({
      provider: 'providerX',
      baseUrl: BASE,
      readEnvelope: readPlainEnvelope,
      errors: {},
      ...(hooks ? { hooks } : {}),
      login: {
        credentials: { id: 'id-1', secret: 'secret-1' },
        login: async ({ id, secret }, client) => {
          const token = await client.request(v.object({ token: v.string() }), {
            call: 'login',
            method: 'POST',
            path: '/v1/login',
            retrySafe: true,
            credentialsInReply: true,
            auth: { basic: [id, secret] },
          });
          return { accessToken: token.token, expiresInSeconds: 3600 };
        },
        cacheKey: ({ id, secret }) => ({ provider: 'providerX', clientId: id, secret }),
        check: (credentials) => {
          if (!credentials.secret) throw new TypeError('`secret` must not be empty');
          return credentials;
        },
        secrets: ({ secret }) => [secret],
      },
    });

  it('logs in with the Basic credentials, then sends the token; a checked new set logs in again', async () => {
    const seen: HttpRequestInfo[] = [];
    const client = loginClient({ onRequest: (request) => void seen.push(request) });
    const scope = nock(BASE)
      .post('/v1/login')
      .matchHeader('authorization', basic('id-1', 'secret-1'))
      .reply(200, { token: 'token-1' })
      .get('/v1/things')
      .matchHeader('authorization', 'Bearer token-1')
      .reply(200, { ok: true })
      .post('/v1/login')
      .matchHeader('authorization', basic('id-2', 'secret-2'))
      .reply(200, { token: 'token-2' })
      .get('/v1/things')
      .matchHeader('authorization', 'Bearer token-2')
      .reply(200, { ok: true });
    await client.request(ok, read);
    expect(() => client.updateCredentials({ id: 'id-2', secret: '' })).toThrow('`secret` must not be empty');
    client.updateCredentials({ id: 'id-2', secret: 'secret-2' });
    await client.request(ok, read);
    scope.done();
    const shown = JSON.stringify(seen);
    for (const secret of ['secret-1', 'secret-2', 'token-1', 'token-2']) expect(shown).not.toContain(secret);
  });

  it('refuses updateCredentials on a client that declares no login', () => {
    const client = createProviderClient({
      provider: 'providerX',
      baseUrl: BASE,
      readEnvelope: readPlainEnvelope,
      errors: {},
    });
    expect(() => client.updateCredentials(undefined as never)).toThrow(TypeError);
  });
});
