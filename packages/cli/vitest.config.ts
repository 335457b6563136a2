import { packageTests } from '@pay/tooling/vitest';

// The child-process test starts Node and a simulator: give it room on a loaded two-core machine.
export default packageTests({ testTimeout: 60_000 });
