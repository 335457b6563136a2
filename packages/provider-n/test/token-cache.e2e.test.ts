/**
 * A shared token cache (docs/architecture.md#access-tokens): instances configured with one `tokenStore` reuse one
 * provider login until it expires, instead of logging in once each.
 */
import { createMemoryTokenStore } from '@pay/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProviderN } from '../src/index.js';
import { type ProviderNSimulator, startProviderNSimulator } from '../src/testing/index.js';

let simulator: ProviderNSimulator;

beforeEach(async () => {
  simulator = await startProviderNSimulator();
});

afterEach(async () => {
  await simulator.close();
});

function instance(tokenStore?: ReturnType<typeof createMemoryTokenStore>) {
  return createProviderN({
    apiKey: simulator.credentials.apiKey,
    secretKey: simulator.credentials.secretKey,
    contractCode: simulator.credentials.contractCode,
    isSandbox: true,
    baseUrl: simulator.url,
    ...(tokenStore ? { tokenStore } : {}),
  });
}

describe('Provider N with a shared token cache', () => {
  it('lets a second instance reuse the first instance’s login', async () => {
    const tokenStore = createMemoryTokenStore();
    await instance(tokenStore).retrievePayment('MNFY|missing|1');
    await instance(tokenStore).retrievePayment('MNFY|missing|2');
    expect(simulator.books.logins).toBe(1);
  });

  it('logs in once per instance without one', async () => {
    await instance().retrievePayment('MNFY|missing|1');
    await instance().retrievePayment('MNFY|missing|2');
    expect(simulator.books.logins).toBe(2);
  });

  it('refuses a tokenStore that is not a store, naming the member', () => {
    expect(() =>
      createProviderN({ apiKey: 'k', secretKey: 's', isSandbox: true, tokenStore: {} as never }),
    ).toThrow(/tokenStore/);
  });
});
