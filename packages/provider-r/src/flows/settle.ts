/**
 * Capture and cancel of a Provider R payment: a status read first, the call, and a second read that tells the
 * truth when a retried call is refused because its first attempt landed (docs/architecture.md#outcomes).
 */
import {
  type CallOptions,
  type OperationContext,
  type Payment,
  ProviderApiError,
  toMajorUnits,
  toMinorUnits,
} from '@pay/core/adapter';
import type { ProviderRClient } from '../client.js';
import type { ProviderRConfig } from '../config.js';
import { toPayment } from '../mapping.js';
import { cancelRequest, captureRequest, invalid, statusRequest } from '../requests.js';
import type { ProviderRStatus, ProviderRStatusReply } from '../wire.js';
import { checkpointBeforeSending } from './create-once.js';

type Cancellation = 'cancelPending' | 'cancelPreauthorisation' | 'already-cancelled' | 'refund-instead';

/** What `payments.cancel` does per status; an unlisted one (docs/providers/provider-r.md#status) cancels none. */
const CANCELLATION: ReadonlyMap<string, Cancellation> = new Map(
  Object.entries({
    PENDING: 'cancelPending',
    AUTHORIZED: 'cancelPreauthorisation',
    CANCELLED: 'already-cancelled',
    PAID: 'refund-instead',
  } as const satisfies Record<ProviderRStatus, Cancellation>),
);

/** What the capture and cancel flows read and send with: the configured adapter's checked config and client. */
export interface Settlement {
  config: ProviderRConfig;
  client: ProviderRClient;
}

const read = ({ config, client }: Settlement, transId: string, options: CallOptions) =>
  client.send(statusRequest(transId, config), options);
const paymentOf = ({ config }: Settlement, reply: ProviderRStatusReply, requestId: string): Payment =>
  toPayment(reply, config.isSandbox, requestId);
const money = (price: number, currency: string) => `${toMajorUnits(price, currency)} ${currency}`;

/**
 * A payment found captured (docs/providers/provider-r.md#capture-and-cancel): the answer only for the price
 * asked (`asked`, wire minor units), never a success for money this capture did not capture.
 */
function alreadyCaptured(
  settlement: Settlement,
  current: ProviderRStatusReply,
  requestId: string,
  asked: number,
  refusal?: ProviderApiError,
): Payment {
  if (current.price === asked) return paymentOf(settlement, current, requestId);
  const message = `payment ${current.transId} is already captured for ${money(current.price, current.curr)}, not the ${money(asked, current.curr)} asked for; check it with payments.retrieve before capturing or refunding anything`;
  if (refusal === undefined) throw invalid('payments.capture', 'amount', message);
  throw refusal.withDetails({
    message: `The capture was refused and ${message}.`,
    context: {
      ...refusal.context,
      transId: current.transId,
      capturedAmount: toMajorUnits(current.price, current.curr),
      requestedAmount: toMajorUnits(asked, current.curr),
    },
  });
}

/**
 * Runs a money-moving call and returns the payment read after it. When the call is refused, the status tells the
 * truth: `done` says whether it shows the wanted result; otherwise the refusal is passed on.
 */
async function settled(
  settlement: Settlement,
  id: string,
  options: CallOptions,
  send: () => Promise<{ requestId: string }>,
  done: (current: ProviderRStatusReply, requestId: string, refusal: ProviderApiError) => Payment | undefined,
): Promise<Payment> {
  let sent: { requestId: string };
  try {
    sent = await send();
  } catch (error) {
    if (!ProviderApiError.isInstance(error)) throw error;
    const now = await read(settlement, id, options).catch(() => undefined);
    const payment = now && done(now.body, now.requestId, error);
    if (payment === undefined) throw error;
    return payment;
  }
  // The record is the status read's; its request id is the one of the call that made the change.
  return paymentOf(settlement, (await read(settlement, id, options)).body, sent.requestId);
}

/** `payments.capture`: `requested` in the standard unit (`undefined`: the whole authorisation). */
export async function capture(
  settlement: Settlement,
  id: string,
  requested: number | undefined,
  options: OperationContext,
): Promise<Payment> {
  // The status first: what is authorised (without an amount, all of it) and whether it is already captured.
  const { body: current, requestId } = await read(settlement, id, options);
  const price = requested === undefined ? undefined : toMinorUnits(requested, current.curr);
  const asked = price ?? current.price;
  if (current.status === 'PAID') return alreadyCaptured(settlement, current, requestId, asked);
  if (current.status !== 'AUTHORIZED') {
    throw invalid(
      'payments.capture',
      'id',
      `the payment is ${current.status}; only a pre-authorised (AUTHORIZED) payment can be captured`,
    );
  }
  if (asked > current.price) {
    throw invalid(
      'payments.capture',
      'amount',
      `must be at most ${toMajorUnits(current.price, current.curr)}, the amount pre-authorised`,
    );
  }
  await checkpointBeforeSending('payments.capture', options.idempotency, {
    step: 'capture_sent',
    transId: id,
    ...(price === undefined ? {} : { amount: price }),
  });
  return settled(
    settlement,
    id,
    options,
    () => settlement.client.send(captureRequest(id, price), options),
    (now, nowId, refusal) =>
      now.status === 'PAID' ? alreadyCaptured(settlement, now, nowId, asked, refusal) : undefined,
  );
}

/** `payments.cancel`: a pending payment or a pre-authorisation; a cancelled one is returned as it is. */
export async function cancel(
  settlement: Settlement,
  id: string,
  options: OperationContext,
): Promise<Payment> {
  const { body: current, requestId } = await read(settlement, id, options);
  const action = CANCELLATION.get(current.status);
  if (action === 'already-cancelled') return paymentOf(settlement, current, requestId);
  if (action === 'refund-instead' || action === undefined) {
    const why = action
      ? 'the payment is PAID and can no longer be cancelled; refund it with refunds.create({ payment_id })'
      : `the payment is ${current.status}, a status this adapter does not know how to cancel; check it in the provider's portal`;
    throw invalid('payments.cancel', 'id', why);
  }
  await checkpointBeforeSending('payments.cancel', options.idempotency, {
    step: 'cancel_sent',
    transId: id,
  });
  return settled(
    settlement,
    id,
    options,
    () => settlement.client.send(cancelRequest(action, id), options),
    (now, nowId) => (now.status === 'CANCELLED' ? paymentOf(settlement, now, nowId) : undefined),
  );
}
