/**
 * Reading Provider N's replies (docs/providers/provider-n.md#envelope): the envelope, what a refusal of a
 * money-moving call means (docs/architecture.md#outcomes), and the login's reply.
 */
import {
  type EnvelopeReading,
  type HttpReply,
  type ProviderApiError,
  type ProviderCall,
  type ProviderOutcome,
  parseJson,
  parseReply,
  moneyMovingRefusal as refuseMoneyMovingCall,
  requestIdOf,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import { PROVIDER } from './config.js';
import { envelopeSchema, loginBodySchema } from './wire.js';

/** How the provider words a refusal of a reference it already holds, whatever the code. */
export const DUPLICATE_REFERENCE_MESSAGE = /duplicate|already exists/i;

/** The request id header sent with every call; a reply header of the same name, if any, is the provider's id. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What to check when the provider refuses the credentials (never a value). */
export const CREDENTIALS_HINT =
  'apiKey and secretKey (PROVIDER_N_API_KEY / PROVIDER_N_SECRET_KEY) and that isSandbox matches the keys';

/** A refusal, as the client's `send` returns it. */
export type Refusal = Extract<ProviderOutcome, { ok: false }>;

/** The request id a record carries: the provider's own when its reply names one, else the id sent. */
export function requestIdOfReply(reply: HttpReply): string {
  return requestIdOf(reply, REQUEST_ID_HEADER);
}

/**
 * Reads the envelope: success only when `requestSuccessful` and `responseCode` `"0"` (or absent), whatever the
 * HTTP status. An error status without an envelope (a proxy's page) is a refusal without a code.
 */
export function readEnvelope(
  reply: HttpReply,
  call: Pick<ProviderCall, 'call' | 'context'>,
): EnvelopeReading {
  const json = parseJson(reply.text);
  if (reply.status >= 400 && !v.is(envelopeSchema, json)) return { ok: false };
  const context = call.context ? { context: call.context } : {};
  const envelope = parseReply(envelopeSchema, json, { provider: PROVIDER, call: call.call, ...context });
  const code = envelope.responseCode ?? undefined;
  if (envelope.requestSuccessful && (code === undefined || code === '0'))
    return { ok: true, body: envelope.responseBody };
  return { ok: false, code, message: envelope.responseMessage ?? undefined };
}

/**
 * Whether a refusal says the reference we sent is already taken: an unkeyed call's reference is fresh, so only an
 * earlier delivery of this same request holds it; a keyed call's is the key's, held by what that key opened.
 */
export function isDuplicateReference(refusal: Refusal): boolean {
  return refusal.code === 'R9' || DUPLICATE_REFERENCE_MESSAGE.test(refusal.error.providerMessage ?? '');
}

/**
 * The error of a refused money-moving call, through core's `moneyMovingRefusal`: a 5xx, a 408, an earlier attempt
 * or "duplicate reference" (which says one landed) gives `outcome: 'unknown'`, so the caller reconciles instead of
 * moving money twice.
 */
export function moneyMovingRefusal(refusal: Refusal): ProviderApiError {
  return refuseMoneyMovingCall(refusal.error, refusal.reply, {
    mayHaveLanded: isDuplicateReference(refusal),
  });
}

/**
 * The token of a login's reply (docs/providers/provider-n.md#authentication). A refusal that may pass later (429,
 * 5xx) is thrown as it is; any other points at the credentials.
 */
export function readLogin(outcome: ProviderOutcome): { accessToken: string; expiresInSeconds: number } {
  if (!outcome.ok) {
    const { error, code } = outcome;
    if (error.retryable) throw error;
    const message = `${PROVIDER} answered HTTP ${error.status}${code ? ` (code ${code})` : ''}: the login was refused; check ${CREDENTIALS_HINT}.`;
    throw error.withDetails({ message });
  }
  const body = parseReply(loginBodySchema, outcome.body, { provider: PROVIDER, call: 'login' });
  return { accessToken: body.accessToken, expiresInSeconds: body.expiresIn };
}
