/**
 * The operation table: every operation `@pay` knows, one row each. The adapter methods, argument validation, the
 * idempotency ledger's scope, the `pay.<resource>.<verb>` namespaces and the public method types derive from it.
 */
import type * as v from 'valibot';
import type { NormalisedEventName } from './normalised-events.js';
import {
  type Checkout,
  type Customer,
  captureSchema,
  checkoutCreateSchema,
  customerCreateSchema,
  type Payment,
  type ProviderName,
  paymentCreateSchema,
  type Refund,
  refundCreateSchema,
  type Subscription,
  subscriptionCreateSchema,
  updateSchema,
  type WithProviderMetadata,
} from './records.js';

/** What an operation resolves to, by name (`adapterCheckout`: the checkout type the adapter declares). */
export interface OperationResults<T extends AdapterTypes = AdapterTypes> {
  payment: Payment;
  checkout: Checkout;
  adapterCheckout: T['checkout'];
  refund: Refund;
  customer: Customer;
  subscription: Subscription;
  // biome-ignore lint/suspicious/noConfusingVoidType: a delete resolves to Promise<void> (an async function with no value)
  nothing: void;
}

/** One row of {@link OPERATIONS}. */
export interface OperationRow {
  /** The adapter method behind the operation (`createPayment`). */
  readonly method: string;
  /** Whether the call can move money: a key runs it under the ledger, and it is never retried automatically. */
  readonly movesMoney: boolean;
  /** Whether the first argument is a resource id (validated as a non-empty string, never `.` or `..`). */
  readonly id: boolean;
  /** The request contract of the parameters argument (after the id), or `null` when the call takes none. */
  readonly params: v.GenericSchema | null;
  /** Whether the parameters argument may be left out (`payments.capture` without an amount). */
  readonly optionalParams: boolean;
  /** What the call resolves to (see {@link OperationResults}). */
  readonly result: keyof OperationResults;
  /** Whether the call resolves to `null` when the provider holds nothing under the id (the retrieves). */
  readonly orNull: boolean;
}

/** What a row leaves out. */
const DEFAULTS = {
  movesMoney: false,
  id: false,
  params: null,
  optionalParams: false,
  orNull: false,
} as const;

/** `given` over {@link DEFAULTS}, with its literal types kept. */
function row<const R extends Partial<OperationRow> & Pick<OperationRow, 'method' | 'result'>>(
  given: R,
): Omit<typeof DEFAULTS, keyof R> & R {
  return { ...DEFAULTS, ...given } as Omit<typeof DEFAULTS, keyof R> & R;
}

/** Every operation, as `pay.supports()` names it, with its row. */
export const OPERATIONS = {
  'checkouts.create': row({
    method: 'createCheckout',
    movesMoney: true,
    params: checkoutCreateSchema,
    result: 'adapterCheckout',
  }),
  'checkouts.retrieve': row({ method: 'retrieveCheckout', id: true, result: 'checkout', orNull: true }),
  'checkouts.update': row({ method: 'updateCheckout', id: true, params: updateSchema, result: 'checkout' }),
  'checkouts.delete': row({ method: 'deleteCheckout', id: true, result: 'nothing' }),
  'payments.create': row({
    method: 'createPayment',
    movesMoney: true,
    params: paymentCreateSchema,
    result: 'payment',
  }),
  'payments.retrieve': row({ method: 'retrievePayment', id: true, result: 'payment', orNull: true }),
  'payments.update': row({ method: 'updatePayment', id: true, params: updateSchema, result: 'payment' }),
  'payments.capture': row({
    method: 'capturePayment',
    movesMoney: true,
    id: true,
    params: captureSchema,
    optionalParams: true,
    result: 'payment',
  }),
  'payments.cancel': row({ method: 'cancelPayment', movesMoney: true, id: true, result: 'payment' }),
  'payments.delete': row({ method: 'deletePayment', id: true, result: 'nothing' }),
  'refunds.create': row({
    method: 'createRefund',
    movesMoney: true,
    params: refundCreateSchema,
    result: 'refund',
  }),
  'customers.create': row({ method: 'createCustomer', params: customerCreateSchema, result: 'customer' }),
  'customers.retrieve': row({ method: 'retrieveCustomer', id: true, result: 'customer', orNull: true }),
  'customers.update': row({ method: 'updateCustomer', id: true, params: updateSchema, result: 'customer' }),
  'customers.delete': row({ method: 'deleteCustomer', id: true, result: 'nothing' }),
  'subscriptions.create': row({
    method: 'createSubscription',
    params: subscriptionCreateSchema,
    result: 'subscription',
  }),
  'subscriptions.retrieve': row({
    method: 'retrieveSubscription',
    id: true,
    result: 'subscription',
    orNull: true,
  }),
  'subscriptions.update': row({
    method: 'updateSubscription',
    id: true,
    params: updateSchema,
    result: 'subscription',
  }),
  'subscriptions.cancel': row({ method: 'cancelSubscription', id: true, result: 'subscription' }),
  'subscriptions.delete': row({ method: 'deleteSubscription', id: true, result: 'nothing' }),
} as const satisfies Record<`${string}.${string}`, OperationRow>;

/** An operation name (`'refunds.create'`). */
export type Operation = keyof typeof OPERATIONS;
/** The row of one operation. */
export type RowOf<K extends Operation> = (typeof OPERATIONS)[K];
/** An adapter method name (`'createRefund'`). */
export type OperationMethod = RowOf<Operation>['method'];
/** An operation that can move money (see {@link OperationRow.movesMoney}). */
export type MoneyMovingOperation = {
  [K in Operation]: RowOf<K>['movesMoney'] extends true ? K : never;
}[Operation];
/** The resources of `pay` (`payments`, `refunds`, …). */
export type Resource = Operation extends `${infer R}.${string}` ? R : never;
/** The verbs of one resource's operations. */
export type VerbOf<R extends Resource, O extends Operation = Operation> = O extends `${R}.${infer V}`
  ? V
  : never;

/** Every operation name, in table order. */
export const OPERATION_NAMES = Object.keys(OPERATIONS) as Operation[];

/** The adapter method behind each operation name. */
export const OPERATION_METHODS = Object.freeze(
  Object.fromEntries(OPERATION_NAMES.map((operation) => [operation, OPERATIONS[operation].method])),
) as { readonly [K in Operation]: RowOf<K>['method'] };

/** The operations that can move money. */
export const MONEY_MOVING_OPERATIONS = Object.freeze(
  OPERATION_NAMES.filter((operation) => OPERATIONS[operation].movesMoney),
) as readonly MoneyMovingOperation[];

/** Whether `name` is an operation of the table (an own-property read: `'constructor'` is not). */
export function isOperation(name: unknown): name is Operation {
  return typeof name === 'string' && Object.hasOwn(OPERATIONS, name);
}

/** Whether `operation` can move money. */
export function movesMoney(operation: Operation): operation is MoneyMovingOperation {
  return OPERATIONS[operation].movesMoney;
}

/** The position of the options argument of `operation` (after its id and parameters). */
export function optionsIndexOf(operation: Operation): number {
  return argumentsOf(operation).length;
}

/** The arguments of `operation` before its options, as `defineAdapter` validates them. */
export function argumentsOf(operation: Operation): readonly ('id' | v.GenericSchema)[] {
  const row: OperationRow = OPERATIONS[operation];
  return [...(row.id ? (['id'] as const) : []), ...(row.params ? [row.params] : [])];
}

/** What an adapter declares about its types (docs/architecture.md#adapter-operations). */
export interface AdapterTypes {
  provider: ProviderName;
  metadata: { [K in Operation]?: object };
  rawEvents: { [name: string]: unknown };
  checkout: Checkout | null;
  /**
   * The operations the adapter performs, as a union. When declared, `defineAdapter` requires exactly these
   * implementations and `Pay` exposes only these methods; otherwise every operation is typed.
   */
  operations?: Operation;
  /**
   * The normalised events the adapter's webhooks can raise, as a union. When declared, `webhooks.eventNames` must
   * list them and `.on()` accepts only these (and the raw events); otherwise every event name is accepted.
   */
  events?: NormalisedEventName;
  /**
   * The top-level params the provider needs although core's contract leaves them optional, per operation
   * (`{ 'payments.create': 'amount' }`): a compile error for a caller without one (docs/architecture.md#request-fields).
   */
  required?: { [K in Operation]?: string };
}

/** The operations an adapter's declared types say it performs (every operation when it declares none). */
export type SupportedOperations<T> = T extends { operations: infer O extends Operation } ? O : Operation;

/** The normalised events an adapter's declared types say it raises (every one when it declares none). */
export type SupportedEvents<T> = T extends { events: infer E extends NormalisedEventName }
  ? E
  : NormalisedEventName;

/** The `provider_metadata` type of one operation. */
export type MetadataOf<T extends AdapterTypes, K extends Operation> = T['metadata'][K] extends object
  ? T['metadata'][K]
  : Record<string, unknown>;

/** The top-level params an adapter's types declare required for one operation (`never` when none). */
type RequiredOf<T, K extends Operation> = T extends { required: infer R }
  ? R extends { [P in K]: infer F extends string }
    ? F
    : never
  : never;

/** `P` with the members `F` required (and no longer `undefined`); `P` itself when `F` is `never`. */
type WithRequired<P, F extends string> = [F] extends [never]
  ? P
  : Omit<P, F> & { [M in F & keyof P]-?: Exclude<P[M], undefined> };

/** The parameters a caller passes to `operation`, with the adapter's `provider_metadata` and `required`. */
export type ParamsOf<T extends AdapterTypes, K extends Operation> = RowOf<K>['params'] extends infer S extends
  v.GenericSchema
  ? WithRequired<WithProviderMetadata<v.InferInput<S>, MetadataOf<T, K>>, RequiredOf<T, K>>
  : never;

/** The parameters an implementation receives: validated against core's request contract. */
export type ValidatedParamsOf<K extends Operation> = RowOf<K>['params'] extends infer S extends
  v.GenericSchema
  ? v.InferOutput<S>
  : never;

/** The arguments of `operation` before its options, as a caller passes them. */
export type ArgumentsOf<T extends AdapterTypes, K extends Operation> = [
  ...(RowOf<K>['id'] extends true ? [id: string] : []),
  ...(RowOf<K>['params'] extends v.GenericSchema
    ? RowOf<K>['optionalParams'] extends true
      ? [params?: ParamsOf<T, K>]
      : [params: ParamsOf<T, K>]
    : []),
];

/** The arguments an implementation receives before its options: validated. */
export type ValidatedArgumentsOf<K extends Operation> = [
  ...(RowOf<K>['id'] extends true ? [id: string] : []),
  ...(RowOf<K>['params'] extends v.GenericSchema ? [params: ValidatedParamsOf<K>] : []),
];

/** What `operation` resolves to for an adapter with types `T`. */
export type ResultOf<T extends AdapterTypes, K extends Operation> =
  | OperationResults<T>[RowOf<K>['result']]
  | (RowOf<K>['orNull'] extends true ? null : never);
