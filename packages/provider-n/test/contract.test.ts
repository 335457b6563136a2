/** Provider N honours the adapter contract (docs/architecture.md#conformance-suite). */
import { runAdapterContract } from '@pay/core/testing/contract';
import { providerNContract } from './contract.js';

runAdapterContract(providerNContract);
