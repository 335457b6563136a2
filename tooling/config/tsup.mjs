// Shared build preset: ESM only (ky is ESM-only), .d.ts emitted, one file per entry point.
import { defineConfig } from 'tsup';

/** @param {Record<string, string>} entry entry name → source file */
export function packageBuild(entry) {
  return defineConfig({
    entry,
    format: ['esm'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'es2022',
    platform: 'neutral',
    splitting: true,
    treeshake: true,
  });
}
