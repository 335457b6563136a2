/**
 * The upstream calls of Provider R (wire contract, "Calls"): HTTP Basic on every call, JSON bodies on the
 * v2.0 calls, the form-encoded v1.0 status call, and the provider's envelope where only `code == 0` is success.
 */
import {
  basicAuthorization,
  type CallOptions,
  createHttpClient,
  type HttpReply,
  type HttpRequest,
  InvalidResponseError,
  ProviderApiError,
  parseForm,
  parseJson,
  parseReply,
  path,
  redact,
} from '@pay/core';
import * as v from '@pay/core/schema';
import { PROVIDER_R_BASE_URL, type ProviderRConfig } from './config.js';
import {
  type CreateReply,
  createReplySchema,
  envelopeSchema,
  type ProviderRStatusReply,
  RETRYABLE_CODES,
  statusReplySchema,
} from './wire.js';

/** Body of `POST /v2.0/paymentRedirect/merchant/{merchant}`. */
export interface CheckoutBody {
  price: number;
  curr: string;
  label: string;
  refId?: string | undefined;
  email: string;
  method: 'ALL';
  test: boolean;
  url_paid: string;
  url_cancelled: string;
  url_pending: string;
}

/** Body of `POST /v2.0/payment`. */
export interface PaymentBody {
  price: number;
  curr: string;
  label: string;
  refId?: string | undefined;
  payerId: string;
  email: string;
  method: 'ALL';
  prepareOnly: true;
  test: boolean;
}

/** Body of `POST /v2.0/refund.json`. */
export interface RefundBody {
  transId: string;
  amount: number;
  curr: string;
  refId: string;
  test: boolean;
}

/** The calls the operations and the webhook confirmation make. */
export interface ProviderRUpstream {
  createCheckout(body: CheckoutBody, options: CallOptions): Promise<CreateReply>;
  createPayment(body: PaymentBody, options: CallOptions): Promise<CreateReply>;
  /** The status call; an unknown `transId` is a `ProviderApiError` with `providerCode: '1104'`. */
  status(transId: string, options: CallOptions): Promise<ProviderRStatusReply>;
  refund(body: RefundBody, options: CallOptions): Promise<Record<string, unknown>>;
  capture(
    transId: string,
    amount: number | undefined,
    options: CallOptions,
  ): Promise<Record<string, unknown>>;
  cancelPreauthorisation(transId: string, options: CallOptions): Promise<Record<string, unknown>>;
  cancelPending(transId: string, options: CallOptions): Promise<Record<string, unknown>>;
}

/** Every spelling of the secret that could appear in a body, a URL or an echoed reply. */
function secretSpellings(secret: string): string[] {
  const formEncoded = new URLSearchParams({ s: secret }).toString().slice(2);
  return [...new Set([secret, encodeURIComponent(secret), formEncoded, JSON.stringify(secret).slice(1, -1)])];
}

/** Removes the `secret` the status reply echoes, so it never reaches a record, an event or an error. */
export function withoutSecret(fields: Record<string, unknown>): Record<string, unknown> {
  const { secret: _secret, ...rest } = fields;
  return rest;
}

/** The media type of a `content-type` value, lower-cased, parameters dropped. */
export function mediaType(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Parses a reply body as JSON or form-encoded, as its content type (or, failing that, its text) says. */
function parseBody(reply: HttpReply): Record<string, unknown> | undefined {
  const media = mediaType(reply.headers.get('content-type'));
  const asJson = () => {
    const parsed = parseJson(reply.text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  };
  if (media === 'application/x-www-form-urlencoded') return parseForm(reply.text);
  if (media === 'application/json' || media.endsWith('+json')) return asJson();
  return asJson() ?? (/^[^=&\s]+=/.test(reply.text) ? parseForm(reply.text) : undefined);
}

/** Creates the upstream calls over one HTTP client. No I/O until the first call. */
export function createUpstream(config: ProviderRConfig): ProviderRUpstream {
  const secrets = secretSpellings(config.secret);
  const authorization = basicAuthorization(config.merchant, config.secret);
  const http = createHttpClient({
    provider: 'providerR',
    baseUrl: config.baseUrl ?? PROVIDER_R_BASE_URL,
    fetch: config.fetch,
    timeoutMs: config.timeoutMs,
    retry: config.retry,
    hooks: config.hooks,
    authorization: { header: async () => authorization },
    requestIdHeader: 'x-request-id',
    secrets,
  });

  /** Sends one call and returns its successful reply (any echoed `secret` dropped), or throws the provider's error. */
  async function send(call: string, request: HttpRequest): Promise<Record<string, unknown>> {
    const reply = await http.send(request);
    const body = parseBody(reply);
    const checked = body === undefined ? undefined : v.safeParse(envelopeSchema, body);
    const envelope = checked?.success ? checked.output : undefined;
    if (envelope === undefined) {
      if (reply.status >= 400) {
        throw new ProviderApiError(
          { provider: 'providerR', status: reply.status, requestId: reply.requestId },
          { context: request.context },
        );
      }
      throw new InvalidResponseError(
        `providerR answered ${call} with a body that carries no \`code\` (HTTP ${reply.status}). If this persists, the provider's API changed; report it.`,
        { context: { ...request.context, requestId: reply.requestId } },
      );
    }
    if (envelope.code !== 0) {
      const providerCode = String(envelope.code);
      throw new ProviderApiError(
        {
          provider: 'providerR',
          status: reply.status,
          providerCode,
          providerMessage: envelope.message === undefined ? undefined : redact(envelope.message, secrets),
          requestId: reply.requestId,
          retryable: RETRYABLE_CODES.has(providerCode) || reply.status === 429 || reply.status >= 500,
        },
        { context: request.context },
      );
    }
    return withoutSecret(body as Record<string, unknown>);
  }

  async function read<S extends v.GenericSchema>(
    call: string,
    schema: S,
    request: HttpRequest,
  ): Promise<v.InferOutput<S>> {
    const body = await send(call, request);
    return parseReply(schema, body, { provider: 'providerR', call });
  }

  return {
    createCheckout: (body, options) =>
      read('POST /v2.0/paymentRedirect', createReplySchema, {
        method: 'POST',
        path: path`/v2.0/paymentRedirect/merchant/${config.merchant}`,
        json: body,
        retrySafe: false,
        signal: options.signal,
      }),
    createPayment: (body, options) =>
      read('POST /v2.0/payment', createReplySchema, {
        method: 'POST',
        path: '/v2.0/payment',
        json: body,
        retrySafe: false,
        signal: options.signal,
      }),
    status: (transId, options) =>
      read('POST /v1.0/status', statusReplySchema, {
        method: 'POST',
        path: '/v1.0/status',
        // The status call authenticates with these fields as well as with Basic (design §8).
        form: { merchant: config.merchant, transId, secret: config.secret },
        // A read: repeating it cannot move money (design §6).
        retrySafe: true,
        signal: options.signal,
      }),
    refund: (body, options) =>
      send('POST /v2.0/refund.json', {
        method: 'POST',
        path: '/v2.0/refund.json',
        json: body,
        retrySafe: false,
        signal: options.signal,
        // Names the refund in any error, so a caller can reconcile a lost reply by its refId.
        context: { transId: body.transId, refId: body.refId },
      }),
    capture: (transId, amount, options) =>
      send('PUT /v2.0/preauth', {
        method: 'PUT',
        path: path`/v2.0/preauth/transId/${transId}.json`,
        json: amount === undefined ? {} : { amount },
        retrySafe: true,
        signal: options.signal,
      }),
    cancelPreauthorisation: (transId, options) =>
      send('DELETE /v2.0/preauth', {
        method: 'DELETE',
        path: path`/v2.0/preauth/transId/${transId}.json`,
        retrySafe: true,
        signal: options.signal,
      }),
    cancelPending: (transId, options) =>
      send('DELETE /v2.0/payment', {
        method: 'DELETE',
        path: path`/v2.0/payment/transId/${transId}.json`,
        retrySafe: true,
        signal: options.signal,
      }),
  };
}
