/**
 * Reading Provider Xyz's replies: the envelope (success or refusal, whatever the HTTP status), and what a refusal
 * of a call that moves money means
 * (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#outcomes).
 */
import {
  type EnvelopeReading,
  type HttpReply,
  type ProviderApiError,
  type ProviderOutcome,
  parseJson,
  parseReply,
  moneyMovingRefusal as refuseMoneyMovingCall,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import { PROVIDER } from './config.js';

/** TODO: the header the client sends its request id in (support tickets quote it). */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * TODO: the refusals of a money-moving call that mean "this was already done" (a duplicate reference): after a
 * lost reply, such a refusal may hide money that moved, so it is reported as outcome unknown.
 */
const ALREADY_DONE = /duplicate/i;

/** TODO: the provider's reply envelope. */
const envelopeSchema = v.looseObject({
  data: v.optional(v.unknown()),
  error: v.optional(v.looseObject({ code: v.optional(v.unknown()), message: v.optional(v.unknown()) })),
  code: v.optional(v.unknown()),
  message: v.optional(v.unknown()),
});

/**
 * Reads the provider's reply envelope (TODO: its shape): a 2xx JSON body is the answer (its `data` when it has
 * one); an error status is a refusal with the provider's code and message. A 2xx reply that is not the envelope
 * (cut short, not JSON) proves nothing about what the provider did: it throws `InvalidResponseError` (outcome
 * unknown), never a refusal, which would say nothing moved.
 */
export function readEnvelope(reply: HttpReply, { call }: { call: string }): EnvelopeReading {
  if (reply.status >= 200 && reply.status < 300) {
    const body = parseReply(envelopeSchema, parseJson(reply.text), { provider: PROVIDER, call });
    return { ok: true, body: body.data ?? body };
  }
  const body = parseJson(reply.text) as v.InferOutput<typeof envelopeSchema> | undefined;
  const code = body?.error?.code ?? body?.code;
  const message = body?.error?.message ?? body?.message;
  return {
    ok: false,
    code: typeof code === 'string' ? code : undefined,
    message: typeof message === 'string' ? message : undefined,
  };
}

/**
 * The error of a refused money-moving call, through core's `moneyMovingRefusal`: a refusal that says the call was
 * already done (or one after an earlier attempt may have landed) is `outcome: 'unknown'`, so the caller resolves
 * it instead of moving money twice.
 */
export function moneyMovingRefusal(refusal: Extract<ProviderOutcome, { ok: false }>): ProviderApiError {
  const { error } = refusal;
  return refuseMoneyMovingCall(error, refusal.reply, {
    mayHaveLanded: ALREADY_DONE.test(error.providerMessage ?? error.providerCode ?? ''),
  });
}
