/** Provider T honours the adapter contract (docs/architecture.md#conformance-suite). */
import { runAdapterContract } from '@pay/core/testing/contract';
import { providerTContract } from './contract.js';

runAdapterContract(providerTContract);
