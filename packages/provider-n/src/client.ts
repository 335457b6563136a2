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
  requestIdOf,
} from '@pay/core';
import * as v from '@pay/core/schema';
import { baseUrlOf, type ProviderNConfig } from './config.js';
import { envelopeSchema, loginBodySchema } from './wire.js';

/** What a call resolved to: the envelope's `responseBody`, or the provider's refusal. */
export type Outcome =
  | { ok: true; body: unknown; reply: HttpReply }
  | { ok: false; error: ProviderApiError; code: string | undefined; reply: HttpReply };

/** A refusal, as `send` returns it. */
export type Refusal = Extract<Outcome, { ok: false }>;

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

/** The request id header sent with every call; a reply header of the same name, if any, is the provider's id. */
const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * The request id a record carries (issue 16): the provider's own when its reply names one, else the id sent.
 */
export function requestIdOfReply(reply: HttpReply): string {
  return requestIdOf(reply, REQUEST_ID_HEADER);
}

/** Builds the client: no I/O until the first call, which logs in first. */
export function createClient(config: ProviderNConfig): ProviderNClient {
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
    requestIdHeader: REQUEST_ID_HEADER,
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
      code: undefined,
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
    code,
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
function loginError(outcome: Refusal): ProviderApiError {
  const { error } = outcome;
  if (error.retryable) return error;
  return withAdvice(
    error,
    'the login was refused; check apiKey and secretKey (PROVIDER_N_API_KEY / PROVIDER_N_SECRET_KEY) and that isSandbox matches the keys.',
  );
}

/** How the provider words a refusal of a reference it already holds, whatever the code. */
const DUPLICATE_REFERENCE_MESSAGE = /duplicate|already exists/i;

/** What Provider N's refusal codes mean (wire contract "createRefund" codes, the published refund read). */
interface ErrorRule {
  /** The resource does not exist: a read resolves to `null`. */
  notFound?: boolean;
  /** The provider already holds our reference: an earlier attempt of this request landed. */
  duplicateReference?: boolean;
  /** What to do about it, in the message. */
  advice?: string;
  /** Only when the provider's message matches (code 99 covers several refusals). */
  message?: RegExp;
}

/**
 * Provider code → rules, read with `Object.hasOwn` (a code named `constructor` has no rule); among several rules
 * for one code, the first whose `message` matches applies. `99` is the provider's catch-all (bad credentials,
 * unknown transaction, bad input): only its "Duplicate payment reference" (init-transaction, 422) has a rule.
 */
export const PROVIDER_N_ERRORS: Readonly<Record<string, ErrorRule | readonly ErrorRule[]>> = {
  '99': [{ message: DUPLICATE_REFERENCE_MESSAGE, duplicateReference: true }],
  R1: { advice: 'the transaction to refund was not found; check payment_id (the transactionReference).' },
  R2: { advice: 'this transaction cannot be refunded (not paid, or already fully refunded).' },
  R3: { advice: 'the refund is above what remains refundable on the transaction; lower amount.' },
  R4: { advice: 'the refund is below the minimum refund amount (10.00 NGN); raise amount.' },
  R5: { advice: 'the merchant balance is too low for this refund; fund the wallet and try again.' },
  // The published refund status read's "no refund was initiated with the supplied refund reference".
  R7: { notFound: true },
  // initiate-refund's "Supplied refund reference already exists for the merchant".
  R9: { duplicateReference: true },
};

/** The rule of a refusal, when the table lists its code (and, for shared codes, its message). */
export function ruleOf(refusal: Refusal): ErrorRule | undefined {
  const { code } = refusal;
  if (code === undefined || !Object.hasOwn(PROVIDER_N_ERRORS, code)) return undefined;
  const entry = PROVIDER_N_ERRORS[code];
  const rules: readonly ErrorRule[] = Array.isArray(entry) ? entry : [entry as ErrorRule];
  return rules.find(
    (rule) => rule.message === undefined || rule.message.test(refusal.error.providerMessage ?? ''),
  );
}

/**
 * Whether a refusal says the reference we sent is already taken. A call without a key sends a fresh reference
 * (requests.ts), so the provider holds it only if an earlier delivery of this same request landed; a keyed
 * call's reference is the key's, so the provider holds what that key already opened.
 */
export function isDuplicateReference(refusal: Refusal): boolean {
  return (
    ruleOf(refusal)?.duplicateReference === true ||
    DUPLICATE_REFERENCE_MESSAGE.test(refusal.error.providerMessage ?? '')
  );
}

/**
 * A read's refusal: `null` only for the provider's documented "not found" answers, the status query's 404 / `99`
 * and the refund read's `R7` (a 404 page from a proxy proves nothing); anything else is thrown.
 */
export function notFoundOrThrow(refusal: Refusal): null {
  const { status } = refusal.reply;
  const notFound = ruleOf(refusal)?.notFound === true || (status === 404 && refusal.code === '99');
  if (notFound && status < 500) return null;
  throw refusal.error;
}

/**
 * The error of a refused money-moving call (issue 11 §1). A refusal proves that nothing happened only when it is
 * a 4xx, no earlier attempt of the call may have reached the provider, and it is not "duplicate reference" (which
 * says one did). Otherwise (including a 5xx or 408, which a gateway can send after the provider processed the
 * call) the error carries `outcome: 'unknown'` (not retryable, with reconcile advice) and the reference in its
 * context, so the caller reconciles instead of moving money twice. A proven refusal carries the table's advice.
 */
export function moneyMovingRefusal(refusal: Refusal): ProviderApiError {
  const { error, reply } = refusal;
  const mayHaveLanded =
    reply.earlierAttemptMayHaveReached ||
    error.status >= 500 ||
    error.status === 408 ||
    isDuplicateReference(refusal);
  if (mayHaveLanded) {
    const code = error.providerCode ? ` (code ${error.providerCode})` : '';
    return error.withDetails({
      message: `${PROVIDER} answered HTTP ${error.status}${code} to a call that moves money, and the call (or an earlier attempt of it) may have been processed.`,
      outcome: 'unknown',
    });
  }
  const advice = ruleOf(refusal)?.advice;
  return advice ? withAdvice(error, advice) : error;
}
