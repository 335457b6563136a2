import type { CallOptions, ErrorContext, Payment, ResolvedRecord, ResolveLookup } from '@pay/core/adapter';
import type { ProviderRClient } from '../client.js';
import type { ProviderRConfig } from '../config.js';
import { toPayment } from '../mapping.js';
import { statusRequest } from '../requests.js';
import type { ProviderRStatus } from '../wire.js';
import { readRecoveryPoint, text } from './create-once.js';

/** A string member of an error context, if present. */
function contextText(context: ErrorContext | undefined, member: string): string | undefined {
  const value = context && Object.hasOwn(context, member) ? context[member] : undefined;
  return text(value) ? value : undefined;
}

/**
 * What a status read proves about each operation: `done` (it visibly happened: the payment is the record),
 * `not_done` (it visibly did not: safe to send again); a status the wire contract
 * (docs/providers/provider-r.md#status) does not list proves nothing.
 */
type Proof = 'done' | 'not_done';
const STATUS_PROVES: ReadonlyMap<string, ReadonlyMap<string, Proof>> = new Map(
  Object.entries({
    // A creation that exists: whatever its status, the transaction is the record.
    create: { PENDING: 'done', AUTHORIZED: 'done', PAID: 'done', CANCELLED: 'done' },
    // Capture: PAID is captured (for the amount asked, checked apart); anything else is not.
    'payments.capture': { PAID: 'done', AUTHORIZED: 'not_done', PENDING: 'not_done', CANCELLED: 'not_done' },
    // Cancel: CANCELLED is cancelled; anything else was not (a PAID payment is refunded, never cancelled).
    'payments.cancel': { CANCELLED: 'done', PENDING: 'not_done', AUTHORIZED: 'not_done', PAID: 'not_done' },
  } satisfies Record<string, Record<ProviderRStatus, Proof>>).map(([kind, row]) => [
    kind,
    new Map(Object.entries(row)),
  ]),
);

/**
 * `pay.resolve` for Provider R (docs/architecture.md#createpay): what the provider holds for a money-moving call
 * whose outcome is unknown. Only the status read by `transId` exists, so:
 * - a payment or checkout creation: by the `transId` an error names or the recovery point ⇒ the Payment (for
 *   `created`, the recorded result refreshed by the read), `null` when the provider holds no such payment; with
 *   only a key or a refId ⇒ `undefined` (no lookup by refId);
 * - a capture / cancel ⇒ the Payment when visibly done (a capture: PAID for the amount asked), `null` when
 *   visibly not, `undefined` for any other status;
 * - a refund: the recorded result once the refund answered, else `undefined` (the provider reports no refunds);
 * - a checkout whose creation answered: the Checkout it opened, as recorded, without a call.
 * Only reads: it never moves money. A refused read throws.
 */
export async function resolveCall(
  lookup: ResolveLookup,
  options: CallOptions,
  client: ProviderRClient,
  config: ProviderRConfig,
): Promise<ResolvedRecord> {
  const point = readRecoveryPoint(lookup.recoveryPoint) ?? undefined;
  if (lookup.operation === 'refunds.create')
    return point?.step === 'created' ? (point.result ?? undefined) : undefined;
  // A keyed checkout that answered: the Checkout it opened, with the redirect no read returns.
  if (lookup.operation === 'checkouts.create' && point?.step === 'created' && point.result !== null)
    return point.result;
  const kind =
    lookup.operation === 'payments.create' || lookup.operation === 'checkouts.create'
      ? 'create'
      : lookup.operation;
  const proves = STATUS_PROVES.get(kind);
  if (!proves) return undefined;
  // A creation's recovery point names a transaction only once it answered; before, only an error's transId can.
  const transId =
    contextText(lookup.context, 'transId') ??
    (point !== undefined && point.step !== 'create_sent' ? point.transId : undefined);
  if (transId === undefined) return undefined;
  const read = await client.find(statusRequest(transId, config), options);
  if (read === null) return null;
  const current = read.body;
  const proof = proves.get(current.status);
  if (proof === 'not_done') return null;
  if (proof !== 'done') return undefined;
  if (kind === 'payments.capture') {
    const asked = point?.step === 'capture_sent' ? point.amount : undefined;
    // Captured for another amount than asked (both wire minor units): this capture is not the one that happened.
    if (asked !== undefined && asked !== current.price) return undefined;
  }
  const payment = toPayment(current, config.isSandbox, read.requestId);
  if (
    lookup.operation === 'payments.create' &&
    point?.step === 'created' &&
    point.transId === payment.id &&
    point.result !== null
  ) {
    // The status read has no payment page URL nor the caller's metadata: keep those of the recorded result.
    const recorded = point.result as Payment;
    return { ...recorded, ...payment, payment_url: recorded.payment_url, metadata: recorded.metadata };
  }
  return payment;
}
