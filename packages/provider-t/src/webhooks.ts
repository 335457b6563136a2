/**
 * Provider T webhooks (docs/providers/provider-t.md#webhooks), in two phases (core's `AuthenticatedDelivery`):
 * `verify` checks everything that needs no upstream call and resolves to the deduplication key, so a replay is
 * stopped before any upstream work (docs/architecture.md#webhook-deduplication); `events()` reads the status and
 * raises the events of the CONFIRMED status, not of the push (docs/providers/provider-t.md#events): a late `SENT`
 * push for a transfer now `REJECTED` raises `payment.failed`; a push ahead of the read is answered retryably.
 */
import {
  type AuthenticatedDelivery,
  fromBase64,
  type PayEvent,
  parseJson,
  type SignatureScheme,
  verifyRsaHeader,
  type WebhookDefinition,
  type WebhookDelivery,
  WebhookVerificationError,
  webhookEvent,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import type { ProviderTClient } from './client.js';
import { PROVIDER, type ResolvedConfig } from './config.js';
import { findTransaction } from './flows/status.js';
import { eventTypeOf, STATUS_EVENTS, toPayment, toRefund } from './mapping.js';
import type { ProviderTEventName, ProviderTRawEvents } from './types.js';
import {
  isKnownStatus,
  type ProviderTStatusEvent,
  type TransactionStatus,
  type WebhookBody,
  webhookBodySchema,
} from './wire.js';

/** A signature older than this is refused (docs/providers/provider-t.md#webhooks). */
export const MAX_SIGNATURE_AGE_SECONDS = 65 * 60;
/** A signature dated further ahead than this is refused (clock skew allowance, docs/providers/provider-t.md#webhooks). */
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

/** How far a transfer has got, per state: a push further along than the status read is answered retryably. */
const PROGRESS = {
  UNFUNDED: 0,
  PROCESSING: 1,
  SENT: 2,
  AVAILABLE: 3,
  'IN TRANSIT': 3,
  RECEIVED: 4,
  DELIVERED: 4,
  REJECTED: 5,
  REFUNDED: 5,
  CLOSED: 5,
} as const satisfies Record<TransactionStatus, number>;

/** The subscription whose deliveries raise events (the only one docs/providers/provider-t.md#webhooks documents). */
const STATUS_SUBSCRIPTION = 'TRANSACTION_STATUS_EVENT';

/** Provider T's webhook definition: no shared secret, Provider T's public key (or keys, during a rotation). */
export function createWebhooks(client: ProviderTClient): WebhookDefinition & {
  rawEventNames: readonly (keyof ProviderTRawEvents)[];
  eventNames: readonly ProviderTEventName[];
} {
  return {
    rawEventNames: ['providerT.TRANSACTION_STATUS_EVENT'],
    // The status table's events (and `payment.updated` for a state it does not know), once each.
    eventNames: [...new Set([...Object.values(STATUS_EVENTS), 'payment.updated'])] as ProviderTEventName[],
    secret: 'unused',
    async verify(delivery): Promise<AuthenticatedDelivery> {
      const { sent, read, keyIndex } = await authenticate(delivery, client.config);
      return {
        // Known before any upstream call: the transfer and the state pushed, whatever its eventId.
        key:
          read.subscriptionType === STATUS_SUBSCRIPTION
            ? `${read.eventPayload.transactionId}:${read.eventPayload.transactionStatus}`
            : `${read.subscriptionType}:${read.eventId}`,
        events: () => eventsOf(client, sent, read),
        secretIndex: keyIndex,
      };
    },
  };
}

/** Checks signature and partner; returns the body as sent (the raw event's `data`) and as read, and the key's index. */
async function authenticate(
  delivery: WebhookDelivery,
  config: ResolvedConfig,
): Promise<{ sent: ProviderTStatusEvent; read: WebhookBody; keyIndex: number }> {
  const { secretIndex: keyIndex } = await verifyRsaHeader(
    delivery,
    config.webhookPublicKeys,
    signatureScheme(delivery, config),
  );
  const sent = parseJson(delivery.body); // undefined for text that is not JSON: malformed_payload below
  const result = v.safeParse(webhookBodySchema, sent);
  if (!result.success) {
    throw new WebhookVerificationError('The verified webhook body is not a Provider T status event.', {
      reason: 'malformed_payload',
    });
  }
  // One key signs every partner's deliveries, so the partner named in the delivery must be ours.
  if (result.output.eventPayload.agentPartnerId !== config.identity.agentPartnerId) {
    throw new WebhookVerificationError(
      'The webhook is for another agent partner than the one configured (agentPartnerId); it is not ours.',
      { reason: 'merchant_mismatch' },
    );
  }
  // The raw event carries the verified body as sent (eventId may be a number; ids use its text).
  return { sent: sent as ProviderTStatusEvent, read: result.output, keyIndex };
}

/**
 * How Provider T signs (docs/providers/provider-t.md#webhooks): `Signature: t=<unix seconds>, s=<base64>`, an
 * RSA-SHA256 signature of `"<t>.<host>.<raw body>"` with the configured host ({@link signedHost}), refused when
 * older than 65 minutes or dated more than 5 minutes ahead. Every key is tried, whether or not an earlier one
 * verified, so the time taken does not tell which key matched.
 */
function signatureScheme(
  delivery: WebhookDelivery,
  config: ResolvedConfig,
): Omit<SignatureScheme, 'algorithm'> {
  // Known once the header and its timestamp passed (a production handler without one refuses retryably then).
  let host = '';
  return {
    header: 'signature',
    encoding: 'base64',
    parts: { timestamp: 't', signature: 's' },
    tolerance: {
      maxAgeSeconds: MAX_SIGNATURE_AGE_SECONDS,
      maxFutureSeconds: MAX_SIGNATURE_FUTURE_SECONDS,
    },
    // The signed content is `<t>.<host>.` followed by the raw body bytes exactly as received.
    signedContent: (rawBody, timestamp) => {
      host = signedHost(delivery, config);
      return [`${timestamp}.${host}.`, rawBody];
    },
    messages: {
      missingSignature: 'The webhook has no Signature header; it did not come from Provider T.',
      malformedSignature: 'The Signature header is not `t=<unix seconds>, s=<base64 signature>`.',
      staleTimestamp:
        'The webhook signature is older than 65 minutes or dated more than 5 minutes ahead; refused as a possible replay. Check the server clock.',
      get mismatch() {
        return `The webhook signature does not match for host ${host}: it was not signed for this endpoint. Check that webhookHost (PROVIDER_T_WEBHOOK_HOST) is the host registered with Provider T.`;
      },
    },
  };
}

/**
 * The host the signature must cover: the configured one, never the request's (a request can name any host).
 * Without one, the sandbox takes the host of `fullUrl` (development behind tunnels); production refuses retryably
 * (503) so no delivery is lost while the configuration is fixed.
 */
function signedHost(delivery: WebhookDelivery, config: ResolvedConfig): string {
  if (config.webhookHost) return config.webhookHost;
  if (!config.livemode) {
    try {
      return new URL(delivery.fullUrl).host;
    } catch {
      throw new WebhookVerificationError(
        'fullUrl must be the absolute URL the webhook was posted to (its host is signed).',
        { reason: 'malformed_payload' },
      );
    }
  }
  throw new WebhookVerificationError(
    'Provider T webhooks in production are verified against the host you registered with Provider T: set webhookHost (env PROVIDER_T_WEBHOOK_HOST), e.g. "pay.shop.example". Until it is set every delivery is answered 503, so Provider T delivers it again later.',
    { reason: 'missing_host', retryable: true },
  );
}

/** `eventDate` is UTC without a zone (`2026-11-22T10:15:30.123`). */
function eventTime(eventDate: string | undefined): number {
  if (!eventDate) return Date.now();
  const zoned = /[zZ]|[+-]\d\d:?\d\d$/.test(eventDate) ? eventDate : `${eventDate}Z`;
  const time = Date.parse(zoned);
  return Number.isNaN(time) ? Date.now() : time;
}

/**
 * The normalised event of the CONFIRMED status, then the raw event. A pushed state the adapter does not know (a
 * new one, or a name like `constructor`) raises the raw event only.
 */
async function eventsOf(
  client: ProviderTClient,
  sent: ProviderTStatusEvent,
  body: WebhookBody,
): Promise<PayEvent[]> {
  // Only status events are documented; any other subscription is verified and acknowledged, with no event.
  if (body.subscriptionType !== STATUS_SUBSCRIPTION) return [];
  const key = [body.eventId];
  const created = eventTime(body.eventDate);
  const raw = webhookEvent({
    key,
    type: 'providerT.TRANSACTION_STATUS_EVENT',
    provider: PROVIDER,
    data: sent,
    created,
  });
  const pushed = body.eventPayload.transactionStatus;
  if (!isKnownStatus(pushed)) return [raw];
  const { transactionId } = body.eventPayload;
  const context = { transactionId, step: 'webhook_status' };
  const current = await findTransaction(client, transactionId, {}, { context });
  if (!current) {
    throw new WebhookVerificationError(
      `Provider T's status endpoint does not know transfer ${transactionId} named by the webhook; it will be delivered again.`,
      { reason: 'unconfirmed_status', retryable: true },
    );
  }
  const confirmed = current.body.transactionStatus;
  if (isKnownStatus(confirmed) && PROGRESS[pushed] > PROGRESS[confirmed]) {
    throw new WebhookVerificationError(
      `The webhook says transfer ${transactionId} is ${pushed}, but Provider T's status read still shows ${confirmed}; it will be delivered again once the status read confirms it.`,
      { reason: 'unconfirmed_status', retryable: true },
    );
  }
  const type = eventTypeOf(confirmed);
  // Built from the status read: the record carries that read's request id.
  const facts = { livemode: client.config.livemode, requestId: current.requestId };
  const data =
    type === 'refund.created'
      ? toRefund({ status: current.body }, facts)
      : toPayment({ status: current.body }, facts);
  return [webhookEvent({ key, type, provider: PROVIDER, data, created }), raw];
}
