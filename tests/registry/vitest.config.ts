import { packageTests } from '@pay/tooling/vitest';

// Packing, a real npm install and a type check take a while on a two-core machine.
export default packageTests({ testTimeout: 300_000, hookTimeout: 300_000 });
