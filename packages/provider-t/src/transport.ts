/**
 * How the adapter talks to Provider T (wire contract "Authentication", "Errors"): one HTTP client per adapter
 * with the OAuth token manager behind it, `X-Client-Request-Id` on every call (the same on each retry of
 * it), and the provider's error envelope turned into `ProviderApiError`.
 */
import {
  basicAuthorization,
  createHttpClient,
  createTokenManager,
  type ErrorContext,
  type HttpReply,
  type HttpRequest,
  ProviderApiError,
  parseJson,
  parseReply,
  redact,
  type TokenManager,
} from '@pay/core';
import * as v from '@pay/core/schema';
import type { ResolvedConfig } from './config.js';
import { errorEnvelopeSchema, tokenReplySchema } from './wire.js';

/** The provider name on records, errors and events. */
export const PROVIDER = 'providerT';

/** A call as the adapter makes it: an `HttpRequest` plus a readable name for error messages. */
export interface ProviderTCall extends HttpRequest {
  /** `PUT /transfer/v1/transactions/{id}`: names the call without the id or any value. */
  call: string;
}

/** The adapter's connection to Provider T. */
export interface ProviderTTransport {
  readonly config: ResolvedConfig;
  readonly tokens: TokenManager;
  /** Sends a call and returns the reply whatever its status. */
  send(call: ProviderTCall): Promise<HttpReply>;
  /** Sends a call; a non-2xx reply becomes `ProviderApiError`, a 2xx one is read with `schema`. */
  request<S extends v.GenericSchema>(call: ProviderTCall, schema: S): Promise<v.InferOutput<S>>;
  /** Reads a 2xx reply with `schema` (`InvalidResponseError` carrying the call's context on mismatch). */
  read<S extends v.GenericSchema>(reply: HttpReply, call: ProviderTCall, schema: S): v.InferOutput<S>;
  /** The `ProviderApiError` for an error reply; `describe` may set its message and `retryable`. */
  error(reply: HttpReply, call: ProviderTCall, describe?: ErrorDescription): ProviderApiError;
  /** What the error envelope of a reply says (code, message, offending fields), secrets redacted. */
  detail(reply: HttpReply): ProviderErrorDetail;
}

/** How an adapter step words an error reply. */
export interface ErrorDescription {
  message?: (detail: ProviderErrorDetail) => string;
  /** Overrides the status-based default (e.g. `false` for a commit whose outcome is unknown). */
  retryable?: boolean;
  /**
   * `'unknown'` when an earlier attempt of this money-moving call may have landed although this reply refused
   * it (core then adds the reconcile advice and makes the error not retryable).
   */
  outcome?: 'unknown';
}

/** What Provider T's error envelope says. */
export interface ProviderErrorDetail {
  status: number;
  code: string | undefined;
  message: string | undefined;
  /** Fields the provider named as incomplete or wrong (`sender.name.lastName`). */
  offendingFields: string[];
}

/** `HTTP 400 CODE: message` of an error reply, for messages. */
export function describeReply(detail: ProviderErrorDetail): string {
  return `HTTP ${detail.status}${detail.code ? ` ${detail.code}` : ''}${detail.message ? `: ${detail.message}` : ''}`;
}

/** Code of Provider T's "Invalid Transaction ID" (wire contract "Errors"), sent with HTTP 400. */
export const INVALID_TRANSACTION_CODE = '697';

/**
 * True when a reply says the transaction does not exist: the sandbox answers 400 with code `697` (recorded in
 * test/fixtures/status-unknown-697.json), and a 404 means the same (wire contract "Errors").
 */
export function isUnknownTransaction(detail: ProviderErrorDetail): boolean {
  return detail.status === 404 || (detail.status === 400 && detail.code === INVALID_TRANSACTION_CODE);
}

/** True for a 2xx status. */
export function isSuccess(reply: HttpReply): boolean {
  return reply.status >= 200 && reply.status < 300;
}

/** Creates the transport. No I/O until the first call. */
export function createTransport(config: ResolvedConfig): ProviderTTransport {
  const secrets = [config.clientSecret, config.clientId];
  // The token manager and the client need each other: the client authorises with the manager's token, and
  // the manager logs in through the client (without authorisation).
  let transport: ProviderTTransport;
  const tokens = createTokenManager({
    login: async () => {
      const call: ProviderTCall = {
        call: 'GET /oauth/accesstoken',
        method: 'GET',
        path: '/oauth/accesstoken',
        query: { grant_type: 'client_credentials' },
        headers: { authorization: basicAuthorization(config.clientId, config.clientSecret) },
        authorize: false,
        retrySafe: true,
        credentialsInReply: true,
        context: { call: 'login' },
      };
      const token = await transport.request(call, tokenReplySchema);
      return { accessToken: token.access_token, expiresInSeconds: token.expires_in };
    },
    store: config.tokenStore,
    cacheKey: { provider: PROVIDER, clientId: config.clientId, baseUrl: config.baseUrl },
  });
  const client = createHttpClient({
    provider: PROVIDER,
    baseUrl: config.baseUrl,
    fetch: config.fetch,
    timeoutMs: config.timeoutMs,
    retry: config.retry,
    hooks: config.hooks,
    requestIdHeader: 'X-Client-Request-Id',
    secrets,
    authorization: {
      header: async () => `Bearer ${await tokens.get()}`,
      rejected: (value) => tokens.invalidate(value.slice('Bearer '.length)),
    },
  });

  transport = {
    config,
    tokens,
    send: (call) => client.send(call),
    async request(call, schema) {
      const reply = await client.send(call);
      if (!isSuccess(reply)) throw transport.error(reply, call);
      return transport.read(reply, call, schema);
    },
    read: (reply, call, schema) =>
      parseReply(schema, parseJson(reply.text), {
        provider: PROVIDER,
        call: call.call,
        context: call.context,
      }),
    detail: (reply) => errorDetail(reply, secrets),
    error(reply, call, describe = {}) {
      const detail = errorDetail(reply, secrets);
      return new ProviderApiError(
        {
          provider: PROVIDER,
          status: reply.status,
          providerCode: detail.code,
          providerMessage: detail.message,
          requestId: reply.requestId,
          ...(describe.message ? { message: describe.message(detail) } : {}),
          ...(describe.retryable === undefined ? {} : { retryable: describe.retryable }),
        },
        {
          context: withOffendingFields(call.context, detail),
          ...(describe.outcome ? { outcome: describe.outcome } : {}),
        },
      );
    },
  };
  return transport;
}

function withOffendingFields(
  context: ErrorContext | undefined,
  detail: ProviderErrorDetail,
): ErrorContext | undefined {
  if (detail.offendingFields.length === 0) return context;
  return { ...context, offendingFields: detail.offendingFields };
}

interface ErrorItem {
  code?: string | number | undefined;
  message?: string | undefined;
  offendingFields?: { field?: string | undefined }[] | undefined;
}

/** Reads the error envelope leniently: a reply that is not the envelope still yields status and no code. */
function errorDetail(reply: HttpReply, secrets: readonly string[]): ProviderErrorDetail {
  const parsed = v.safeParse(errorEnvelopeSchema, parseJson(reply.text));
  const envelope = parsed.success ? parsed.output : undefined;
  const errors: ErrorItem[] = envelope?.errors ?? (envelope?.error ? [envelope.error] : []);
  const first = errors[0];
  const messages = errors
    .map((error) => error.message)
    .filter((message): message is string => Boolean(message));
  const offendingFields = errors.flatMap((error) =>
    (error.offendingFields ?? [])
      .map((field) => field.field)
      .filter((field): field is string => Boolean(field)),
  );
  return {
    status: reply.status,
    code: first?.code === undefined ? undefined : redact(String(first.code), secrets),
    message: messages.length > 0 ? redact(messages.join('; '), secrets) : undefined,
    offendingFields,
  };
}
