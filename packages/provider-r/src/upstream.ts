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
  isUnknownTransactionAnswer,
  type ProviderRStatusReply,
  RETRYABLE_CODES,
  statusReplySchema,
} from './wire.js';

/** A reply that only acknowledges (`{ code: 0, message: "OK" }`): capture, cancel, refund. */
const acknowledgementSchema = v.looseObject({});

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
  /**
   * The status call; an unknown `transId` is a `ProviderApiError` that `isUnknownTransaction` recognises (1104,
   * or 1400 "Payment not found").
   */
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

/** True for the status call's "no such transaction" answer (wire.ts `isUnknownTransactionAnswer`). */
export function isUnknownTransaction(error: unknown): boolean {
  return (
    ProviderApiError.isInstance(error) &&
    isUnknownTransactionAnswer(error.providerCode, error.providerMessage)
  );
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

/** A reply the provider answered with an error (a non-zero code, or an HTTP error without an envelope). */
interface Refusal {
  error: ProviderApiError;
  reply: HttpReply;
  /** The `transId` the error reply still carries, when it does (issue 12 item 8). */
  transId: string | undefined;
}

/**
 * The error of a refused call that can move money (create, capture, cancel, refund; issue 11 §1). A refusal
 * proves that nothing happened only when no earlier attempt of the call may have reached the provider, the
 * answer is not a 5xx or 408 (a gateway can send those after the provider processed the call), its code is not
 * one the provider uses for its own failures (1200, 1500), and it names no transaction. Otherwise the error
 * carries `outcome: 'unknown'` (not retryable, with the reconcile advice) and every id the provider returned,
 * so the caller looks the payment up instead of creating, capturing or refunding it twice.
 */
function moneyMovingRefusal({ error, reply, transId }: Refusal): ProviderApiError {
  const context = transId === undefined ? error.context : { ...error.context, transId };
  const mayHaveLanded =
    reply.earlierAttemptMayHaveReached ||
    error.status >= 500 ||
    error.status === 408 ||
    RETRYABLE_CODES.has(error.providerCode ?? '') ||
    transId !== undefined;
  if (!mayHaveLanded) return transId === undefined ? error : error.withDetails({ context });
  const code = error.providerCode ? ` (code ${error.providerCode})` : '';
  return error.withDetails({
    message: `providerR answered HTTP ${error.status}${code} to a call that moves money, and the call (or an earlier attempt of it) may have been processed${
      transId === undefined ? '' : ` as transaction ${transId}`
    }.`,
    context,
    outcome: 'unknown',
  });
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

  /**
   * Sends one call; resolves to its successful body (any echoed `secret` dropped) or to the provider's refusal.
   * Only `code == 0` is success, whatever the HTTP status (wire contract, "Response codes").
   */
  async function exchange(
    call: string,
    request: HttpRequest,
  ): Promise<{ ok: true; body: Record<string, unknown> } | ({ ok: false } & Refusal)> {
    const reply = await http.send(request);
    const body = parseBody(reply);
    const checked = body === undefined ? undefined : v.safeParse(envelopeSchema, body);
    const envelope = checked?.success ? checked.output : undefined;
    if (envelope === undefined) {
      if (reply.status >= 400) {
        const error = new ProviderApiError(
          { provider: 'providerR', status: reply.status, requestId: reply.requestId },
          { context: request.context },
        );
        return { ok: false, error, reply, transId: undefined };
      }
      throw new InvalidResponseError(
        `providerR answered ${call} with a body that carries no \`code\` (HTTP ${reply.status}). If this persists, the provider's API changed; report it.`,
        { context: { ...request.context, requestId: reply.requestId } },
      );
    }
    if (envelope.code === 0) return { ok: true, body: withoutSecret(body as Record<string, unknown>) };
    const providerCode = String(envelope.code);
    const error = new ProviderApiError(
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
    const transId = (body as Record<string, unknown>).transId;
    const named = typeof transId === 'string' || typeof transId === 'number' ? String(transId) : '';
    return { ok: false, error, reply, transId: named === '' ? undefined : named };
  }

  /** A call that cannot move money (the status read): its refusal is the provider's answer as is. */
  async function read<S extends v.GenericSchema>(
    call: string,
    schema: S,
    request: HttpRequest,
  ): Promise<v.InferOutput<S>> {
    const answer = await exchange(call, request);
    if (!answer.ok) throw answer.error;
    return parseReply(schema, answer.body, { provider: 'providerR', call, context: request.context });
  }

  /** A call that can move money: a refusal says `outcome: 'unknown'` unless it proves nothing happened. */
  async function move<S extends v.GenericSchema>(
    call: string,
    schema: S,
    request: HttpRequest,
  ): Promise<v.InferOutput<S>> {
    const answer = await exchange(call, request);
    if (!answer.ok) throw moneyMovingRefusal(answer);
    return parseReply(schema, answer.body, { provider: 'providerR', call, context: request.context });
  }

  return {
    createCheckout: (body, options) =>
      move('POST /v2.0/paymentRedirect', createReplySchema, {
        method: 'POST',
        path: path`/v2.0/paymentRedirect/merchant/${config.merchant}`,
        json: body,
        // Creates a transaction: never repeated (design §6).
        retrySafe: false,
        signal: options.signal,
        context: referenceContext(body.refId),
      }),
    createPayment: (body, options) =>
      move('POST /v2.0/payment', createReplySchema, {
        method: 'POST',
        path: '/v2.0/payment',
        json: body,
        retrySafe: false,
        signal: options.signal,
        context: referenceContext(body.refId),
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
      move('POST /v2.0/refund.json', acknowledgementSchema, {
        method: 'POST',
        path: '/v2.0/refund.json',
        json: body,
        retrySafe: false,
        signal: options.signal,
        // Names the refund in any error, so a caller can reconcile a lost reply by its refId.
        context: { transId: body.transId, refId: body.refId },
      }),
    capture: (transId, amount, options) =>
      move('PUT /v2.0/preauth', acknowledgementSchema, {
        method: 'PUT',
        path: path`/v2.0/preauth/transId/${transId}.json`,
        json: amount === undefined ? {} : { amount },
        // A second capture of the same pre-authorisation is refused by the provider, so a retry cannot capture
        // twice; its refusal after a lost reply is reconciled with a status read (adapter).
        retrySafe: true,
        signal: options.signal,
        context: { transId },
      }),
    cancelPreauthorisation: (transId, options) =>
      move('DELETE /v2.0/preauth', acknowledgementSchema, {
        method: 'DELETE',
        path: path`/v2.0/preauth/transId/${transId}.json`,
        retrySafe: true,
        signal: options.signal,
        context: { transId },
      }),
    cancelPending: (transId, options) =>
      move('DELETE /v2.0/payment', acknowledgementSchema, {
        method: 'DELETE',
        path: path`/v2.0/payment/transId/${transId}.json`,
        retrySafe: true,
        signal: options.signal,
        context: { transId },
      }),
  };
}

/** The merchant reference of a creation, for its errors (a lost creation is found by it in the portal). */
function referenceContext(refId: string | undefined): Record<string, string> | undefined {
  return refId === undefined ? undefined : { refId };
}
