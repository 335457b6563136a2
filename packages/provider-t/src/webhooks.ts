/**
 * Provider T webhooks (wire contract "Webhooks"): verify completely — signature header, freshness, RSA-SHA256
 * over `"<t>.<host>.<raw body>"` with the environment's fixed public key — then normalise. Normalised events
 * carry `data` re-read from the status endpoint (the push carries no amounts), so that read happens after
 * verification and before any callback.
 */
import {
  fromBase64,
  type PayEvent,
  utf8,
  verifyRsaSha256,
  type WebhookDefinition,
  type WebhookDelivery,
  WebhookVerificationError,
  webhookEvent,
} from '@pay/core';
import * as v from '@pay/core/schema';
import type { ProviderTTypes } from './adapter.js';
import { STATUS_EVENTS, statusPayment, statusRefund } from './mapping.js';
import { findTransaction } from './status.js';
import { PROVIDER, type ProviderTTransport } from './transport.js';
import {
  type ProviderTStatusEvent,
  type TransactionStatus,
  transactionStatusSchema,
  webhookBodySchema,
} from './wire.js';

/** Raw events Provider T raises: `providerT.<subscriptionType>`, with the verified body as `data`. */
export type ProviderTRawEvents = {
  'providerT.TRANSACTION_STATUS_EVENT': ProviderTStatusEvent;
};

/** The raw event names, for `.on()` registration checks. */
export const RAW_EVENT_NAMES = ['providerT.TRANSACTION_STATUS_EVENT'] as const;

/** A signature older than this is refused (wire contract). */
export const MAX_SIGNATURE_AGE_SECONDS = 65 * 60;
/** A signature dated further ahead than this is refused (clock skew allowance, wire contract). */
export const MAX_SIGNATURE_FUTURE_SECONDS = 5 * 60;

/** The parts of the `Signature: t=<unix seconds>, s=<base64>` header. */
export interface SignatureHeader {
  timestamp: number;
  signature: Uint8Array;
}

/** Parses the `Signature` header; `undefined` when it is not `t=<digits>, s=<base64>`. */
export function parseSignatureHeader(value: string): SignatureHeader | undefined {
  const parts = new Map<string, string>();
  for (const part of value.split(',')) {
    const separator = part.indexOf('=');
    if (separator < 0) return undefined;
    parts.set(part.slice(0, separator).trim(), part.slice(separator + 1).trim());
  }
  const t = parts.get('t');
  const s = parts.get('s');
  if (!t || !s || !/^\d{1,12}$/.test(t)) return undefined;
  const signature = fromBase64(s);
  if (!signature || signature.length === 0) return undefined;
  return { timestamp: Number(t), signature };
}

/** What the webhook verifier needs besides the transport. */
export interface WebhookSettings {
  publicKey: string;
  /** The host the provider addressed, when a proxy changes it (else taken from `fullUrl`). */
  host: string | undefined;
  /** Clock in milliseconds, for tests. */
  now?: () => number;
}

/** Provider T's webhook definition: no shared secret, a fixed public key per environment. */
export function providerTWebhooks(
  transport: ProviderTTransport,
  settings: WebhookSettings,
): WebhookDefinition & { rawEventNames: readonly (keyof ProviderTTypes['rawEvents'])[] } {
  return {
    rawEventNames: RAW_EVENT_NAMES,
    secret: 'unused',
    async verify(delivery) {
      const body = await verifySignature(delivery, settings);
      return eventsOf(transport, body);
    },
  };
}

/** Checks header, freshness and signature; returns the parsed body. Nothing is read upstream before this passes. */
async function verifySignature(
  delivery: WebhookDelivery,
  settings: WebhookSettings,
): Promise<ProviderTStatusEvent> {
  const header = delivery.headers.signature;
  if (!header) {
    throw new WebhookVerificationError(
      'The webhook has no Signature header; it did not come from Provider T.',
      {
        reason: 'missing_signature',
      },
    );
  }
  const parsed = parseSignatureHeader(header);
  if (!parsed) {
    throw new WebhookVerificationError(
      'The Signature header is not `t=<unix seconds>, s=<base64 signature>`.',
      {
        reason: 'invalid_signature',
      },
    );
  }
  const nowSeconds = Math.floor((settings.now ?? Date.now)() / 1000);
  if (
    nowSeconds - parsed.timestamp > MAX_SIGNATURE_AGE_SECONDS ||
    parsed.timestamp - nowSeconds > MAX_SIGNATURE_FUTURE_SECONDS
  ) {
    throw new WebhookVerificationError(
      'The webhook signature is older than 65 minutes or dated more than 5 minutes ahead; refused as a possible replay. Check the server clock.',
      { reason: 'stale_timestamp' },
    );
  }
  const host = settings.host ?? hostOf(delivery.fullUrl);
  // The signed content is `<t>.<host>.` followed by the raw body bytes exactly as received.
  const prefix = utf8(`${parsed.timestamp}.${host}.`);
  const signed = new Uint8Array(prefix.length + delivery.rawBody.length);
  signed.set(prefix);
  signed.set(delivery.rawBody, prefix.length);
  if (!(await verifyRsaSha256(settings.publicKey, signed, parsed.signature))) {
    throw new WebhookVerificationError(
      `The webhook signature does not match (host ${host}). If a proxy changes the host, set webhookHost to the host Provider T posts to.`,
      { reason: 'invalid_signature' },
    );
  }
  const body = parseJsonBody(delivery.body);
  if (!v.is(webhookBodySchema, body)) {
    throw new WebhookVerificationError('The verified webhook body is not a Provider T status event.', {
      reason: 'malformed_payload',
    });
  }
  // The raw event carries the verified body as sent (eventId may be a number; ids use its text).
  return body as ProviderTStatusEvent;
}

function hostOf(fullUrl: string): string {
  try {
    return new URL(fullUrl).host;
  } catch {
    throw new WebhookVerificationError(
      'fullUrl must be the absolute URL the webhook was posted to (its host is signed).',
      {
        reason: 'malformed_payload',
      },
    );
  }
}

function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `eventDate` is UTC without a zone (`2026-11-22T10:15:30.123`). */
function eventTime(eventDate: string | undefined): number {
  if (!eventDate) return Date.now();
  const zoned = /[zZ]|[+-]\d\d:?\d\d$/.test(eventDate) ? eventDate : `${eventDate}Z`;
  const time = Date.parse(zoned);
  return Number.isNaN(time) ? Date.now() : time;
}

/** The normalised event (with `data` re-read from the status endpoint), then the raw event. */
async function eventsOf(transport: ProviderTTransport, body: ProviderTStatusEvent): Promise<PayEvent[]> {
  const eventId = String(body.eventId);
  const created = eventTime(body.eventDate);
  // Only status events are documented; any other subscription is verified and acknowledged, with no event.
  if (body.subscriptionType !== 'TRANSACTION_STATUS_EVENT') return [];
  const raw = webhookEvent({
    key: [eventId],
    type: 'providerT.TRANSACTION_STATUS_EVENT',
    provider: PROVIDER,
    data: body,
    created,
  });
  const status = v.safeParse(transactionStatusSchema, body.eventPayload.transactionStatus);
  if (!status.success) return [raw];
  const type = STATUS_EVENTS[status.output as TransactionStatus];
  const { transactionId } = body.eventPayload;
  const current = await findTransaction(transport, transactionId, {
    context: { transactionId, step: 'webhook_status' },
  });
  if (!current) {
    throw new WebhookVerificationError(
      `Provider T's status endpoint does not know transfer ${transactionId} named by the webhook; it will be delivered again.`,
      { reason: 'unconfirmed_status', retryable: true },
    );
  }
  const data = type === 'refund.created' ? statusRefund(current) : statusPayment(current);
  return [webhookEvent({ key: [eventId], type, provider: PROVIDER, data, created }), raw];
}
