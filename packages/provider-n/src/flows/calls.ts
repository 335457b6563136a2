/**
 * The client and the reads Provider N's operations share (docs/providers/provider-n.md#calls): the v1 status query
 * and the refund status read, and the read back after a duplicate refusal.
 */
import type { CallOptions, ProviderApiError, ProviderCall, Refund } from '@pay/core/adapter';
import type * as v from '@pay/core/schema';
import type { ProviderNClient } from '../client.js';
import { moneyMovingRefusal, type Refusal } from '../envelope.js';
import { type RecordFacts, refundStatus, toRefund, withoutCredentials } from '../mapping.js';
import { refundStatusCall, type TransactionLookup, transactionQueryCall } from '../requests.js';
import { type RefundBody, refundBodySchema, transactionBodySchema } from '../wire.js';

/** What one read returned: the parsed body, the raw body for the record, and the call's request id. */
export type Read<T> = { body: T; raw: unknown; requestId: string };

/** The client and the shared reads over it, returned by {@link providerNCalls}. */
export type ProviderNCalls = ReturnType<typeof providerNCalls>;

/** The reads over one authenticated client; `livemode` is `false` for a sandbox adapter's records. */
export function providerNCalls(client: ProviderNClient, livemode: boolean) {
  /** What every record carries besides the payload (docs/architecture.md#records). */
  const facts = (requestId: string): RecordFacts => ({ livemode, requestId });

  /**
   * A read through core's `findReplied`: `null` only for what `PROVIDER_N_ERRORS` calls not found (404 / `99`,
   * `R7`).
   */
  async function read<S extends v.GenericSchema>(
    schema: S,
    call: ProviderCall,
    options: CallOptions,
  ): Promise<Read<v.InferOutput<S>> | null> {
    const found = await client.findReplied(schema, call, options);
    return found && { body: found.body, raw: withoutCredentials(found.raw), requestId: found.requestId };
  }

  /** The status query by either reference (404 / `99` is `null`). */
  const queryTransaction = (lookup: TransactionLookup, options: CallOptions) =>
    read(transactionBodySchema, transactionQueryCall(lookup), options);

  /** The refund status read (`R7` is `null`). */
  const readRefund = (refundReference: string, options: CallOptions) =>
    read(refundBodySchema, refundStatusCall(refundReference), options);

  /** A refund read or reply → Refund; neither carries a currency, so the caller names it. */
  const refundRecord = ({ body, raw, requestId }: Read<RefundBody>, currency: string): Refund =>
    toRefund(body, { ...facts(requestId), currency, status: refundStatus(body.refundStatus) }, raw);

  return { client, facts, queryTransaction, readRefund, refundRecord };
}

/** The read after a duplicate refusal; its failure leaves the outcome unknown (the earlier attempt landed). */
export async function readBack<T>(duplicate: Refusal, why: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw unknownAfterDuplicate(duplicate, why, error);
  }
}

/**
 * A keyed call refused as a duplicate whose reference cannot be read back: the earlier attempt with this key may
 * have landed, so the outcome stays unknown (docs/architecture.md#outcomes).
 */
export function unknownAfterDuplicate(
  duplicate: Refusal,
  why: string,
  readError?: unknown,
): ProviderApiError {
  const error = moneyMovingRefusal(duplicate);
  const detail = readError instanceof Error ? ` (${readError.message})` : '';
  return error.withDetails({
    message: `${error.message} The reference comes from the idempotency key, so an earlier attempt with this key holds it, but ${why}${detail}.`,
    outcome: 'unknown',
  });
}
