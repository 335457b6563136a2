import { defineConfig } from 'tsup';

// The demo runs the built packages, exactly as an application would import them.
export default defineConfig({
  entry: { demo: 'src/demo.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  clean: true,
  external: [/^@pay\//],
});
