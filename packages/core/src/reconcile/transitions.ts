/**
 * What a status read means (docs/architecture.md#reconciliation): the normalised event a (kind, status) raises, as
 * the adapters' webhooks do (one that raises another says so in `reconcile.events`), and which statuses are final.
 */
import type { AnyAdapter } from '../adapter.js';
import type { PaymentStatus, RefundStatus } from '../records.js';
import type { NormalisedEventName } from '../webhooks/types.js';
import type { WatchedKind } from './store.js';

/** The event a payment's status raises, as the webhooks of Provider R and Provider T raise it. */
export const PAYMENT_EVENTS = {
  pending: 'payment.created',
  requires_action: 'payment.created',
  processing: 'payment.updated',
  requires_capture: 'payment.updated',
  succeeded: 'payment.succeeded',
  failed: 'payment.failed',
  canceled: 'payment.failed',
} as const satisfies Record<PaymentStatus, NormalisedEventName>;

/** The event a refund's status raises: `refund.created` once final (as Provider N's); none while pending. */
export const REFUND_EVENTS = {
  pending: null,
  succeeded: 'refund.created',
  failed: 'refund.created',
} as const satisfies Record<RefundStatus, NormalisedEventName | null>;

/** The statuses after which an object is no longer watched: nothing the provider does later changes them. */
export const FINAL_STATUSES = {
  payment: ['succeeded', 'failed', 'canceled'],
  checkout: ['succeeded', 'failed', 'canceled'],
  refund: ['succeeded', 'failed'],
} as const satisfies Record<WatchedKind, readonly (PaymentStatus | RefundStatus)[]>;

/**
 * How far each status is along its kind's way (docs/architecture.md#reconciliation): a read is announced only when
 * its status ranks above the last one announced, so a lagging read never takes the application back, and nothing
 * follows a final status (the highest rank). A status not listed ranks as `processing` (payments) or `pending`.
 */
export const STATUS_ORDER = {
  payment: {
    pending: 0,
    requires_action: 1,
    processing: 2,
    requires_capture: 3,
    succeeded: 4,
    failed: 4,
    canceled: 4,
  },
  refund: { pending: 0, succeeded: 1, failed: 1 },
} as const satisfies { payment: Record<PaymentStatus, number>; refund: Record<RefundStatus, number> };

/** The rank of `status` for a `kind` object (see {@link STATUS_ORDER}); `null` (nothing announced yet) is lowest. */
function rankOf(kind: WatchedKind, status: string | null): number {
  if (status === null) return -1;
  const order: Readonly<Record<string, number>> =
    kind === 'refund' ? STATUS_ORDER.refund : STATUS_ORDER.payment;
  return Object.hasOwn(order, status) ? (order[status] ?? 0) : kind === 'refund' ? 0 : 2;
}

/** Whether a read `status` moves a `kind` object past the `announced` one (never after a final status). */
export function advances(kind: WatchedKind, status: string, announced: string | null): boolean {
  if (announced !== null && isFinal(kind, announced)) return false;
  return rankOf(kind, status) > rankOf(kind, announced);
}

/** A status the tables do not list (a provider's new one): "something changed, read it", as the webhooks say. */
const UNKNOWN_STATUS_EVENT = { payment: 'payment.updated', refund: null } as const;

/** Whether `status` of a `kind` object is final (see {@link FINAL_STATUSES}). */
export function isFinal(kind: WatchedKind, status: string): boolean {
  return (FINAL_STATUSES[kind] as readonly string[]).includes(status);
}

/**
 * The normalised event a read of a `kind` object in `status` delivers, or `null`: the adapter's own entry first
 * (`reconcile.events`), then core's table; one not in `raises` (what `.on()` accepts) is not delivered either.
 */
export function eventOfStatus(
  adapter: Pick<AnyAdapter, 'reconcile'>,
  kind: WatchedKind,
  status: string,
  raises: ReadonlySet<string>,
): NormalisedEventName | null {
  const family = kind === 'refund' ? 'refund' : 'payment';
  const own = adapter.reconcile?.events;
  const transition = `${family}.${status}`;
  const table: Readonly<Record<string, NormalisedEventName | null>> =
    family === 'refund' ? REFUND_EVENTS : PAYMENT_EVENTS;
  const event =
    own !== undefined && Object.hasOwn(own, transition)
      ? (own[transition] ?? null)
      : Object.hasOwn(table, status)
        ? (table[status] ?? null)
        : UNKNOWN_STATUS_EVENT[family];
  return event !== null && raises.has(event) ? event : null;
}
