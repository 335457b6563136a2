/**
 * The authenticated Provider N client (wire contract "Envelope" and "Authentication", design §6 and §8): core's
 * HTTP client with a Bearer token from core's token manager, and the envelope check that turns
 * `requestSuccessful: false` or a non-`"0"` `responseCode` into a `ProviderApiError` whatever the HTTP status.
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
} from '@pay/core';
import * as v from '@pay/core/schema';
import { baseUrlOf, type ProviderNConfig } from './config.js';
import { envelopeSchema, loginBodySchema } from './wire.js';

/** What a call resolved to: the envelope's `responseBody`, or the provider's refusal. */
export type Outcome =
  | { ok: true; body: unknown; reply: HttpReply }
  | { ok: false; error: ProviderApiError; responseCode: string | undefined; reply: HttpReply };

/** One call through the client; `call` names it in errors (`'init-transaction'`). */
export interface ProviderNCall extends Omit<HttpRequest, 'authorize' | 'retrySafe'> {
  call: string;
  /** Only the login and reads are retried: init-transaction and refunds could move money twice. */
  retrySafe: boolean;
}

/** The client an adapter instance shares between its operations. */
export interface ProviderNClient {
  /** Sends an authenticated call and reads its envelope. Provider refusals come back as `{ ok: false }`. */
  send(request: ProviderNCall): Promise<Outcome>;
}

const PROVIDER = 'providerN';

/** Builds the client: no I/O until the first call, which logs in first. */
export function createProviderNClient(config: ProviderNConfig): ProviderNClient {
  const secrets = [config.apiKey, config.secretKey];
  const tokens = createTokenManager({
    // The login is shared by every concurrent caller, so one caller's signal must not abort it for the others;
    // the HTTP client's own timeout still bounds it.
    login: () => login(),
    store: config.tokenStore,
    cacheKey: { provider: PROVIDER, clientId: config.apiKey, baseUrl: baseUrlOf(config) },
  });
  const http = createHttpClient({
    provider: PROVIDER,
    baseUrl: baseUrlOf(config),
    ...(config.fetch ? { fetch: config.fetch } : {}),
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    ...(config.retry === undefined ? {} : { retry: config.retry }),
    ...(config.hooks ? { hooks: config.hooks } : {}),
    secrets,
    // Not part of Provider N's contract, but one id per logical call (the same on its retries) lets its
    // support trace a call, as design §6 asks of every adapter.
    requestIdHeader: 'X-Request-Id',
    authorization: {
      header: async () => `Bearer ${await tokens.get()}`,
      // A 401 drops the rejected token; core sends the call once more, which logs in again.
      rejected: (value) => tokens.invalidate(value.slice('Bearer '.length)),
    },
  });

  /** `POST /v1/auth/login` with Basic apiKey:secretKey; it only reads, so it is retried like a GET. */
  async function login() {
    const reply = await http.send({
      method: 'POST',
      path: '/v1/auth/login',
      headers: { authorization: basicAuthorization(config.apiKey, config.secretKey) },
      authorize: false,
      retrySafe: true,
      credentialsInReply: true,
    });
    const outcome = readEnvelope(reply, 'login', secrets);
    if (!outcome.ok) throw loginError(outcome);
    const body = parseReply(loginBodySchema, outcome.body, { provider: PROVIDER, call: 'login' });
    return { accessToken: body.accessToken, expiresInSeconds: body.expiresIn };
  }

  return {
    async send({ call, context, ...request }) {
      const reply = await http.send({ ...request, ...(context ? { context } : {}) });
      return readEnvelope(reply, call, secrets, context);
    },
  };
}

/** Reads the envelope: success only when `requestSuccessful` is true and `responseCode` is `"0"`. */
export function readEnvelope(
  reply: HttpReply,
  call: string,
  secrets: readonly string[],
  context?: ErrorContext,
): Outcome {
  const json = parseJson(reply.text);
  if (reply.status >= 400 && !v.is(envelopeSchema, json)) {
    // No envelope at all: an error page from a proxy or a gateway.
    return {
      ok: false,
      responseCode: undefined,
      reply,
      error: apiError(reply, undefined, undefined, secrets, context),
    };
  }
  const { requestSuccessful, responseCode, responseMessage, responseBody } = parseReply(
    envelopeSchema,
    json,
    {
      provider: PROVIDER,
      call,
      ...(context ? { context } : {}),
    },
  );
  const code = responseCode ?? undefined;
  if (requestSuccessful && (code === undefined || code === '0'))
    return { ok: true, body: responseBody, reply };
  return {
    ok: false,
    responseCode: code,
    reply,
    error: apiError(reply, code, responseMessage ?? undefined, secrets, context),
  };
}

function apiError(
  reply: HttpReply,
  code: string | undefined,
  message: string | undefined,
  secrets: readonly string[],
  context: ErrorContext | undefined,
): ProviderApiError {
  return new ProviderApiError(
    {
      provider: PROVIDER,
      status: reply.status,
      providerCode: code,
      providerMessage: message === undefined ? undefined : redact(message, secrets),
      requestId: reply.requestId,
    },
    context ? { context } : {},
  );
}

/** The same provider error with a message that says what to do about this particular code. */
export function withAdvice(error: ProviderApiError, advice: string): ProviderApiError {
  const code = error.providerCode ? ` (code ${error.providerCode})` : '';
  return error.withDetails({ message: `${PROVIDER} answered HTTP ${error.status}${code}: ${advice}` });
}

/** A refused login: the message points at the credentials, unless the provider may accept it later. */
function loginError(outcome: Extract<Outcome, { ok: false }>): ProviderApiError {
  const { error } = outcome;
  if (error.retryable) return error;
  return withAdvice(
    error,
    'the login was refused; check apiKey and secretKey (PROVIDER_N_API_KEY / PROVIDER_N_SECRET_KEY) and that isSandbox matches the keys.',
  );
}
