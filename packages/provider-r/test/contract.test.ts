/** Provider R honours the adapter contract (docs/architecture.md#conformance-suite). */
import { runAdapterContract } from '@pay/core/testing/contract';
import { providerRContract } from './contract.js';

runAdapterContract(providerRContract);
