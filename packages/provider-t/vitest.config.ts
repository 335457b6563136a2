import { packageTests } from '@pay/tooling/vitest';

// Two test files at a time: most of this package's test time is spent waiting (the conformance suite's timeouts,
// the simulators' delays), and one file at a time made it the last package the test command waits for.
export default packageTests({ maxWorkers: 2 });
