/**
 * `createPay(adapter)`: one API over the configured provider (design §2). The namespaces call the adapter's
 * flat operations, which validate their input before any I/O; webhooks are set up per secret.
 */
import { type Adapter, type AdapterTypes, OPERATION_METHODS, type Operation } from './adapter.js';
import { WebhookHandler, type WebhookSetupOptions } from './webhooks/handler.js';

type Ops<T extends AdapterTypes> = Adapter<T>;

/** The unified payment service over one configured provider adapter. */
export class Pay<T extends AdapterTypes = AdapterTypes, A extends Adapter<T> = Adapter<T>> {
  /** The adapter itself, for provider-specific methods (e.g. Provider R's `createCheckoutRedirect`). */
  readonly adapter: A;
  readonly checkouts: {
    create: Ops<T>['createCheckout'];
    retrieve: Ops<T>['retrieveCheckout'];
    update: Ops<T>['updateCheckout'];
    delete: Ops<T>['deleteCheckout'];
  };
  readonly payments: {
    create: Ops<T>['createPayment'];
    retrieve: Ops<T>['retrievePayment'];
    update: Ops<T>['updatePayment'];
    capture: Ops<T>['capturePayment'];
    cancel: Ops<T>['cancelPayment'];
    delete: Ops<T>['deletePayment'];
  };
  readonly refunds: { create: Ops<T>['createRefund'] };
  readonly customers: {
    create: Ops<T>['createCustomer'];
    retrieve: Ops<T>['retrieveCustomer'];
    update: Ops<T>['updateCustomer'];
    delete: Ops<T>['deleteCustomer'];
  };
  readonly subscriptions: {
    create: Ops<T>['createSubscription'];
    retrieve: Ops<T>['retrieveSubscription'];
    update: Ops<T>['updateSubscription'];
    cancel: Ops<T>['cancelSubscription'];
    delete: Ops<T>['deleteSubscription'];
  };
  readonly webhooks: {
    /**
     * A webhook handler checked with `webhookSecret` (`null` for Provider T). Chain `.on(event, callback)`,
     * then call `.handle({ body, headersAsObject, fullUrl })` with the raw body.
     */
    setup(options: WebhookSetupOptions): WebhookHandler<T>;
  };

  /** Wraps a configured adapter, e.g. `new Pay(providerR())`. */
  constructor(adapter: A) {
    this.adapter = adapter;
    const namespace = <K extends string>(resource: string, names: readonly K[]) =>
      Object.fromEntries(
        names.map((name) => {
          const method = OPERATION_METHODS[`${resource}.${name}` as Operation];
          return [name, (...args: unknown[]) => (adapter[method] as (...a: unknown[]) => unknown)(...args)];
        }),
      ) as never;
    this.checkouts = namespace('checkouts', ['create', 'retrieve', 'update', 'delete']);
    this.payments = namespace('payments', ['create', 'retrieve', 'update', 'capture', 'cancel', 'delete']);
    this.refunds = namespace('refunds', ['create']);
    this.customers = namespace('customers', ['create', 'retrieve', 'update', 'delete']);
    this.subscriptions = namespace('subscriptions', ['create', 'retrieve', 'update', 'cancel', 'delete']);
    this.webhooks = { setup: (options) => new WebhookHandler<T>(adapter, options) };
  }

  /** Whether the configured provider performs `operation` (no I/O). */
  supports(operation: Operation): boolean {
    return this.adapter.capabilities.includes(operation);
  }
}

/** The adapter's declared types. */
export type TypesOf<A> = A extends Adapter<infer T> ? T : never;

/** Creates the unified service over one configured adapter: `createPay(providerR())`. */
export function createPay<A extends Adapter<AdapterTypes>>(adapter: A): Pay<TypesOf<A>, A & Adapter<TypesOf<A>>> {
  return new Pay<TypesOf<A>, A & Adapter<TypesOf<A>>>(adapter as A & Adapter<TypesOf<A>>);
}
