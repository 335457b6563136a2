/**
 * Signing helpers for users' own tests: build Provider N webhooks exactly as the provider sends them
 * (`providerN-signature` = lower-case hex HMAC-SHA512 of the raw body, keyed with the merchant's secret key, which
 * is what `webhooks.setup({ webhookSecret })` takes).
 */
import type { WebhookRequest } from '@pay/core';
import { hmacSignature } from '@pay/core/adapter';
import { SIGNATURE_SCHEME } from '../webhooks.js';

/** A Provider N webhook payload: `{ eventType, eventData }`. */
export interface ProviderNWebhookPayload {
  /** `SUCCESSFUL_TRANSACTION`, `SETTLEMENT`, `SUCCESSFUL_REFUND`, … */
  eventType: string;
  eventData: Record<string, unknown>;
}

/** The `providerN-signature` value for a raw body: lower-case hex HMAC-SHA512 keyed with `webhookSecret`. */
export function signProviderNWebhook(rawBody: string | Uint8Array, webhookSecret: string): Promise<string> {
  return hmacSignature(webhookSecret, rawBody, SIGNATURE_SCHEME);
}

/** Options of {@link providerNWebhookRequest}. */
export interface ProviderNWebhookRequestOptions {
  webhookSecret: string;
  /** The URL the webhook is posted to (default `https://shop.example/webhooks/provider-n`). */
  fullUrl?: string;
}

/**
 * A signed webhook request, ready for `handler.handle()`: the JSON body as a string, the signature header as
 * the provider spells it, and `fullUrl`.
 */
export async function providerNWebhookRequest(
  payload: ProviderNWebhookPayload,
  options: ProviderNWebhookRequestOptions,
): Promise<WebhookRequest & { body: string; headersAsObject: Record<string, string> }> {
  const body = JSON.stringify(payload);
  return {
    body,
    headersAsObject: {
      'content-type': 'application/json',
      'providerN-signature': await signProviderNWebhook(body, options.webhookSecret),
    },
    fullUrl: options.fullUrl ?? 'https://shop.example/webhooks/provider-n',
  };
}
