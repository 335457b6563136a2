/**
 * Idempotency keys for Provider R (docs/architecture.md#idempotency). The provider has no idempotency key and no
 * lookup by merchant reference, so a recovery point is recorded BEFORE each call that moves money, and a creation
 * whose answer never arrived is never sent again.
 */
import {
  type Checkout,
  checkpointBeforeSending as checkpointWithToolkit,
  type ErrorContext,
  type IdempotencyContext,
  isRecord,
  type JsonValue,
  keyedReference,
  NetworkError,
  type Operation,
  type Payment,
  type Refund,
  resumeOnce,
  type SentOncePoint,
  sendOnce,
} from '@pay/core/adapter';

/**
 * The `refId` of a creation made with `idempotencyKey` when the caller gave none in `provider_metadata`: core's
 * `keyedReference`, `idem-` and 31 hex digits of SHA-256 of the key, so the merchant can compute it to search the
 * provider's portal.
 */
export function idempotencyRefId(idempotencyKey: string): Promise<string> {
  return keyedReference(idempotencyKey);
}

/**
 * Where a keyed call got to, as this adapter records it in the ledger:
 * - `create_sent`: a creation is about to be sent with `refId` (with its `price` in wire minor units, `curr` and
 *   `sentAt`, what a person settling a lost reply by hand searches the portal for): from here on, it may exist at
 *   the provider (docs/providers/provider-r.md#reconciliation);
 * - `created`: the creation answered; `result` is what the call returns (a checkout's: the Checkout it opened);
 * - `capture_sent` / `cancel_sent`: the capture (`amount` in wire minor units) or cancel is about to be sent.
 */
export type ProviderRRecoveryPoint =
  | { step: 'create_sent'; refId: string; transId?: string; price?: number; curr?: string; sentAt?: string }
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

/** Provider R as the toolkit's messages name it. */
const PROVIDER = 'Provider R';

/**
 * Records `point` before the call that moves money (fail closed), through the toolkit's `checkpointBeforeSending`:
 * when the store cannot record it, nothing is sent and the `StoreError` says so.
 */
export function checkpointBeforeSending(
  operation: Operation,
  idempotency: IdempotencyContext | undefined,
  point: Exclude<ProviderRRecoveryPoint, { step: 'created' }>,
): Promise<void> {
  return checkpointWithToolkit(operation, PROVIDER, idempotency, point);
}

/**
 * Sends a creation under the ledger with the toolkit's `sendOnce` (docs/architecture.md#idempotency):
 * `create_sent` is recorded before the call (fail closed), the answer after it, so a retry with the key either
 * returns that answer or refuses to create again ({@link resumeCreation}).
 */
export function sendCreation<R extends Payment | Refund | Checkout | null>(
  operation: 'checkouts.create' | 'payments.create' | 'refunds.create',
  idempotency: IdempotencyContext | undefined,
  sent: { refId: string; transId?: string; price?: number; curr?: string },
  send: () => Promise<{ transId: string; result: R }>,
): Promise<R> {
  const { price, curr, ...known } = sent;
  const details = { ...(price === undefined ? {} : { price }), ...(curr === undefined ? {} : { curr }) };
  return sendOnce({
    operation,
    provider: PROVIDER,
    idempotency,
    sent: known,
    details: { ...details, sentAt: new Date().toISOString() },
    send: async () => {
      const { transId, result } = await send();
      return { result, answered: { transId } };
    },
  });
}

/**
 * What a creation resumed with its key does, before anything is sent (the toolkit's `resumeOnce`): `undefined` for
 * a new key, the recorded result once answered, else an error: its answer never arrived and Provider R has no
 * lookup by refId, so it must never create again.
 */
export function resumeCreation(
  operation: 'checkouts.create' | 'payments.create' | 'refunds.create',
  idempotency: IdempotencyContext | undefined,
): Promise<{ result: Payment | Refund | Checkout | null } | undefined> {
  return resumeOnce<Payment | Refund | Checkout | null>({
    idempotency,
    read: (point) => {
      const read = readRecoveryPoint(point);
      return read?.step === 'created' || read?.step === 'create_sent' ? (read as SentOncePoint) : undefined;
    },
    unanswered: (point) => unansweredCreation(operation, point as ProviderRRecoveryPoint | undefined),
  });
}

/** The error of a creation whose answer never arrived: it may exist, and Provider R cannot be asked. */
function unansweredCreation(
  operation: 'checkouts.create' | 'payments.create' | 'refunds.create',
  point: ProviderRRecoveryPoint | undefined,
): NetworkError {
  const { refId, transId } = point?.step === 'create_sent' ? point : { refId: undefined, transId: undefined };
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
  return new NetworkError(
    `${operation}: an earlier attempt with this idempotency key sent the ${what} (${reference}) and its answer never arrived (a lost reply or a stopped process), so it may have been made. Provider R offers no lookup by refId, so this call cannot tell and sends nothing. Look in the provider's portal, among ${where}, for ${reference}: if it is there, use it (payments.retrieve(transId) reads a payment); use a new idempotency key only once you are sure none exists.`,
    { outcome: 'unknown', context },
  );
}
