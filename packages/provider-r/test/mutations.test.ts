/**
 * The mutation corpus over Provider R's contract (docs/architecture.md#conformance-suite): each planted bug must
 * make the conformance suite fail.
 */
import { CONTRACT_MUTATIONS, checkContractMutation } from '@pay/core/testing/contract';
import { describe, expect, it } from 'vitest';
import { providerRContract } from './contract.js';

describe('the conformance suite catches each bug planted into Provider R', () => {
  it.each(CONTRACT_MUTATIONS.map((mutation) => [mutation.name, mutation] as const))(
    '%s',
    async (_name, mutation) => {
      const outcome = await checkContractMutation(providerRContract, mutation);
      if (outcome.applicable)
        expect(outcome.caught, `${mutation.name} passed ${mutation.caughtBy}`).toBe(true);
    },
    60_000,
  );
});
