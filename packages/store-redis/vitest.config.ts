import { packageTests } from '@pay/tooling/vitest';

// The global setup stops any redis-server a crashed test worker left running (see test/global-setup.ts).
export default packageTests({ globalSetup: ['test/global-setup.ts'] });
