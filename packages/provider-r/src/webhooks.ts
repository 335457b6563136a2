/**
 * Provider R push notifications (spec §5, wire contract "Webhooks"): no signature, so the delivery is checked
 * field by field (secret, then merchant, both in constant time) and its status is confirmed with the status
 * call. Only then are events built, from the confirmed status, which is the truth the events report.
 */
import {
  type AdapterDefinition,
  type PayEvent,
  parseForm,
  parseJson,
  timingSafeEqual,
  type WebhookDelivery,
  WebhookVerificationError,
  webhookEvent,
} from '@pay/core';
import * as v from '@pay/core/schema';
import type { ProviderRTypes } from './adapter.js';
import type { ProviderRConfig } from './config.js';
import { invoiceFromStatus, paymentFromStatus, STATUS_EVENTS } from './mapping.js';
import { mediaType, type ProviderRUpstream } from './upstream.js';
import { PROVIDER_R_STATUSES, type ProviderRStatusReply, pushSchema } from './wire.js';

/** The raw event names, one per status. */
const RAW_EVENT_NAMES = PROVIDER_R_STATUSES.map((status) => `providerR.${status}` as const);

/** Reads the push body: JSON when the media type says so (any case, parameters ignored), else form-encoded. */
function readPush(delivery: WebhookDelivery): Record<string, unknown> {
  if (mediaType(delivery.headers['content-type']) !== 'application/json') return parseForm(delivery.body);
  const parsed = parseJson(delivery.body);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new WebhookVerificationError(
      'The Provider R push says application/json but its body is not a JSON object.',
      {
        reason: 'malformed_payload',
      },
    );
  }
  return parsed as Record<string, unknown>;
}

/** A field as text: JSON pushes may carry numbers or booleans where the form carries text. */
function fieldText(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : undefined;
}

/** Builds the events of a confirmed status, normalised first, then the raw `providerR.<STATUS>`. */
function eventsFor(confirmed: ProviderRStatusReply, confirmedAt: number): PayEvent[] {
  const key = [confirmed.transId, confirmed.status];
  const base = { key, provider: 'providerR' as const, created: confirmedAt };
  const normalised = STATUS_EVENTS[confirmed.status].map((type) =>
    type === 'invoice.generated'
      ? webhookEvent({ ...base, type, data: invoiceFromStatus(confirmed, confirmedAt) })
      : webhookEvent({ ...base, type, data: paymentFromStatus(confirmed) }),
  );
  return [
    ...normalised,
    webhookEvent({ ...base, type: `providerR.${confirmed.status}`, data: confirmed, is_raw: true }),
  ];
}

/** The webhook definition of the adapter; the confirmation goes through the adapter's own status call. */
export function createWebhookDefinition(
  config: ProviderRConfig,
  upstream: ProviderRUpstream,
): AdapterDefinition<ProviderRTypes>['webhooks'] {
  return {
    rawEventNames: RAW_EVENT_NAMES,
    secret: 'required',
    async verify(delivery, webhookSecret) {
      if (!webhookSecret) {
        throw new WebhookVerificationError(
          'Provider R pushes are checked with the merchant secret: pass it as webhookSecret.',
          {
            reason: 'missing_secret',
          },
        );
      }
      const fields = readPush(delivery);
      if (!timingSafeEqual(fieldText(fields.secret) ?? '', webhookSecret)) {
        throw new WebhookVerificationError(
          'The push carries a wrong or no `secret`; it did not come from Provider R.',
          {
            reason: 'invalid_secret',
          },
        );
      }
      if (!timingSafeEqual(fieldText(fields.merchant) ?? '', config.merchant)) {
        throw new WebhookVerificationError('The push names another merchant than the configured one.', {
          reason: 'merchant_mismatch',
        });
      }
      const pushed = v.safeParse(pushSchema, fields);
      if (!pushed.success) {
        throw new WebhookVerificationError('The push lacks a valid `transId` or `status`.', {
          reason: 'malformed_payload',
        });
      }
      const { transId, status } = pushed.output;
      const confirmed = await upstream.status(transId, {});
      if (confirmed.transId !== transId) {
        throw new WebhookVerificationError(
          'The status call answered for another transaction than the push names.',
          {
            reason: 'confirmation_failed',
          },
        );
      }
      if (confirmed.status === 'PENDING' && status !== 'PENDING') {
        // The provider announced a final status its own status call does not show yet: refuse as retryable so
        // the provider delivers again once the two agree.
        throw new WebhookVerificationError(
          `The push announces ${status} but the provider still reports PENDING; deliver again later.`,
          {
            reason: 'unconfirmed_status',
            retryable: true,
          },
        );
      }
      return eventsFor(confirmed, Date.now());
    },
  };
}
