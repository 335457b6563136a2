/**
 * Reading Provider T's replies (docs/providers/provider-t.md#errors): a 2xx body as JSON, the error envelope of a
 * refusal, and the words the flows' errors quote a refusal in.
 */
import {
  type EnvelopeReading,
  type HttpReply,
  type ProviderCall,
  type ProviderOutcome,
  parseJson,
  parseReply,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import { PROVIDER } from './config.js';
import { errorEnvelopeSchema } from './wire.js';

export type { ProviderCall, ProviderOutcome } from '@pay/core/adapter';

/** A parsed reply with the request id of the call that produced it (records carry it as `request_id`). */
export type Replied<T> = { body: T; requestId: string };

/**
 * Reads one reply: a 2xx body as JSON; otherwise the first error's code, every error's message, and the offending
 * fields (`sender.name.lastName`), which the error's context keeps. A reply that is not the envelope still yields a
 * refusal, with no code.
 */
export function readEnvelope(reply: HttpReply): EnvelopeReading {
  if (reply.status >= 200 && reply.status < 300) return { ok: true, body: parseJson(reply.text) };
  const parsed = v.safeParse(errorEnvelopeSchema, parseJson(reply.text));
  const envelope = parsed.success ? parsed.output : undefined;
  const errors = envelope?.errors ?? (envelope?.error ? [envelope.error] : []);
  const messages = errors.flatMap((error) => (error.message ? [error.message] : []));
  const offendingFields = (envelope?.errors ?? []).flatMap((error) =>
    (error.offendingFields ?? []).flatMap((field) => (field.field ? [field.field] : [])),
  );
  const code = errors[0]?.code;
  return {
    ok: false,
    code: code === undefined ? undefined : String(code),
    message: messages.length > 0 ? messages.join('; ') : undefined,
    details: offendingFields.length > 0 ? { offendingFields } : undefined,
  };
}

/** Parses a 2xx body with `schema` (`InvalidResponseError` carrying the call's context on mismatch). */
export function readBody<S extends v.GenericSchema>(
  schema: S,
  body: unknown,
  call: ProviderCall,
): v.InferOutput<S> {
  return parseReply(schema, body, { provider: PROVIDER, call: call.call, context: call.context });
}

/** An outcome Provider T refused. */
export type Refusal = Extract<ProviderOutcome, { ok: false }>;

/** `HTTP 400 CODE: message` of a refusal, for messages. */
export function describeRefusal(outcome: Refusal): string {
  const { code } = outcome;
  const message = outcome.error.providerMessage;
  return `HTTP ${outcome.reply.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
}
