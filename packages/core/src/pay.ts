/**
 * `createPay(adapter)`: one API over the configured provider (design §2). The namespaces call the adapter's
 * flat operations, which validate their input before any I/O; webhooks are set up per secret.
 */
import { type Adapter, type AnyAdapter, OPERATION_METHODS, type Operation, type TypesOf } from './adapter.js';
import { WebhookHandler, type WebhookSetupOptions } from './webhooks/handler.js';

/** The unified payment service over one configured provider adapter. */
export class Pay<A extends AnyAdapter = Adapter> {
  /** The adapter itself, for provider-specific methods (e.g. Provider R's `createCheckoutRedirect`). */
  readonly adapter: A;
  readonly checkouts: {
    create: A['createCheckout'];
    retrieve: A['retrieveCheckout'];
    update: A['updateCheckout'];
    delete: A['deleteCheckout'];
  };
  readonly payments: {
    create: A['createPayment'];
    retrieve: A['retrievePayment'];
    update: A['updatePayment'];
    capture: A['capturePayment'];
    cancel: A['cancelPayment'];
    delete: A['deletePayment'];
  };
  readonly refunds: { create: A['createRefund'] };
  readonly customers: {
    create: A['createCustomer'];
    retrieve: A['retrieveCustomer'];
    update: A['updateCustomer'];
    delete: A['deleteCustomer'];
  };
  readonly subscriptions: {
    create: A['createSubscription'];
    retrieve: A['retrieveSubscription'];
    update: A['updateSubscription'];
    cancel: A['cancelSubscription'];
    delete: A['deleteSubscription'];
  };
  readonly webhooks: {
    /**
     * A webhook handler checked with `webhookSecret` (`null` for Provider T). Chain `.on(event, callback)`,
     * then call `.handle({ body, headersAsObject, fullUrl })` with the raw body.
     */
    setup(options: WebhookSetupOptions): WebhookHandler<TypesOf<A>>;
  };

  /** Wraps a configured adapter, e.g. `new Pay(providerR())`. */
  constructor(adapter: A) {
    this.adapter = adapter;
    const namespace = (resource: string, names: readonly string[]) =>
      Object.fromEntries(
        names.map((name) => {
          const method = OPERATION_METHODS[`${resource}.${name}` as Operation];
          return [
            name,
            (...args: unknown[]) => (adapter[method] as (...a: unknown[]) => Promise<unknown>)(...args),
          ];
        }),
      ) as never;
    this.checkouts = namespace('checkouts', ['create', 'retrieve', 'update', 'delete']);
    this.payments = namespace('payments', ['create', 'retrieve', 'update', 'capture', 'cancel', 'delete']);
    this.refunds = namespace('refunds', ['create']);
    this.customers = namespace('customers', ['create', 'retrieve', 'update', 'delete']);
    this.subscriptions = namespace('subscriptions', ['create', 'retrieve', 'update', 'cancel', 'delete']);
    this.webhooks = { setup: (options) => new WebhookHandler<TypesOf<A>>(adapter, options) };
  }

  /** Whether the configured provider performs `operation` (no I/O). */
  supports(operation: Operation): boolean {
    return this.adapter.capabilities.includes(operation);
  }
}

/** Creates the unified service over one configured adapter: `createPay(providerR())`. */
export function createPay<A extends AnyAdapter>(adapter: A): Pay<A> {
  return new Pay(adapter);
}
