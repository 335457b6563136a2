// Shared test preset. Sibling packages resolve from source through the `@pay/source` export condition,
// so no build is needed between packages. Vite 8 reads custom conditions for Node-side tests only from
// `ssr.resolve.conditions`.
import { defineConfig } from 'vitest/config';

const conditions = ['@pay/source', 'node', 'import', 'module', 'default'];

/** @param {import('vitest/config').UserConfig['test']} [test] overrides for one package */
export function packageTests(test = {}) {
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: conditions } },
    test: {
      include: ['test/**/*.test.ts'],
      reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
      typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
      testTimeout: 20_000,
      hookTimeout: 20_000,
      ...test,
    },
  });
}
