// Shared test preset. Sibling packages resolve from source through the `@pay/source` export condition,
// so no build is needed between packages. Vite 8 reads custom conditions for Node-side tests only from
// `ssr.resolve.conditions`.
import { defineConfig } from 'vitest/config';

const conditions = ['@pay/source', 'node', 'import', 'module', 'default'];

// A package with type tests (test/**/*.test-d.ts) runs them as its `typecheck` script, `vitest run
// --typecheck.only`, which type-checks the whole package once and reports to its own file; its test task leaves them
// out, so the package is not type-checked a second time.
const TYPES_ONLY = process.argv.includes('--typecheck.only');

/** @param {import('vitest/config').UserConfig['test']} [test] overrides for one package */
export function packageTests(test = {}) {
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: conditions } },
    test: {
      include: ['test/**/*.test.ts'],
      reporters: [
        'default',
        ['json', { outputFile: TYPES_ONLY ? 'reports/types.json' : 'reports/vitest.json' }],
      ],
      typecheck: { enabled: false, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
      testTimeout: 20_000,
      hookTimeout: 20_000,
      ...test,
    },
  });
}
