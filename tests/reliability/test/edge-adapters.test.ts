/**
 * Edge runtimes (docs/architecture.md#test-suites): every adapter's main entry, bundled for the browser platform
 * (a `node:` import fails the build) and evaluated in an Edge Runtime VM (Web APIs only: no `require`, `process`
 * or `Buffer`), verifies webhooks and runs an operation with an injected `fetch`. Core's handler and its Web
 * `Request → Response` bridge run in the same VM.
 */
import type { EdgeVM } from '@edge-runtime/vm';
import type * as Core from '@pay/core';
import type * as ProviderN from '@pay/provider-n';
import { signProviderNWebhook } from '@pay/provider-n/testing';
import type * as ProviderR from '@pay/provider-r';
import { buildProviderRPush } from '@pay/provider-r/testing';
import type * as ProviderT from '@pay/provider-t';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadInEdgeRuntime } from './edge.js';
import {
  addToEdgeRuntime,
  describeError,
  fakeProviderTUpstream,
  providerNTransactionPayload,
  providerTKeys,
  type ResponseConstructor,
  settle,
  signedProviderT,
  T_CREDENTIALS,
} from './support-webhooks.js';

/** What an injected fetch saw of one request. */
interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A fetch for code running inside `vm`: it records each request and answers with a Response of the VM's own
 * realm (what the VM's `fetch` would return), built by `answer`.
 */
function vmFetch(
  vm: EdgeVM,
  answer: (request: Seen) => { status?: number; body: string; contentType?: string },
): { fetch: typeof fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const ResponseClass = vm.context.Response as ResponseConstructor;
  const impl = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const request = typeof input === 'object' && 'url' in input ? input : undefined;
    const headers: Record<string, string> = {};
    const source = (init?.headers ?? request?.headers) as Headers | Record<string, string> | undefined;
    if (source && typeof (source as Headers).forEach === 'function') {
      (source as Headers).forEach((value, name) => {
        headers[name.toLowerCase()] = value;
      });
    } else if (source) {
      for (const [name, value] of Object.entries(source)) headers[name.toLowerCase()] = String(value);
    }
    const body =
      init?.body !== undefined && init.body !== null
        ? String(init.body)
        : request
          ? await request.text()
          : '';
    const entry = {
      method: (init?.method ?? request?.method ?? 'GET').toUpperCase(),
      url: request ? request.url : String(input),
      headers,
      body,
    };
    seen.push(entry);
    const reply = answer(entry);
    return new ResponseClass(reply.body, {
      status: reply.status ?? 200,
      headers: { 'content-type': reply.contentType ?? 'application/json' },
    });
  };
  return { fetch: impl as typeof fetch, seen };
}

/** Loads an adapter's main entry and core into one Edge VM and checks the VM has no Node built-ins. */
async function edge<T>(entry: string): Promise<{ lib: T; core: typeof Core; vm: EdgeVM }> {
  const { lib, vm } = await loadInEdgeRuntime<T>(entry);
  const core = await addToEdgeRuntime<typeof Core>(vm, '@pay/core', '__payCore');
  expect(vm.evaluate('[typeof Buffer, typeof require, typeof process, typeof setImmediate]')).toEqual([
    'undefined',
    'undefined',
    'undefined',
    'undefined',
  ]);
  expect(vm.evaluate('typeof crypto.subtle.verify')).toBe('function');
  return { lib, core, vm };
}

/** Rejection of `promise`, which must reject within the time limit. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  const outcome = await settle(promise, 10_000);
  expect(outcome.ok).toBe(false);
  return (outcome as { error: unknown }).error;
}

describe('@pay/provider-r in an Edge VM', () => {
  const merchant = '100001';
  const secret = 'edge-secret-5d1e0a77';
  let env: { lib: typeof ProviderR; core: typeof Core; vm: EdgeVM };

  beforeAll(async () => {
    env = await edge<typeof ProviderR>('@pay/provider-r');
  });

  const statusReply = (transId: string, status: string) =>
    new URLSearchParams({
      code: '0',
      message: 'OK',
      merchant,
      test: 'true',
      price: '10000',
      curr: 'CZK',
      label: 'Order from Eshop',
      refId: 'order-1',
      payerId: 'cust-1',
      method: 'CARD',
      email: 'payer@example.com',
      transId,
      secret,
      status,
      fee: 'unknown',
    }).toString();

  // Hand-built on purpose: the adapter runs inside the Edge VM with a VM fetch answering, no simulator.
  function adapterWith(answer: Parameters<typeof vmFetch>[1]) {
    const { fetch, seen } = vmFetch(env.vm, answer);
    const adapter = env.lib.createProviderR({
      merchant,
      secret,
      isSandbox: true,
      baseUrl: 'https://r.example',
      fetch,
      retry: 0,
    });
    return { adapter, seen };
  }

  it('creates a payment with an injected fetch, Basic auth built without Buffer', async () => {
    const { adapter, seen } = adapterWith(() => ({
      body: JSON.stringify({
        code: 0,
        message: 'OK',
        transId: 'AB12-CD34-EF56',
        redirect: 'https://r.example/pay/AB12',
      }),
    }));
    const payment = await adapter.createPayment({
      customer: { id: 'cust-1' },
      amount: 100,
      provider_metadata: { email: 'payer@example.com' },
    });
    expect(payment).toMatchObject({
      id: 'AB12-CD34-EF56',
      status: 'pending',
      amount: 100,
      currency: 'CZK',
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: 'https://r.example/v2.0/payment' });
    // 100 CZK in the standard unit is the wire's price of 10000 minor units.
    expect(JSON.parse(seen[0]?.body ?? '{}')).toMatchObject({ price: 10_000, curr: 'CZK' });
    expect(seen[0]?.headers.authorization).toBe(`Basic ${btoa(`${merchant}:${secret}`)}`);
  });

  it('verifies a push (secret, merchant, status call) and refuses a forged one, through the handler and the Web bridge', async () => {
    const { adapter, seen } = adapterWith((request) => {
      const form = new URLSearchParams(request.body);
      return {
        body: statusReply(form.get('transId') ?? '', 'PAID'),
        contentType: 'application/x-www-form-urlencoded',
      };
    });
    const received: string[] = [];
    const handler = env.core
      .createPay(adapter)
      .webhooks.setup({ webhookSecret: secret })
      .on('payment.succeeded', (event) => {
        received.push(`${event.type}:${event.data.id}:${event.data.amount}`);
      })
      .on('providerR.PAID', (event) => {
        received.push(`${event.type}:${event.data.transId}`);
        // The echoed secret never reaches an event.
        expect(JSON.stringify(event.data)).not.toContain(secret);
      });
    const push = buildProviderRPush({
      merchant,
      secret,
      transId: 'TX-1',
      status: 'PAID',
      price: 10_000,
      curr: 'CZK',
    });
    const result = await handler.handle({
      body: push.body,
      headersAsObject: push.headers,
      fullUrl: 'https://shop.example/r',
    });
    expect(result.events.map((event) => event.type)).toEqual([
      'payment.succeeded',
      'invoice.generated',
      'providerR.PAID',
    ]);
    expect(received).toEqual(['payment.succeeded:TX-1:100', 'providerR.PAID:TX-1']);
    expect(seen.map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual([
      'POST /v1.0/status',
    ]);

    const forged = buildProviderRPush({
      merchant,
      secret: 'guessed',
      transId: 'TX-1',
      status: 'PAID',
      price: 1,
      curr: 'CZK',
    });
    const error = await rejectionOf(
      handler.handle({
        body: forged.body,
        headersAsObject: forged.headers,
        fullUrl: 'https://shop.example/r',
      }),
    );
    expect(env.core.WebhookVerificationError.isInstance(error), describeError(error)).toBe(true);
    expect(received).toHaveLength(2);
    expect(seen).toHaveLength(1);

    // The Web Request → Response bridge, with the VM's own Request.
    const bridge = env.core.toFetchHandler(handler);
    const RequestClass = env.vm.context.Request as typeof Request;
    const accepted = await bridge(
      new RequestClass('https://shop.example/r', { method: 'POST', headers: push.headers, body: push.body }),
    );
    expect(accepted.status).toBe(200);
    const refused = await bridge(
      new RequestClass('https://shop.example/r', {
        method: 'POST',
        headers: forged.headers,
        body: forged.body,
      }),
    );
    expect(refused.status).toBe(400);
  });
});

describe('@pay/provider-n in an Edge VM', () => {
  const webhookSecret = 'pn-edge-webhook-secret-31aa';
  let env: { lib: typeof ProviderN; core: typeof Core; vm: EdgeVM };

  beforeAll(async () => {
    env = await edge<typeof ProviderN>('@pay/provider-n');
  });

  const envelope = (responseBody: unknown) =>
    JSON.stringify({ requestSuccessful: true, responseMessage: 'success', responseCode: '0', responseBody });

  function adapter() {
    const { fetch, seen } = vmFetch(env.vm, (request) => {
      const path = new URL(request.url).pathname;
      if (path.endsWith('/v1/auth/login'))
        return { body: envelope({ accessToken: 'edge-token-1', expiresIn: 3599 }) };
      if (path.endsWith('/v1/merchant/transactions/init-transaction')) {
        const body = JSON.parse(request.body) as { paymentReference: string };
        return {
          body: envelope({
            transactionReference: 'PN|20261122101530|000123',
            paymentReference: body.paymentReference,
            merchantName: 'Edge Shop',
            apiKey: 'PN_EDGE_KEY',
            enabledPaymentMethod: ['CARD'],
            checkoutUrl: 'https://n.example/checkout/PN%7C20261122101530%7C000123',
          }),
        };
      }
      return {
        status: 404,
        body: JSON.stringify({ requestSuccessful: false, responseCode: '99', responseMessage: 'no route' }),
      };
    });
    return {
      seen,
      adapter: env.lib.createProviderN({
        apiKey: 'PN_EDGE_KEY',
        secretKey: 'PN_EDGE_SECRET_77',
        isSandbox: true,
        baseUrl: 'https://n.example/api',
        fetch,
        retry: 0,
      }),
    };
  }

  it('creates a checkout with an injected fetch (login, then the Bearer call)', async () => {
    const { adapter: n, seen } = adapter();
    const checkout = await n.createCheckout({
      customer: { email: 'ada@example.com' },
      item_id: 'mug',
      quantity: 1,
      success_url: 'https://shop.example/thanks',
      provider_metadata: { amount: 5000, currency: 'NGN' },
    });
    expect(checkout).toMatchObject({ id: 'PN|20261122101530|000123', amount: 5000, currency: 'NGN' });
    expect(seen.map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual([
      'POST /api/v1/auth/login',
      'POST /api/v1/merchant/transactions/init-transaction',
    ]);
    expect(seen[0]?.headers.authorization).toBe(`Basic ${btoa('PN_EDGE_KEY:PN_EDGE_SECRET_77')}`);
    expect(seen[1]?.headers.authorization).toBe('Bearer edge-token-1');
  });

  it('verifies the HMAC-SHA512 signature with Web Crypto and refuses a forged one, through the Web bridge', async () => {
    const { adapter: n, seen } = adapter();
    const received: string[] = [];
    const handler = env.core
      .createPay(n)
      .webhooks.setup({ webhookSecret })
      .on('payment.created', (event) => {
        received.push(`${event.data.id}:${event.data.status}:${event.data.amount}`);
      });
    const body = JSON.stringify(providerNTransactionPayload('PN|edge|1', 2500));
    const signature = await signProviderNWebhook(body, webhookSecret);
    const result = await handler.handle({
      body,
      headersAsObject: { 'content-type': 'application/json', 'providerN-signature': signature },
      fullUrl: 'https://shop.example/n',
    });
    expect(result.events.map((event) => event.type)).toEqual([
      'payment.created',
      'providerN.SUCCESSFUL_TRANSACTION',
    ]);
    expect(received).toEqual(['PN|edge|1:succeeded:2500']);

    const tampered = body.replace('2500', '9999');
    const error = await rejectionOf(
      handler.handle({
        body: tampered,
        headersAsObject: { 'providerN-signature': signature },
        fullUrl: 'https://shop.example/n',
      }),
    );
    expect(env.core.WebhookVerificationError.isInstance(error), describeError(error)).toBe(true);
    expect((error as Core.WebhookVerificationError).reason).toBe('invalid_signature');

    const bridge = env.core.toFetchHandler(handler);
    const RequestClass = env.vm.context.Request as typeof Request;
    const post = (text: string) =>
      bridge(
        new RequestClass('https://shop.example/n', {
          method: 'POST',
          headers: { 'providerN-signature': signature },
          body: text,
        }),
      );
    expect((await post(body)).status).toBe(200);
    expect((await post(tampered)).status).toBe(400);
    expect(received).toHaveLength(2);
    // Verification made no upstream call.
    expect(seen).toHaveLength(0);
  });
  // An event without a reference is keyed by a SHA-256 of the raw body; through the Web bridge that body is a
  // Uint8Array the runtime built, which Web Crypto must accept (regression: it was refused as a foreign buffer).
  it('accepts a genuine event that carries no reference, through the Web bridge', async () => {
    const { adapter: n } = adapter();
    const handler = env.core.createPay(n).webhooks.setup({ webhookSecret });
    const body = JSON.stringify({ eventType: 'CUSTOMER_CREATED', eventData: { email: 'ada@example.com' } });
    const signature = await signProviderNWebhook(body, webhookSecret);
    const direct = await handler.handle({
      body,
      headersAsObject: { 'providerN-signature': signature },
      fullUrl: 'https://shop.example/n',
    });
    expect(direct.events.map((event) => event.type)).toEqual(['providerN.CUSTOMER_CREATED']);
    const RequestClass = env.vm.context.Request as typeof Request;
    const reply = await env.core.toFetchHandler(handler)(
      new RequestClass('https://shop.example/n', {
        method: 'POST',
        headers: { 'providerN-signature': signature },
        body,
      }),
    );
    expect(reply.status).toBe(200);
  });
});

describe('@pay/provider-t in an Edge VM', () => {
  let env: { lib: typeof ProviderT; core: typeof Core; vm: EdgeVM };

  beforeAll(async () => {
    env = await edge<typeof ProviderT>('@pay/provider-t');
    providerTKeys();
  });

  function adapter() {
    const upstream = fakeProviderTUpstream(
      (id) => (id === 'tx-unknown' ? undefined : 'SENT'),
      env.vm.context.Response as ResponseConstructor,
    );
    const t = env.lib.createProviderT({
      ...T_CREDENTIALS,
      isSandbox: true,
      baseUrl: 'https://t.example',
      webhookPublicKey: providerTKeys().publicKey,
      fetch: upstream.fetch,
      retry: 0,
    });
    return { t, upstream };
  }

  it('retrieves a transfer with an injected fetch (token, then the status read)', async () => {
    const { t, upstream } = adapter();
    const payment = await t.retrievePayment('tx-edge-1');
    expect(payment).toMatchObject({ id: 'tx-edge-1', status: 'succeeded', amount: 100, currency: 'USD' });
    expect(await t.retrievePayment('tx-unknown')).toBeNull();
    expect(upstream.logins).toBe(1);
    expect(upstream.statusReads).toBe(2);
  });

  /** A handler over a fresh adapter, recording what its callbacks receive. */
  function handlerOf() {
    const { t, upstream } = adapter();
    const received: string[] = [];
    const handler = env.core
      .createPay(t)
      .webhooks.setup({ webhookSecret: null })
      .on('payment.succeeded', (event) => {
        received.push(`${event.id}:${event.data.id}:${event.data.status}`);
      });
    return { handler, received, upstream };
  }

  // Regression: core handed crypto.subtle an ArrayBuffer, which the Edge Runtime VM refuses from another realm
  // (vercel/edge-runtime#813), so every genuine Provider T webhook was refused there.
  it('verifies a genuine RSA-SHA256 signature with Web Crypto, through the handler and the Web bridge', async () => {
    const { handler, received } = handlerOf();
    const signed = signedProviderT({
      transactionId: 'tx-edge-2',
      eventId: 'evt-edge-2',
      url: 'https://shop.example/t',
    });
    const result = await handler.handle(signed);
    expect(result.events.map((event) => event.type)).toEqual([
      'payment.succeeded',
      'providerT.TRANSACTION_STATUS_EVENT',
    ]);
    expect(received).toEqual(['evt-edge-2:payment.succeeded:tx-edge-2:succeeded']);
    const bridge = env.core.toFetchHandler(handler);
    const RequestClass = env.vm.context.Request as typeof Request;
    const reply = await bridge(
      new RequestClass('https://shop.example/t', {
        method: 'POST',
        headers: signed.headersAsObject,
        body: signed.body,
      }),
    );
    expect(reply.status).toBe(200);
    expect(received).toHaveLength(2);
  });

  it('refuses forged deliveries (tampered body, wrong host, no signature) and runs nothing, through the Web bridge', async () => {
    const { handler, received, upstream } = handlerOf();
    const signed = signedProviderT({
      transactionId: 'tx-edge-3',
      eventId: 'evt-edge-3',
      url: 'https://shop.example/t',
    });
    const forged = { ...signed, body: signed.body.replace('"SENT"', '"REFUNDED"') };
    for (const delivery of [
      forged,
      { ...signed, fullUrl: 'https://evil.example/t' },
      { ...signed, headersAsObject: {} },
    ]) {
      const error = await rejectionOf(handler.handle(delivery));
      expect(env.core.WebhookVerificationError.isInstance(error), describeError(error)).toBe(true);
    }
    const bridge = env.core.toFetchHandler(handler);
    const RequestClass = env.vm.context.Request as typeof Request;
    const reply = await bridge(
      new RequestClass('https://shop.example/t', {
        method: 'POST',
        headers: signed.headersAsObject,
        body: forged.body,
      }),
    );
    expect(reply.status).toBe(400);
    expect(received).toEqual([]);
    expect(upstream.statusReads).toBe(0);
  });
});
