/**
 * Core's provider client with Provider Xyz's authorisation, envelope and error table, and the two ways the adapter
 * calls the provider: a read (retried, `null` when the table says not found) and a call that moves money (sent
 * once; a refusal that may have landed is outcome unknown). Every use of core's HTTP, authorisation and
 * idempotency-reference helpers is in this file
 * (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#provider-client).
 */
import {
  type CallOptions,
  createProviderClient,
  type EnvelopeReading,
  idempotencyKeyOf,
  keyedReference,
  moneyMovingRefusal,
  type OperationContext,
  type ProviderCall,
  type ProviderErrorTable,
  parseJson,
  parseReply,
  requestIdOf,
} from '@pay/core/adapter';
import type * as v from '@pay/core/schema';
import { PROVIDER, PROVIDER_XYZ_BASE_URL, type ProviderXyzConfig } from './config.js';

/** TODO: the header the client sends its request id in (support tickets quote it). */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * The provider's error codes → what they mean for the caller (TODO: every code of its API reference). List each
 * not-found answer with `notFound: true`, so a read of an unknown id resolves `null`.
 */
export const ERRORS: ProviderErrorTable = {
  not_found: { kind: 'not_found', notFound: true },
  unauthorized: { kind: 'authentication' },
  invalid_request: { kind: 'invalid_request' },
};

/**
 * TODO: the refusals of a money-moving call that mean "this was already done" (a duplicate reference): after a
 * lost reply, such a refusal may hide money that moved, so it is reported as outcome unknown.
 */
const ALREADY_DONE = /duplicate/i;

/**
 * Reads the provider's reply envelope (TODO: its shape): a 2xx JSON body is the answer (its `data` when it has
 * one); anything else is a refusal with the provider's code and message.
 */
function readEnvelope(reply: { status: number; text: string }): EnvelopeReading {
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

/** What a call found: the parsed body, the body as received (a record's `raw`) and the call's request id. */
export interface Found<T> {
  body: T;
  raw: unknown;
  requestId: string;
}

/** A call as the adapter describes it: whether it is retried follows from read or money-moving. */
type Call = Omit<ProviderCall, 'retrySafe' | 'movesMoney'>;

/** Core's provider client for `config`, and the adapter's read and money-moving calls on it. */
export function createClient(config: ProviderXyzConfig) {
  const client = createProviderClient({
    provider: PROVIDER,
    baseUrl: config.baseUrl ?? PROVIDER_XYZ_BASE_URL,
    ...(config.fetch ? { fetch: config.fetch } : {}),
    ...(config.retry === undefined ? {} : { retry: config.retry }),
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    ...(config.hooks ? { hooks: config.hooks } : {}),
    // Redacted from every error, hook and log (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#redaction).
    secrets: [config.secretKey],
    requestIdHeader: REQUEST_ID_HEADER,
    // TODO: the provider's authorisation (a static bearer key here).
    authorization: { header: async () => `Bearer ${config.secretKey}` },
    errors: ERRORS,
    readEnvelope,
  });
  return {
    /** A read: retried on failure (it moves nothing); `null` when the error table says not found. */
    read<S extends v.GenericSchema>(
      schema: S,
      call: Call,
      context: CallOptions,
    ): Promise<Found<v.InferOutput<S>> | null> {
      return client.findReplied(schema, { ...call, retrySafe: true }, context);
    },
    /**
     * A call that moves money: sent once, never retried (a lost reply may hide money that moved); a refusal that
     * may have landed is thrown as outcome unknown
     * (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#idempotency). Resolves to the reply read
     * with `schema`.
     */
    async moveMoney<S extends v.GenericSchema>(
      schema: S,
      call: Call,
      context: CallOptions,
    ): Promise<Found<v.InferOutput<S>>> {
      const outcome = await client.send({ ...call, retrySafe: false, movesMoney: true }, context);
      if (!outcome.ok)
        throw moneyMovingRefusal(outcome.error, outcome.reply, {
          mayHaveLanded: ALREADY_DONE.test(outcome.error.providerMessage ?? outcome.error.providerCode ?? ''),
        });
      return {
        body: parseReply(schema, outcome.body, { provider: PROVIDER, call: call.call }),
        raw: outcome.body,
        requestId: requestIdOf(outcome.reply),
      };
    },
  };
}

/**
 * The merchant reference of a money-moving call: derived from the caller's idempotency key, so a repeat after a
 * lost reply sends the same reference and the provider refuses it as a duplicate instead of moving money twice.
 */
export async function referenceOf(context: OperationContext): Promise<string> {
  const key = idempotencyKeyOf(context);
  return key === undefined ? crypto.randomUUID() : keyedReference(key);
}
