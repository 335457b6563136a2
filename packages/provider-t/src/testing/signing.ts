/**
 * Signing helpers for tests of Provider T webhooks (docs/providers/provider-t.md#webhooks): a key pair, the `Signature`
 * header over `"<t>.<host>.<raw body>"` with RSA-SHA256, status-event bodies, and a ready `handle()` request.
 * Test-only: uses `node:crypto`.
 */
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import type { ProviderTStatusEvent, TransactionStatus } from '../wire.js';

/** An RSA key pair: `publicKey` for `webhookPublicKey`, `privateKey` (PEM) for signing. */
export interface ProviderTKeyPair {
  /** SPKI DER, base64: pass it as `createProviderT({ webhookPublicKey })`. */
  publicKey: string;
  /** PKCS#8 PEM. */
  privateKey: string;
}

/** Generates a 2048-bit RSA key pair to sign test webhooks with. */
export function generateProviderTKeyPair(): ProviderTKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** What {@link signProviderTWebhook} signs. */
export interface SignWebhookOptions {
  /** The raw body exactly as it will be posted. */
  body: string;
  /** The host the webhook is posted to (`shop.example`, `127.0.0.1:3000`), as in `new URL(fullUrl).host`. */
  host: string;
  /** PEM private key (or a Node `KeyObject`). */
  privateKey: string | KeyObject;
  /** Unix seconds; default now. */
  timestamp?: number;
}

/** The `Signature` header value, `t=<unix seconds>, s=<base64 RSA-SHA256 signature>`. */
export function signProviderTWebhook(options: SignWebhookOptions): string {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = sign(
    'sha256',
    Buffer.from(`${timestamp}.${options.host}.${options.body}`, 'utf8'),
    options.privateKey,
  );
  return `t=${timestamp}, s=${signature.toString('base64')}`;
}

/** Fields of a status event body; everything but the transaction and its status has a default. */
export interface StatusEventOptions {
  transactionId: string;
  transactionStatus: TransactionStatus | (string & {});
  eventId?: string;
  /** Default now. */
  eventDate?: Date;
  agentPartnerId?: string;
  referenceNumber?: string;
}

/** `"2026-11-22T10:15:30.123"`: UTC without a zone, as Provider T writes dates. */
function providerDate(date: Date): string {
  return date.toISOString().replace('Z', '');
}

/** A `TRANSACTION_STATUS_EVENT` body as Provider T posts it. */
export function providerTStatusEvent(options: StatusEventOptions): ProviderTStatusEvent {
  const date = options.eventDate ?? new Date();
  // Shapes as in the published sandbox deliveries (test/fixtures/webhook-*-signed.json).
  return {
    eventId: options.eventId ?? publishedStyleEventId(date),
    eventDate: providerDate(date),
    subscriptionId: '15efa8b3-bb09-4fe9-a295-55fc323cf3ee',
    subscriptionType: 'TRANSACTION_STATUS_EVENT',
    eventPayload: {
      transactionId: options.transactionId,
      agentPartnerId: options.agentPartnerId ?? '30014857',
      referenceNumber: options.referenceNumber ?? '00000000',
      transactionSendDate: providerDate(date),
      transactionStatusDate: providerDate(date),
      expectedPayoutDate: providerDate(date).slice(0, 10),
      transactionStatus: options.transactionStatus,
      transactionSubStatus: [],
    },
  };
}

/** A 30-digit event id like the sandbox's (`740708201679925945014500444747`): unique per call. */
function publishedStyleEventId(date: Date): string {
  const digits = (count: number) =>
    Array.from(crypto.getRandomValues(new Uint8Array(count)), (byte) => String(byte % 10)).join('');
  return `${digits(8)}${String(Math.floor(date.getTime() / 1000)).padStart(10, '0')}${digits(12)}`;
}

/** A signed delivery ready for `handler.handle()`: the raw body, the `Signature` header and the URL. */
export function signedProviderTWebhook(options: {
  event: ProviderTStatusEvent | string;
  url: string;
  privateKey: string | KeyObject;
  timestamp?: number;
  /** The host to sign, when it differs from the URL's (a proxy). */
  host?: string;
}): { body: string; headersAsObject: Record<string, string>; fullUrl: string } {
  const body = typeof options.event === 'string' ? options.event : JSON.stringify(options.event);
  const signature = signProviderTWebhook({
    body,
    host: options.host ?? new URL(options.url).host,
    privateKey: options.privateKey,
    timestamp: options.timestamp,
  });
  return { body, headersAsObject: { 'content-type': 'application/json', signature }, fullUrl: options.url };
}
