/**
 * The test adapter's in-memory provider: its books and one implementation per operation of core's adapter
 * contract. Every status change emits the normalised event a real adapter would raise from the provider's push.
 */
import type { OperationImplementations } from '../../adapter.js';
import type { ProviderApiError } from '../../errors.js';
import type { Checkout, Customer, Payment, ProviderName, Refund, Subscription } from '../../records.js';
import type { NormalisedEventName, NormalisedEvents } from '../../webhooks/types.js';
import type { PayerAction } from './pages.js';
import { createTestStore, type TestAdapterTypes } from './test-adapter-store.js';

export type { TestAdapterTypes, TestBooks } from './test-adapter-store.js';

/** What the operations need from the adapter around them. */
export interface TestOperationsContext {
  provider: ProviderName;
  emit<E extends NormalisedEventName>(type: E, data: NormalisedEvents[E]): void;
  /** The provider's refusal (a `ProviderApiError` with this status). */
  refuse(status: number, message: string): ProviderApiError;
  /** Throws a `ValidationError` unless the amount and currency are present and the amount fits the currency. */
  checkAmount(operation: string, amount: number | undefined, currency: string | undefined): void;
  /** The amount in integer minor units of `currency`. */
  minor(amount: number, currency: string): number;
}

/** Where the hosted page of a test payment would be (the `.invalid` domain never resolves). */
export const TEST_PAGE_BASE = 'https://checkout.test-adapter.invalid/pay/';

/** What each payer action makes of an open payment, and the event it raises. */
const PAYER_OUTCOMES: ReadonlyMap<PayerAction, Payment['status']> = new Map([
  ['pay', 'succeeded'],
  ['fail', 'failed'],
  ['cancel', 'canceled'],
]);
const PAYMENT_EVENTS: ReadonlyMap<Payment['status'], NormalisedEventName> = new Map([
  ['succeeded', 'payment.succeeded'],
  ['failed', 'payment.failed'],
]);
const OPEN: ReadonlySet<Payment['status']> = new Set(['pending', 'requires_action']);
const CANCELLABLE: ReadonlySet<Payment['status']> = new Set([
  'pending',
  'requires_action',
  'requires_capture',
]);

/** The books, the operations over them, the payer's actions and `resolve`. */
export function testOperations(context: TestOperationsContext) {
  const { books, common, copy, nextId, find, mustFind, remove, retrieve, update } = createTestStore(context);
  const manualCapture = new Set<string>();
  const byIdempotencyKey = new Map<string, Payment | Checkout | Refund>();
  const remember = <R extends Payment | Checkout | Refund>(key: string | undefined, record: R): R => {
    if (key !== undefined) byIdempotencyKey.set(key, record);
    return copy(record);
  };

  function openPayment(params: {
    amount?: number | undefined;
    currency?: string | undefined;
    customer?: Payment['customer'] | undefined;
    item_id?: string | undefined;
    metadata?: Record<string, string> | undefined;
  }): Payment {
    const id = nextId('pay');
    const payment: Payment = {
      ...common(),
      id,
      amount: params.amount ?? 0,
      amount_paid: 0,
      currency: params.currency ?? '',
      status: 'requires_action',
      customer: params.customer ?? null,
      item_id: params.item_id ?? null,
      metadata: { ...params.metadata },
      requires_action: true,
      payment_url: `${TEST_PAGE_BASE}${id}`,
    };
    books.payments.push(payment);
    return payment;
  }

  /** The payment behind a payment id or a checkout id (a checkout shares its payment's page URL). */
  function paymentOf(id: string): Payment {
    const checkout = find('checkouts', id);
    const paymentId = checkout?.payment_url ? checkout.payment_url.slice(TEST_PAGE_BASE.length) : id;
    return mustFind('payments', paymentId);
  }

  function emitPayment(payment: Payment): void {
    context.emit(PAYMENT_EVENTS.get(payment.status) ?? 'payment.updated', copy(payment));
  }

  /** What a payer does on the hosted page; a payment that is no longer open refuses it (an `Error`). */
  function payerAction(id: string, action: PayerAction): void {
    const payment = paymentOf(id);
    if (!OPEN.has(payment.status))
      throw new Error(`Payment ${payment.id} is ${payment.status}: the payer can no longer ${action} it.`);
    const outcome = PAYER_OUTCOMES.get(action) ?? 'failed';
    const held = outcome === 'succeeded' && manualCapture.has(payment.id);
    payment.status = held ? 'requires_capture' : outcome;
    payment.requires_action = false;
    payment.amount_paid = outcome === 'succeeded' && !held ? payment.amount : 0;
    emitPayment(payment);
  }

  /** What can still be refunded of `payment`, in minor units. */
  function refundableMinor(payment: Payment): number {
    const refunded = books.refunds
      .filter((refund) => refund.payment_id === payment.id && refund.status !== 'failed')
      .reduce((sum, refund) => sum + context.minor(refund.amount, refund.currency), 0);
    return context.minor(payment.amount_paid ?? 0, payment.currency) - refunded;
  }

  const implementations: OperationImplementations<TestAdapterTypes> = {
    async createCheckout(params, options) {
      context.checkAmount('checkouts.create', params.amount, params.currency);
      const payment = openPayment(params);
      const checkout: Checkout = {
        ...common(),
        id: nextId('cs'),
        payment_url: payment.payment_url,
        amount: payment.amount,
        currency: payment.currency,
        customer: payment.customer,
        session_type: 'one_time',
        products: params.item_id ? [{ id: params.item_id, quantity: params.quantity ?? 1 }] : [],
        metadata: { ...params.metadata },
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      };
      books.checkouts.push(checkout);
      return remember(options.idempotencyKey, checkout);
    },
    retrieveCheckout: async (id) => retrieve('checkouts', id),
    updateCheckout: async (id, params) => update('checkouts', id, params),
    async deleteCheckout(id) {
      remove('checkouts', id);
    },
    async createPayment(params, options) {
      context.checkAmount('payments.create', params.amount, params.currency);
      const payment = openPayment(params);
      if (params.provider_metadata?.capture === 'manual') manualCapture.add(payment.id);
      return remember(options.idempotencyKey, payment);
    },
    retrievePayment: async (id) => retrieve('payments', id),
    updatePayment: async (id, params) => update('payments', id, params),
    async capturePayment(id, params) {
      const payment = mustFind('payments', id);
      if (payment.status !== 'requires_capture')
        throw context.refuse(409, `Payment ${id} is ${payment.status}, not requires_capture.`);
      const amount = params.amount ?? payment.amount;
      if (context.minor(amount, payment.currency) > context.minor(payment.amount, payment.currency))
        throw context.refuse(400, `Cannot capture ${amount}: the payment authorised ${payment.amount}.`);
      payment.status = 'succeeded';
      payment.amount_paid = amount;
      emitPayment(payment);
      return copy(payment);
    },
    async cancelPayment(id) {
      const payment = mustFind('payments', id);
      if (!CANCELLABLE.has(payment.status))
        throw context.refuse(409, `Payment ${id} is ${payment.status} and cannot be canceled.`);
      payment.status = 'canceled';
      payment.requires_action = false;
      emitPayment(payment);
      return copy(payment);
    },
    async deletePayment(id) {
      remove('payments', id);
    },
    async createRefund(params, options) {
      const payment = mustFind('payments', params.payment_id);
      if (payment.status !== 'succeeded')
        throw context.refuse(
          409,
          `Payment ${payment.id} is ${payment.status}: only a succeeded payment is refunded.`,
        );
      const left = refundableMinor(payment);
      const amount = params.amount ?? payment.amount_paid ?? 0;
      context.checkAmount('refunds.create', amount, payment.currency);
      if (context.minor(amount, payment.currency) > left)
        throw context.refuse(
          400,
          `Refund of ${amount} exceeds what is left to refund of payment ${payment.id}.`,
        );
      const refund: Refund = {
        ...common(),
        id: nextId('re'),
        payment_id: payment.id,
        amount,
        currency: payment.currency,
        status: 'succeeded',
        reason: params.reason ?? null,
        metadata: { ...params.metadata },
      };
      books.refunds.push(refund);
      context.emit('refund.created', copy(refund));
      return remember(options.idempotencyKey, refund);
    },
    async createCustomer(params) {
      const customer: Customer = {
        ...common(),
        id: nextId('cus'),
        email: params.email ?? null,
        name: params.name ?? null,
        metadata: { ...params.metadata },
      };
      books.customers.push(customer);
      return copy(customer);
    },
    retrieveCustomer: async (id) => retrieve('customers', id),
    updateCustomer: async (id, params) => update('customers', id, params),
    async deleteCustomer(id) {
      remove('customers', id);
    },
    async createSubscription(params) {
      const subscription: Subscription = {
        ...common(),
        id: nextId('sub'),
        status: 'active',
        customer: params.customer ?? null,
        amount: params.amount ?? null,
        currency: params.currency ?? null,
        metadata: { ...params.metadata },
      };
      books.subscriptions.push(subscription);
      context.emit('subscription.created', copy(subscription));
      return copy(subscription);
    },
    retrieveSubscription: async (id) => retrieve('subscriptions', id),
    updateSubscription: async (id, params) => update('subscriptions', id, params),
    async cancelSubscription(id) {
      const subscription = mustFind('subscriptions', id);
      if (subscription.status === 'canceled')
        throw context.refuse(409, `Subscription ${id} is already canceled.`);
      subscription.status = 'canceled';
      context.emit('subscription.canceled', copy(subscription));
      return copy(subscription);
    },
    async deleteSubscription(id) {
      remove('subscriptions', id);
    },
  };

  /**
   * What the provider holds for an idempotency key: the record a call with that key created, else `null` (the
   * books are complete, so nothing under an unknown key is proof nothing moved); `undefined` without a key.
   */
  const resolve = (idempotencyKey: string | undefined) =>
    idempotencyKey === undefined ? undefined : copy(byIdempotencyKey.get(idempotencyKey) ?? null);

  return { books, implementations, payerAction, resolve };
}
