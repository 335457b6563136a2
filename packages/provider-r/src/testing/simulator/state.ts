/**
 * The books of the Provider R simulator: transactions with their status, refunds and what remains refundable,
 * and every transition the wire contract (docs/providers/provider-r.md#status) allows, answered with the provider's codes. Amounts here are the
 * provider's: integer minor units (`price: 25050` = 250.50 CZK).
 */
import { randomBytes } from 'node:crypto';
import type { SimulatorReply } from '@pay/core/testing';
import { PROVIDER_R_CURRENCIES, type ProviderRStatus } from '../../wire.js';

/** A transaction as the simulator holds it. */
export interface SimulatedTransaction {
  transId: string;
  /** `checkout` (paymentRedirect) or `payment` (v2.0/payment). */
  kind: 'checkout' | 'payment';
  status: ProviderRStatus;
  /** Integer minor units (the wire's `price`); a partial capture lowers it to the captured amount. */
  price: number;
  curr: string;
  label: string;
  refId: string | undefined;
  email: string;
  payerId: string | undefined;
  method: string;
  test: boolean;
  /** Minor units refunded so far. */
  refunded: number;
  urls: { paid?: string; cancelled?: string; pending?: string };
}

/** A refund the simulator accepted (`amount` in minor units, as on the wire). */
export interface SimulatedRefund {
  transId: string;
  amount: number;
  curr: string;
  refId: string | undefined;
  test: boolean;
}

/** The provider's state: `books()` of the simulator. */
export interface ProviderRBooks {
  transactions: SimulatedTransaction[];
  refunds: SimulatedRefund[];
}

/** A JSON reply in the provider's envelope. */
export const json = (status: number, body: unknown): SimulatorReply => ({
  status,
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});
/** A refusal with one of the provider's codes. */
export const providerError = (status: number, code: number, message: string): SimulatorReply =>
  json(status, { code, message });
const ok = (extra: Record<string, unknown> = {}): SimulatorReply =>
  json(200, { code: 0, message: 'OK', ...extra });

/** Minimum prices the provider states (1.00 CZK / 0.10 EUR); other currencies are not checked here. */
const MINIMUM_PRICE: ReadonlyMap<string, number> = new Map([
  ['CZK', 100],
  ['EUR', 10],
]);

const isPrice = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

function newTransId(): string {
  const text = randomBytes(6).toString('hex').toUpperCase();
  return `${text.slice(0, 4)}-${text.slice(4, 8)}-${text.slice(8, 12)}`;
}

/** The statuses each transition starts from. */
const TRANSITIONS = {
  pay: { from: ['PENDING', 'AUTHORIZED'], to: 'PAID' },
  authorize: { from: ['PENDING'], to: 'AUTHORIZED' },
  cancel: { from: ['PENDING', 'AUTHORIZED'], to: 'CANCELLED' },
} as const satisfies Record<string, { from: readonly ProviderRStatus[]; to: ProviderRStatus }>;

/** A transition of a transaction's status. */
export type Transition = keyof typeof TRANSITIONS;

/** The simulator's books and the provider's answers that change them. */
export class ProviderRLedger {
  readonly transactions = new Map<string, SimulatedTransaction>();
  readonly refunds: SimulatedRefund[] = [];

  /** @param onChange called after every status change (webhook forwarding). */
  constructor(
    private readonly hostedPage: (transId: string) => string,
    private readonly onChange: (transaction: SimulatedTransaction) => void,
  ) {}

  /** The transaction, or a plain error naming it. */
  find(transId: string): SimulatedTransaction {
    const found = this.transactions.get(transId);
    if (!found) throw new Error(`The simulator has no transaction ${transId}.`);
    return found;
  }

  /** Moves a transaction (`pay`, `authorize`, `cancel`); throws when its status does not allow it. */
  move(transId: string, transition: Transition): void {
    const transaction = this.find(transId);
    const { from, to } = TRANSITIONS[transition];
    if (!(from as readonly string[]).includes(transaction.status))
      throw new Error(`Transaction ${transId} is ${transaction.status}; it cannot become ${to}.`);
    this.#set(transaction, to);
  }

  #set(transaction: SimulatedTransaction, status: ProviderRStatus): void {
    transaction.status = status;
    this.onChange(transaction);
  }

  /** Both creations: checks the fields they share, then opens a PENDING transaction. */
  create(kind: SimulatedTransaction['kind'], body: Record<string, unknown>): SimulatorReply {
    const curr = body.curr === undefined ? 'CZK' : String(body.curr);
    const { price, label, email } = body;
    if (!(PROVIDER_R_CURRENCIES as readonly string[]).includes(curr))
      return providerError(400, 1310, 'Unknown currency');
    if (!isPrice(price) || price < (MINIMUM_PRICE.get(curr) ?? 1))
      return providerError(400, 1309, 'Wrong amount');
    if (typeof label !== 'string' || label.length < 1 || label.length > 16)
      return providerError(400, 1400, 'Invalid label');
    if (typeof email !== 'string' || !email.includes('@')) return providerError(400, 1400, 'Invalid e-mail');
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    const urls = {
      paid: text(body.url_paid),
      cancelled: text(body.url_cancelled),
      pending: text(body.url_pending),
    };
    const transId = newTransId();
    this.transactions.set(transId, {
      transId,
      kind,
      status: 'PENDING',
      price,
      curr,
      label,
      refId: text(body.refId),
      email,
      payerId: text(body.payerId),
      method: text(body.method) ?? 'ALL',
      test: body.test === true,
      refunded: 0,
      urls: Object.fromEntries(Object.entries(urls).filter(([, url]) => url !== undefined)),
    });
    return ok({ transId, redirect: this.hostedPage(transId) });
  }

  /** `POST /v2.0/refund.json`. */
  refund(body: Record<string, unknown>): SimulatorReply {
    const transaction = this.transactions.get(String(body.transId ?? ''));
    if (!transaction) return providerError(404, 1104, 'Transaction cannot be loaded');
    if (transaction.status === 'CANCELLED') return providerError(400, 1401, 'Refund of a cancelled payment');
    if (transaction.status !== 'PAID') return providerError(400, 1400, 'The payment is not paid');
    const { amount } = body;
    if (!isPrice(amount)) return providerError(400, 1309, 'Wrong amount');
    if (body.curr !== undefined && body.curr !== transaction.curr)
      return providerError(400, 1310, 'Unknown currency');
    if (amount > transaction.price - transaction.refunded)
      return providerError(400, 1402, 'Refund amount too high');
    transaction.refunded += amount;
    this.refunds.push({
      transId: transaction.transId,
      amount,
      curr: transaction.curr,
      refId: typeof body.refId === 'string' ? body.refId : undefined,
      test: body.test === true,
    });
    return ok();
  }

  /** `PUT /v2.0/preauth/transId/{transId}.json`: captures the amount given (minor units), else all of it. */
  capture(transId: string, body: Record<string, unknown>): SimulatorReply {
    const transaction = this.transactions.get(transId);
    if (!transaction) return providerError(404, 1104, 'Transaction cannot be loaded');
    if (transaction.status !== 'AUTHORIZED')
      return providerError(400, 1400, 'The payment is not pre-authorised');
    const amount = body.amount ?? transaction.price;
    if (!isPrice(amount) || amount > transaction.price) return providerError(400, 1309, 'Wrong amount');
    transaction.price = amount;
    this.#set(transaction, 'PAID');
    return ok();
  }

  /** The two DELETE calls: a pre-authorisation (`from` AUTHORIZED) or a pending payment (`from` PENDING). */
  cancelCall(transId: string, from: ProviderRStatus): SimulatorReply {
    const transaction = this.transactions.get(transId);
    if (!transaction) return providerError(404, 1104, 'Transaction cannot be loaded');
    if (transaction.status !== from) return providerError(400, 1400, `The payment is ${transaction.status}`);
    this.#set(transaction, 'CANCELLED');
    return ok();
  }

  /** Minor units that can still be refunded. */
  refundable(transId: string): number {
    const transaction = this.find(transId);
    return transaction.status === 'PAID' ? transaction.price - transaction.refunded : 0;
  }

  /** A snapshot of the books. */
  books(): ProviderRBooks {
    return {
      transactions: [...this.transactions.values()].map((transaction) => structuredClone(transaction)),
      refunds: this.refunds.map((entry) => ({ ...entry })),
    };
  }
}
