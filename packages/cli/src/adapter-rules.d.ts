/** The types of adapter-rules.js: the checks `pay check` and the workspace's lint scripts share. */

/**
 * Every use of a `node:` built-in or of `Buffer` in the runtime sources of the package in `packageDir` (its
 * `src/`, but `src/testing/` and tests), as `<file>:<line> uses a node: built-in`, the file relative to `base`.
 */
export function runtimeImportOffences(packageDir: string, base: string): string[];

/** Every name a module exports (functions, constants, classes, types and re-exports), by reading its text. */
export function exportedNames(text: string): Set<string>;

/**
 * Every departure of the adapter package in `packageDir` from the file set and role names of CONTRIBUTING.md's
 * table, as lines for a reader, each file relative to `base`.
 */
export function adapterIssues(packageDir: string, base: string): string[];
