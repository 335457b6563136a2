/**
 * Reading Provider R's replies (docs/providers/provider-r.md#response-codes): the envelope, JSON or form-encoded,
 * refusals of calls that can move money (docs/architecture.md#outcomes), and a call's answer.
 */
import {
  type EnvelopeReading,
  type HttpReply,
  InvalidResponseError,
  isRecord,
  type ProviderApiError,
  type ProviderOutcome,
  parseForm,
  parseJson,
  parseReply,
  moneyMovingRefusal as refuseMoneyMovingCall,
  requestIdOf,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import type { ProviderRCall } from './requests.js';
import { envelopeSchema, mediaType, withoutSecret } from './wire.js';

/** Every spelling of the secret that could appear in a body, a URL or an echoed reply. */
export function secretSpellings(secret: string): string[] {
  const formEncoded = new URLSearchParams({ s: secret }).toString().slice(2);
  return [...new Set([secret, encodeURIComponent(secret), formEncoded, JSON.stringify(secret).slice(1, -1)])];
}

/** Parses a reply body as JSON or form-encoded, as its content type (or, failing that, its text) says. */
function parseBody(reply: HttpReply): Record<string, unknown> | undefined {
  const media = mediaType(reply.headers.get('content-type'));
  const asJson = () => {
    const parsed = parseJson(reply.text);
    return isRecord(parsed) ? parsed : undefined;
  };
  if (media === 'application/x-www-form-urlencoded') return parseForm(reply.text);
  if (media === 'application/json' || media.endsWith('+json')) return asJson();
  return asJson() ?? (/^[^=&\s]+=/.test(reply.text) ? parseForm(reply.text) : undefined);
}

/** Reads the envelope: `code` (or `error`) 0 is success, any other code a refusal, an HTTP error without one too. */
export function readEnvelope(reply: HttpReply, call: { call: string; context?: object }): EnvelopeReading {
  const body = parseBody(reply);
  const checked = body === undefined ? undefined : v.safeParse(envelopeSchema, body);
  const envelope = checked?.success ? checked.output : undefined;
  if (envelope === undefined) {
    if (reply.status >= 400) return { ok: false };
    throw new InvalidResponseError(
      `providerR answered ${call.call} with a body that carries no \`code\` (HTTP ${reply.status}). If this persists, the provider's API changed; report it.`,
      { context: { ...call.context, requestId: reply.requestId } },
    );
  }
  if (envelope.code === 0) return { ok: true, body: withoutSecret(body as Record<string, unknown>) };
  return { ok: false, code: String(envelope.code), message: envelope.message };
}

/**
 * The error of a refused call that can move money, through core's `moneyMovingRefusal`: a code of the provider's
 * own failures (1200, 1500) or a reply naming a transaction may have been processed too: `outcome: 'unknown'` with
 * every id the provider returned.
 */
export function moneyMovingRefusal(
  error: ProviderApiError,
  reply: HttpReply,
  retryableCode: boolean,
): ProviderApiError {
  // The `transId` an error reply still carries, when it does (docs/providers/provider-r.md#response-codes).
  const named = parseBody(reply)?.transId;
  const transId = typeof named === 'string' || typeof named === 'number' ? String(named) : '';
  return refuseMoneyMovingCall(error, reply, {
    mayHaveLanded: retryableCode || transId !== '',
    ...(transId === ''
      ? {}
      : { processedAs: `transaction ${transId}`, context: { ...error.context, transId } }),
  });
}

/** A call's answer: the parsed body and the request id a record built from it carries (`request_id`). */
export type ProviderRAnswer<T> = { body: T; requestId: string };

/** The answer of one sent call: its body parsed with the call's schema, or its refusal thrown. */
export function readAnswer<S extends v.GenericSchema>(
  call: ProviderRCall<S>,
  outcome: ProviderOutcome,
): ProviderRAnswer<v.InferOutput<S>> {
  if (!outcome.ok) {
    if (!call.movesMoney) throw outcome.error;
    throw moneyMovingRefusal(outcome.error, outcome.reply, outcome.rule?.retryable === true);
  }
  const errorContext = call.context ? { context: call.context } : {};
  return {
    body: parseReply(call.schema, outcome.body, { provider: 'providerR', call: call.call, ...errorContext }),
    // The provider names no request-id header (docs/providers/provider-r.md#calls): the id `@pay` sent.
    requestId: requestIdOf(outcome.reply),
  };
}
