import dc from 'node:diagnostics_channel';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PAY_CHANNELS } from '../src/diagnostics/channels.js';
import {
  ConfigurationError,
  createPay,
  type NodeRequestLike,
  type NodeResponseLike,
  replyFor,
  toFetchHandler,
  toNodeListener,
  WebhookVerificationError,
} from '../src/index.js';
import { type LoopbackServer, startLoopbackServer } from '../src/testing/index.js';
import { rawRequest } from './bridge-sockets.js';
import { createTestAdapter, signedDelivery, WEBHOOK_SECRET } from './fixtures.js';

function setup(options: Parameters<typeof createTestAdapter>[0] = {}) {
  const { adapter, counters } = createTestAdapter(options);
  const handler = createPay(adapter)
    .webhooks.setup({ webhookSecret: WEBHOOK_SECRET })
    .on('payment.updated', (event) => {
      if (event.data.id.startsWith('FAIL')) throw new Error('callback failed');
    });
  return { handler, counters };
}

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function post(url: string, body: string, headers: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', body, headers });
  return { status: response.status, body: await response.json() };
}

describe('the Node bridge, over real loopback HTTP', () => {
  it('answers 200 for a processed delivery', async () => {
    server = await startLoopbackServer(toNodeListener(setup().handler));
    const delivery = await signedDelivery('{"ref":"OK","items":1}');
    expect(await post(`${server.url}/webhooks`, delivery.body, delivery.headersAsObject)).toEqual({
      status: 200,
      body: { received: true, events: 2, duplicates: 0 },
    });
  });

  it('answers 400 for a forged delivery', async () => {
    server = await startLoopbackServer(toNodeListener(setup().handler));
    const reply = await post(`${server.url}/webhooks`, '{"ref":"X","items":1}', { 'x-signature': 'forged' });
    expect(reply).toEqual({
      status: 400,
      body: { error: 'webhook_verification_failed', message: 'bad signature' },
    });
  });

  it('answers 500 when a callback fails, so the provider delivers again', async () => {
    server = await startLoopbackServer(toNodeListener(setup().handler));
    const delivery = await signedDelivery('{"ref":"FAIL","items":1}');
    const reply = await post(server.url, delivery.body, delivery.headersAsObject);
    expect(reply.status).toBe(500);
    expect(reply.body.error).toBe('webhook_handler_failed');
  });

  it('answers 503 for a retryable verification failure', async () => {
    const { handler } = setup({
      upstreamRead: async () => {
        throw new WebhookVerificationError('status not final yet', {
          reason: 'unconfirmed_status',
          retryable: true,
        });
      },
    });
    server = await startLoopbackServer(toNodeListener(handler));
    const delivery = await signedDelivery('{"ref":"LATE","items":1}');
    expect((await post(server.url, delivery.body, delivery.headersAsObject)).status).toBe(503);
  });

  it('refuses a body over the size limit with 413 and closes the connection', async () => {
    server = await startLoopbackServer(toNodeListener(setup().handler, { maxBodyBytes: 16 }));
    const delivery = await signedDelivery('{"ref":"LONG-LONG-LONG","items":1}');
    const reply = await post(server.url, delivery.body, delivery.headersAsObject);
    expect(reply).toEqual({
      status: 413,
      body: { error: 'payload_too_large', message: 'The webhook body is larger than 16 bytes.' },
    });
  });

  it('cuts off an endless chunked body at maxBodyBytes with 413 instead of waiting for its end', async () => {
    const { handler, counters } = setup();
    server = await startLoopbackServer(toNodeListener(handler, { maxBodyBytes: 64 * 1024 }));
    const port = Number(new URL(server.url).port);
    const chunk = `400\r\n${'x'.repeat(1024)}\r\n`;
    const reply = await rawRequest(
      port,
      'POST /hooks HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n',
      { endless: chunk },
    );
    expect(reply.status).toBe(413);
    expect(reply.closed).toBe(true);
    expect(counters.fullUrls).toEqual([]);
  });

  it('builds the verified URL from publicOrigin and the target’s path and query only, whatever the target or Host say', async () => {
    const { handler, counters } = setup();
    server = await startLoopbackServer(toNodeListener(handler, { publicOrigin: 'https://shop.example' }));
    const port = Number(new URL(server.url).port);
    const body = '{"ref":"BIND","items":1}';
    const { headersAsObject } = await signedDelivery(body);
    const send = (target: string, host: string) =>
      rawRequest(
        port,
        `POST ${target} HTTP/1.1\r\nHost: ${host}\r\nx-signature: ${headersAsObject['x-signature']}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
    expect((await send('http://partner.example/hooks?x=1', 'partner.example')).status).toBe(200);
    expect((await send('http://a:99999/hooks', 'a:99999')).status).toBe(200);
    expect((await send('//partner.example/hooks', 'exa mple.com')).status).toBe(200);
    expect((await send('//[bad/hooks', 'shop.example:99999')).status).toBe(200);
    expect(counters.fullUrls).toEqual([
      'https://shop.example/hooks?x=1',
      'https://shop.example/hooks',
      'https://shop.example//partner.example/hooks',
      'https://shop.example//[bad/hooks',
    ]);
  });

  it('without publicOrigin, takes the origin from a valid Host header and answers 400 to an invalid one', async () => {
    const { handler, counters } = setup();
    server = await startLoopbackServer(toNodeListener(handler));
    const port = Number(new URL(server.url).port);
    const body = '{"ref":"HOST","items":1}';
    const { headersAsObject } = await signedDelivery(body);
    const send = (target: string, hostLine: string) =>
      rawRequest(
        port,
        `POST ${target} HTTP/1.1\r\n${hostLine}x-signature: ${headersAsObject['x-signature']}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
    expect((await send('/hooks', 'Host: shop.example:8443\r\n')).status).toBe(200);
    expect((await send('http://partner.example/hooks', 'Host: [::1]:8080\r\n')).status).toBe(200);
    for (const hostLine of [
      'Host: exa mple.com\r\n',
      'Host: shop.example:99999\r\n',
      'Host: user@shop.example\r\n',
    ]) {
      const reply = await send('/hooks', hostLine);
      expect(reply.status, hostLine).toBe(400);
      expect(reply.reply, hostLine).toContain('bad_request');
    }
    // No Host at all: Node's own HTTP/1.1 parser answers 400 before the listener runs.
    expect((await send('/hooks', '')).status).toBe(400);
    expect(counters.fullUrls).toEqual(['http://shop.example:8443/hooks', 'http://[::1]:8080/hooks']);
  });

  it('refuses an invalid publicOrigin or maxBodyBytes when the listener is made', () => {
    const { handler } = setup();
    expect(() => toNodeListener(handler, { publicOrigin: 'shop.example' })).toThrow(ConfigurationError);
    expect(() => toNodeListener(handler, { publicOrigin: 'ftp://shop.example' })).toThrow(ConfigurationError);
    expect(() => toNodeListener(handler, { maxBodyBytes: Number.NaN })).toThrow(ConfigurationError);
    expect(() => toFetchHandler(handler, { maxBodyBytes: -1 })).toThrow(ConfigurationError);
  });
});

describe('the Node listener’s error boundary', () => {
  function response() {
    const res: NodeResponseLike & { body?: string; headers: Record<string, string> } = {
      statusCode: 0,
      headers: {},
      setHeader(name, value) {
        res.headers[name] = value;
      },
      end(body) {
        res.body = body;
      },
    };
    return res;
  }

  function request(url: string, headers: NodeRequestLike['headers'], body: () => AsyncGenerator<string>) {
    const destroy = vi.fn();
    const req: NodeRequestLike = { url, headers, destroy, [Symbol.asyncIterator]: body };
    return { req, destroy };
  }

  it('resolves, without writing a reply, and closes the connection when the client aborts mid-body', async () => {
    const listener = toNodeListener(setup().handler);
    const res = response();
    const { req, destroy } = request('/hooks', { host: 'shop.example' }, async function* () {
      yield '{"ref":';
      throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    });
    await expect(listener(req, res)).resolves.toBeUndefined();
    expect(destroy).toHaveBeenCalledTimes(1);
    expect(res.body).toBeUndefined();
  });

  it('answers 400 to request targets that are not a path, before verifying, and never rejects', async () => {
    const { handler, counters } = setup();
    const listener = toNodeListener(handler, { publicOrigin: 'https://shop.example' });
    for (const target of ['*', 'shop.example:443', 'mailto:a@b', 'hooks']) {
      const res = response();
      const { req } = request(target, {}, async function* () {});
      await expect(listener(req, res)).resolves.toBeUndefined();
      expect([target, res.statusCode, JSON.parse(res.body ?? '{}').error]).toEqual([
        target,
        400,
        'bad_request',
      ]);
    }
    expect(counters.fullUrls).toEqual([]);
  });

  it.each([
    {
      framework: 'Express (req.app set: a global express.json() ran first)',
      extra: { app: () => undefined },
      fix: ['before any body parser', 'express.raw({ type: () => true, limit: 1024 * 1024 })'],
      notFix: 'Fastify',
    },
    {
      framework: 'another Node framework (Fastify’s JSON parser, on request.raw)',
      extra: {},
      fix: ["addContentTypeParser('*', (request, payload, done) => done(null))"],
      notFix: 'express',
    },
  ])(
    'answers 503 saying the body was already parsed, naming the fix for $framework',
    async ({ extra, fix, notFix }) => {
      const { handler, counters } = setup();
      const listener = toNodeListener(handler, { publicOrigin: 'https://shop.example' });
      const delivery = await signedDelivery('{"ref":"P1","items":1}');
      const res = response();
      // What a body parser leaves: the stream has ended (nothing left to read), Content-Length still announces a body.
      const { req } = request(
        '/hooks',
        { ...delivery.headersAsObject, 'content-length': String(delivery.body.length) },
        async function* () {},
      );
      Object.assign(req, { readableEnded: true, ...extra });
      await expect(listener(req, res)).resolves.toBeUndefined();
      expect(res.statusCode).toBe(503);
      const body = JSON.parse(res.body ?? '{}');
      expect(body.error).toBe('webhook_verification_failed');
      expect(body.message).toContain('already parsed');
      for (const text of fix) expect(body.message).toContain(text);
      expect(body.message).not.toContain(notFix);
      expect(counters.fullUrls).toEqual([]);
    },
  );

  it('answers 503 when a chunked body was consumed before the bridge, but 400 for a request with no body', async () => {
    const listener = toNodeListener(setup().handler, { publicOrigin: 'https://shop.example' });
    const chunked = response();
    const { req: consumed } = request('/hooks', { 'transfer-encoding': 'chunked' }, async function* () {});
    Object.assign(consumed, { readableEnded: true });
    await listener(consumed, chunked);
    expect(chunked.statusCode).toBe(503);
    // No body announced: nothing was lost, so it is verified (and refused) like any other request.
    for (const headers of [{ 'content-length': '0' }, {}]) {
      const empty = response();
      const { req } = request('/hooks', headers, async function* () {});
      await listener(req, empty);
      expect(empty.statusCode).toBe(400);
      expect(JSON.parse(empty.body ?? '{}').error).toBe('webhook_verification_failed');
    }
  });

  it('answers 500 when reading the headers throws, and never rejects', async () => {
    const listener = toNodeListener(setup().handler, { publicOrigin: 'https://shop.example' });
    const res = response();
    const req = {
      url: '/hooks',
      get headers(): never {
        throw new Error('exploding proxy object');
      },
      async *[Symbol.asyncIterator]() {},
    } as unknown as NodeRequestLike;
    await expect(listener(req, res)).resolves.toBeUndefined();
    expect(res.statusCode).toBe(500);
  });
});

describe('the Web Request → Response bridge', () => {
  it('maps outcomes to 200 and 400', async () => {
    const fetchHandler = toFetchHandler(setup().handler);
    const delivery = await signedDelivery('{"ref":"W1","items":1}');
    const ok = await fetchHandler(
      new Request('https://shop.example/webhooks', {
        method: 'POST',
        body: delivery.body,
        headers: delivery.headersAsObject,
      }),
    );
    expect(ok.status).toBe(200);
    const forged = await fetchHandler(
      new Request('https://shop.example/webhooks', {
        method: 'POST',
        body: delivery.body,
        headers: { 'x-signature': 'no' },
      }),
    );
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: 'webhook_verification_failed' });
  });

  it('stops reading an endless streamed body at maxBodyBytes and answers 413', async () => {
    const fetchHandler = toFetchHandler(setup().handler, { maxBodyBytes: 64 * 1024 });
    let pulled = 0;
    const cancel = vi.fn();
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        // Endless for the bridge (it must stop at 64 KiB); closed at 16 MiB only so a bridge that buffers
        // everything fails this test instead of hanging the run.
        if (pulled > 16 * 1024) controller.close();
        else controller.enqueue(new Uint8Array(1024));
      },
      cancel,
    });
    const reply = await fetchHandler(
      new Request('https://shop.example/webhooks', {
        method: 'POST',
        body: endless,
        duplex: 'half',
      } as RequestInit),
    );
    expect(reply.status).toBe(413);
    expect(await reply.json()).toEqual({
      error: 'payload_too_large',
      message: 'The webhook body is larger than 65536 bytes.',
    });
    expect(pulled).toBeLessThan(80);
    expect(cancel).toHaveBeenCalledTimes(1);
  });

  it('answers 413 to a declared Content-Length over the limit before reading', async () => {
    const { handler, counters } = setup();
    const reply = await toFetchHandler(handler, { maxBodyBytes: 10 })(
      new Request('https://shop.example/webhooks', {
        method: 'POST',
        body: '{"ref":"TOO-LONG","items":1}',
      }),
    );
    expect(reply.status).toBe(413);
    expect(counters.fullUrls).toEqual([]);
  });

  it('verifies against publicOrigin plus the request’s path and query when publicOrigin is given', async () => {
    const { handler, counters } = setup();
    const delivery = await signedDelivery('{"ref":"W2","items":1}');
    const reply = await toFetchHandler(handler, { publicOrigin: 'https://shop.example/ignored' })(
      new Request('http://partner.example:8080/webhooks?source=t', {
        method: 'POST',
        body: delivery.body,
        headers: delivery.headersAsObject,
      }),
    );
    expect(reply.status).toBe(200);
    expect(counters.fullUrls).toEqual(['https://shop.example/webhooks?source=t']);
  });

  it('answers 503 saying the body was already read when the Request body was used before the bridge', async () => {
    const { handler, counters } = setup();
    const delivery = await signedDelivery('{"ref":"W3","items":1}');
    const request = new Request('https://shop.example/webhooks', {
      method: 'POST',
      body: delivery.body,
      headers: delivery.headersAsObject,
    });
    await request.json(); // a middleware that parsed it first
    const reply = await toFetchHandler(handler)(request);
    expect(reply.status).toBe(503);
    const body = await reply.json();
    expect(body.error).toBe('webhook_verification_failed');
    expect(body.message).toContain('already parsed or read');
    expect(body.message).toContain('c.req.raw');
    expect(body.message).not.toContain('express');
    expect(counters.fullUrls).toEqual([]);
  });

  it('answers 400 when the body stream fails mid-way, and never rejects', async () => {
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"ref":'));
        controller.error(new Error('connection reset'));
      },
    });
    const reply = await toFetchHandler(setup().handler)(
      new Request('https://shop.example/webhooks', {
        method: 'POST',
        body: broken,
        duplex: 'half',
      } as RequestInit),
    );
    expect(reply.status).toBe(400);
  });
});

describe('the answer to a failed delivery, whatever onError does', () => {
  /** Every way a bridge or replyFor answers one delivery through `handler`. */
  async function answers(handler: ReturnType<typeof setup>['handler'], ref: string) {
    const delivery = await signedDelivery(`{"ref":"${ref}","items":1}`);
    const viaReplyFor = await replyFor(handler.handle(delivery));
    const web = await toFetchHandler(handler)(
      new Request('https://shop.example/hooks', {
        method: 'POST',
        body: delivery.body,
        headers: delivery.headersAsObject,
      }),
    );
    server = await startLoopbackServer(toNodeListener(handler));
    const node = await post(`${server.url}/hooks`, delivery.body, delivery.headersAsObject);
    return [viaReplyFor.status, web.status, node.status];
  }

  it.each([200, 400])(
    'answers 500 after a callback threw, even when onError sets err.status = %i (as http-errors-style normalisers do)',
    async (status) => {
      const handler = setup().handler.onError((error) => {
        Object.assign(error, { status, statusCode: status, expose: true });
      });
      expect(await answers(handler, 'FAIL-STATUS')).toEqual([500, 500, 500]);
    },
  );

  it('reports the answer it gave in the pay:webhook message, not the status onError set', async () => {
    const published: Array<{ status: number }> = [];
    const listen = (message: unknown) => void published.push(message as { status: number });
    dc.subscribe(PAY_CHANNELS.webhook, listen);
    try {
      const handler = setup().handler.onError((error) => void Object.assign(error, { status: 200 }));
      await replyFor(handler.handle(await signedDelivery('{"ref":"FAIL-TRACE","items":1}')));
    } finally {
      dc.unsubscribe(PAY_CHANNELS.webhook, listen);
    }
    expect(published.map((message) => message.status)).toEqual([500]);
  });

  it('answers a retryable refusal 503 and a forgery 400, whatever onError sets on the error', async () => {
    const rewrite = (error: object) => void Object.assign(error, { status: 200, retryable: false });
    const { handler: late } = setup({
      upstreamRead: async () => {
        throw new WebhookVerificationError('status not final yet', {
          reason: 'unconfirmed_status',
          retryable: true,
        });
      },
    });
    expect(await answers(late.onError(rewrite), 'LATE')).toEqual([503, 503, 503]);
    const handler = setup().handler.onError(
      (error) => void Object.assign(error, { status: 200, retryable: true }),
    );
    const forged = await replyFor(
      handler.handle({
        body: '{"ref":"F","items":1}',
        headersAsObject: { 'x-signature': 'forged' },
        fullUrl: 'https://shop.example/hooks',
      }),
    );
    expect(forged).toEqual({
      status: 400,
      body: { error: 'webhook_verification_failed', message: 'bad signature' },
    });
  });

  it('answers without waiting for an onError that never settles', async () => {
    const onError = vi.fn(() => new Promise<never>(() => {}));
    const handler = setup().handler.onError(onError);
    // Each answer must come well within the test's timeout although the observer never settles.
    expect(await answers(handler, 'FAIL-HANG')).toEqual([500, 500, 500]);
    expect(onError).toHaveBeenCalledTimes(3);
    await expect(
      handler.handle({ body: '{}', headersAsObject: {}, fullUrl: 'https://shop.example/' }),
    ).rejects.toMatchObject({ status: 400 });
    expect(onError).toHaveBeenCalledTimes(4);
  });
});

describe('a handler built on the first request (docs/architecture.md#webhook-bridges)', () => {
  /** A builder that fails like a default factory whose variables are missing, until `configured` is set. */
  function builderOf(state: { configured: boolean; builds: number }) {
    return () => {
      state.builds += 1;
      if (!state.configured) {
        throw new ConfigurationError(
          'providerN is not configured: set PROVIDER_N_API_KEY (or the config member `apiKey`).',
          { missing: ['PROVIDER_N_API_KEY'] },
        );
      }
      return setup().handler;
    };
  }

  it('answers a JSON 500 naming what is missing, then serves the handler once it can be built, building it once', async () => {
    const state = { configured: false, builds: 0 };
    const webhook = toFetchHandler(builderOf(state));
    expect(state.builds).toBe(0);
    const delivery = await signedDelivery('{"ref":"LZ1","items":1}');
    const request = () =>
      new Request('https://shop.example/webhooks', {
        method: 'POST',
        body: delivery.body,
        headers: delivery.headersAsObject,
      });
    const refused = await webhook(request());
    expect(refused.status).toBe(500);
    expect(refused.headers.get('content-type')).toBe('application/json');
    expect(await refused.json()).toEqual({
      error: 'configuration_error',
      message:
        'The webhook handler could not be built: providerN is not configured: set PROVIDER_N_API_KEY (or the config member `apiKey`).',
    });
    state.configured = true;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const served = await webhook(request());
      expect({ status: served.status, body: await served.json() }).toEqual({
        status: 200,
        body: { received: true, events: 2, duplicates: 0 },
      });
    }
    expect(state.builds).toBe(2);
  });

  it('answers the same over the Node bridge, and a builder’s other failure as the bare internal error', async () => {
    server = await startLoopbackServer(toNodeListener(builderOf({ configured: false, builds: 0 })));
    const delivery = await signedDelivery('{"ref":"LZ2","items":1}');
    expect(await post(`${server.url}/webhooks`, delivery.body, delivery.headersAsObject)).toMatchObject({
      status: 500,
      body: { error: 'configuration_error', message: expect.stringContaining('set PROVIDER_N_API_KEY') },
    });
    await server.close();
    server = await startLoopbackServer(
      toNodeListener(() => {
        throw new Error(`token ${WEBHOOK_SECRET} rejected`);
      }),
    );
    expect(await post(`${server.url}/webhooks`, delivery.body, delivery.headersAsObject)).toEqual({
      status: 500,
      body: { error: 'internal_error', message: 'The webhook could not be processed.' },
    });
  });
});
