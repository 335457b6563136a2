/**
 * Objects an adapter reports created outside a `Pay` call's return value (docs/architecture.md#reconciliation),
 * routed to every `Pay` over that adapter with a reconciliation store.
 */
import type { WatchedKind } from './store.js';

/** What `createPay` (with a reconciliation store) registers to learn of objects its adapter reports created. */
type CreatedWatcher = (kind: WatchedKind, id: string) => Promise<void>;
const CREATED_WATCHERS = new WeakMap<object, Set<CreatedWatcher>>();

/** Makes `watcher` hear every {@link watchCreated} of `adapter` (one per `Pay` with a reconciliation store). */
export function onCreatedBy(adapter: object, watcher: CreatedWatcher): void {
  const watchers = CREATED_WATCHERS.get(adapter) ?? new Set();
  CREATED_WATCHERS.set(adapter, watchers.add(watcher));
}

/**
 * For adapters: reports an object the provider created whose id the operation does not return (Provider R's
 * checkout resolves to `null`; a provider-specific method such as `createCheckoutRedirect` bypasses `Pay`), so
 * every `Pay` over `adapter` with a reconciliation store watches it (docs/architecture.md#reconciliation). Call it
 * once the provider answered, before returning. Never throws: a failure to register is logged by each `Pay`.
 */
export async function watchCreated(adapter: object, kind: WatchedKind, id: string): Promise<void> {
  const watchers = [...(CREATED_WATCHERS.get(adapter) ?? [])];
  await Promise.all(watchers.map((watcher) => watcher(kind, id)));
}
