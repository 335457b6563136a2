/**
 * Provider R push notifications (docs/providers/provider-r.md#webhooks): no signature, so `verify` checks the
 * secret, merchant, payload and mode, and `events()` builds the events from the status the status call confirms.
 */
import {
  type AdapterDefinition,
  type AuthenticatedDelivery,
  isRecord,
  type PayEvent,
  parseForm,
  parseJson,
  timingSafeEqual,
  timingSafeIndexOf,
  type WebhookDelivery,
  type WebhookFailureReason,
  WebhookVerificationError,
  webhookEvent,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import type { ProviderRClient } from './client.js';
import type { ProviderRConfig } from './config.js';
import { eventTypesOf, STATUS_EVENTS, toInvoice, toPayment, UNKNOWN_STATUS_EVENTS } from './mapping.js';
import { statusRequest } from './requests.js';
import type { ProviderREventName, ProviderRTypes } from './types.js';
import { mediaType, PROVIDER_R_STATUSES, type ProviderRStatusReply, pushSchema } from './wire.js';

/** Reads the push body: JSON when the media type says so (any case, parameters ignored), else form-encoded. */
function readPush(delivery: WebhookDelivery): Record<string, unknown> {
  if (mediaType(delivery.headers['content-type']) !== 'application/json') return parseForm(delivery.body);
  const parsed = parseJson(delivery.body);
  if (isRecord(parsed)) return parsed;
  refuse('malformed_payload', 'The Provider R push says application/json but its body is not a JSON object.');
}

/** A field as text: JSON pushes may carry numbers or booleans where the form carries text. */
const fieldText = (value: unknown) =>
  ['string', 'number', 'boolean'].includes(typeof value) ? String(value) : '';

/** The events of a confirmed status, normalised first, then the raw `providerR.<STATUS>`. */
function eventsFor(
  confirmed: ProviderRStatusReply,
  confirmedAt: number,
  isSandbox: boolean,
  requestId: string,
): PayEvent[] {
  const key = [confirmed.transId, confirmed.status];
  const base = { key, provider: 'providerR' as const, created: confirmedAt };
  const dataOf = (type: string) =>
    type === 'invoice.generated'
      ? toInvoice(confirmed, confirmedAt, isSandbox, requestId)
      : toPayment(confirmed, isSandbox, requestId);
  return [
    ...eventTypesOf(confirmed.status).map((type) => webhookEvent({ ...base, type, data: dataOf(type) })),
    webhookEvent({ ...base, type: `providerR.${confirmed.status}`, data: confirmed, is_raw: true }),
  ];
}

/** Refuses a delivery (nothing is processed): `WebhookVerificationError` with `reason`. */
function refuse(reason: WebhookFailureReason, message: string, retryable?: true): never {
  throw new WebhookVerificationError(message, { reason, ...(retryable ? { retryable } : {}) });
}

const modeName = (test: boolean) => (test ? 'test (sandbox)' : 'live (production)');

/**
 * A handler serves one mode (docs/providers/provider-r.md#webhooks): a production handler refuses a push for a
 * test payment, whose money is not real, and a sandbox handler one for a live payment (`mode_mismatch`, 400).
 */
function refuseOtherMode(test: boolean, isSandbox: boolean, where: string): void {
  if (test === isSandbox) return;
  refuse(
    'mode_mismatch',
    `The ${where} is for a ${modeName(test)} payment but this handler is configured for ${modeName(isSandbox)} (PROVIDER_R_SANDBOX / isSandbox); it is not processed here. Point the provider's push URL for each mode at the deployment configured for it.`,
  );
}

/**
 * Phase 2 (`events()`): the status call, every check of the confirmation, then the events of the CONFIRMED status,
 * which is the truth they report (docs/providers/provider-r.md#webhooks).
 */
async function confirmedEvents(
  config: ProviderRConfig,
  client: ProviderRClient,
  pushed: v.InferOutput<typeof pushSchema>,
): Promise<PayEvent[]> {
  const { body: confirmed, requestId } = await client.send(statusRequest(pushed.transId, config));
  if (confirmed.transId !== pushed.transId)
    refuse('confirmation_failed', 'The status call answered for another transaction than the push names.');
  // The status call authenticates as the configured merchant; a reply naming another one is not ours.
  if (confirmed.merchant !== undefined && !timingSafeEqual(confirmed.merchant, config.merchant))
    refuse('merchant_mismatch', 'The status confirmation names another merchant than the configured one.');
  const test = confirmed.test ?? pushed.test;
  if (test === undefined)
    refuse(
      'malformed_payload',
      'Neither the push nor its status confirmation says whether the payment is a test one, so test and live cannot be told apart; refused.',
    );
  if (pushed.test !== undefined && confirmed.test !== undefined && pushed.test !== confirmed.test)
    refuse(
      'confirmation_failed',
      'The push and its status confirmation disagree on whether it is a test payment.',
    );
  refuseOtherMode(test, config.isSandbox, 'confirmed payment');
  if (confirmed.status === 'PENDING' && pushed.status !== 'PENDING') {
    // A final status the status call does not show yet: retryable, so the provider delivers again.
    const message = `The push announces ${pushed.status} but the provider still reports PENDING; deliver again later.`;
    refuse('unconfirmed_status', message, true);
  }
  return eventsFor(confirmed, Date.now(), config.isSandbox, requestId);
}

/** The webhook definition of the adapter; the confirmation goes through the adapter's own status call. */
export function createWebhooks(
  config: ProviderRConfig,
  client: ProviderRClient,
): AdapterDefinition<ProviderRTypes>['webhooks'] {
  return {
    rawEventNames: PROVIDER_R_STATUSES.map((status) => `providerR.${status}` as const),
    // The normalised events of the status table, known statuses and unknown ones alike, once each.
    eventNames: [
      ...new Set([...Object.values(STATUS_EVENTS).flat(), ...UNKNOWN_STATUS_EVENTS]),
    ] as ProviderREventName[],
    secret: 'required',
    /**
     * Phase 1, no upstream call (docs/architecture.md#webhook-verification). The delivery key `<transId>:<pushed
     * status>` deduplicates a replayed push before its status read; every secret is compared in constant time.
     */
    async verify(delivery, webhookSecrets): Promise<AuthenticatedDelivery> {
      if (webhookSecrets.length === 0)
        refuse(
          'missing_secret',
          'Provider R pushes are checked with the merchant secret: pass it as webhookSecret.',
        );
      const fields = readPush(delivery);
      const secretIndex = timingSafeIndexOf(fieldText(fields.secret), webhookSecrets);
      if (secretIndex < 0)
        refuse('invalid_secret', 'The push carries a wrong or no `secret`; it did not come from Provider R.');
      if (!timingSafeEqual(fieldText(fields.merchant), config.merchant))
        refuse('merchant_mismatch', 'The push names another merchant than the configured one.');
      const parsed = v.safeParse(pushSchema, fields);
      if (!parsed.success) refuse('malformed_payload', 'The push lacks a valid `transId` or `status`.');
      const pushed = parsed.output;
      // Refused here already, so a replayed test push costs a production handler no status read.
      if (pushed.test !== undefined) refuseOtherMode(pushed.test, config.isSandbox, 'push');
      return {
        key: `${pushed.transId}:${pushed.status}`,
        events: () => confirmedEvents(config, client, pushed),
        secretIndex,
      };
    },
  };
}
