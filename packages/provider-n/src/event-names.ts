/** Provider N's normalised event names, read by its types and its webhooks alike (docs/providers/provider-n.md#events). */
/**
 * Every normalised event the webhooks raise (docs/providers/provider-n.md#events), for `.on()` registration
 * checks: no `payment.succeeded` (a received payment is `payment.created`) and no `invoice.generated`.
 */
export const EVENT_NAMES = [
  'payment.created',
  'payment.updated',
  'payment.failed',
  'refund.created',
  'subscription.created',
  'subscription.canceled',
  'subscription.updated',
] as const;
