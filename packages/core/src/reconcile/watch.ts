/** What the library created, registered with the reconciler's store, and the schedule of its reads. */
import type { AnyAdapter } from '../adapter.js';
import type { PayLogger } from '../diagnostics/logger.js';
import { ConfigurationError, ValidationError } from '../errors.js';
import type { Operation } from '../operations.js';
import { withinStoreDeadline } from '../stores.js';
import { handlerInternals } from '../webhooks/handler.js';
import type { ReconciliationStore, WatchedKind } from './store.js';

/**
 * How long core waits for one reconciliation store call by default (10 s; `storeTimeoutMs` of the reconciler):
 * above the store packages' own 5 s deadline, so theirs fires first and names the call; this one bounds a store
 * that keeps none, so a hung store never holds a run, a money call or `stop()` (docs/architecture.md#reconciliation).
 */
export const STORE_DEADLINE_MS = 10_000;

/** The first read of a new object: two minutes after it was created, time enough for its webhook to come. */
export const FIRST_READ_DELAY_MS = 2 * 60_000;
/** The longest wait between two reads of one object: one hour. */
export const MAX_READ_DELAY_MS = 60 * 60_000;
/**
 * How long an object is watched, final status or not: 3 days, less than the webhook deduplication's default
 * retention (7 days), so a transition delivered by a read is still remembered when its late webhook comes.
 */
export const WATCH_FOR_MS = 3 * 24 * 60 * 60_000;

/**
 * When the next read of an object read `reads` times is due: `FIRST_READ_DELAY_MS` doubled per read, at most
 * `MAX_READ_DELAY_MS`: 75 reads in 3 days for one that never settles (docs/architecture.md#intervals-and-cost).
 */
export function nextReadAt(reads: number, now: number): number {
  return now + Math.min(FIRST_READ_DELAY_MS * 2 ** Math.min(reads, 30), MAX_READ_DELAY_MS);
}

/** The kind of object each creating operation returns: what `createPay` registers. */
const CREATED_KINDS: Partial<Record<Operation, WatchedKind>> = {
  'payments.create': 'payment',
  'checkouts.create': 'checkout',
  'refunds.create': 'refund',
};

/** The kind a creating operation's record is watched as (`undefined`: another operation, or unreadable). */
export function watchedKindOf(operation: Operation, adapter: Pick<AnyAdapter, 'reconcile' | 'capabilities'>) {
  const kind = CREATED_KINDS[operation];
  if (kind === 'refund') return adapter.reconcile?.retrieveRefund === undefined ? undefined : kind;
  return adapter.capabilities.includes('payments.retrieve') ? kind : undefined;
}

/** The kind of object a money-moving operation (of a ledger entry) acted on. */
export function kindOfOperation(operation: Operation): WatchedKind | undefined {
  return CREATED_KINDS[operation] ?? (operation.startsWith('payments.') ? 'payment' : undefined);
}

/** Starts watching one object for {@link WATCH_FOR_MS}: its first read in {@link FIRST_READ_DELAY_MS} unless `dueAt`. */
export function watchObject(
  store: ReconciliationStore,
  object: { provider: string; kind: WatchedKind; id: string; status: string | null },
  now: number = Date.now(),
  dueAt: number = nextReadAt(0, now),
): Promise<void> {
  return store.watch({ ...object, reads: 0, dueAt, expiresAt: now + WATCH_FOR_MS });
}

/**
 * Registers the record a creating call returned, after it: a failure never fails the money call (money moved
 * already); it is logged, and the object is not watched unless `pay.watch` registers it.
 */
export async function registerCreated(
  store: ReconciliationStore,
  logger: PayLogger,
  provider: string,
  kind: WatchedKind,
  record: unknown,
): Promise<void> {
  const { id, status } = (record ?? {}) as { id?: unknown; status?: unknown };
  // Provider R's redirect checkout resolves to null: there is nothing to read by until pay.resolve(key) finds it.
  if (typeof id !== 'string' || id === '') return;
  try {
    const object = { provider, kind, id, status: typeof status === 'string' ? status : null };
    await withinStoreDeadline(STORE_DEADLINE_MS, () => watchObject(store, object));
  } catch (error) {
    logger.error(
      `The ${kind} ${id} was created but could not be registered with the reconciliation store; it is not watched until pay.watch registers it.`,
      () => ({ provider, kind, id, error }),
    );
  }
}

/** Checks `pay.watch`'s arguments and that `createPay` was given a store, before any store call. */
export function checkedWatch(store: ReconciliationStore | undefined, kind: unknown, id: unknown) {
  if (store === undefined)
    throw new ConfigurationError(
      'pay.watch needs a reconciliation store: createPay(adapter, { reconcile: store }) (docs/architecture.md#reconciliation).',
      { missing: ['reconcile'] },
    );
  const issues = [];
  if (kind !== 'payment' && kind !== 'checkout' && kind !== 'refund')
    issues.push({ path: 'kind', message: "must be 'payment', 'checkout' or 'refund'" });
  if (typeof id !== 'string' || id === '') issues.push({ path: 'id', message: 'must be a non-empty string' });
  if (issues.length > 0) throw new ValidationError(issues, { operation: 'watch' });
  return { store, kind: kind as WatchedKind, id: id as string };
}

/** The watched kinds a normalised event's record may be watched as: a payment's id is also its checkout's. */
const ANNOUNCED_KINDS: Readonly<Record<string, readonly WatchedKind[]>> = {
  payment: ['payment', 'checkout'],
  refund: ['refund'],
};

/**
 * Makes `handler` record in `store` the status of each event its callbacks announced, so a read of an earlier
 * status is not announced after it (docs/architecture.md#reconciliation). A failure (or a store past its deadline)
 * is logged; the webhook's answer does not wait for or depend on it.
 */
export function recordAnnouncements(handler: object, store: ReconciliationStore, logger: PayLogger): void {
  const dispatcher = handlerInternals(handler)?.dispatcher;
  const announce = store.announce?.bind(store);
  if (dispatcher === undefined || announce === undefined) return;
  dispatcher.announced = async (event) => {
    const data = event.data as { id?: unknown; status?: unknown } | null;
    const kinds = ANNOUNCED_KINDS[event.type.slice(0, event.type.indexOf('.'))];
    if (kinds === undefined || typeof data?.id !== 'string' || typeof data.status !== 'string') return;
    const { id, status } = data;
    try {
      await withinStoreDeadline(STORE_DEADLINE_MS, () => announce(dispatcher.provider, kinds, id, status));
    } catch (error) {
      logger.warn(
        `The reconciliation store did not record that ${event.type} of ${id} was announced; a later read may announce an earlier status.`,
        () => ({ provider: dispatcher.provider, id, status, error }),
      );
    }
  };
}
