import { ConfigurationError } from '@pay/core';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createProviderT, PROVIDER_T_BASE_URLS, providerT } from '../src/index.js';
import { errorBody, statusReply, TRANSACTION_ID, thrownBy } from './fixtures.js';

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  vi.unstubAllEnvs();
  nock.cleanAll();
});

const ENV = {
  PROVIDER_T_CLIENT_ID: 'env-client',
  PROVIDER_T_CLIENT_SECRET: 'env-secret-value',
  PROVIDER_T_AGENT_PARTNER_ID: '30014857',
  PROVIDER_T_OPERATOR_ID: 'op-1',
  PROVIDER_T_SANDBOX: 'true',
};

function stubEnv(values: Record<string, string>) {
  for (const [name, value] of Object.entries(values)) vi.stubEnv(name, value);
}

describe('providerT() (environment)', () => {
  it('names every missing variable and the member that replaces it', () => {
    stubEnv(Object.fromEntries(Object.keys(ENV).map((name) => [name, ''])));
    const error = thrownBy(() => providerT());
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as ConfigurationError).missing).toEqual(Object.keys(ENV));
    expect((error as Error).message).toContain('PROVIDER_T_OPERATOR_ID (or the config member `operatorId`)');
  });

  it('reads the environment when called, with explicit overrides winning', async () => {
    stubEnv({ ...ENV, PROVIDER_T_POS_ID: '09' });
    nock(PROVIDER_T_BASE_URLS.sandbox)
      .get('/oauth/accesstoken')
      .query(true)
      .basicAuth({ user: 'override-client', pass: 'env-secret-value' })
      .reply(200, { access_token: 't', expires_in: 3599 });
    nock(PROVIDER_T_BASE_URLS.sandbox)
      .get(`/status/v1/transactions/${TRANSACTION_ID}`)
      .query({ targetAudience: 'AGENT_FACING', agentPartnerId: '30014857', userLanguage: 'en-US' })
      .reply(200, statusReply());
    const adapter = providerT({ clientId: 'override-client' });
    expect(await adapter.retrievePayment(TRANSACTION_ID)).not.toBeNull();
  });

  it('uses the production host unless PROVIDER_T_SANDBOX is true', async () => {
    stubEnv({ ...ENV, PROVIDER_T_SANDBOX: 'FALSE' });
    nock(PROVIDER_T_BASE_URLS.production)
      .get('/oauth/accesstoken')
      .query(true)
      .reply(200, { access_token: 't', expires_in: 3599 });
    nock(PROVIDER_T_BASE_URLS.production)
      .get(`/status/v1/transactions/${TRANSACTION_ID}`)
      .query(true)
      .reply(404, errorBody('TRANSACTION_NOT_FOUND', 'Unknown transaction'));
    expect(await providerT().retrievePayment(TRANSACTION_ID)).toBeNull();
  });

  it('refuses a sandbox switch that is not true or false, never falling back to production', () => {
    stubEnv({ ...ENV, PROVIDER_T_SANDBOX: 'yes' });
    expect(() => providerT()).toThrow(ConfigurationError);
  });
});

describe('createProviderT() (explicit)', () => {
  const config = {
    clientId: 'c',
    clientSecret: 'secret-1',
    agentPartnerId: 'a',
    operatorId: 'o',
    isSandbox: true,
  };

  it('does no I/O when created', () => {
    const fetch = vi.fn();
    createProviderT({ ...config, fetch });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('names each invalid member', () => {
    expect(() => createProviderT({ ...config, clientId: '', isSandbox: 'true' } as never)).toThrow(
      /clientId.*isSandbox/,
    );
  });

  it('refuses a webhook public key that is not an SPKI key', () => {
    expect(() => createProviderT({ ...config, webhookPublicKey: 'not a key!' })).toThrow(/webhookPublicKey/);
  });
});

describe('webhook host (docs/providers/provider-t.md#webhooks)', () => {
  it('reads PROVIDER_T_WEBHOOK_HOST and verifies production webhooks against it', async () => {
    const { generateProviderTKeyPair, providerTStatusEvent, signedProviderTWebhook } = await import(
      '../src/testing/index.js'
    );
    const { createPay } = await import('@pay/core');
    const keys = generateProviderTKeyPair();
    stubEnv({ ...ENV, PROVIDER_T_SANDBOX: 'false', PROVIDER_T_WEBHOOK_HOST: 'Pay.Shop.Example' });
    const handler = createPay(providerT({ webhookPublicKey: keys.publicKey })).webhooks.setup({
      webhookSecret: null,
    });
    const event = providerTStatusEvent({ transactionId: TRANSACTION_ID, transactionStatus: 'ON_HOLD' });
    const signedForUs = signedProviderTWebhook({
      event,
      url: 'https://pay.shop.example/hooks',
      privateKey: keys.privateKey,
    });
    // A status this adapter does not know raises the raw event with no upstream call: verification alone.
    const { events } = await handler.handle({ ...signedForUs, fullUrl: 'http://127.0.0.1:3000/hooks' });
    expect(events.map((e) => e.type)).toEqual(['providerT.TRANSACTION_STATUS_EVENT']);
  });

  it('refuses a webhook host with a scheme or a path', () => {
    for (const webhookHost of ['https://shop.example', 'shop.example/hooks']) {
      expect(() =>
        createProviderT({
          clientId: 'c',
          clientSecret: 's',
          agentPartnerId: '1',
          operatorId: 'o',
          isSandbox: false,
          webhookHost,
        }),
      ).toThrow(ConfigurationError);
    }
  });
});
