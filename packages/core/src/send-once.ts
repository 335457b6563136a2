/**
 * Money calls the provider cannot deduplicate (docs/architecture.md#idempotency): a refund or creation that takes
 * no idempotency reference of ours cannot be told apart, after a lost reply, from one never sent, unless the
 * provider can be asked. The toolkit records where such a call got to in the idempotency ledger BEFORE sending it
 * (fail closed) and its answer after, so a repeat with the key returns the answer, asks the provider through the
 * adapter's lookup when there is one, and otherwise refuses to send it again.
 */
import type { IdempotencyContext } from './idempotency.js';
import type { Operation } from './operations.js';
import { StoreError } from './store-errors.js';
import type { JsonValue } from './stores.js';

/**
 * Where a call sent once got to, as the ledger holds it: `create_sent` (it may exist at the provider from here on)
 * with what the provider knows it by, or `created` with its answer too.
 */
export type SentOncePoint =
  | ({ step: 'create_sent' } & Readonly<Record<string, string | number>>)
  | ({ step: 'created'; result: unknown } & Readonly<Record<string, unknown>>);

/**
 * Records `point` before a call that moves money (fail closed): when the store cannot record it, nothing is sent
 * and the `StoreError` says so. Without a ledger (no `createPay`, or no key) there is nothing to record.
 */
export async function checkpointBeforeSending(
  operation: Operation,
  provider: string,
  idempotency: IdempotencyContext | undefined,
  point: { step: string } & Readonly<Record<string, unknown>>,
): Promise<void> {
  if (!idempotency) return;
  try {
    await idempotency.checkpoint(point as JsonValue);
  } catch (error) {
    const { step: _step, ...named } = point;
    const reason = StoreError.isInstance(error) ? error.reason : 'unavailable';
    throw new StoreError(
      `${operation}: the idempotency ledger could not record the attempt before the call to ${provider} (${
        error instanceof Error ? error.message : String(error)
      }). Nothing was sent: the same call with the same key is safe once the store answers.`,
      { step: 'checkpoint', reason, cause: error, context: { ...named, sent: false } },
    );
  }
}

/** A call the provider cannot deduplicate, as {@link sendOnce} sends it. */
export interface SendOnceCall<R> {
  operation: Operation;
  /** The provider's name as messages show it (`Provider R`). */
  provider: string;
  idempotency: IdempotencyContext | undefined;
  /** What the provider knows the call by before it answers (`{ refId, transId }`): recorded, and named in errors. */
  sent: Readonly<Record<string, string>>;
  /**
   * What a person settling an unanswered call by hand searches the provider's records for besides `sent` (its
   * amount, currency, when it was sent): recorded before the call only (docs/architecture.md#reconciliation).
   */
  details?: Readonly<Record<string, string | number>>;
  /** Sends the call once (never retried); `answered` adds what the answer names it by (the provider's id). */
  send(): Promise<{ result: R; answered?: Readonly<Record<string, string>> }>;
}

/**
 * Sends `call` under the ledger: `create_sent` is recorded before it (fail closed), the answer after it, so a
 * repeat with the key either gets that answer or is stopped by {@link resumeOnce}.
 */
export async function sendOnce<R>(call: SendOnceCall<R>): Promise<R> {
  const { operation, provider, idempotency, sent } = call;
  await checkpointBeforeSending(operation, provider, idempotency, {
    step: 'create_sent',
    ...sent,
    ...call.details,
  });
  const { result, answered } = await call.send();
  // Lets a repeat after a crash before core's `complete` return the answer; a store failure here moves no money.
  const created = { step: 'created', ...sent, ...answered, result };
  await idempotency?.checkpoint(JSON.parse(JSON.stringify(created)) as JsonValue).catch(() => undefined);
  return result;
}

/** How {@link resumeOnce} reads the ledger and what it does when the answer never arrived. */
export interface ResumeOnce<R> {
  idempotency: IdempotencyContext | undefined;
  /** The adapter's reading of its recovery point: `undefined` for one it cannot read (another adapter's, damaged). */
  read(point: JsonValue): SentOncePoint | undefined;
  /**
   * Asks the provider whether the call that never got its answer landed: its record, `null` when the provider
   * proves it did not (it is then sent again), `undefined` when it cannot tell. Absent: the provider has no lookup.
   */
  lookup?(point: SentOncePoint): Promise<R | null | undefined>;
  /** The error for a call that may have landed and cannot be checked (`outcome: 'unknown'`, never "nothing moved"). */
  unanswered(point: SentOncePoint | undefined): Error;
}

/**
 * What a repeat of a call sent once does, before anything is sent: `undefined` for a new key (or one the provider's
 * lookup proves never landed), the recorded or looked-up result, else `unanswered`'s error: it must not be sent again.
 */
export async function resumeOnce<R>(resume: ResumeOnce<R>): Promise<{ result: R } | undefined> {
  const { idempotency } = resume;
  if (!idempotency || idempotency.recoveryPoint === null) return undefined;
  const point = resume.read(idempotency.recoveryPoint);
  if (point?.step === 'created') return { result: point.result as R };
  const found = point && resume.lookup ? await resume.lookup(point) : undefined;
  if (found === null) return undefined;
  if (found !== undefined) return { result: found };
  throw resume.unanswered(point);
}
