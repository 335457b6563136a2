import { packageTests } from '@pay/tooling/vitest';

// The parent process of these tests starts one PostgreSQL and one Redis server for the run (test/global-setup.ts),
// the provider simulators, and child processes that import the BUILT packages (turbo.json: `^build` first).
// Each test file drives several Node processes at once: files run one after another so that two cores are enough
// and no wait races another file's processes.
const config = packageTests({
  globalSetup: ['test/global-setup.ts'],
  fileParallelism: false,
  testTimeout: 60_000,
  hookTimeout: 60_000,
});

// The parent imports the simulators as users would, from the built packages: no `@pay/source` condition.
// `import` is left out because `pg` is CommonJS and requires `pg-pool`, whose `import` condition is an ES module
// wrapper (the same reason as in packages/store-postgres/vitest.config.ts).
const conditions = ['node'];
export default {
  ...config,
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
};
