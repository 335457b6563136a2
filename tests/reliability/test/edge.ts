import { fileURLToPath } from 'node:url';
import { EdgeVM } from '@edge-runtime/vm';
import { build } from 'esbuild';

/**
 * Bundles a package entry for the browser platform (so any `node:` import fails the build) and evaluates it in
 * an Edge Runtime VM: a fresh context with Web APIs only, no `require`, no `process`, no `Buffer`.
 */
export async function loadInEdgeRuntime<T>(entry: string): Promise<{ lib: T; vm: EdgeVM }> {
  const result = await build({
    entryPoints: [fileURLToPath(import.meta.resolve(entry))],
    bundle: true,
    format: 'iife',
    globalName: '__payEntry',
    platform: 'browser',
    conditions: ['@pay/source'],
    write: false,
    logLevel: 'silent',
  });
  const vm = new EdgeVM();
  vm.evaluate(`${result.outputFiles[0]!.text};globalThis.__payEntry = __payEntry;`);
  return { lib: vm.context.__payEntry as T, vm };
}
