import { packageTests } from '@pay/tooling/vitest';

// Each recipe runs on a real server over loopback: a few seconds at most, even on a loaded two-core machine (the
// Next.js build and start in next.test.ts have their own, longer, hook timeout).
const config = packageTests({ testTimeout: 30_000 });
// Vitest passes `ssr.resolve.conditions` to the test workers as Node `--conditions` flags. The preset's list
// includes `import`, which makes Express 5's router `require('is-promise')` load that package's ES module build (a
// namespace object, not the function) and every Express 5 request fail. Node adds `import`/`require` by itself.
if (config.ssr?.resolve) {
  config.ssr.resolve.conditions = ['@pay/source', 'node'];
  config.ssr.resolve.externalConditions = ['@pay/source', 'node'];
}
export default config;
