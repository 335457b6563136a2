/**
 * What the library warns about in production (docs/architecture.md#logger): an in-memory store keeps its keys in
 * one process, so a second instance, or a restart, moves money twice or runs a webhook twice.
 */

/** Non-enumerable mark of core's in-memory stores (a store spread into a wrapper loses it, on purpose). */
const IN_MEMORY = Symbol.for('@pay/core.in-memory-store');

/** Marks a store as one process's memory and returns it. */
export function markInMemory<S extends object>(store: S): S {
  Object.defineProperty(store, IN_MEMORY, { value: true, enumerable: false });
  return store;
}

/** True for a store made by core's in-memory factories. */
export function isInMemory(store: unknown): boolean {
  return (
    typeof store === 'object' && store !== null && (store as Record<symbol, unknown>)[IN_MEMORY] === true
  );
}

/** `NODE_ENV === 'production'`, read from the runtime's environment when it has one (never on import). */
export function inProduction(): boolean {
  const runtime = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  try {
    return runtime?.env?.NODE_ENV === 'production';
  } catch {
    return false;
  }
}
