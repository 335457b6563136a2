/**
 * Provider Xyz's client: core's provider client with the provider's authorisation declared, the config passed whole
 * as transport and its error codes as data, and the adapter's two kinds of call, a read and a money-moving call
 * (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#provider-client).
 */
import {
  type CallOptions,
  createProviderClient,
  type ProviderCall,
  type ProviderErrorTable,
  parseReply,
  requestIdOf,
} from '@pay/core/adapter';
import type * as v from '@pay/core/schema';
import {
  checkCredentials,
  PROVIDER,
  PROVIDER_XYZ_BASE_URL,
  type ProviderXyzConfig,
  type ProviderXyzCredentials,
} from './config.js';
import { moneyMovingRefusal, REQUEST_ID_HEADER, readEnvelope } from './envelope.js';

/**
 * The provider's error codes → what they mean for the caller (TODO: every code of its API reference). List each
 * not-found answer with `notFound: true`, so a read of an unknown id resolves `null`.
 */
export const PROVIDER_XYZ_ERRORS: ProviderErrorTable = {
  not_found: { kind: 'not_found', notFound: true },
  unauthorized: { kind: 'authentication' },
  invalid_request: { kind: 'invalid_request' },
};

/** What a call found: the parsed body, the body as received (a record's `raw`) and the call's request id. */
export interface Found<T> {
  body: T;
  raw: unknown;
  requestId: string;
}

/** A call as the adapter describes it: whether it is retried follows from read or money-moving. */
type Call = Omit<ProviderCall, 'retrySafe' | 'movesMoney'>;

/** Core's provider client for `config`: no I/O until the first call. */
export function createClient(config: ProviderXyzConfig) {
  let credentials: ProviderXyzCredentials = { secretKey: config.secretKey };
  const client = createProviderClient({
    provider: PROVIDER,
    baseUrl: config.baseUrl ?? PROVIDER_XYZ_BASE_URL,
    transport: config,
    // TODO: the provider's authorisation (`{ basic: [user, password] }`, `{ header, value }` or a `login`). Read
    // once per call, so a call under way keeps the key it started with; the key is redacted everywhere.
    auth: () => ({ bearer: credentials.secretKey }),
    requestIdHeader: REQUEST_ID_HEADER,
    readEnvelope,
    errors: PROVIDER_XYZ_ERRORS,
    credentialsHint: 'Check secretKey (PROVIDER_XYZ_SECRET_KEY).',
  });
  return {
    /** A read: retried on failure (it moves nothing); `null` when the error table says not found. */
    read: <S extends v.GenericSchema>(
      schema: S,
      call: Call,
      context: CallOptions,
    ): Promise<Found<v.InferOutput<S>> | null> =>
      client.findReplied(schema, { ...call, retrySafe: true }, context),
    /** A call that moves money: sent once, never retried, its refusal read by `moneyMovingRefusal`. */
    async moveMoney<S extends v.GenericSchema>(
      schema: S,
      call: Call,
      context: CallOptions,
    ): Promise<Found<v.InferOutput<S>>> {
      const outcome = await client.send({ ...call, retrySafe: false, movesMoney: true }, context);
      if (!outcome.ok) throw moneyMovingRefusal(outcome);
      const body = parseReply(schema, outcome.body, { provider: PROVIDER, call: call.call });
      return { body, raw: outcome.body, requestId: requestIdOf(outcome.reply) };
    },
    /** Uses `next` from the next call on; checked first, so a bad set changes nothing. */
    updateCredentials(next: ProviderXyzCredentials): void {
      credentials = checkCredentials(next);
    },
  };
}
