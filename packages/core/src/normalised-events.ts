/**
 * The normalised event names and the record each carries (docs/architecture.md#webhook-handler): read by the adapter
 * types and by the webhook handler alike, so neither imports the other for them.
 */
import type { Invoice, Payment, Refund, Subscription } from './records.js';

/** Normalised event names and the record each carries as `data`. */
export interface NormalisedEvents {
  'payment.created': Payment;
  'payment.updated': Payment;
  'payment.succeeded': Payment;
  'payment.failed': Payment;
  'invoice.generated': Invoice;
  'refund.created': Refund;
  'subscription.created': Subscription;
  'subscription.canceled': Subscription;
  'subscription.updated': Subscription;
}

/** A normalised event name. */
export type NormalisedEventName = keyof NormalisedEvents;
