/**
 * Provider Xyz's webhook events → `@pay` events, run once the delivery is verified: each delivery raises the
 * normalised event of the payment's unified status, then its raw event `providerXyz.<type>` with the payload.
 */
import { type NormalisedEventName, type PayEvent, type PaymentStatus, webhookEvent } from '@pay/core/adapter';
import { PROVIDER } from './config.js';
import { toPayment } from './mapping.js';
import type { ProviderXyzEventPayload } from './wire.js';

/** The event types the provider sends (TODO: every type of its webhook reference). */
export const EVENT_TYPES = [] as const satisfies readonly string[];

/** An event type the provider sends. */
export type ProviderXyzEventType = (typeof EVENT_TYPES)[number];

/** The raw event names `.on()` accepts: `providerXyz.<type>`. */
export const RAW_EVENT_NAMES = EVENT_TYPES.map((type) => `${PROVIDER}.${type}` as const);

/** The normalised event each unified payment status raises (a table, read with the status as key). */
const EVENT_OF_STATUS = {
  succeeded: 'payment.succeeded',
  failed: 'payment.failed',
  canceled: 'payment.failed',
  pending: 'payment.updated',
  processing: 'payment.updated',
  requires_action: 'payment.updated',
  requires_capture: 'payment.updated',
} as const satisfies Record<PaymentStatus, NormalisedEventName>;

/** The normalised events the adapter raises. */
export const EVENT_NAMES = ['payment.succeeded', 'payment.failed', 'payment.updated'] as const;

/** A normalised event the adapter raises. */
export type ProviderXyzEvent = (typeof EVENT_NAMES)[number];

/**
 * The events of a verified payload: ids derive from the payload's event id, so a redelivery raises the same ids
 * (and the handler's deduplication skips it).
 */
export function eventsOf(payload: ProviderXyzEventPayload): PayEvent[] {
  const payment = toPayment(payload.data, payload, null);
  const created = Date.now();
  return [
    webhookEvent({
      key: [payload.id],
      type: EVENT_OF_STATUS[payment.status],
      provider: PROVIDER,
      data: payment,
      created,
    }),
    webhookEvent({
      key: [payload.id],
      type: `${PROVIDER}.${payload.type}`,
      provider: PROVIDER,
      data: payload,
      created,
    }),
  ];
}
