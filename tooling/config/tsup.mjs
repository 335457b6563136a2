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
    // No keepNames: it wraps every function in a run-time `__name()` call, closures made on every provider call
    // included (tooling/bench `overhead.latency20ms`). Error classes name themselves instead (PayError's static
    // `kind`, a `name` field on the others), so a bundler's renaming never reaches `error.name`. A class that
    // names itself inside its body would still be renamed (`class _ProviderApiError`, which `console.log` prints):
    // tests/packaging checks that every exported class of the installed tarballs keeps its name.
  });
}
