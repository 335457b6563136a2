/**
 * The caller's idempotency key on Provider T (docs/architecture.md#idempotency): each money-moving step's
 * `X-Client-Request-Id` is derived from the key and the step (Provider T processes a repeated one once,
 * docs/providers/provider-t.md#authentication), and the ledger's recovery points record how far a transfer or
 * refund got, so a retry with the same key resumes there instead of quoting again.
 */
import {
  type ErrorContext,
  InvalidResponseError,
  type JsonValue,
  type OperationContext,
  StoreError,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import { errorText } from './status.js';

/**
 * Namespace of the name-based UUIDs (RFC 9562 version 5) this adapter derives: fixed forever, since a new one
 * would make a retry after an upgrade look like a new request to Provider T.
 */
const REQUEST_ID_NAMESPACE = new Uint8Array([
  0x5f, 0x1c, 0x0a, 0x3e, 0x7b, 0x2d, 0x4c, 0x8e, 0x9a, 0x6f, 0x0b, 0x1d, 0x2e, 0x3c, 0x4a, 0x5b,
]);

/**
 * The `X-Client-Request-Id` of one step (mutations only; reads stay fresh) of the call made with `key`: a UUID
 * (the format docs/providers/provider-t.md#authentication asks for; a raw key could be any length or character),
 * version 5 of the agent partner, the key and the step. The same in every process, so Provider T recognises a
 * retry after a crash as the same request; the partner scopes it, so two partners' equal keys never meet.
 */
export async function keyedRequestId(
  agentPartnerId: string,
  key: string,
  step: 'quote' | 'update' | 'commit' | 'refund_commit',
): Promise<string> {
  const name = new TextEncoder().encode(JSON.stringify([agentPartnerId, key, step]));
  const input = new Uint8Array(REQUEST_ID_NAMESPACE.length + name.length);
  input.set(REQUEST_ID_NAMESPACE);
  input.set(name, REQUEST_ID_NAMESPACE.length);
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-1', input)).slice(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50; // version 5
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 9562 variant
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Where a transfer got to, as recorded in the ledger before each next step. */
const transferPointSchema = v.looseObject({
  transactionId: v.pipe(v.string(), v.minLength(1)),
  /** `quoted`: reserved; `updated`: ready for commit; `commit_sent`: the commit may have been sent. */
  step: v.picklist(['quoted', 'updated', 'commit_sent']),
  /** The quote's service option, which the update must repeat (docs/providers/provider-t.md#update). */
  serviceOptionCode: v.optional(v.string()),
  serviceOptionRoutingCode: v.optional(v.string()),
  /**
   * With `commit_sent`: when the last commit was about to be sent (epoch milliseconds). Provider T commits only
   * within 30 minutes of `readyForCommit` (docs/providers/provider-t.md#commit), which came before: 30 minutes
   * after this, a commit it does not show can no longer land.
   */
  commitSentAt: v.optional(v.pipe(v.number(), v.finite())),
});
export type TransferRecoveryPoint = v.InferOutput<typeof transferPointSchema>;

/** Where a refund got to: read, about to commit `refundId` for `amount`. */
const refundPointSchema = v.looseObject({
  transactionId: v.string(),
  step: v.literal('commit_sent'),
  refundId: v.string(),
  amount: v.looseObject({ value: v.number(), currencyCode: v.string() }),
});

/** Reads a recovery point; `null` for a new key; an error for one this adapter did not write. */
function readPoint<S extends v.GenericSchema>(
  schema: S,
  what: string,
  point: JsonValue | null | undefined,
): v.InferOutput<S> | null {
  if (point === null || point === undefined) return null;
  if (v.is(schema, point)) return point as v.InferOutput<S>;
  // A point of another shape cannot be resumed, and starting over could move the money twice: outcome unknown.
  throw new InvalidResponseError(
    `The idempotency ledger holds a recovery point for this key that is not a Provider T ${what} recovery point, so the earlier attempt cannot be resumed and nothing was sent. The money may have moved under this key: look it up (pay.resolve) instead of sending it again.`,
    { context: { outcome: 'unknown' } },
  );
}

export const transferRecoveryPoint = (point: JsonValue | null | undefined) =>
  readPoint(transferPointSchema, 'transfer', point);
export const refundRecoveryPoint = (point: JsonValue | null | undefined) =>
  readPoint(refundPointSchema, 'refund', point);

/**
 * Records a recovery point before the next step. When the ledger fails, nothing more is sent (fail closed): the
 * error keeps `StoreError`'s code and reason and says how far the call got (`stopped`).
 */
export async function recordProgress(
  options: OperationContext,
  point: Record<string, unknown>,
  stopped: { done: string; context: ErrorContext },
): Promise<void> {
  const ledger = options.idempotency;
  if (!ledger) return;
  try {
    // The ledger stores JSON: no `undefined` members.
    const defined = Object.entries(point).filter(([, value]) => value !== undefined);
    await ledger.checkpoint(Object.fromEntries(defined) as JsonValue);
  } catch (error) {
    const message = `${stopped.done}: the idempotency store could not record the progress (${errorText(error)}), so nothing more was sent and no money moved. Call again with the same key once the store answers.`;
    const context = { ...stopped.context, outcome: 'not_sent' };
    throw StoreError.isInstance(error)
      ? new StoreError(message, { step: error.step, reason: error.reason, cause: error, context })
      : new StoreError(message, { step: 'checkpoint', cause: error, context });
  }
}
