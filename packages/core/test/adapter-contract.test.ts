/**
 * The adapter contract's version (docs/architecture.md#adapter-contract-version): `createPay` refuses an adapter
 * built for another contract before any call, naming both versions; an adapter built for this one, or one that
 * declares none, is taken.
 */
import { describe, expect, it } from 'vitest';
import { ADAPTER_CONTRACT, defineAdapter } from '../src/adapter-toolkit.js';
import { ConfigurationError, createPay } from '../src/index.js';
import { payment, type TestTypes, testAdapter } from './fixtures.js';

/** An adapter as `defineAdapter` builds it, declaring `contract` (cast: a number the types may not allow). */
function adapterBuiltFor(contract: number | undefined, calls: unknown[] = []) {
  return defineAdapter<TestTypes>({
    provider: 'providerN',
    ...(contract === undefined ? {} : { contract: contract as typeof ADAPTER_CONTRACT }),
    operations: {
      async retrievePayment(id) {
        calls.push(id);
        return payment(id);
      },
    },
    webhooks: {
      rawEventNames: [],
      secret: 'required',
      verify: async () => ({ key: 'unused', events: async () => [] }),
    },
  });
}

describe('the adapter contract version createPay checks', () => {
  it('is 1, and defineAdapter carries what the adapter declares', () => {
    expect(ADAPTER_CONTRACT).toBe(1);
    expect(adapterBuiltFor(1).contract).toBe(1);
    expect('contract' in adapterBuiltFor(undefined)).toBe(false);
  });

  it('takes an adapter built for this contract, and one that declares none', async () => {
    const calls: unknown[] = [];
    await expect(
      createPay(adapterBuiltFor(ADAPTER_CONTRACT, calls)).payments.retrieve('p-1'),
    ).resolves.toMatchObject({
      id: 'p-1',
    });
    expect(calls).toEqual(['p-1']);
    expect(() => createPay(testAdapter())).not.toThrow();
  });

  it.each([
    ['an older', ADAPTER_CONTRACT - 1],
    ['a newer', ADAPTER_CONTRACT + 1],
  ])(
    'refuses an adapter built for %s contract with a ConfigurationError naming both versions',
    (_, built) => {
      const calls: unknown[] = [];
      const adapter = adapterBuiltFor(built, calls);
      let thrown: unknown;
      try {
        createPay(adapter);
      } catch (error) {
        thrown = error;
      }
      expect(ConfigurationError.isInstance(thrown)).toBe(true);
      expect((thrown as ConfigurationError).code).toBe('configuration_error');
      expect((thrown as Error).message).toBe(
        `The providerN adapter was built for @pay/core adapter contract ${built}, but the installed @pay/core implements adapter contract ${ADAPTER_CONTRACT}: install the adapter release whose peer range on @pay/core includes the installed core (npm ls @pay/core), or the @pay/core that range names.`,
      );
      expect(calls).toEqual([]);
    },
  );

  it('checks a spread copy of an adapter too (its contract is an own, enumerable member)', () => {
    const copy = { ...adapterBuiltFor(ADAPTER_CONTRACT + 1) };
    expect(() => createPay(copy)).toThrow(ConfigurationError);
  });
});
