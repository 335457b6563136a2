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
    // Error classes name themselves from their class (error.name in every log line): esbuild would otherwise
    // rename a class it lowers, and users would read `_ProviderApiError`.
    keepNames: true,
  });
}
