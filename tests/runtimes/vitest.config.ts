import { packageTests } from '@pay/tooling/vitest';

// Each file starts a runtime process and three simulators: one file at a time, so they do not compete for the
// two cores with each other.
export default packageTests({ fileParallelism: false, testTimeout: 30_000, hookTimeout: 30_000 });
