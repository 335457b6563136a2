/**
 * The adapter contract (docs/architecture.md#adapter-operations): the types of an adapter, its flat operations and
 * what `defineAdapter` (in `define-adapter.ts`) composes one from.
 */
import type { ADAPTER_CONTRACT } from './adapter-contract.js';
import type { ErrorContext } from './errors.js';
import type { IdempotencyLedger } from './idempotency.js';
import type { OperationContext } from './operation-context.js';
import type {
  AdapterTypes,
  ArgumentsOf,
  Operation,
  OperationMethod,
  ResultOf,
  RowOf,
  ValidatedArgumentsOf,
  ValidatedParamsOf,
} from './operations.js';
import type { Checkout, Payment, Refund } from './records.js';
import type { JsonValue } from './stores.js';
import type { NormalisedEventName, WebhookDefinition } from './webhooks/types.js';

export type { IdempotencyContext } from './idempotency.js';
export type { OperationContext } from './operation-context.js';
export type { AdapterTypes, OperationMethod } from './operations.js';

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call; an aborted call that may have reached the provider says `outcome: 'unknown'`. */
  signal?: AbortSignal;
  /**
   * Caller's idempotency key for a money-moving call: the same key for every attempt of one intent, carried on
   * every error (`error.context.idempotencyKey`). Through `createPay` a repeated call returns the recorded result
   * or resumes where the earlier attempt stopped. 1–255 printable characters.
   */
  idempotencyKey?: string;
  /** Timeout of one attempt of this call in milliseconds, overriding the adapter's `timeoutMs` (1 ms – 10 min). */
  timeoutMs?: number;
  /** Retries after the first attempt, overriding the adapter's `retry` (0–10); a money-moving call is never retried. */
  retry?: number;
}

/** What `pay.resolve` asks an adapter about: one money-moving call whose outcome the caller does not know. */
export interface ResolveLookup {
  /** The money-moving operation the key or error belongs to. */
  operation: Operation;
  /** The caller's idempotency key, when there is one. */
  idempotencyKey?: string;
  /** Where the attempt got to, from the ledger. */
  recoveryPoint?: JsonValue | null;
  /** The context of an error with outcome `'unknown'` (Provider T `transactionId`, Provider N `reference`, …). */
  context?: ErrorContext;
}

/**
 * An adapter's answer when the provider holds nothing yet but the money-moving step may still land: `pay.resolve`
 * answers `unknown` and keeps the key. `askAgainAt` (epoch ms): when it can no longer land, `null` when unknown.
 */
export interface MayStillLand {
  mayStillLand: true;
  /** Why, for `pay.resolve`'s `reason`. */
  reason: string;
  askAgainAt: number | null;
}

/**
 * An adapter's answer to a {@link ResolveLookup}: the record the provider holds, `null` only when the provider
 * proves it holds nothing and the step can no longer land (safe to send again), {@link MayStillLand}, or
 * `undefined` when it cannot tell.
 */
export type ResolvedRecord = Payment | Refund | Checkout | MayStillLand | null | undefined;

/** What the reconciler needs of an adapter beyond its operations (docs/architecture.md#reconciliation). */
export interface ReconcileSupport {
  /** Reads a refund by the `id` `refunds.create` returned (`null`: unknown). Without it, refunds are not watched. */
  readonly retrieveRefund?: (id: string, options?: CallOptions) => Promise<Refund | null>;
  /**
   * Per `<kind>.<status>` (`payment.succeeded`), the normalised event the adapter's webhooks raise where it differs
   * from core's table (`null`: none), so a read delivers what a webhook would have delivered.
   */
  readonly events?: { readonly [transition: string]: NormalisedEventName | null };
}

/** The flat operations every adapter exposes (unsupported ones throw `ProviderNotSupportedError`). */
export type AdapterOperations<T extends AdapterTypes = AdapterTypes> = {
  [K in Operation as RowOf<K>['method']]: (
    ...args: [...ArgumentsOf<T, K>, options?: CallOptions]
  ) => Promise<ResultOf<T, K>>;
};

/** A configured provider adapter. */
export interface Adapter<T extends AdapterTypes = AdapterTypes> extends AdapterOperations<T> {
  readonly provider: T['provider'];
  /** The adapter contract it was built for (see {@link AdapterDefinition.contract}); `createPay` checks it. */
  readonly contract?: number;
  /** The operations this adapter performs; every other one throws `ProviderNotSupportedError`. */
  readonly capabilities: readonly Operation[];
  /** Webhook verification and normalisation, used by `pay.webhooks.setup()`. */
  readonly webhooks: WebhookDefinition;
  /** What the provider holds for a call whose outcome is unknown (see {@link AdapterDefinition.resolve}). */
  readonly resolve?: (lookup: ResolveLookup, options?: CallOptions) => Promise<ResolvedRecord>;
  /** What the reconciler needs beyond the operations (see {@link ReconcileSupport}). */
  readonly reconcile?: ReconcileSupport;
  /**
   * Runs `operation` on its caller's arguments as the flat method does, under `ledger` when given: what `createPay`
   * calls (docs/architecture.md#operation-context). Not enumerable: a spread copy has none, so its methods run.
   */
  readonly perform?: PerformOperation;
  /** Type-level only: the adapter's declared types. */
  readonly '~types'?: T;
}

/** {@link Adapter.perform}. */
export type PerformOperation = (
  operation: Operation,
  args: readonly unknown[],
  ledger?: IdempotencyLedger,
) => Promise<unknown>;

/**
 * Any configured adapter, whatever its declared types: what `createPay`, the webhook handler and the contract
 * suite accept (an `Adapter<SomeTypes>` is not an `Adapter<AdapterTypes>`: parameter types vary with the types).
 */
export type AnyAdapter = Omit<Adapter, OperationMethod> & {
  readonly [M in OperationMethod]: (...args: never[]) => Promise<unknown>;
};

/** The declared types of an adapter. */
export type TypesOf<A> = A extends { readonly '~types'?: infer T }
  ? NonNullable<T> extends AdapterTypes
    ? NonNullable<T>
    : AdapterTypes
  : AdapterTypes;

/**
 * The implementation of each operation, as an adapter writes it: parameters already validated against core's
 * request contracts; `provider_metadata` is still the caller's object, for the adapter to validate.
 */
export type OperationImplementations<T extends AdapterTypes> = {
  [K in Operation as RowOf<K>['method']]: (
    ...args: [...ValidatedArgumentsOf<K>, context: OperationContext]
  ) => Promise<ResultOf<T, K>>;
};

/**
 * The adapter's own checks of an operation's parameters, per method: throws `ValidationError` for what the adapter
 * refuses, returns the parameters as the adapter reads them (`undefined`: as given).
 */
export type OperationChecks = {
  [K in Operation as RowOf<K>['params'] extends null ? never : RowOf<K>['method']]?: (
    ...args: ValidatedArgumentsOf<K>
  ) => ValidatedParamsOf<K> | undefined;
};

/** The implementations an adapter definition holds: exactly its declared `operations` when declared, else any. */
export type ImplementationsOf<T extends AdapterTypes> = T extends { operations: infer O extends Operation }
  ? Pick<OperationImplementations<T>, RowOf<O>['method']> & {
      [M in RowOf<Exclude<Operation, O>>['method']]?: never;
    }
  : Partial<OperationImplementations<T>>;

/** The `eventNames` a webhook definition must list: the declared `events`, when the types declare them. */
type EventNamesOf<T extends AdapterTypes> = T extends { events: infer E extends NormalisedEventName }
  ? { eventNames: readonly E[] }
  : { eventNames?: readonly NormalisedEventName[] };

/** What `defineAdapter` composes an adapter from. */
export interface AdapterDefinition<T extends AdapterTypes> {
  provider: T['provider'];
  /**
   * The adapter contract this adapter is built for, written as a literal (`contract: 1`): `createPay` refuses it
   * with a `ConfigurationError` under a core of another contract (docs/architecture.md#adapter-contract-version).
   */
  contract?: typeof ADAPTER_CONTRACT;
  /** The operations the provider performs; every other one throws `ProviderNotSupportedError`. */
  operations: ImplementationsOf<T>;
  /** Why each other operation cannot be done, as the `reason` of its `ProviderNotSupportedError`. */
  unsupported?: { [K in Operation]?: string };
  /** Reason for unsupported operations not named in `unsupported`. */
  fallbackReason?: string;
  /**
   * The adapter's checks of an operation's input, run BEFORE the idempotency ledger is touched, so a request that
   * can never succeed is refused even while the store is down (docs/architecture.md#idempotency). What each returns
   * is what the ledger fingerprints and the implementation receives.
   */
  checks?: OperationChecks;
  /** Webhook verification; `rawEventNames` lists the raw event names, `eventNames` the declared `events`. */
  webhooks: WebhookDefinition & {
    rawEventNames: readonly (keyof T['rawEvents'] & string)[];
  } & EventNamesOf<T>;
  /** What the provider holds for a call whose outcome is unknown (see {@link ResolvedRecord}). Only reads. */
  resolve?(lookup: ResolveLookup, options: CallOptions): Promise<ResolvedRecord>;
  /** What the reconciler needs beyond the operations; `retrieveRefund`'s errors are redacted like theirs. */
  reconcile?: ReconcileSupport;
}
