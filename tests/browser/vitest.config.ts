import { packageTests } from '@pay/tooling/vitest';

// A headless Chromium start plus a page load per test: generous on a loaded two-core machine.
export default packageTests({ testTimeout: 60_000, hookTimeout: 60_000 });
