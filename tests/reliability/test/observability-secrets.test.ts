/**
 * No configured secret, credential or token reaches a channel message or a log line, in any error path
 * of any adapter (docs/architecture.md#diagnostics). This file runs the whole secrets suite again (secrets.test.ts
 * drives every error path of every adapter with distinctive secrets: bad configuration, wrong credentials,
 * provider errors echoing a secret or the Authorization header, network failures, unreadable replies, webhook
 * failures) with every channel subscribed, and scans every message, as it was when published, for each secret in
 * every spelling (raw, URL- and form-encoded, JSON-escaped, base64) and for every Authorization value and access
 * token seen on the wire. Then each adapter runs the paths that log (a hook that throws with the secret in its
 * message, retries after replies that echo it, a failed confirmation) through `createPay(adapter, { logger })`,
 * and every line is scanned too.
 */
import { readFileSync } from 'node:fs';
import {
  createMemoryDeduplicationStore,
  createMemoryReconciliationStore,
  createPay,
  createReconciler,
  PAY_CHANNELS,
} from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import { providerNWebhookRequest, startProviderNSimulator } from '@pay/provider-n/testing';
import { createProviderR } from '@pay/provider-r';
import { startProviderRSimulator } from '@pay/provider-r/testing';
import { createProviderT } from '@pay/provider-t';
import {
  generateProviderTKeyPair,
  sampleTransferMetadata,
  startProviderTSimulator,
} from '@pay/provider-t/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordChannels } from './channels.js';
import { credentialValues, reachableText, spellingsOf } from './support.js';

// Subscribed before the suite below is collected, so its every call publishes.
const channels = recordChannels();

/** Every secret literal of the secrets suite (`const SECRET = '…'`, `API_KEY`, `CLIENT_SECRET`, `WRONG`, …). */
function secretsOfSuite(): string[] {
  const source = readFileSync(new URL('./secrets.test.ts', import.meta.url), 'utf8');
  const found = [
    ...source.matchAll(
      /const (?:SECRET|WRONG|API_KEY|SECRET_KEY|WEBHOOK_SECRET|CLIENT_ID|CLIENT_SECRET) = ('(?:[^'\\]|\\.)*');/g,
    ),
  ].map((match) => new Function(`return ${match[1]}`)() as string);
  return [...new Set(found)];
}
const SUITE_SECRETS = secretsOfSuite();

/** Credentials seen on the wire: every Authorization value (and its parts) and every access token issued. */
const wire = new Set<string>();
const realFetch = globalThis.fetch;
beforeAll(() => {
  globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const authorization = request.headers.get('authorization');
    if (authorization) for (const value of credentialValues(authorization)) wire.add(value);
    const response = await realFetch(request);
    const text = await response.clone().text();
    for (const match of text.matchAll(/"(?:access_token|accessToken)"\s*:\s*"([^"]+)"/g))
      if (match[1]) wire.add(match[1]);
    return response;
  };
});

/** Log lines of every logger of this file, as the logger received them. */
const lines: unknown[][] = [];
const logger = {
  debug: (...args: unknown[]) => lines.push(['debug', ...args]),
  info: (...args: unknown[]) => lines.push(['info', ...args]),
  warn: (...args: unknown[]) => lines.push(['warn', ...args]),
  error: (...args: unknown[]) => lines.push(['error', ...args]),
};
const LOGGING_SECRETS = {
  r: 'R-log+s3cret/="\\-4107',
  nApi: 'N-log+api/=&-5512',
  nSecret: 'N-log+s3cret/="\\-6623',
  nWebhook: 'N-log+webhook/=&-7734',
  tId: 'T-log+client/=&-8845',
  tSecret: 'T-log+s3cret/="\\-9956',
};

afterAll(() => {
  globalThis.fetch = realFetch;
  channels.stop();
  const secrets = [...SUITE_SECRETS, ...Object.values(LOGGING_SECRETS), ...wire];
  // The suite ran and published: operations, calls, attempts and webhook deliveries, failed ones included.
  expect(SUITE_SECRETS.length).toBeGreaterThanOrEqual(10);
  expect(wire.size).toBeGreaterThan(5);
  for (const channel of Object.values(PAY_CHANNELS))
    expect(
      channels.messages.some((item) => item.channel === channel),
      channel,
    ).toBe(true);
  expect(channels.messages.filter((item) => item.event === 'error').length).toBeGreaterThan(20);
  for (const secret of secrets) {
    for (const spelling of spellingsOf(secret)) {
      const leak = channels.messages.find((item) => item.texts.some((text) => text.includes(spelling)));
      expect(
        leak &&
          `${leak.channel} ${leak.event} ${JSON.stringify(leak.message.call ?? leak.message.operation)}`,
        `a channel message contains the secret "${secret}" (as "${spelling}")`,
      ).toBeUndefined();
      const line = lines.find((entry) => reachableText(entry).some((text) => text.includes(spelling)));
      expect(line, `a log line contains the secret "${secret}" (as "${spelling}")`).toBeUndefined();
    }
  }
});

// Every error path of every adapter, with every channel subscribed.
await import('./secrets.test.js');

describe('log lines of every adapter carry no secret', () => {
  /** A hook that fails with the secret in its message, as careless application code might. */
  const throwingHooks = (secret: string) => ({
    onRequest: () => {
      throw new Error(`hook failed near ${secret} / ${encodeURIComponent(secret)}`);
    },
  });

  /** Provider N's credentials in the logging tests, each a secret the scan looks for. */
  const N_LOGGING_CREDENTIALS = {
    apiKey: LOGGING_SECRETS.nApi,
    secretKey: LOGGING_SECRETS.nSecret,
    webhookSecret: LOGGING_SECRETS.nWebhook,
  };

  it('Provider N: a reconciler run whose status reads are refused with replies echoing the key', async () => {
    const credentials = N_LOGGING_CREDENTIALS;
    const sim = await startProviderNSimulator({ credentials });
    try {
      const adapter = createProviderN({ ...sim.adapterConfig(), retry: 0 });
      const pay = createPay(adapter, { logger, reconcile: createMemoryReconciliationStore() });
      const handler = pay.webhooks.setup({
        webhookSecret: credentials.webhookSecret,
        deduplicate: createMemoryDeduplicationStore(),
      });
      await pay.checkouts.create({
        customer: { email: 'ada@example.com' },
        provider_metadata: { amount: 5000, currency: 'NGN' },
      });
      sim.faults.inject({
        path: /transactions/,
        method: 'GET',
        times: 5,
        fault: { kind: 'status', status: 503, body: `{"responseMessage":"down ${credentials.apiKey}"}` },
      });
      const before = lines.length;
      // The checkout's first read is due a few minutes after it was created: the reconciler's clock is ahead.
      const reconciler = createReconciler(pay, handler, { now: () => Date.now() + 10 * 60_000 });
      await reconciler.runOnce();
      const logged = lines.slice(before);
      expect(logged.filter(([level]) => level === 'warn').length).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
  });

  it('Provider R: a failing hook, retried reads after replies echoing the secret', async () => {
    const secret = LOGGING_SECRETS.r;
    const sim = await startProviderRSimulator({ merchant: '100779', secret });
    try {
      const adapter = createProviderR({
        merchant: '100779',
        secret,
        isSandbox: true,
        baseUrl: sim.url,
        retry: 2,
        hooks: throwingHooks(secret),
      });
      const pay = createPay(adapter, { logger });
      const before = lines.length;
      const payment = await pay.payments.create({
        customer: { id: 'c-log' },
        amount: 100,
        provider_metadata: { email: 'payer@example.com' },
      });
      sim.faults.inject({
        path: '/v1.0/status',
        times: 2,
        fault: { kind: 'status', status: 503, body: `unavailable for ${secret}` },
      });
      await pay.payments.retrieve(payment.id);
      const logged = lines.slice(before);
      expect(logged.filter(([level]) => level === 'warn').length).toBeGreaterThan(0);
      expect(logged.filter(([level]) => level === 'debug').length).toBeGreaterThanOrEqual(2);
    } finally {
      await sim.close();
    }
  });

  it('Provider N: a failing hook, retried reads, a webhook confirmation that fails', async () => {
    const credentials = N_LOGGING_CREDENTIALS;
    const sim = await startProviderNSimulator({ credentials });
    try {
      const adapter = createProviderN({
        ...sim.adapterConfig(),
        retry: 2,
        hooks: throwingHooks(credentials.secretKey),
      });
      const pay = createPay(adapter, { logger });
      const before = lines.length;
      const checkout = await pay.checkouts.create({
        customer: { email: 'ada@example.com' },
        provider_metadata: { amount: 5000, currency: 'NGN' },
      });
      sim.faults.inject({
        path: /transactions/,
        method: 'GET',
        times: 2,
        fault: { kind: 'status', status: 503, body: `{"responseMessage":"down ${credentials.apiKey}"}` },
      });
      await pay.payments.retrieve(checkout.id);
      // A confirmation read of the webhook is answered 503 (echoing the key) as long as it is retried.
      sim.faults.inject({
        path: /transactions/,
        method: 'GET',
        times: 3,
        fault: { kind: 'status', status: 503, body: `{"responseMessage":"down ${credentials.secretKey}"}` },
      });
      const handler = pay.webhooks.setup({ webhookSecret: credentials.webhookSecret });
      const delivery = await providerNWebhookRequest(
        {
          eventType: 'SUCCESSFUL_TRANSACTION',
          eventData: {
            transactionReference: checkout.id,
            paymentStatus: 'PAID',
            amountPaid: 50,
            totalPayable: 50,
          },
        },
        { webhookSecret: credentials.webhookSecret },
      );
      // Answered or refused, the delivery's confirmation read went through the retrying client.
      await handler.handle(delivery).catch(() => undefined);
      const logged = lines.slice(before);
      expect(logged.filter(([level]) => level === 'warn').length).toBeGreaterThan(0);
      expect(logged.filter(([level]) => level === 'debug').length).toBeGreaterThanOrEqual(2);
    } finally {
      await sim.close();
    }
  });

  it('Provider T: a failing hook, a login and commit retried after replies echoing the secret', async () => {
    const keyPair = generateProviderTKeyPair();
    const sim = await startProviderTSimulator({
      keyPair,
      credentials: { clientId: LOGGING_SECRETS.tId, clientSecret: LOGGING_SECRETS.tSecret },
    });
    try {
      const adapter = createProviderT({
        ...sim.adapterConfig,
        retry: 2,
        hooks: throwingHooks(LOGGING_SECRETS.tSecret),
      });
      const pay = createPay(adapter, { logger });
      const before = lines.length;
      const echo = JSON.stringify({
        errors: [{ code: 'X', message: `busy ${LOGGING_SECRETS.tId} ${LOGGING_SECRETS.tSecret}` }],
      });
      sim.faults.inject({ path: '/oauth/accesstoken', fault: { kind: 'status', status: 503, body: echo } });
      sim.faults.inject({ path: /\/commit$/, fault: { kind: 'status', status: 503, body: echo } });
      await pay.payments.create(
        { amount: 100, currency: 'USD', provider_metadata: sampleTransferMetadata },
        { idempotencyKey: 'order-log-1' },
      );
      const logged = lines.slice(before);
      expect(logged.filter(([level]) => level === 'warn').length).toBeGreaterThan(0);
      expect(logged.filter(([level]) => level === 'debug').length).toBeGreaterThanOrEqual(2);
    } finally {
      await sim.close();
    }
  });
});
