import { defineConfig } from 'tsup';

// The demo imports only the public entry points (`@pay/core`, `@pay/provider-*`, their `/testing`), bundled from
// their sources through the `@pay/source` condition: one fast esbuild pass, so `pnpm demo` needs no package build.
export default defineConfig({
  entry: { demo: 'src/demo.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  clean: true,
  noExternal: [/.*/],
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  esbuildOptions(options) {
    options.conditions = ['@pay/source', 'import', 'module', 'default'];
  },
});
