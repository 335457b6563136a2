/**
 * Secrets (docs/architecture.md#test-suites, docs/architecture.md#redaction): every error path of every adapter is
 * driven with distinctive secret values — bad configuration, wrong credentials at the simulator, provider error
 * replies that echo a secret, network failures, unreadable replies, webhook failures — and no secret (in any
 * spelling: raw, URL- or form-encoded, JSON-escaped, base64) may appear in an error's message, stack, JSON,
 * properties or `cause` chain, nor in any `onRequest`/`onResponse` hook payload. Access tokens and Authorization
 * header values count as secrets: they are captured from the wire by an injected fetch.
 */
import { ConfigurationError, createPay, PayError, WebhookVerificationError } from '@pay/core';
import { createProviderN, providerN } from '@pay/provider-n';
import { providerNWebhookRequest, startProviderNSimulator } from '@pay/provider-n/testing';
import { createProviderR, providerR } from '@pay/provider-r';
import { buildProviderRPush, startProviderRSimulator } from '@pay/provider-r/testing';
import { createProviderT, providerT } from '@pay/provider-t';
import {
  generateProviderTKeyPair,
  providerTStatusEvent,
  sampleTransferMetadata,
  signedProviderTWebhook,
  startProviderTSimulator,
} from '@pay/provider-t/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type EchoBody,
  echoingFetch,
  expectNoSecrets,
  type Recorder,
  recorder,
  rejectionOf,
  TIMEOUT_MS,
  thrownBy,
} from './support.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

/**
 * A fetch that records what must stay secret on the wire: every Authorization header value (and its
 * credential part) and every access token a login reply carries.
 */
function capturingFetch(found: Set<string>): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const authorization = request.headers.get('authorization');
    if (authorization) {
      found.add(authorization);
      const credential = authorization.split(' ')[1];
      if (credential) found.add(credential);
    }
    const response = await fetch(request);
    const text = await response.clone().text();
    for (const match of text.matchAll(/"(?:access_token|accessToken)"\s*:\s*"([^"]+)"/g)) {
      if (match[1]) found.add(match[1]);
    }
    return response;
  };
}

/** What one provider's tests share: the secrets, the wire captures and the hook recorder. */
function leakCheck(configured: string[]) {
  const wire = new Set<string>();
  const rec: Recorder = recorder();
  const all = () => [...configured, ...wire];
  return {
    wire,
    rec,
    fetch: capturingFetch(wire),
    /** Asserts `error` is a PayError and carries no secret anywhere. */
    clean(error: unknown, label: string) {
      expect(PayError.isInstance(error), `${label}: ${String(error)}`).toBe(true);
      expectNoSecrets(error, all(), label);
    },
    /** Asserts no hook payload seen so far carries a secret. */
    hooksClean() {
      expect(rec.requests.length).toBeGreaterThan(0);
      expectNoSecrets(rec.requests, all(), 'onRequest payloads');
      expectNoSecrets(rec.responses, all(), 'onResponse payloads');
    },
  };
}

describe('the leak scanner itself', () => {
  it('finds a secret in a cause chain, a non-enumerable property, a context, and in its encoded spellings', () => {
    const secret = 'scan+me/=&"\\-0001';
    const planted = [
      new PayError('outer', { cause: new Error(`inner ${secret}`) }),
      Object.defineProperty(new PayError('hidden'), 'hidden', {
        value: { deep: [secret] },
        enumerable: false,
      }),
      new PayError('context', { context: { body: encodeURIComponent(secret) } }),
      new PayError(`form ${new URLSearchParams({ s: secret }).toString()}`),
      new PayError(`json ${JSON.stringify({ s: secret })}`),
      { headers: new Headers({ authorization: `Basic ${btoa(secret)}` }) },
    ];
    for (const [index, value] of planted.entries()) {
      expect(() => expectNoSecrets(value, [secret], `planted #${index}`)).toThrow(/contains the secret/);
    }
    expect(() => expectNoSecrets(new PayError('clean [REDACTED]'), [secret])).not.toThrow();
  });
});

describe('Provider R: no secret in errors or hook payloads', () => {
  // Characters that change under URL, form and JSON encoding, so every spelling is exercised.
  const SECRET = 'R-s3cr3t+/=&%"q\\Zx-7719';
  const WRONG = 'R-wr0ng+/=&%-secret-4431';
  const MERCHANT = '100777';

  async function setup() {
    const sim = await startProviderRSimulator({ merchant: MERCHANT, secret: SECRET });
    const check = leakCheck([SECRET, WRONG]);
    const adapter = (secret = SECRET, extra: Record<string, unknown> = {}) =>
      // The simulator runs with this test's secret; `secret` replaces it to test a wrong one.
      createProviderR(
        sim.adapterConfig({ secret, retry: 0, fetch: check.fetch, hooks: check.rec.hooks, ...extra }),
      );
    return { sim, check, adapter };
  }

  it('bad configuration: explicit and from the environment', () => {
    const configs: unknown[] = [
      { merchant: '', secret: SECRET, isSandbox: true },
      { merchant: MERCHANT, secret: SECRET, isSandbox: SECRET },
      { merchant: SECRET, secret: 42, isSandbox: true },
      { merchant: MERCHANT, secret: SECRET, isSandbox: true, baseUrl: `not a url ${SECRET}` },
      { merchant: MERCHANT, secret: SECRET, isSandbox: true, retry: -1, timeoutMs: 0 },
    ];
    const check = leakCheck([SECRET]);
    for (const [index, config] of configs.entries()) {
      const thrown = thrownBy(() => createProviderR(config as never));
      expect(ConfigurationError.isInstance(thrown)).toBe(true);
      check.clean(thrown, `config #${index}`);
    }
    vi.stubEnv('PROVIDER_R_SECRET', SECRET);
    vi.stubEnv('PROVIDER_R_MERCHANT', '');
    vi.stubEnv('PROVIDER_R_SANDBOX', SECRET);
    const thrown = thrownBy(() => providerR());
    expect(ConfigurationError.isInstance(thrown)).toBe(true);
    check.clean(thrown, 'environment');
  });

  it('wrong credentials, provider errors echoing the secret, network failures, unreadable replies', async () => {
    const { sim, check, adapter } = await setup();
    try {
      const payment = await adapter().createPayment({
        customer: { id: 'c-1' },
        amount: 100,
        provider_metadata: { email: 'payer@example.com' },
      });
      // The status reply echoes the secret: the record's raw must not keep it.
      const read = await adapter().retrievePayment(payment.id);
      expectNoSecrets(read, [SECRET], 'retrievePayment record');

      const wrong = adapter(WRONG);
      check.clean(await rejectionOf(wrong.retrievePayment(payment.id)), 'status with a wrong secret');
      check.clean(
        await rejectionOf(
          wrong.createPayment({ customer: { id: 'c' }, amount: 1, provider_metadata: { email: 'a@b.cz' } }),
        ),
        'create with a wrong secret',
      );
      check.clean(await rejectionOf(wrong.capturePayment(payment.id)), 'capture with a wrong secret');

      const echoes = [
        JSON.stringify({ code: 1400, message: `Unauthorised access for secret ${SECRET}` }),
        JSON.stringify({
          code: 1500,
          message: `bad ${encodeURIComponent(SECRET)} and ${JSON.stringify(SECRET)}`,
        }),
        `code=1400&message=${encodeURIComponent(`secret=${SECRET}`)}&secret=${encodeURIComponent(SECRET)}`,
        `<html><body>Gateway error for ${SECRET}</body></html>`,
      ];
      for (const [index, body] of echoes.entries()) {
        for (const status of [200, 400, 502]) {
          sim.faults.inject({ path: '/v1.0/status', fault: { kind: 'status', status, body } });
          check.clean(
            await rejectionOf(adapter().retrievePayment(payment.id)),
            `echo #${index} HTTP ${status}`,
          );
        }
      }
      sim.faults.inject({
        path: '/v2.0/refund.json',
        fault: { kind: 'status', status: 400, body: echoes[0] },
      });
      sim.pay(payment.id);
      check.clean(await rejectionOf(adapter().createRefund({ payment_id: payment.id })), 'refund echo');
      check.clean(
        await rejectionOf(adapter().createRefund({ payment_id: payment.id, amount: 999999 })),
        'refund too high',
      );

      for (const kind of ['drop', 'drop-after', 'malformed'] as const) {
        sim.faults.inject({ path: '/v1.0/status', fault: { kind } });
        check.clean(await rejectionOf(adapter().retrievePayment(payment.id)), `status ${kind}`);
      }
      sim.faults.inject({ path: '/v1.0/status', fault: { kind: 'delay', ms: TIMEOUT_MS * 3 } });
      check.clean(
        await rejectionOf(adapter(SECRET, { timeoutMs: TIMEOUT_MS }).retrievePayment(payment.id)),
        'status timeout',
      );
      check.hooksClean();
    } finally {
      await sim.close();
    }
  });

  it('webhook failures: wrong secret, other merchant, failed confirmation, missing secret', async () => {
    const { sim, check, adapter } = await setup();
    try {
      const pay = createPay(adapter());
      const payment = await pay.payments.create({
        customer: { id: 'c-2' },
        amount: 200,
        provider_metadata: { email: 'payer@example.com' },
      });
      sim.pay(payment.id);
      const handler = pay.webhooks.setup({ webhookSecret: SECRET });
      const push = (fields: { secret?: string; merchant?: string }, format: 'form' | 'json' = 'form') => {
        const built = buildProviderRPush(
          {
            merchant: fields.merchant ?? MERCHANT,
            secret: fields.secret ?? SECRET,
            transId: payment.id,
            status: 'PAID',
            price: 20000,
            curr: 'CZK',
          },
          { format },
        );
        return handler.handle({
          body: built.body,
          headersAsObject: built.headers,
          fullUrl: 'https://shop.example/hooks/r',
        });
      };
      for (const format of ['form', 'json'] as const) {
        check.clean(
          await rejectionOf(push({ secret: WRONG }, format)),
          `push with a wrong secret (${format})`,
        );
        check.clean(
          await rejectionOf(push({ merchant: `${SECRET}-m` }, format)),
          `push, other merchant (${format})`,
        );
      }
      for (const kind of ['drop', 'malformed'] as const) {
        sim.faults.inject({ path: '/v1.0/status', fault: { kind } });
        const error = await rejectionOf(push({}));
        expect(WebhookVerificationError.isInstance(error)).toBe(true);
        check.clean(error, `push, confirmation ${kind}`);
      }
      sim.faults.inject({
        path: '/v1.0/status',
        fault: { kind: 'status', status: 500, body: `secret=${encodeURIComponent(SECRET)}` },
      });
      check.clean(await rejectionOf(push({})), 'push, confirmation 500 echoing the secret');
      const thrown = thrownBy(() => pay.webhooks.setup({ webhookSecret: undefined }));
      check.clean(thrown, 'setup without a secret');
      check.hooksClean();
    } finally {
      await sim.close();
    }
  });
});

describe('Provider N: no secret in errors or hook payloads', () => {
  const API_KEY = 'N-api+key/=&%-6628';
  const SECRET_KEY = 'N-s3cret+key/="\\-9051';
  const WEBHOOK_SECRET = 'N-webhook+secret/=&-3307';
  const WRONG = 'N-wrong+secret/=&-1184';

  async function setup() {
    const sim = await startProviderNSimulator({
      credentials: { apiKey: API_KEY, secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET },
    });
    const check = leakCheck([API_KEY, SECRET_KEY, WEBHOOK_SECRET, WRONG]);
    const adapter = (secretKey = SECRET_KEY, extra: Record<string, unknown> = {}) =>
      // The simulator runs with this test's keys; `secretKey` replaces its own to test a wrong one.
      createProviderN(
        sim.adapterConfig({ secretKey, retry: 0, fetch: check.fetch, hooks: check.rec.hooks, ...extra }),
      );
    return { sim, check, adapter };
  }

  const checkout = {
    customer: { email: 'ada@example.com' },
    provider_metadata: { amount: 5000, currency: 'NGN' },
  };

  it('bad configuration: explicit and from the environment', () => {
    const check = leakCheck([API_KEY, SECRET_KEY]);
    const configs: unknown[] = [
      { apiKey: API_KEY, secretKey: SECRET_KEY, isSandbox: SECRET_KEY },
      { apiKey: API_KEY, secretKey: '', isSandbox: true },
      { apiKey: SECRET_KEY, secretKey: API_KEY, isSandbox: true, unknownMember: SECRET_KEY },
      { apiKey: API_KEY, secretKey: SECRET_KEY, isSandbox: true, baseUrl: `x${SECRET_KEY}` },
    ];
    for (const [index, config] of configs.entries()) {
      const thrown = thrownBy(() => createProviderN(config as never));
      expect(ConfigurationError.isInstance(thrown)).toBe(true);
      check.clean(thrown, `config #${index}`);
    }
    vi.stubEnv('PROVIDER_N_API_KEY', API_KEY);
    vi.stubEnv('PROVIDER_N_SECRET_KEY', SECRET_KEY);
    vi.stubEnv('PROVIDER_N_SANDBOX', API_KEY);
    const thrown = thrownBy(() => providerN());
    expect(ConfigurationError.isInstance(thrown)).toBe(true);
    check.clean(thrown, 'environment');
  });

  it('wrong credentials, provider errors echoing secrets, network failures, unreadable replies', async () => {
    const { sim, check, adapter } = await setup();
    try {
      const created = await adapter().createCheckout(checkout);
      // The init-transaction reply echoes the apiKey: the record's raw must not keep it.
      expectNoSecrets(created, [API_KEY, SECRET_KEY], 'createCheckout record');

      check.clean(
        await rejectionOf(adapter(WRONG).createCheckout(checkout)),
        'login with a wrong secret key',
      );
      check.clean(
        await rejectionOf(adapter(WRONG).retrievePayment(created.id)),
        'read with a wrong secret key',
      );

      const echo = (message: string) =>
        JSON.stringify({ requestSuccessful: false, responseMessage: message, responseCode: '99' });
      const echoes = [
        echo(`Invalid key ${API_KEY}:${SECRET_KEY}`),
        echo(`bad ${encodeURIComponent(SECRET_KEY)} / ${JSON.stringify(SECRET_KEY)}`),
        `<html>upstream said ${SECRET_KEY}</html>`,
      ];
      for (const [index, body] of echoes.entries()) {
        for (const status of [200, 400, 503]) {
          for (const path of ['/v1/auth/login', '/v1/merchant/transactions/init-transaction']) {
            sim.faults.inject({ path, fault: { kind: 'status', status, body } });
            check.clean(
              await rejectionOf(adapter().createCheckout(checkout)),
              `echo #${index} ${status} ${path}`,
            );
          }
        }
      }
      sim.complete(created.id);
      sim.faults.inject({
        path: '/v1/refunds/initiate-refund',
        fault: { kind: 'status', status: 400, body: echo(`R2 for ${SECRET_KEY}`) },
      });
      check.clean(
        await rejectionOf(adapter().createRefund({ payment_id: created.id, amount: 10 })),
        'refund echo',
      );
      check.clean(
        await rejectionOf(adapter().createRefund({ payment_id: created.id, amount: 999999 })),
        'refund too high (R3)',
      );

      for (const path of ['/v1/auth/login', '/v1/merchant/transactions/query']) {
        for (const kind of ['drop', 'drop-after', 'malformed'] as const) {
          sim.faults.inject({ path, fault: { kind } });
          check.clean(await rejectionOf(adapter().retrievePayment(created.id)), `${path} ${kind}`);
        }
        sim.faults.inject({ path, fault: { kind: 'delay', ms: TIMEOUT_MS * 3 } });
        check.clean(
          await rejectionOf(adapter(SECRET_KEY, { timeoutMs: TIMEOUT_MS }).retrievePayment(created.id)),
          `${path} timeout`,
        );
      }
      expect(check.wire.size).toBeGreaterThan(2);
      check.hooksClean();
    } finally {
      await sim.close();
    }
  });

  // Found by these tests and fixed in 8515755: the login's onResponse payload used to carry the access token.
  it('hook payloads of successful calls carry no access token, key or Authorization value', async () => {
    const { sim, check, adapter } = await setup();
    try {
      const created = await adapter().createCheckout(checkout);
      await adapter().retrievePayment(created.id);
      expect([...check.wire].some((value) => value.startsWith('pn_sim_'))).toBe(true);
      check.hooksClean();
    } finally {
      await sim.close();
    }
  });

  it('webhook failures: wrong secret, missing or forged signature, missing secret', async () => {
    const { sim, check, adapter } = await setup();
    try {
      const pay = createPay(adapter());
      const handler = pay.webhooks.setup({ webhookSecret: WEBHOOK_SECRET });
      const payload = {
        eventType: 'SUCCESSFUL_TRANSACTION',
        eventData: { transactionReference: 'PN|1', paymentStatus: 'PAID', amountPaid: 10, totalPayable: 10 },
      };
      const signedWrong = await providerNWebhookRequest(payload, { webhookSecret: WRONG });
      check.clean(await rejectionOf(handler.handle(signedWrong)), 'signed with a wrong secret');
      const unsigned = { ...signedWrong, headersAsObject: { 'content-type': 'application/json' } };
      check.clean(await rejectionOf(handler.handle(unsigned)), 'unsigned');
      const forged = { ...signedWrong, headersAsObject: { 'providerN-signature': WEBHOOK_SECRET } };
      check.clean(await rejectionOf(handler.handle(forged)), 'the secret itself as the signature');
      const junk = await providerNWebhookRequest(
        { eventType: 'SUCCESSFUL_TRANSACTION', eventData: {} },
        {
          webhookSecret: WEBHOOK_SECRET,
        },
      );
      const junkError = await rejectionOf(handler.handle({ ...junk, body: `${junk.body}${WEBHOOK_SECRET}` }));
      check.clean(junkError, 'tampered body');
      const thrown = thrownBy(() => pay.webhooks.setup({ webhookSecret: '' }));
      check.clean(thrown, 'setup without a secret');
    } finally {
      await sim.close();
    }
  });
});

/** A Provider T transfer with full sender and receiver data (shared by the Provider T tests below). */
const T_PAYMENT = { amount: 100, currency: 'USD', provider_metadata: sampleTransferMetadata };

describe('Provider T: no secret in errors or hook payloads', () => {
  const CLIENT_ID = 'T-client+id/=&-5521';
  const CLIENT_SECRET = 'T-client+s3cret/="\\-8840';
  const WRONG = 'T-wrong+secret/=&-2209';
  const keyPair = generateProviderTKeyPair();
  const payment = T_PAYMENT;

  async function setup() {
    const sim = await startProviderTSimulator({
      keyPair,
      credentials: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    });
    const check = leakCheck([CLIENT_ID, CLIENT_SECRET, WRONG]);
    const adapter = (clientSecret = CLIENT_SECRET, extra: Record<string, unknown> = {}) =>
      // The simulator runs with this test's credentials; `clientSecret` replaces its own to test a wrong one.
      createProviderT(
        sim.adapterConfig({ clientSecret, retry: 0, fetch: check.fetch, hooks: check.rec.hooks, ...extra }),
      );
    return { sim, check, adapter };
  }

  it('bad configuration: explicit and from the environment', () => {
    const check = leakCheck([CLIENT_ID, CLIENT_SECRET]);
    const base = { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, agentPartnerId: '1', operatorId: 'op' };
    const configs: unknown[] = [
      { ...base, isSandbox: CLIENT_SECRET },
      { ...base, clientSecret: '', isSandbox: true },
      { ...base, isSandbox: true, webhookPublicKey: `not-a-key-${CLIENT_SECRET}` },
      { ...base, isSandbox: true, baseUrl: CLIENT_SECRET },
      { ...base, agentPartnerId: undefined, isSandbox: true, retry: 1.5 },
    ];
    for (const [index, config] of configs.entries()) {
      const thrown = thrownBy(() => createProviderT(config as never));
      expect(ConfigurationError.isInstance(thrown), `config #${index}`).toBe(true);
      check.clean(thrown, `config #${index}`);
    }
    vi.stubEnv('PROVIDER_T_CLIENT_ID', CLIENT_ID);
    vi.stubEnv('PROVIDER_T_CLIENT_SECRET', CLIENT_SECRET);
    vi.stubEnv('PROVIDER_T_SANDBOX', CLIENT_SECRET);
    const thrown = thrownBy(() => providerT());
    expect(ConfigurationError.isInstance(thrown)).toBe(true);
    check.clean(thrown, 'environment');
  });

  it('wrong credentials, provider errors echoing secrets, network failures, unreadable replies', async () => {
    const { sim, check, adapter } = await setup();
    try {
      const sent = await adapter().createPayment(payment);
      check.clean(await rejectionOf(adapter(WRONG).createPayment(payment)), 'login with a wrong secret');
      check.clean(await rejectionOf(adapter(WRONG).retrievePayment(sent.id)), 'read with a wrong secret');

      const echo = (message: string) =>
        JSON.stringify({ errors: [{ category: 'X', code: `C-${CLIENT_ID}`, message, offendingFields: [] }] });
      const bodies = [
        echo(`client ${CLIENT_ID} secret ${CLIENT_SECRET}`),
        JSON.stringify({
          error: { code: 'INVALID_CLIENT', message: `bad ${encodeURIComponent(CLIENT_SECRET)}` },
        }),
        `<html>${CLIENT_SECRET}</html>`,
      ];
      const paths = [
        '/oauth/accesstoken',
        '/transfer/v1/transactions/quote',
        /^\/transfer\/v1\/transactions\/[^/]+$/,
        /\/commit$/,
      ];
      for (const [index, body] of bodies.entries()) {
        for (const status of [400, 500]) {
          for (const path of paths) {
            sim.faults.inject({ path, fault: { kind: 'status', status, body } });
            check.clean(
              await rejectionOf(adapter().createPayment(payment)),
              `echo #${index} ${status} ${path}`,
            );
          }
        }
      }
      for (const path of paths) {
        for (const kind of ['drop', 'drop-after', 'malformed'] as const) {
          sim.faults.inject({ path, fault: { kind } });
          check.clean(await rejectionOf(adapter().createPayment(payment)), `${path} ${kind}`);
        }
      }
      sim.faults.inject({ path: /^\/status\//, fault: { kind: 'delay', ms: TIMEOUT_MS * 3 } });
      check.clean(
        await rejectionOf(adapter(CLIENT_SECRET, { timeoutMs: TIMEOUT_MS }).retrievePayment(sent.id)),
        'status timeout',
      );
      for (const path of [/^\/refund\/v2\/transactions\/[^/]+$/, /^\/refund\/v2\/.*\/commit$/]) {
        sim.faults.inject({ path, fault: { kind: 'status', status: 500, body: bodies[0] } });
        check.clean(
          await rejectionOf(adapter().createRefund({ payment_id: sent.id })),
          `refund echo ${path}`,
        );
      }
      check.clean(
        await rejectionOf(adapter().createRefund({ payment_id: sent.id, amount: 1 })),
        'refund of another amount',
      );
      expect(check.wire.size).toBeGreaterThan(2);
      check.hooksClean();
    } finally {
      await sim.close();
    }
  });

  it('webhook failures: forged, stale, and a confirmation read that fails', async () => {
    const { sim, check, adapter } = await setup();
    try {
      const pay = createPay(adapter());
      const sent = await pay.payments.create(payment);
      const handler = pay.webhooks.setup({ webhookSecret: null });
      const url = 'https://shop.example/hooks/t';
      const event = providerTStatusEvent({ transactionId: sent.id, transactionStatus: 'SENT' });
      const forger = generateProviderTKeyPair();
      check.clean(
        await rejectionOf(
          handler.handle(signedProviderTWebhook({ event, url, privateKey: forger.privateKey })),
        ),
        'forged signature',
      );
      check.clean(
        await rejectionOf(
          handler.handle(
            signedProviderTWebhook({ event, url, privateKey: keyPair.privateKey, timestamp: 1 }),
          ),
        ),
        'stale timestamp',
      );
      for (const fault of [
        { kind: 'status', status: 500, body: `token leak ${CLIENT_SECRET}` },
        { kind: 'drop' },
        { kind: 'malformed' },
      ] as const) {
        sim.faults.inject({ path: /^\/status\//, fault });
        const error = await rejectionOf(
          handler.handle(signedProviderTWebhook({ event, url, privateKey: keyPair.privateKey })),
        );
        expect(WebhookVerificationError.isInstance(error)).toBe(true);
        check.clean(error, `confirmation ${fault.kind}`);
      }
      check.hooksClean();
    } finally {
      await sim.close();
    }
  });
});

/**
 * A provider (or a gateway in front of it) that ECHOES the Authorization header — the Basic
 * credential decodes straight to the secret — and the access tokens, in error bodies and reply headers
 * (docs/architecture.md#redaction). Nothing of it may reach an error (any field, the cause chain, toJSON) or a
 * hook payload, in any adapter.
 */
describe('echoed credentials never reach an error or a hook payload (docs/architecture.md#redaction)', () => {
  const statuses = [400, 401, 500] as const;

  /** Runs every echo case of one provider. */
  async function expectEchoesClean(
    provider: string,
    configured: string[],
    options: {
      body: EchoBody;
      build: (overrides: { fetch: typeof fetch; hooks: Recorder['hooks'] }) => unknown;
      cases: { label: string; echoOn: RegExp; call: (adapter: never) => Promise<unknown> }[];
    },
  ) {
    for (const { label, echoOn, call } of options.cases)
      await expectEchoClean({
        label: `${provider} ${label}`,
        configured,
        echoOn,
        body: options.body,
        build: options.build,
        call,
      });
  }

  /** Runs `call` against an adapter whose fetch echoes on `echoOn`, then scans the error and the hooks. */
  async function expectEchoClean(options: {
    label: string;
    configured: string[];
    echoOn: RegExp;
    body: EchoBody;
    build: (overrides: { fetch: typeof fetch; hooks: Recorder['hooks'] }) => unknown;
    call: (adapter: never) => Promise<unknown>;
  }) {
    for (const status of statuses) {
      const found = new Set<string>();
      const rec = recorder();
      const adapter = options.build({
        fetch: echoingFetch(found, { echoOn: options.echoOn, status, body: options.body }),
        hooks: rec.hooks,
      });
      const error = await rejectionOf(options.call(adapter as never));
      const label = `${options.label} echo ${status}`;
      expect(PayError.isInstance(error), `${label}: ${String(error)}`).toBe(true);
      expect(found.size, `${label}: the echo ran`).toBeGreaterThan(0);
      const secrets = [...options.configured, ...found];
      expectNoSecrets(error, secrets, label);
      expectNoSecrets((error as PayError).toJSON(), secrets, `${label} toJSON`);
      expectNoSecrets(rec.requests, secrets, `${label} onRequest payloads`);
      expectNoSecrets(rec.responses, secrets, `${label} onResponse payloads`);
    }
  }

  it('Provider R: the Basic credential (base64 of merchant:secret) echoed by status, payment and refund calls', async () => {
    const SECRET = 'R-echo+s3cret/=-5510';
    const MERCHANT = '100778';
    const sim = await startProviderRSimulator({ merchant: MERCHANT, secret: SECRET });
    try {
      const build = (overrides: object) => createProviderR(sim.adapterConfig({ retry: 0, ...overrides }));
      const payment = await build({}).createPayment({
        customer: { id: 'c-1' },
        amount: 100,
        provider_metadata: { email: 'payer@example.com' },
      });
      sim.pay(payment.id);
      const body: EchoBody = (echoed) => JSON.stringify({ code: 1400, message: `Unauthorised: ${echoed}` });
      const cases = [
        {
          label: 'status',
          echoOn: /\/v1\.0\/status/,
          call: (a: never) => (a as ReturnType<typeof build>).retrievePayment(payment.id),
        },
        {
          label: 'payment',
          echoOn: /\/v2\.0\/payment$/,
          call: (a: never) =>
            (a as ReturnType<typeof build>).createPayment({
              customer: { id: 'c-2' },
              amount: 5,
              provider_metadata: { email: 'payer@example.com' },
            }),
        },
        {
          label: 'refund',
          echoOn: /refund/,
          call: (a: never) => (a as ReturnType<typeof build>).createRefund({ payment_id: payment.id }),
        },
      ];
      await expectEchoesClean('providerR', [SECRET], { body, build, cases });
    } finally {
      await sim.close();
    }
  });

  it('Provider N: the login Basic credential, the bearer token and responseCode echoed by login, init-transaction, query and refund', async () => {
    const API_KEY = 'N-echo-api+key-7781';
    const SECRET_KEY = 'N-echo-s3cret+key-1290';
    const sim = await startProviderNSimulator({
      credentials: { apiKey: API_KEY, secretKey: SECRET_KEY, webhookSecret: 'N-echo-webhook-4417' },
    });
    try {
      const build = (overrides: object) => createProviderN(sim.adapterConfig({ retry: 0, ...overrides }));
      type N = ReturnType<typeof build>;
      const checkout = {
        customer: { email: 'ada@example.com' },
        provider_metadata: { amount: 5000, currency: 'NGN' },
      };
      const created = await build({}).createCheckout(checkout);
      sim.complete(created.id);
      const body: EchoBody = (echoed) =>
        JSON.stringify({
          requestSuccessful: false,
          responseMessage: `Invalid ${echoed}`,
          responseCode: `R9 ${echoed}`,
        });
      const cases = [
        {
          label: 'login',
          echoOn: /\/v1\/auth\/login/,
          call: (a: never) => (a as N).retrievePayment(created.id),
        },
        {
          label: 'init-transaction',
          echoOn: /init-transaction/,
          call: (a: never) => (a as N).createCheckout(checkout),
        },
        {
          label: 'query',
          echoOn: /\/transactions\/query/,
          call: (a: never) => (a as N).retrievePayment(created.id),
        },
        {
          label: 'refund',
          echoOn: /refund/,
          call: (a: never) => (a as N).createRefund({ payment_id: created.id, amount: 10 }),
        },
      ];
      await expectEchoesClean('providerN', [API_KEY, SECRET_KEY], { body, build, cases });
    } finally {
      await sim.close();
    }
  });

  it('Provider T: the login Basic credential and the bearer token echoed by login, quote, update, commit, status and refund', async () => {
    const CLIENT_ID = 'T-echo-client+id-3391';
    const CLIENT_SECRET = 'T-echo-client+s3cret-6672';
    const sim = await startProviderTSimulator({
      keyPair: generateProviderTKeyPair(),
      credentials: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    });
    try {
      const build = (overrides: object) => createProviderT(sim.adapterConfig({ retry: 0, ...overrides }));
      type T = ReturnType<typeof build>;
      const payment = T_PAYMENT;
      const sent = await build({}).createPayment(payment);
      const body: EchoBody = (echoed) =>
        JSON.stringify({
          errors: [
            { category: 'AUTH', code: `C ${echoed}`, message: `denied ${echoed}`, offendingFields: [] },
          ],
        });
      const cases = [
        {
          label: 'login',
          echoOn: /\/oauth\/accesstoken/,
          call: (a: never) => (a as T).createPayment(payment),
        },
        { label: 'quote', echoOn: /\/quote$/, call: (a: never) => (a as T).createPayment(payment) },
        {
          label: 'update',
          echoOn: /^\/transfer\/v1\/transactions\/[^/]+$/,
          call: (a: never) => (a as T).createPayment(payment),
        },
        {
          label: 'commit',
          echoOn: /\/transfer\/.*\/commit$/,
          call: (a: never) => (a as T).createPayment(payment),
        },
        { label: 'status', echoOn: /^\/status\//, call: (a: never) => (a as T).retrievePayment(sent.id) },
        {
          label: 'refund',
          echoOn: /^\/refund\//,
          call: (a: never) => (a as T).createRefund({ payment_id: sent.id }),
        },
      ];
      await expectEchoesClean('providerT', [CLIENT_ID, CLIENT_SECRET], { body, build, cases });
    } finally {
      await sim.close();
    }
  });
});
