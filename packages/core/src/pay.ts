/**
 * `createPay(adapter, options)`: one API over the configured provider (docs/architecture.md#createpay); money-moving
 * operations called with an `idempotencyKey` run under the idempotency ledger (docs/architecture.md#idempotency).
 */
import type { Adapter, AnyAdapter, CallOptions, PerformOperation, TypesOf } from './adapter.js';
import { checkAdapterContract } from './adapter-contract.js';
import { createLogger, type Logger, type PayLogger, withinLogger } from './diagnostics/logger.js';
import { inProduction, isInMemory } from './diagnostics/production.js';
import { createIdempotencyLedger, type IdempotencyLedger, type IdempotencyOptions } from './idempotency.js';
import { checkedCallOptions, runOperation } from './operation-context.js';
import {
  OPERATION_NAMES,
  OPERATIONS,
  type Operation,
  optionsIndexOf,
  type Resource,
  type RowOf,
  type SupportedOperations,
  type VerbOf,
} from './operations.js';
import { onCreatedBy } from './reconcile/created.js';
import type { ReconciliationStore, WatchedKind } from './reconcile/store.js';
import {
  checkedWatch,
  recordAnnouncements,
  registerCreated,
  watchedKindOf,
  watchObject,
} from './reconcile/watch.js';
import { type ResolveOptions, type ResolveResult, resolveCall } from './resolve.js';
import { createMemoryIdempotencyStore } from './stores.js';
import { WebhookHandler, type WebhookSetupOptions } from './webhooks/handler.js';

/** Options of {@link createPay}. */
export interface PayOptions extends IdempotencyOptions {
  /**
   * Where the library reports what it cannot throw (console-compatible; silent by default): a store error swallowed
   * after a success (`error`), an in-memory store in production (`warn`, once), and, for calls whose adapter has no
   * `logger` of its own, each retry (`debug`) and each failed hook (`warn`). Every line is redacted.
   */
  logger?: Logger;
  /**
   * Where the reconciler's watch list is kept (docs/architecture.md#reconciliation): every payment, checkout and
   * refund created through this `Pay` is registered, and `createReconciler(pay, handler)` reads each until it reaches
   * a final status. A failure to register is logged (`error`) and never fails the call.
   */
  reconcile?: ReconciliationStore;
}

/** What `createReconciler` uses of a `Pay`: its ledger, reconciliation store and logger (not public). */
export interface PayInternals {
  ledger: IdempotencyLedger;
  reconcile: ReconciliationStore | undefined;
  logger: PayLogger;
}

const INTERNALS = new WeakMap<object, PayInternals>();

/** Each operation with its resource and verb (`payments.create`), split once per process, not per `Pay`. */
const NAMESPACED = OPERATION_NAMES.map(
  (operation) => [operation, ...operation.split('.')] as [Operation, string, string],
);

/** The internals of `pay`; `undefined` for an object `createPay` did not make. */
export function internalsOf(pay: object): PayInternals | undefined {
  return INTERNALS.get(pay);
}

/**
 * The methods of one resource (`pay.payments`): only the operations the adapter's types declare (all when it
 * declares none), so calling an unsupported one is a compile error.
 */
export type Namespace<A extends AnyAdapter, R extends Resource> = {
  readonly [K in SupportedOperations<TypesOf<A>> & `${R}.${string}` as VerbOf<R, K>]: A[RowOf<K>['method']];
};

/** The unified payment service over one configured provider adapter. */
export class Pay<A extends AnyAdapter = Adapter> {
  /** The adapter itself, for provider-specific methods (e.g. Provider R's `createCheckoutRedirect`). */
  readonly adapter: A;
  declare readonly checkouts: Namespace<A, 'checkouts'>;
  declare readonly payments: Namespace<A, 'payments'>;
  declare readonly refunds: Namespace<A, 'refunds'>;
  declare readonly customers: Namespace<A, 'customers'>;
  declare readonly subscriptions: Namespace<A, 'subscriptions'>;
  declare readonly webhooks: {
    /**
     * A webhook handler checked with `webhookSecret` (`null` for Provider T). Chain `.on(event, callback)`,
     * then call `.handle({ body, headersAsObject, fullUrl })` with the raw body.
     */
    setup(options: WebhookSetupOptions): WebhookHandler<TypesOf<A>>;
  };

  /**
   * Wraps a configured adapter, e.g. `new Pay(providerR(), { idempotency })`. Throws `ConfigurationError` for a
   * retention below 24 h or a lease out of bounds.
   */
  constructor(adapter: A, options: PayOptions = {}) {
    checkAdapterContract(adapter);
    this.adapter = adapter;
    const { idempotency, logger: given, reconcile, ...ledgerOptions } = options;
    const logger = createLogger(given);
    const store = idempotency ?? createMemoryIdempotencyStore();
    if (isInMemory(store) && inProduction())
      logger.once(
        'memory-idempotency-store',
        'warn',
        'createPay uses an in-memory idempotency store while NODE_ENV is production: its keys live in this process only, so another instance or a restart can send a money-moving call twice. Pass idempotency: a shared store (@pay/store-postgres, @pay/store-redis).',
      );
    const ledger = createIdempotencyLedger(store, ledgerOptions, logger);
    INTERNALS.set(this, { ledger, reconcile, logger });
    if (reconcile !== undefined && watchedKindOf('checkouts.create', adapter) !== undefined)
      onCreatedBy(adapter, (kind, id) => registerCreated(reconcile, logger, adapter.provider, kind, { id }));
    // Each operation runs once, with this Pay's ledger as an argument (docs/architecture.md#operation-context).
    const perform = adapter.perform ?? performerOf(adapter);
    const namespaces: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>> = {};
    for (const [operation, resource, verb] of NAMESPACED) {
      namespaces[resource] ??= {};
      // The adapter's calls report to this Pay's logger unless the adapter has its own
      // (docs/architecture.md#logger).
      const kind = reconcile === undefined ? undefined : watchedKindOf(operation, adapter);
      namespaces[resource][verb] =
        reconcile === undefined || kind === undefined
          ? (...args: unknown[]) => withinLogger(logger, () => perform(operation, args, ledger))
          : async (...args: unknown[]) => {
              const register = (record: unknown) =>
                registerCreated(reconcile, logger, adapter.provider, kind, record);
              // Under a key, the object is registered before the ledger completes the key: a process killed in
              // between leaves a stale key, which the reconciler resolves, instead of a completed key whose
              // object nobody watches (docs/architecture.md#reconciliation).
              let registered = false;
              const registering: IdempotencyLedger = {
                ...ledger,
                run: (moneyOperation, input, key, invoke) =>
                  ledger.run(moneyOperation, input, key, async (idempotency) => {
                    const record = await invoke(idempotency);
                    await register(record);
                    registered = true;
                    return record;
                  }),
              };
              const record = await withinLogger(logger, () => perform(operation, args, registering));
              // Without a key (or when the key had completed before), the object is registered now; watching
              // an object twice changes nothing.
              if (!registered) await register(record);
              return record;
            };
    }
    // Own properties in the order they are declared: adapter, the namespaces (in table order), webhooks.
    Object.assign(this, namespaces);
    this.webhooks = {
      setup: (options) => {
        const handler = new WebhookHandler<TypesOf<A>>(adapter, options, logger);
        if (reconcile !== undefined) recordAnnouncements(handler, reconcile, logger);
        return handler;
      },
    };
  }

  /** Whether the configured provider performs `operation` (no I/O). */
  supports(operation: Operation): boolean {
    return this.adapter.capabilities.includes(operation);
  }

  /**
   * Asks the reconciler to watch an object this `Pay` did not create (or whose registration failed), by the
   * provider's id; first read due in 2 minutes. Pass `status` (the last one the application knows), or `null` to be
   * told the first status read. Throws `ConfigurationError` without `createPay(…, { reconcile })`,
   * `ValidationError` for a bad kind or id (docs/architecture.md#reconciliation).
   */
  async watch(kind: WatchedKind, id: string, status: string | null = null): Promise<void> {
    const checked = checkedWatch(INTERNALS.get(this)?.reconcile, kind, id);
    await watchObject(checked.store, { provider: this.adapter.provider, kind, id, status });
  }

  /**
   * What the provider holds for a money-moving call whose outcome is unknown, given its idempotency key or the
   * error it threw (docs/architecture.md#idempotency):
   * - `found` with the record, from the ledger when the call completed, otherwise from the provider (the ledger
   *   then records it as the key's result);
   * - `not_found`: the provider proved it holds nothing and the step can no longer land: sending again is safe;
   * - `unknown`: nothing proves either way (`askAgainAt` says when asking again can tell more, when known). Never
   *   send with a new key on `unknown`.
   *
   * An absent ledger entry never means "not found" (the key may have been released or expired). Store failures
   * throw `StoreError`; provider failures throw the adapter's error.
   */
  async resolve(keyOrError: string | unknown, options: ResolveOptions = {}): Promise<ResolveResult> {
    const { ledger, logger } = INTERNALS.get(this)!;
    return resolveCall(this.adapter, ledger, logger, keyOrError, options);
  }
}

/**
 * For an adapter not built by `defineAdapter` (or a spread copy of one): each operation through the same
 * {@link runOperation}, only the options checked, the adapter's method called with the operation context.
 */
function performerOf(adapter: AnyAdapter): PerformOperation {
  return (operation, args, ledger) => {
    const arity = optionsIndexOf(operation);
    const method = adapter[OPERATIONS[operation].method] as (...args: unknown[]) => Promise<unknown>;
    // Padded, so the context is always at the options' position (a capture without an amount).
    const input = Array.from({ length: arity }, (_, index) => args[index]);
    return runOperation(
      operation,
      args[arity],
      ledger,
      () => ({ input, options: checkedCallOptions((args[arity] ?? {}) as CallOptions, operation) }),
      (_input, context) => method.call(adapter, ...input, context),
    );
  };
}

/**
 * Creates the unified service over one configured adapter: `createPay(providerR(), { idempotency })`. Throws
 * `ConfigurationError` for invalid options (a retention below 24 h, a lease out of bounds) and for an adapter built
 * for another adapter contract than this core's (docs/architecture.md#adapter-contract-version).
 */
export function createPay<A extends AnyAdapter>(adapter: A, options: PayOptions = {}): Pay<A> {
  return new Pay(adapter, options);
}
