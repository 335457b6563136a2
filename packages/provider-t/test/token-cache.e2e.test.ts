/**
 * A shared token cache (docs/architecture.md#access-tokens): instances configured with one `tokenStore` reuse one
 * provider login until it expires, instead of logging in once each.
 */
import { createMemoryTokenStore } from '@pay/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProviderT } from '../src/index.js';
import { type ProviderTSimulator, startProviderTSimulator } from '../src/testing/index.js';

let simulator: ProviderTSimulator;

beforeEach(async () => {
  simulator = await startProviderTSimulator();
});

afterEach(async () => {
  await simulator.close();
});

function instance(tokenStore?: ReturnType<typeof createMemoryTokenStore>) {
  return createProviderT({ ...simulator.adapterConfig, ...(tokenStore ? { tokenStore } : {}) });
}

describe('Provider T with a shared token cache', () => {
  it('lets a second instance reuse the first instance’s login', async () => {
    const tokenStore = createMemoryTokenStore();
    await instance(tokenStore).retrievePayment('11111111');
    await instance(tokenStore).retrievePayment('22222222');
    expect(simulator.tokensIssued).toBe(1);
  });

  it('logs in once per instance without one', async () => {
    await instance().retrievePayment('11111111');
    await instance().retrievePayment('22222222');
    expect(simulator.tokensIssued).toBe(2);
  });
});
