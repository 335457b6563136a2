import { packageTests } from '@pay/tooling/vitest';

// Load and fault tests run real loopback servers; files run one at a time so they do not starve each other
// on a two-core machine.
export default packageTests({ fileParallelism: false, testTimeout: 60_000 });
