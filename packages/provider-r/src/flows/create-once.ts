/**
 * Idempotency keys for Provider R (docs/architecture.md#idempotency). The provider has no idempotency key and no
 * lookup by merchant reference (docs/providers/provider-r.md#calls: only the status read by `transId`), so core's
 * ledger is the mechanism: the adapter records a recovery point BEFORE each call that moves money and, when a
 * later attempt with the same key finds that an earlier one sent a creation whose answer never arrived, it never
 * creates again. The key also gives the creation a deterministic `refId`, so the merchant can find it in the
 * provider's portal.
 */
import {
  type Checkout,
  type ErrorContext,
  type IdempotencyContext,
  isRecord,
  type JsonValue,
  keyedReference,
  NetworkError,
  type Operation,
  type Payment,
  type Refund,
  StoreError,
} from '@pay/core/adapter';

/**
 * The `refId` of a creation made with `idempotencyKey` when the caller gave none in `provider_metadata`: core's
 * `keyedReference`, `idem-` followed by the first 31 hex digits of SHA-256 of the key. Deterministic, so every
 * attempt and every process sends the same refId for one key, and the merchant can compute it (this export) to
 * search the provider's portal; it fits the 36 characters `[0-9a-z-]` of a UUID-like reference (the wire
 * contract (docs/providers/provider-r.md#create-payment) states no limit).
 */
export function idempotencyRefId(idempotencyKey: string): Promise<string> {
  return keyedReference(idempotencyKey);
}

/**
 * Where a keyed call got to, as this adapter records it in the ledger:
 * - `create_sent`: a creation (payment, checkout, refund) is about to be sent with `refId` (a refund also names
 *   the payment `transId`): from here on, it may exist at the provider;
 * - `created`: the creation answered; `result` is what the call returns (recorded in case the process stops
 *   before core records the result), for a checkout the Checkout it opened (the call returns `null`; this record,
 *   with the redirect, is what `pay.resolve(key)` answers);
 * - `capture_sent` / `cancel_sent`: the capture (of `amount`, when given: wire minor units, as sent) or the
 *   cancel of `transId` is about to be sent.
 */
export type ProviderRRecoveryPoint =
  | { step: 'create_sent'; refId: string; transId?: string }
  | { step: 'created'; refId: string; transId: string; result: Payment | Refund | Checkout | null }
  | { step: 'capture_sent'; transId: string; amount?: number }
  | { step: 'cancel_sent'; transId: string };

/** A non-empty string. */
export const text = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * Reads a recovery point this adapter wrote; `null` for a new key; `undefined` for one it cannot read (another
 * adapter's, or a damaged entry): callers then treat the earlier attempt as possibly landed.
 */
export function readRecoveryPoint(
  point: JsonValue | null | undefined,
): ProviderRRecoveryPoint | null | undefined {
  if (point === null || point === undefined) return null;
  if (!isRecord(point)) return undefined;
  const { step, refId, transId, amount } = point;
  const readable =
    (step === 'create_sent' && text(refId) && (transId === undefined || text(transId))) ||
    (step === 'created' && text(refId) && text(transId) && Object.hasOwn(point, 'result')) ||
    (step === 'capture_sent' && text(transId) && (amount === undefined || typeof amount === 'number')) ||
    (step === 'cancel_sent' && text(transId));
  return readable ? (point as ProviderRRecoveryPoint) : undefined;
}

/**
 * Records `point` before the call that moves money (fail closed): when the store cannot record it, nothing is
 * sent and the `StoreError` says so, with the refId / transId the call would have used. Without a ledger (the
 * adapter used without `createPay`, or no key) there is nothing to record.
 */
export async function checkpointBeforeSending(
  operation: Operation,
  idempotency: IdempotencyContext | undefined,
  point: Exclude<ProviderRRecoveryPoint, { step: 'created' }>,
): Promise<void> {
  if (!idempotency) return;
  try {
    await idempotency.checkpoint(point);
  } catch (error) {
    const { step: _step, ...named } = point;
    const reason = StoreError.isInstance(error) ? error.reason : 'unavailable';
    throw new StoreError(
      `${operation}: the idempotency ledger could not record the attempt before the call to Provider R (${
        error instanceof Error ? error.message : String(error)
      }). Nothing was sent: the same call with the same key is safe once the store answers.`,
      { step: 'checkpoint', reason, cause: error, context: { ...named, sent: false } },
    );
  }
}

/**
 * Sends a creation under the ledger: `create_sent` is recorded before the call (fail closed), the answer after
 * it, so a retry with the key either returns that answer or refuses to create again ({@link resumeCreation}).
 */
export async function sendCreation<R extends Payment | Refund | Checkout | null>(
  operation: 'checkouts.create' | 'payments.create' | 'refunds.create',
  idempotency: IdempotencyContext | undefined,
  sent: { refId: string; transId?: string },
  send: () => Promise<{ transId: string; result: R }>,
): Promise<R> {
  await checkpointBeforeSending(operation, idempotency, { step: 'create_sent', ...sent });
  const { transId, result } = await send();
  // Made, and nothing more is sent: a store failure here cannot move money, so it is ignored (core's `complete`
  // follows and reports its own). It lets a retry after a crash before `complete` return the result.
  const created = { step: 'created', refId: sent.refId, transId, result };
  await idempotency?.checkpoint(JSON.parse(JSON.stringify(created)) as JsonValue).catch(() => undefined);
  return result;
}

/**
 * What a creation resumed with its key does, before anything is sent: `undefined` for a new key (create), the
 * recorded result when an earlier attempt got the answer, and otherwise an error: an earlier attempt sent the
 * creation and its answer never arrived (lost reply, crashed process), and Provider R offers no way to look a
 * creation up by refId, so this call cannot tell whether it exists and must never create again.
 */
export function resumeCreation(
  operation: 'checkouts.create' | 'payments.create' | 'refunds.create',
  idempotency: IdempotencyContext | undefined,
): { result: Payment | Refund | Checkout | null } | undefined {
  if (!idempotency || idempotency.recoveryPoint === null) return undefined;
  const point = readRecoveryPoint(idempotency.recoveryPoint);
  if (point?.step === 'created') return { result: point.result };
  const refId = point?.step === 'create_sent' ? point.refId : undefined;
  const transId = point?.step === 'create_sent' ? point.transId : undefined;
  const what = operation === 'refunds.create' ? 'refund' : 'payment';
  const context: ErrorContext = {
    ...(refId === undefined ? {} : { refId }),
    ...(transId === undefined ? {} : { transId }),
    step: 'create',
    resumedFrom: point?.step ?? 'unreadable',
  };
  const reference = refId === undefined ? 'its refId' : `refId ${refId}`;
  const where =
    operation === 'refunds.create'
      ? `the refunds of payment ${transId ?? '(see context.transId)'}`
      : 'the transactions';
  throw new NetworkError(
    `${operation}: an earlier attempt with this idempotency key sent the ${what} (${reference}) and its answer never arrived (a lost reply or a stopped process), so it may have been made. Provider R offers no lookup by refId, so this call cannot tell and sends nothing. Look in the provider's portal, among ${where}, for ${reference}: if it is there, use it (payments.retrieve(transId) reads a payment); use a new idempotency key only once you are sure none exists.`,
    { outcome: 'unknown', context },
  );
}
