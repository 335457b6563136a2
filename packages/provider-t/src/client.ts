/**
 * How the adapter talks to Provider T (wire contract "Authentication", "Errors"): core's provider client with
 * the OAuth token manager behind it, `X-Client-Request-Id` on every call (the same on each retry of it), the
 * error envelope read by `readEnvelope`, and Provider T's error codes as a table.
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
  requestIdOf,
} from '@pay/core';
import type * as v from '@pay/core/schema';
import * as schema from '@pay/core/schema';
import type { ResolvedConfig } from './config.js';
import { errorEnvelopeSchema, tokenReplySchema } from './wire.js';

/** The provider name on records, errors and events. */
export const PROVIDER = 'providerT';

/** One call: an `HttpRequest` plus a readable name for error messages. */
export interface ProviderCall extends Omit<HttpRequest, 'retrySafe'> {
  call: string;
  retrySafe: boolean;
  movesMoney?: boolean;
}

/** What the error table says about one provider code. */
export interface ProviderErrorRule {
  notFound?: boolean;
  retryable?: boolean;
}

/** What `send` resolved to: the body, or the provider's refusal. */
export type ProviderOutcome =
  | { ok: true; body: unknown; reply: HttpReply }
  | {
      ok: false;
      error: ProviderApiError;
      code: string | undefined;
      rule: ProviderErrorRule | undefined;
      reply: HttpReply;
    };

/** The adapter's connection to Provider T. */
export interface ProviderTClient {
  readonly config: ResolvedConfig;
  send(call: ProviderCall): Promise<ProviderOutcome>;
  request<S extends v.GenericSchema>(schema: S, call: ProviderCall): Promise<v.InferOutput<S>>;
  find<S extends v.GenericSchema>(schema: S, call: ProviderCall): Promise<v.InferOutput<S> | null>;
}

/**
 * Provider T's error codes (wire contract "Errors"): the sandbox answers an unknown transaction with 400 code
 * `697` ("Invalid Transaction ID", recorded in test/fixtures/status-unknown-697.json), which reads as not found.
 */
export const PROVIDER_T_ERRORS: Readonly<Record<string, ProviderErrorRule>> = {
  '697': { notFound: true },
};

/** Provider T's code for a commit of a transaction that is committed already (wire contract, Transfer step 3). */
export const ALREADY_COMMITTED_CODE = 'TRANSACTION_ALREADY_COMMITTED';

/** A parsed reply with the request id of the call that produced it (records carry it as `request_id`). */
export interface Replied<T> {
  body: T;
  requestId: string;
}

/** Creates the client. No I/O until the first call. */
export function createClient(config: ResolvedConfig): ProviderTClient {
  const secrets = [config.clientSecret, config.clientId];
  // The token manager and the client need each other: the client authorises with the manager's token, and
  // the manager logs in through the client (without authorisation).
  let client: ProviderTClient;
  const tokens = createTokenManager({
    login: async () => {
      const token = await client.request(tokenReplySchema, {
        call: 'GET /oauth/accesstoken',
        method: 'GET',
        path: '/oauth/accesstoken',
        query: { grant_type: 'client_credentials' },
        headers: { authorization: basicAuthorization(config.clientId, config.clientSecret) },
        authorize: false,
        retrySafe: true,
        credentialsInReply: true,
        context: { call: 'login' },
      });
      return { accessToken: token.access_token, expiresInSeconds: token.expires_in };
    },
    store: config.tokenStore,
    cacheKey: { provider: PROVIDER, clientId: config.clientId, baseUrl: config.baseUrl },
  });
  const http = createHttpClient({
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
  const parsed = <S extends v.GenericSchema>(s: S, body: unknown, call: ProviderCall) =>
    parseReply(s, body, { provider: PROVIDER, call: call.call, context: call.context });

  client = {
    config,
    async send(call) {
      const { call: _name, movesMoney: _moves, ...request } = call;
      const reply = await http.send(request);
      if (reply.status >= 200 && reply.status < 300) return { ok: true, body: parseJson(reply.text), reply };
      const detail = errorDetail(reply, secrets);
      const rule =
        detail.code !== undefined && Object.hasOwn(PROVIDER_T_ERRORS, detail.code)
          ? PROVIDER_T_ERRORS[detail.code]
          : undefined;
      const error = new ProviderApiError(
        {
          provider: PROVIDER,
          status: reply.status,
          providerCode: detail.code,
          providerMessage: detail.message,
          requestId: reply.requestId,
        },
        { context: withDetails(call.context, detail.details) },
      );
      return { ok: false, error, code: detail.code, rule, reply };
    },
    async request(s, call) {
      const outcome = await client.send(call);
      if (!outcome.ok) throw outcome.error;
      return parsed(s, outcome.body, call);
    },
    async find(s, call) {
      const outcome = await client.send(call);
      if (outcome.ok) return parsed(s, outcome.body, call);
      if (outcome.rule ? outcome.rule.notFound : outcome.reply.status === 404) return null;
      throw outcome.error;
    },
  };
  return client;
}

function withDetails(context: ErrorContext | undefined, details: Record<string, unknown> | undefined) {
  return details ? { ...context, ...details } : context;
}

/** Reads the error envelope leniently: a reply that is not the envelope still yields status and no code. */
function errorDetail(reply: HttpReply, secrets: readonly string[]) {
  const read = schema.safeParse(errorEnvelopeSchema, parseJson(reply.text));
  const envelope = read.success ? read.output : undefined;
  const errors: {
    code?: string | number | undefined;
    message?: string | undefined;
    offendingFields?: { field?: string | undefined }[] | undefined;
  }[] = envelope?.errors ?? (envelope?.error ? [envelope.error] : []);
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
    code: first?.code === undefined ? undefined : redact(String(first.code), secrets),
    message: messages.length > 0 ? redact(messages.join('; '), secrets) : undefined,
    details: offendingFields.length > 0 ? { offendingFields } : undefined,
  };
}

/** `send`, then the parsed body with its request id; a refusal is thrown. */
export async function requestReplied<S extends v.GenericSchema>(
  client: ProviderTClient,
  s: S,
  call: ProviderCall,
): Promise<Replied<v.InferOutput<S>>> {
  const outcome = await client.send(call);
  if (!outcome.ok) throw outcome.error;
  return { body: readBody(s, outcome.body, call), requestId: requestIdOf(outcome.reply) };
}

/** A read with its request id: `null` when the provider does not know the resource (404, or code 697). */
export async function findReplied<S extends v.GenericSchema>(
  client: ProviderTClient,
  s: S,
  call: ProviderCall,
): Promise<Replied<v.InferOutput<S>> | null> {
  const outcome = await client.send(call);
  if (!outcome.ok) {
    if (outcome.rule ? outcome.rule.notFound : outcome.reply.status === 404) return null;
    throw outcome.error;
  }
  return { body: readBody(s, outcome.body, call), requestId: requestIdOf(outcome.reply) };
}

/** Parses a 2xx body with `schema` (`InvalidResponseError` carrying the call's context on mismatch). */
export function readBody<S extends v.GenericSchema>(
  s: S,
  body: unknown,
  call: ProviderCall,
): v.InferOutput<S> {
  return parseReply(s, body, { provider: PROVIDER, call: call.call, context: call.context });
}

/** `HTTP 400 CODE: message` of a refusal, for messages. */
export function describeRefusal(outcome: Extract<ProviderOutcome, { ok: false }>): string {
  const { code } = outcome;
  const message = outcome.error.providerMessage;
  return `HTTP ${outcome.reply.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
}

/** The fields the provider named as incomplete or wrong (`sender.name.lastName`) in a refusal. */
export function offendingFieldsOf(error: ProviderApiError): string[] {
  const fields = error.context?.offendingFields;
  return Array.isArray(fields) ? fields.filter((field): field is string => typeof field === 'string') : [];
}
