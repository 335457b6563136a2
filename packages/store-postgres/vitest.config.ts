import { packageTests } from '@pay/tooling/vitest';

// Every test file talks to the real PostgreSQL server that test/global-setup.ts starts (and stops).
const config = packageTests({ globalSetup: ['test/global-setup.ts'] });

// Vitest hands `ssr.resolve.conditions` to the test workers as Node `--conditions`, which also steer `require`.
// `pg` is CommonJS and requires `pg-pool`, whose `import` condition is an ES module wrapper: with the preset's
// `import` condition, that require would load the wrapper instead of the Pool class. `import` is left out here.
const conditions = ['@pay/source', 'node'];
export default {
  ...config,
  ssr: { resolve: { conditions, externalConditions: conditions } },
};
