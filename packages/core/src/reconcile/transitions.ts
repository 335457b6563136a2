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
