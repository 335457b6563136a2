/**
 * The adapter contract suite (docs/architecture.md#testing): every adapter package runs it from its own tests, so the promises
 * `@pay/core` makes hold for every provider alike.
 */
import { describe, it } from 'vitest';
import type { AnyAdapter } from '../adapter.js';
import { type AdapterContract, adapterContractChecks } from './contract-suite.js';
import type { AnySimulator } from './contract-types.js';

export {
  CONTRACT_MUTATIONS,
  type ContractMutation,
  checkContractMutation,
  type MutationOutcome,
} from './contract-mutations.js';
export {
  type AdapterContract,
  adapterContractChecks,
  type ContractFinding,
  checkAdapterContract,
} from './contract-suite.js';
export type {
  AmountContract,
  AnyDescriptor,
  AnySimulator,
  ContractCheck,
  FaultedStep,
  MoneyMovingCall,
  SimulatorContext,
  SimulatorContract,
  StatusContract,
  SuiteCallSettings,
  SupportedCurrency,
} from './contract-types.js';

/** Registers the contract suite with vitest: one `describe` block, one test per check. */
export function runAdapterContract<S extends AnySimulator, A extends AnyAdapter>(
  contract: AdapterContract<S, A>,
): void {
  describe(`${contract.name} honours the adapter contract`, () => {
    for (const { name, run } of adapterContractChecks(contract)) it(name, run, 30_000);
  });
}
