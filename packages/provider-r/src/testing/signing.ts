/**
 * Builds Provider R push notifications for tests (docs/providers/provider-r.md#webhooks), the role signing plays for the
 * other providers: Provider R signs nothing, so a genuine push is one that carries the merchant and its secret,
 * form-encoded by default or as JSON.
 */
import type { ProviderRStatus } from '../wire.js';

/** The fields of a push notification. */
export interface ProviderRPushFields {
  merchant: string;
  /** The merchant secret: what makes the push genuine. */
  secret: string;
  transId: string;
  /** One of the four statuses; any other text too, for tests of statuses the wire contract (docs/providers/provider-r.md#status) does not list. */
  status: ProviderRStatus | (string & {});
  /** Integer minor units, as on the wire (`10000` = 100.00 CZK). */
  price: number;
  curr: string;
  test?: boolean;
  label?: string;
  refId?: string;
  payerId?: string;
  method?: string;
  email?: string;
}

/** A built push: the raw body and the headers to send it with (pass both to `handler.handle`). */
export interface ProviderRPush {
  body: string;
  headers: Record<string, string>;
}

/** Options of {@link buildProviderRPush}. */
export interface ProviderRPushOptions {
  /** `form` (the provider's default) or `json`. */
  format?: 'form' | 'json';
  /** Overrides the content type (e.g. `Application/JSON; charset=utf-8`). */
  contentType?: string;
}

/**
 * Builds the body and headers of a push notification, e.g. for
 * `handler.handle({ body, headersAsObject: headers, fullUrl })` in your own tests.
 */
export function buildProviderRPush(
  fields: ProviderRPushFields,
  options: ProviderRPushOptions = {},
): ProviderRPush {
  const present = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  if (options.format === 'json') {
    return {
      body: JSON.stringify(present),
      headers: { 'content-type': options.contentType ?? 'application/json' },
    };
  }
  const form = new URLSearchParams(Object.entries(present).map(([name, value]) => [name, String(value)]));
  return {
    body: form.toString(),
    headers: { 'content-type': options.contentType ?? 'application/x-www-form-urlencoded' },
  };
}
