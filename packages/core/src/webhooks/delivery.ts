/** What `handle()` receives, made into the delivery an adapter verifies (docs/architecture.md#webhook-handler). */
import { utf8 } from '../crypto.js';
import { PayError } from '../errors.js';
import { WebhookVerificationError } from './errors.js';
import type { AuthenticatedDelivery, WebhookDelivery, WebhookRequest } from './types.js';

const RAW_BODY_HELP =
  'Pass the raw request body (string or bytes), not a parsed object: signatures are computed on the exact bytes. ' +
  'Express: app.post(path, express.raw({ type: () => true, limit: 1024 * 1024 }), …) and pass req.body; ' +
  'Next.js route handler: await request.text(); or use the core bridges toFetchHandler / toNodeListener.';

/**
 * The fix for each place a consumed body is found (`express`; `node`: another Node framework; `fetch`: a used
 * `Request`; `handle`), as the root README's recipes mount the route.
 */
const PARSED_BODY_FIX = {
  express:
    'a body parser such as express.json() or express.urlencoded() ran first. Fix: mount the webhook route ' +
    "before any body parser (app.post('/webhooks', toNodeListener(handler)) above app.use(express.json())), or " +
    'use express.raw({ type: () => true, limit: 1024 * 1024 }) on that route and pass req.body to handle().',
  node:
    "the framework's body parser read it first (Fastify parses every JSON body before the route runs). Fix: " +
    'give the webhook route a parser that leaves the body unread; Fastify: register the route in its own plugin ' +
    "that calls removeAllContentTypeParsers() and addContentTypeParser('*', (request, payload, done) => done(null)), " +
    'then reply.hijack() and pass request.raw and reply.raw to toNodeListener.',
  fetch:
    'something read the Request body first (await request.json() or request.text(), or a middleware). Fix: pass ' +
    "the untouched Request to the bridge; Next.js: export it as POST; Hono: app.post('/webhooks', (c) => " +
    'webhook(c.req.raw)) with no body-reading middleware on that route.',
  handle:
    'a body parser turned it into an object. Fix: pass the raw bytes; Express: mount ' +
    'express.raw({ type: () => true, limit: 1024 * 1024 }) on the webhook route before any global body parser ' +
    'and pass req.body; Fastify: a content-type parser with parseAs: buffer on that route; Next.js: ' +
    'await request.text().',
};

/**
 * The refusal of a body a parser already consumed: the application's configuration, not a forgery, so retryable
 * (503) and delivered again once the route is fixed, not a final 400 that loses it
 * (docs/architecture.md#webhook-handler).
 */
export function bodyAlreadyParsedError(site: keyof typeof PARSED_BODY_FIX): WebhookVerificationError {
  return new WebhookVerificationError(
    'The webhook body was already parsed or read before it reached the webhook handler, so the raw bytes the ' +
      `signature covers are gone; answered 503 so the provider delivers it again. Cause: ${PARSED_BODY_FIX[site]}`,
    { reason: 'raw_body_required', retryable: true },
  );
}

/** Checks that the adapter's `verify` resolved to `{ key, events() }`: anything else is an adapter bug (503). */
export function asAuthenticatedDelivery(value: AuthenticatedDelivery): AuthenticatedDelivery {
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof value.key !== 'string' ||
    value.key === '' ||
    typeof value.events !== 'function'
  ) {
    throw asVerificationError(
      new TypeError(
        "The adapter's webhooks.verify must resolve to { key, events() } (an array of events is the former contract).",
      ),
    );
  }
  return value;
}

/** Decodes a whole body at once (never streaming), so one decoder serves every delivery. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The delivery an adapter verifies, from what `handle()` received; refuses what cannot be a webhook request. */
export function toDelivery(request: WebhookRequest): WebhookDelivery {
  if (typeof request !== 'object' || request === null) {
    throw malformedRequest('handle() takes { body, headersAsObject, fullUrl }.');
  }
  const body = rawBodyOf(request);
  let text: string;
  try {
    // The decoder drops a leading byte order mark from bytes; drop it from a string too, so both spellings of
    // one body parse alike. The signature is still checked over `rawBody`, BOM included, as the provider sent it.
    text = typeof body === 'string' ? body.replace(/^\uFEFF/, '') : STRICT_UTF8.decode(body);
  } catch (cause) {
    throw malformedRequest('The webhook body is not valid UTF-8.', cause);
  }
  if (typeof request.fullUrl !== 'string') {
    throw malformedRequest('fullUrl must be the full URL the webhook was posted to.');
  }
  return {
    rawBody: utf8(body),
    body: text,
    headers: lowerCaseHeaders(request.headersAsObject ?? {}),
    fullUrl: request.fullUrl,
  };
}

/**
 * The raw body of `request`. An object with content is what a body parser made of it: refused retryably with the
 * fix. Nothing (`undefined`, the `{}` Express 4 leaves) is the empty body when the headers announce none (then
 * 400, as the bridges answer), else the wiring: retryable (docs/architecture.md#webhook-handler).
 */
function rawBodyOf(request: WebhookRequest): string | Uint8Array {
  const { body } = request;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  const nothing = body === undefined || body === null || isEmptyPlainObject(body);
  if (!nothing && typeof body === 'object') throw bodyAlreadyParsedError('handle');
  if (nothing && !announcesBody(request.headersAsObject)) return new Uint8Array(0);
  throw new WebhookVerificationError(
    `The webhook body is ${body === null ? 'null' : typeof body === 'object' ? 'an empty object' : typeof body}, though the request announced one. ${RAW_BODY_HELP}`,
    { reason: 'raw_body_required', retryable: true },
  );
}

/** `{}` (or `Object.create(null)` with nothing in it): what Express 4 leaves in `req.body` when nothing parsed it. */
function isEmptyPlainObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && Reflect.ownKeys(value).length === 0;
}

/**
 * Whether request headers announce a body (RFC 9112 §6.3): chunked, or a `Content-Length` other than 0. Over
 * HTTP/2 (Node gives its pseudo-header `:method`) a body needs no `Content-Length`: it counts as announced.
 */
function announcesBody(headers: WebhookRequest['headersAsObject']): boolean {
  let names: Record<string, string>;
  try {
    names = lowerCaseHeaders(headers ?? {});
  } catch {
    return true; // unreadable headers prove nothing: keep the answer for the wiring
  }
  if (names['transfer-encoding'] !== undefined || names[':method'] !== undefined) return true;
  const length = names['content-length'];
  return length !== undefined && !/^0+$/.test(length.trim());
}

/**
 * Header names in lower case, repeated values joined. A value that is not a string (or list of strings) cannot
 * come from an HTTP request: refused, not guessed at.
 */
export function lowerCaseHeaders(headers: WebhookRequest['headersAsObject']): Record<string, string> {
  const result: Record<string, string> = {};
  if (typeof headers !== 'object' || headers === null) throw malformedRequest(MALFORMED_HEADERS);
  const entries =
    typeof Headers !== 'undefined' && headers instanceof Headers
      ? [...headers.entries()]
      : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    const parts = [value].flat();
    if (!parts.every((item) => typeof item === 'string')) throw malformedRequest(MALFORMED_HEADERS);
    const text = parts.join(', ');
    const key = name.toLowerCase();
    result[key] = key in result ? `${result[key]}, ${text}` : text;
  }
  return result;
}

const MALFORMED_HEADERS = 'headersAsObject must map header names to strings (or lists of strings).';

/** A request that cannot be a webhook delivery (not a provider's doing): refused with 400. */
function malformedRequest(message: string, cause?: unknown): WebhookVerificationError {
  return new WebhookVerificationError(message, { reason: 'malformed_payload', cause });
}

/**
 * Any failure while verifying as a `WebhookVerificationError`: a failed confirmation call is retryable when the
 * provider may answer later; an exception that is not a `PayError` is a bug, answered retryably (503).
 */
export function asVerificationError(error: unknown): WebhookVerificationError {
  if (WebhookVerificationError.isInstance(error)) return error;
  if (PayError.isInstance(error)) {
    const retryable =
      (error as { retryable?: boolean; code: string }).retryable ?? error.code === 'network_error';
    return new WebhookVerificationError(
      `The webhook could not be confirmed with the provider (${error.code}). ${retryable ? 'The provider will deliver it again.' : ''}`.trim(),
      { reason: 'confirmation_failed', retryable, cause: error },
    );
  }
  return new WebhookVerificationError(
    'The webhook could not be verified because of an unexpected error (see cause); answered retryably so the provider delivers it again.',
    { reason: 'internal_error', retryable: true, cause: error },
  );
}
