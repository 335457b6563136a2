/**
 * `PROVIDER_T_WEBHOOK_PUBLIC_KEY` (docs/architecture.md#local-loop): the default factory verifies webhooks with
 * the key in the environment, so an app switches its webhook verification to the simulator of `pay dev` without a
 * code change. End to end over loopback: the simulator signs, the handler of `providerT()` verifies and reads the
 * status back.
 */
import { createPublicKey } from 'node:crypto';
import { ConfigurationError, createPay, type Payment, toNodeListener } from '@pay/core';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { providerT } from '../src/index.js';
import {
  generateProviderTKeyPair,
  type ProviderTSimulator,
  startProviderTSimulator,
} from '../src/testing/index.js';
import { thrownBy } from './fixtures.js';

let sim: ProviderTSimulator;
let app: LoopbackServer | undefined;
/** One signing key for the file's simulators: an RSA key pair takes a fifth of a second of CPU to generate. */
const keyPair = generateProviderTKeyPair();

beforeEach(async () => {
  sim = await startProviderTSimulator({ keyPair });
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await sim.close();
  await app?.close();
  app = undefined;
});

/** The simulator's public key as PEM (the form a provider's dashboard hands out). */
function simulatorPem(): string {
  return createPublicKey({ key: Buffer.from(sim.publicKey, 'base64'), format: 'der', type: 'spki' })
    .export({ type: 'spki', format: 'pem' })
    .toString();
}

/** The `PROVIDER_T_*` variables of the simulator (as `pay dev provider-t` prints them), with `publicKey`. */
function stubSimulatorEnv(publicKey: string | undefined) {
  const config = sim.adapterConfig();
  vi.stubEnv('PROVIDER_T_CLIENT_ID', config.clientId);
  vi.stubEnv('PROVIDER_T_CLIENT_SECRET', config.clientSecret);
  vi.stubEnv('PROVIDER_T_AGENT_PARTNER_ID', config.agentPartnerId);
  vi.stubEnv('PROVIDER_T_OPERATOR_ID', config.operatorId);
  vi.stubEnv('PROVIDER_T_SANDBOX', 'true');
  vi.stubEnv('PROVIDER_T_BASE_URL', sim.url);
  if (publicKey !== undefined) vi.stubEnv('PROVIDER_T_WEBHOOK_PUBLIC_KEY', publicKey);
}

/** An app whose handler comes from the default factory; resolves its URL and the events it dispatched. */
async function appFromEnvironment() {
  const events: { id: string; data: Payment }[] = [];
  const handler = createPay(providerT({ retry: 0 }))
    .webhooks.setup({ webhookSecret: null })
    .on('payment.succeeded', (event) => void events.push({ id: event.id, data: event.data }));
  app = await startLoopbackServer(toNodeListener(handler));
  return { url: `${app.url}/webhooks/provider-t`, events };
}

describe('PROVIDER_T_WEBHOOK_PUBLIC_KEY', () => {
  it.each([
    ['PEM with line breaks', () => simulatorPem()],
    [
      'PEM on one line with \\n escapes (a shell export or one-line .env value)',
      () => simulatorPem().trimEnd().replaceAll('\n', '\\n'),
    ],
    ['base64 SPKI DER (what pay dev provider-t prints)', () => sim.publicKey],
  ])(
    'providerT() verifies the simulator’s webhooks with the key in the environment: %s',
    async (_form, key) => {
      stubSimulatorEnv(key());
      const target = await appFromEnvironment();
      const reply = await sim.trigger('payment.succeeded', { to: target.url, eventId: 'evt-env-key' });
      expect(reply.status).toBe(200);
      const [transfer] = sim.books().transfers;
      expect(target.events.map((event) => [event.id, event.data.id, event.data.status])).toEqual([
        ['evt-env-key:payment.succeeded', transfer?.transactionId, 'succeeded'],
      ]);
    },
  );

  it('unset, the sandbox key of the wire contract is used: the simulator’s delivery is refused as forged', async () => {
    stubSimulatorEnv(undefined);
    const target = await appFromEnvironment();
    const reply = await sim.trigger('payment.succeeded', { to: target.url });
    expect(reply.status).toBe(400);
    expect(target.events).toEqual([]);
  });

  it('takes several keys separated by commas while Provider T rotates its key: either one verifies', async () => {
    const retiring = generateProviderTKeyPair().publicKey;
    stubSimulatorEnv(`${retiring},${simulatorPem().trimEnd().replaceAll('\n', '\\n')}`);
    const target = await appFromEnvironment();
    const reply = await sim.trigger('payment.succeeded', { to: target.url, eventId: 'evt-two-keys' });
    expect(reply.status).toBe(200);
    expect(target.events.map((event) => event.id)).toEqual(['evt-two-keys:payment.succeeded']);
  });

  it('an explicit webhookPublicKey wins over the variable', async () => {
    stubSimulatorEnv('not a key');
    expect(() => providerT({ webhookPublicKey: sim.publicKey })).not.toThrow();
  });

  it('a value that is not a public key is a ConfigurationError naming the member, never quoting the value', () => {
    stubSimulatorEnv('-----BEGIN PUBLIC KEY-----\\nnot-base64!\\n-----END PUBLIC KEY-----');
    const error = thrownBy(() => providerT());
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(
      '`webhookPublicKey` must be an SPKI public key as base64 DER or PEM',
    );
    expect((error as Error).message).not.toContain('not-base64');
  });
});
