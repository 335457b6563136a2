import { packageTests } from '@pay/tooling/vitest';

// A registry, four releases and a handful of npm and pnpm installs take a while on a two-core machine.
export default packageTests({ testTimeout: 300_000, hookTimeout: 300_000 });
