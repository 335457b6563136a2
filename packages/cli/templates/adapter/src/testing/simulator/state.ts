/** What the Provider Xyz simulator holds: its books, and the status words its payer actions set. */
import type { MoneyMeaning, PayerAction } from '@pay/core/testing';

/** One payment in the books; `status` is the provider's own word. */
export interface SimulatedPayment {
  id: string;
  /** The merchant reference it was opened with: a second checkout with it is refused as a duplicate. */
  reference: string;
  /** As received on the wire (the suite checks it is exact). */
  amount: number;
  currency: string;
  email: string;
  status: string;
}

/** One refund in the books. */
export interface SimulatedRefund {
  id: string;
  payment: string;
  reference: string;
  amount: number;
  status: string;
}

/** What the provider holds. */
export interface ProviderXyzBooks {
  payments: SimulatedPayment[];
  refunds: SimulatedRefund[];
}

/** The status word each payer action sets (TODO: the provider's words for paid, declined and abandoned). */
export const PAYER_STATUS = {
  pay: 'paid',
  fail: 'failed',
  cancel: 'canceled',
} as const satisfies Record<PayerAction, string>;

/** The payer's page of payment `:id`: the checkout's `url` (routes.ts) points here. */
export const PAYMENT_PAGE_PATH = '/pay/:id';

/** The status word of a payment just opened (TODO). */
export const OPENED_STATUS = 'pending';

/**
 * Every payment status word the simulator can report, and what it means for the money (TODO: every status the
 * provider documents). The conformance suite drives each one and checks the adapter reads it with this meaning.
 */
export const STATUS_MEANINGS: Readonly<Record<string, MoneyMeaning>> = {
  [OPENED_STATUS]: 'pending',
  [PAYER_STATUS.pay]: 'paid',
  [PAYER_STATUS.fail]: 'failed',
  [PAYER_STATUS.cancel]: 'failed',
};

/** The fixed credential of every simulator: tests and `pay dev` sign and verify with it. */
export const PROVIDER_XYZ_SIMULATOR_SECRET_KEY = 'sk_test_simulator_4f2a9c71d3b8e605';

/** The header the simulator reads the client's request id from. */
export const SIMULATOR_REQUEST_ID_HEADER = 'x-request-id';
