/**
 * One delivery from the request to the callbacks (docs/architecture.md#webhook-handler), read top to bottom: every
 * step gets what it needs as an argument, the route the handler read when the delivery arrived.
 */
import { type PayLogger, withinLogger } from '../diagnostics/logger.js';
import type { ProviderName } from '../records.js';
import { beginLease, settleQuietly } from './dedupe.js';
import { asAuthenticatedDelivery, asVerificationError, toDelivery } from './delivery.js';
import { type Dispatcher, dispatchEvents } from './dispatch.js';
import { WebhookVerificationError } from './errors.js';
import type { Progress } from './report.js';
import type {
  AuthenticatedDelivery,
  PayEvent,
  WebhookDefinition,
  WebhookRequest,
  WebhookResult,
} from './types.js';

/**
 * What one delivery is handled with, fixed when it arrives: a secret rotated meanwhile applies from the next
 * delivery on (docs/architecture.md#credential-rotation).
 */
export interface DeliveryRoute {
  provider: ProviderName;
  webhooks: WebhookDefinition;
  /** The webhook secrets, in the order `setup()` or `updateSecrets()` gave them. */
  secrets: readonly string[];
  dispatcher: Dispatcher;
  /** `createPay`'s logger: in scope only while the adapter's confirmation and the user's callbacks run. */
  logger: PayLogger;
}

/**
 * Authenticates the delivery, takes its deduplication lease, reads its events and runs their callbacks; records in
 * `progress` how far it got. Rejects with `WebhookVerificationError` or `WebhookHandlerError`.
 */
export async function receiveDelivery(
  route: DeliveryRoute,
  request: WebhookRequest,
  progress: Progress,
): Promise<WebhookResult> {
  const delivery = await authenticate(route, request);
  progress.deliveryKey = delivery.key;
  progress.secretIndex = delivery.secretIndex;
  const { deduplication } = route.dispatcher;
  if (deduplication === undefined) return await processDelivery(route, delivery, progress);
  const storeKey = `${route.provider}:${delivery.key}`;
  const lease = await beginLease(deduplication, storeKey);
  if (lease.state === 'done') return { events: [], duplicates: [delivery.key] };
  if (lease.state === 'in_progress') {
    throw new WebhookVerificationError(
      `Delivery ${delivery.key} is being processed by another attempt right now; answer 503 so the provider delivers it again once that attempt has finished (or its lease has expired).`,
      { reason: 'delivery_in_progress', retryable: true },
    );
  }
  let result: WebhookResult;
  try {
    result = await processDelivery(route, delivery, progress);
  } catch (error) {
    // A failed store call must not hide the failure itself; the lease expires on its own anyway.
    await settleQuietly(() => deduplication.store.release(storeKey, lease.lease));
    throw error;
  }
  // Every callback succeeded: the delivery is processed. A store that cannot record it only risks running it
  // again after the lease expires (at least once), so its failure does not turn this success into an error.
  await settleQuietly(() => deduplication.store.complete(storeKey, lease.lease, deduplication.ttlSeconds));
  return result;
}

/** The adapter's `verify` with the route's secrets, in one awaited step; any failure is a verification error. */
async function authenticate(route: DeliveryRoute, request: WebhookRequest): Promise<AuthenticatedDelivery> {
  try {
    return asAuthenticatedDelivery(await route.webhooks.verify(toDelivery(request), route.secrets));
  } catch (error) {
    throw asVerificationError(error);
  }
}

/**
 * Reads the events (the adapter's confirmation call logs to `createPay`'s logger, as an operation's calls do), then
 * dispatches them (see {@link dispatchEvents}) with that logger in scope for the callbacks' own calls.
 */
async function processDelivery(
  route: DeliveryRoute,
  delivery: AuthenticatedDelivery,
  progress: Progress,
): Promise<WebhookResult> {
  let events: PayEvent[];
  try {
    events = await withinLogger(route.logger, () => delivery.events());
  } catch (error) {
    throw asVerificationError(error);
  }
  progress.events = events;
  return withinLogger(route.logger, () => dispatchEvents(route.dispatcher, events));
}
