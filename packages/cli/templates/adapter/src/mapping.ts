/**
 * Provider Xyz's replies → `@pay` records, with its status words as tables (TODO: every status the provider
 * documents). A status missing from a table reads as not paid: an unknown status is never reported as success.
 */
import {
  type Checkout,
  type CheckoutCreateParams,
  type Payment,
  type PaymentStatus,
  type Refund,
  type RefundCreateParams,
  type RefundStatus,
  toMajorUnits,
} from '@pay/core/adapter';
import { PROVIDER } from './config.js';
import { AMOUNT_UNIT, DEFAULT_CURRENCY } from './requests.js';
import type { PaymentReply } from './wire.js';

/** The provider's payment status words → unified status (TODO: fill in from its API reference). */
export const PAYMENT_STATUS: ReadonlyMap<string, PaymentStatus> = new Map<string, PaymentStatus>([]);

/** The provider's refund status words → unified status (TODO). */
export const REFUND_STATUS: ReadonlyMap<string, RefundStatus> = new Map<string, RefundStatus>([]);

/** The unified status of a payment status word: one the table does not know is `pending`, never paid. */
export function paymentStatusOf(word: string): PaymentStatus {
  return PAYMENT_STATUS.get(word) ?? 'pending';
}

/** A wire amount of `currency` in the currency's standard unit. */
export function fromWire(amount: number, currency: string): number {
  return AMOUNT_UNIT === 'minor' ? toMajorUnits(amount, currency) : amount;
}

/** What a record knows of where it came from: the adapter's mode, and the call that produced it. */
export interface RecordFacts {
  /** `!config.isSandbox`: a live adapter's records say so (docs/architecture.md#records). */
  livemode: boolean;
  /** The call's request id; `null` for a record built from a webhook. */
  requestId: string | null;
}

/** What every record built from a reply carries. */
function recordBase(raw: unknown, { livemode, requestId }: RecordFacts) {
  return { provider: PROVIDER, raw, metadata: {}, livemode, request_id: requestId };
}

/** A payment from the provider's payment (a status read or a webhook's `data`). */
export function toPayment(body: PaymentReply, raw: unknown, facts: RecordFacts): Payment {
  const status = paymentStatusOf(body.status);
  const amount = fromWire(body.amount, body.currency);
  return {
    ...recordBase(raw, facts),
    id: body.id,
    amount,
    amount_paid: status === 'succeeded' ? amount : 0,
    currency: body.currency,
    status,
    customer: null,
    item_id: null,
    requires_action: status === 'pending' || status === 'requires_action',
    payment_url: null,
  };
}

/** The checkout just opened for `params`. */
export function toCheckout(
  body: { id: string; url: string },
  params: CheckoutCreateParams,
  raw: unknown,
  facts: RecordFacts,
): Checkout {
  return {
    ...recordBase(raw, facts),
    metadata: params.metadata ?? {},
    id: body.id,
    payment_url: body.url,
    amount: params.amount ?? 0,
    currency: params.currency ?? DEFAULT_CURRENCY,
    customer: null,
    session_type: 'one_time',
    products: [],
    expires_at: null,
  };
}

/** The refund just made for `params`. */
export function toRefund(
  body: { id: string; amount: number; status: string },
  params: RefundCreateParams,
  raw: unknown,
  facts: RecordFacts,
): Refund {
  const currency = params.currency ?? DEFAULT_CURRENCY;
  return {
    ...recordBase(raw, facts),
    metadata: params.metadata ?? {},
    id: body.id,
    payment_id: params.payment_id,
    amount: fromWire(body.amount, currency),
    currency,
    status: REFUND_STATUS.get(body.status) ?? 'pending',
    reason: params.reason ?? null,
  };
}
