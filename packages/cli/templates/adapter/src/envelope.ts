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
  moneyMovingRefusal as refuseMoneyMovingCall,
} from '@pay/core/adapter';

/** TODO: the header the client sends its request id in (support tickets quote it). */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * TODO: the refusals of a money-moving call that mean "this was already done" (a duplicate reference): after a
 * lost reply, such a refusal may hide money that moved, so it is reported as outcome unknown.
 */
const ALREADY_DONE = /duplicate/i;

/**
 * Reads the provider's reply envelope (TODO: its shape): a 2xx JSON body is the answer (its `data` when it has
 * one); anything else is a refusal with the provider's code and message.
 */
export function readEnvelope(reply: HttpReply): EnvelopeReading {
  const body = parseJson(reply.text) as
    | { data?: unknown; error?: { code?: unknown; message?: unknown }; code?: unknown; message?: unknown }
    | undefined;
  if (reply.status >= 200 && reply.status < 300 && body !== undefined)
    return { ok: true, body: body.data ?? body };
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
