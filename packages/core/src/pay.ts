/**
 * `createPay(adapter, options)`: one API over the configured provider (docs/architecture.md#createpay). The namespaces call the
 * adapter's flat operations, which validate their input before any I/O; money-moving operations called with an
 * `idempotencyKey` run under the idempotency ledger (docs/architecture.md#idempotency); `resolve` answers what the
 * provider holds for a call whose outcome is unknown; webhooks are set up per secret.
 */
import type {
  Adapter,
  AnyAdapter,
  CallOptions,
  PerformOperation,
  ResolvedRecord,
  TypesOf,
} from './adapter.js';
import { createLogger, type Logger, type PayLogger, withinLogger } from './diagnostics/logger.js';
import { inProduction, isInMemory } from './diagnostics/production.js';
import { operationOfError, withIdempotencyKey } from './error-marks.js';
import { PayError, ValidationError } from './errors.js';
import { createIdempotencyLedger, type IdempotencyLedger, type IdempotencyOptions } from './idempotency.js';
import { operationOfFingerprint } from './idempotency-fingerprint.js';
import { idempotencyKeyIssue } from './idempotency-keys.js';
import { whileHeld } from './idempotency-lease.js';
import { checkedCallOptions, runOperation } from './operation-context.js';
import {
  type MoneyMovingOperation,
  OPERATION_NAMES,
  OPERATIONS,
  type Operation,
  optionsIndexOf,
  type Resource,
  type RowOf,
  type SupportedOperations,
  type VerbOf,
} from './operations.js';
import type { Checkout, Payment, Refund } from './records.js';
import { StoreError } from './store-errors.js';
import { createMemoryIdempotencyStore, type JsonValue } from './stores.js';
import { WebhookHandler, type WebhookSetupOptions } from './webhooks/handler.js';

/** Options of {@link createPay}. */
export interface PayOptions extends IdempotencyOptions {
  /**
   * Where the library reports what it cannot throw (console-compatible: `logger: console` works; silent by
   * default): a store error swallowed after a success (`error`), an in-memory idempotency or deduplication store
   * while `NODE_ENV` is `production` (`warn`, once), and, for calls made through this `Pay` whose adapter has no
   * `logger` of its own, each retry (`debug`) and each failed hook (`warn`). Every line is redacted.
   */
  logger?: Logger;
}

/** What `pay.resolve` found out about a money-moving call. */
export type ResolveResult =
  /** The provider holds this record (or the ledger recorded it as the call's result). */
  | { status: 'found'; record: Payment | Refund | Checkout; source: 'ledger' | 'provider' }
  /** The provider proved it holds nothing for this call: it is safe to send again (with the same key). */
  | { status: 'not_found' }
  /**
   * Nothing proves either way (yet): do not send with a new key; ask later (a retry with the same key is safe: it
   * resumes). `reason` says why; `askAgainAt` (ISO 8601), when known, is when asking again can tell more: an
   * attempt's lease ends, or the provider will have proved that a step it may still be processing cannot land.
   */
  | { status: 'unknown'; reason: string; askAgainAt?: string };

/** Options of `pay.resolve`. */
export interface ResolveOptions {
  /**
   * The money-moving operation the key was used for, when the ledger no longer has the key (another store,
   * expired): lets the adapter look the key up at the provider.
   */
  operation?: MoneyMovingOperation;
  signal?: AbortSignal;
}

/**
 * The methods of one resource (`pay.payments`): only the operations the adapter performs (its declared
 * `operations`; every operation when it declares none), so calling an unsupported one is a compile error.
 * `pay.supports(operation)` answers the same question at run time.
 */
export type Namespace<A extends AnyAdapter, R extends Resource> = {
  readonly [K in SupportedOperations<TypesOf<A>> & `${R}.${string}` as VerbOf<R, K>]: A[RowOf<K>['method']];
};

/** The unified payment service over one configured provider adapter. */
export class Pay<A extends AnyAdapter = Adapter> {
  /** The adapter itself, for provider-specific methods (e.g. Provider R's `createCheckoutRedirect`). */
  readonly adapter: A;
  readonly checkouts: Namespace<A, 'checkouts'>;
  readonly payments: Namespace<A, 'payments'>;
  readonly refunds: Namespace<A, 'refunds'>;
  readonly customers: Namespace<A, 'customers'>;
  readonly subscriptions: Namespace<A, 'subscriptions'>;
  readonly webhooks: {
    /**
     * A webhook handler checked with `webhookSecret` (`null` for Provider T). Chain `.on(event, callback)`,
     * then call `.handle({ body, headersAsObject, fullUrl })` with the raw body.
     */
    setup(options: WebhookSetupOptions): WebhookHandler<TypesOf<A>>;
  };

  /** The idempotency ledger money-moving calls with a key run under. */
  readonly #ledger: IdempotencyLedger;
  /** The application's logger (silent when none was given). */
  readonly #logger: PayLogger;

  /**
   * Wraps a configured adapter, e.g. `new Pay(providerR(), { idempotency })`. Throws `ConfigurationError` for a
   * retention below 24 h or a lease out of bounds.
   */
  constructor(adapter: A, options: PayOptions = {}) {
    this.adapter = adapter;
    const { idempotency, logger: given, ...ledgerOptions } = options;
    const logger = createLogger(given);
    this.#logger = logger;
    const store = idempotency ?? createMemoryIdempotencyStore();
    if (isInMemory(store) && inProduction())
      logger.once(
        'memory-idempotency-store',
        'warn',
        'createPay uses an in-memory idempotency store while NODE_ENV is production: its keys live in this process only, so another instance or a restart can send a money-moving call twice. Pass idempotency: a shared store (@pay/store-postgres, @pay/store-redis).',
      );
    const ledger = createIdempotencyLedger(store, ledgerOptions, logger);
    this.#ledger = ledger;
    // Each operation runs once, with this Pay's ledger as an argument (docs/architecture.md#operation-context).
    const perform = adapter.perform ?? performerOf(adapter);
    const namespaces: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>> = {};
    for (const operation of OPERATION_NAMES) {
      const [resource, verb] = operation.split('.') as [string, string];
      namespaces[resource] ??= {};
      // The adapter's calls report to this Pay's logger unless the adapter has its own
      // (docs/architecture.md#logger).
      namespaces[resource][verb] = (...args: unknown[]) =>
        withinLogger(logger, () => perform(operation, args, ledger));
    }
    this.checkouts = namespaces.checkouts as never;
    this.payments = namespaces.payments as never;
    this.refunds = namespaces.refunds as never;
    this.customers = namespaces.customers as never;
    this.subscriptions = namespaces.subscriptions as never;
    this.webhooks = { setup: (options) => new WebhookHandler<TypesOf<A>>(adapter, options, logger) };
  }

  /** Whether the configured provider performs `operation` (no I/O). */
  supports(operation: Operation): boolean {
    return this.adapter.capabilities.includes(operation);
  }

  /**
   * What the provider holds for a money-moving call whose outcome is unknown, given its idempotency key or the
   * error it threw (a `NetworkError` / `ProviderApiError` with `outcome: 'unknown'`):
   * - `found` with the record: from the ledger when the call completed (for Provider R's redirect checkout, which
   *   resolves to `null`, the Checkout its key opened, `payment_url` being the redirect), otherwise from the
   *   provider (the ledger then records it as the key's result, so a retry with the key returns it);
   * - `not_found`: the provider proved it holds nothing and the step can no longer land, so sending again is safe
   *   (the ledger frees the key);
   * - `unknown`: nothing proves either way — an attempt still holds the key (it renews its lease while it works),
   *   the provider may still be processing the step that moves money, the adapter cannot look the call up, or
   *   there is no ledger entry and no `operation` to ask the provider about. `askAgainAt` says when asking again
   *   can tell more, when known. Never send with a new key on `unknown`.
   *
   * An absent ledger entry never means "not found": the key may have been released, expired or be kept by
   * another store. Store failures throw `StoreError`; provider failures throw the adapter's error.
   */
  async resolve(keyOrError: string | unknown, options: ResolveOptions = {}): Promise<ResolveResult> {
    const lookup = lookupOf(keyOrError, options);
    const callOptions: CallOptions = options.signal ? { signal: options.signal } : {};
    const ask = async (operation: Operation, extra: { recoveryPoint?: JsonValue | null }) => {
      return withinLogger(this.#logger, () =>
        this.adapter.resolve?.(
          {
            operation,
            ...(lookup.key === undefined ? {} : { idempotencyKey: lookup.key }),
            ...extra,
            ...(lookup.context ? { context: lookup.context } : {}),
          },
          callOptions,
        ),
      );
    };
    if (lookup.key === undefined) {
      if (!lookup.operation)
        return { status: 'unknown', reason: 'the error names no operation and no idempotency key' };
      return answerOf(await ask(lookup.operation, {}), 'the adapter cannot look this call up');
    }
    const key = lookup.key;
    try {
      const store = this.#ledger.store;
      const entry = await storeCall('read', key, () => store.read(key));
      if (entry?.state === 'completed') {
        // A call that resolves to nothing (Provider R's redirect checkout) recorded `null`: the adapter reads
        // what the key made from the recovery point (its redirect), and nothing can move money any more.
        const operation = operationOfFingerprint(entry.fingerprint);
        if (entry.result !== null || !operation || !this.adapter.resolve) return foundInLedger(entry.result);
        const answer = await ask(operation, { recoveryPoint: entry.recoveryPoint });
        return isRecordAnswer(answer)
          ? { status: 'found', record: answer, source: 'ledger' }
          : foundInLedger(null);
      }
      if (!entry) {
        if (!lookup.operation)
          return {
            status: 'unknown',
            reason:
              'the ledger has no entry for this key (never used, released, expired, or kept in another store); pass { operation } to ask the provider',
          };
        return answerOf(await ask(lookup.operation, {}), 'the adapter cannot look this key up');
      }
      // Take the key's lease, so no attempt can move money while the provider is asked and the answer recorded.
      const operation = operationOfFingerprint(entry.fingerprint) ?? lookup.operation;
      if (!operation)
        return { status: 'unknown', reason: 'the ledger entry does not say which operation it belongs to' };
      const begun = await storeCall('begin', key, () =>
        store.begin(key, entry.fingerprint, {
          leaseSeconds: this.#ledger.leaseSeconds,
          retentionSeconds: this.#ledger.retentionSeconds,
        }),
      );
      if (begun.state === 'completed') return foundInLedger(begun.result);
      if (begun.state !== 'acquired')
        return {
          status: 'unknown',
          reason:
            'an attempt with this key is in progress (it renews its lease while it works); ask again later',
          askAgainAt: new Date(Date.now() + this.#ledger.leaseSeconds * 1000).toISOString(),
        };
      const { lease } = begun;
      let answer: Awaited<ReturnType<typeof ask>>;
      try {
        answer = await whileHeld(store, key, lease, this.#ledger.leaseSeconds, () =>
          ask(operation, { recoveryPoint: begun.recoveryPoint }),
        );
      } catch (error) {
        await this.#settle(operation, key, 'abandon', () => store.abandon(key, lease));
        throw error;
      }
      if (answer === null) await this.#settle(operation, key, 'release', () => store.release(key, lease));
      else if (!isRecordAnswer(answer) || !readBackStandsForResult(operation))
        await this.#settle(operation, key, 'abandon', () => store.abandon(key, lease));
      else
        await this.#settle(operation, key, 'complete', () =>
          store.complete(key, lease, JSON.parse(JSON.stringify(answer))),
        );
      return answerOf(answer, 'the provider cannot tell what happened to this key');
    } catch (error) {
      throw withIdempotencyKey(error, key);
    }
  }

  /** Writes the outcome of a resolve to the ledger; a failure is reported, the provider's answer stands. */
  async #settle(
    operation: Operation,
    key: string,
    step: 'complete' | 'release' | 'abandon',
    write: () => Promise<boolean>,
  ): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.#ledger.report(
        new StoreError(
          `pay.resolve: the idempotency store failed at ${step}; the provider's answer was returned.`,
          { step, cause: error, context: { idempotencyKey: key } },
        ),
        { operation, idempotencyKey: key, step },
      );
    }
  }
}

/**
 * For an adapter not built by `defineAdapter` (or a spread copy of one): each operation through the same
 * {@link runOperation} on the caller's arguments as given (only the options checked), calling the adapter's method
 * with the operation context as its options.
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
 * Whether a record read back from the provider may be recorded as the key's result. A checkout's create reply
 * carries what no read gives back (Provider N's `checkoutUrl`), so a checkout found by `resolve` is returned but
 * never replayed to a later `checkouts.create` with the key: that call resumes through the adapter instead.
 */
function readBackStandsForResult(operation: Operation): boolean {
  return operation !== 'checkouts.create';
}

/** The key, operation and error context `pay.resolve` was given. */
function lookupOf(
  keyOrError: unknown,
  options: ResolveOptions,
): { key?: string; operation?: Operation; context?: Record<string, unknown> } {
  if (typeof keyOrError === 'string') {
    const issue = idempotencyKeyIssue(keyOrError);
    if (issue) throw new ValidationError([{ path: 'key', message: issue }], { operation: 'resolve' });
    return { key: keyOrError, ...(options.operation ? { operation: options.operation } : {}) };
  }
  if (!PayError.isInstance(keyOrError))
    throw new ValidationError(
      [{ path: 'keyOrError', message: 'must be an idempotency key or an error thrown by a @pay call' }],
      { operation: 'resolve' },
    );
  const context = keyOrError.context;
  const key = typeof context?.idempotencyKey === 'string' ? context.idempotencyKey : undefined;
  const operation = operationOfError(keyOrError) ?? options.operation;
  return {
    ...(key === undefined ? {} : { key }),
    ...(operation ? { operation } : {}),
    ...(context ? { context } : {}),
  };
}

/** Runs a store call for `resolve`, wrapping what the store throws in `StoreError`. */
async function storeCall<T>(step: 'read' | 'begin', key: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new StoreError(
      'pay.resolve: the idempotency store could not be asked. Nothing was sent; ask again once the store answers.',
      { step, cause: error, context: { idempotencyKey: key } },
    );
  }
}

function foundInLedger(result: unknown): ResolveResult {
  return { status: 'found', record: result as Payment, source: 'ledger' };
}

/** Whether an adapter's answer is a record (not `null`, `undefined` or {@link MayStillLand}). */
function isRecordAnswer(answer: ResolvedRecord): answer is Payment | Refund | Checkout {
  return answer !== null && answer !== undefined && !('mayStillLand' in answer);
}

function answerOf(answer: ResolvedRecord, reasonWhenUnknown: string): ResolveResult {
  if (answer === null) return { status: 'not_found' };
  if (answer === undefined) return { status: 'unknown', reason: reasonWhenUnknown };
  if ('mayStillLand' in answer)
    return {
      status: 'unknown',
      reason: answer.reason,
      ...(answer.askAgainAt === null ? {} : { askAgainAt: new Date(answer.askAgainAt).toISOString() }),
    };
  return { status: 'found', record: answer, source: 'provider' };
}

/**
 * Creates the unified service over one configured adapter: `createPay(providerR())`, or with a shared
 * idempotency ledger `createPay(providerR(), { idempotency: stores.idempotency })`. Throws
 * `ConfigurationError` for invalid options (a retention below 24 h, a lease out of bounds).
 */
export function createPay<A extends AnyAdapter>(adapter: A, options: PayOptions = {}): Pay<A> {
  return new Pay(adapter, options);
}
