/**
 * `defineAdapter` (docs/architecture.md#adapter-operations). Every error an operation or a webhook verification
 * throws leaves through core's redaction (docs/architecture.md#redaction).
 */
import type * as v from 'valibot';
import type {
  Adapter,
  AdapterDefinition,
  CallOptions,
  PerformOperation,
  ReconcileSupport,
  ResolvedRecord,
  ResolveLookup,
} from './adapter.js';
import { traceOperation } from './diagnostics/tracing.js';
import { ProviderNotSupportedError, ValidationError } from './errors.js';
import type { IdempotencyLedger } from './idempotency.js';
import { idempotencyKeyOf } from './idempotency-keys.js';
import { checkedCallOptions, runOperation } from './operation-context.js';
import {
  type AdapterTypes,
  argumentsOf,
  OPERATION_NAMES,
  OPERATIONS,
  type Operation,
  type OperationMethod,
  optionsIndexOf,
} from './operations.js';
import { idSchema } from './records.js';
import { redactError } from './redaction.js';
import { parseInput } from './validation.js';
import type { AuthenticatedDelivery, WebhookDefinition, WebhookDelivery } from './webhooks/types.js';

/** How one operation of the adapter runs, on its caller's arguments. */
type Performer = (args: readonly unknown[], ledger?: IdempotencyLedger) => Promise<unknown>;

/**
 * Builds an {@link Adapter}: implemented operations validate their arguments against core's contracts and
 * run; every other operation throws `ProviderNotSupportedError` before validation and before any I/O.
 * `capabilities` is derived from the implemented operations, so it always matches the methods.
 */
export function defineAdapter<T extends AdapterTypes>(definition: AdapterDefinition<T>): Adapter<T> {
  const plan = planOf(definition);
  const capabilities = OPERATION_NAMES.filter((operation) => plan.implementations[operation]);
  // Built on an operation's first call, not here: a client made per request (a serverless route) builds only the
  // performer of the operation it runs (docs/architecture.md#what-a-cold-client-costs).
  const performers = new Map<Operation, Performer>();
  const performerOf = (operation: Operation): Performer => {
    let performer = performers.get(operation);
    if (!performer) {
      performer = performerFor(plan, operation);
      performers.set(operation, performer);
    }
    return performer;
  };
  // One public operation on `pay:operation` (docs/architecture.md#tracing-channels), around the redaction so the
  // trace's `error` is the redacted one the caller gets.
  const perform: PerformOperation = (operation, args, ledger) =>
    traceOperation(
      () => ({
        provider: definition.provider,
        operation,
        idempotencyKey: idempotencyKeyOf(args[optionsIndexOf(operation)] as CallOptions | undefined),
      }),
      () => performerOf(operation)(args, ledger),
    );
  // Member by member, in this order (the operations' methods, provider, contract, capabilities, webhooks, resolve,
  // reconcile): spreading a wide object into another made most of what building an adapter cost.
  const adapter: Record<string, unknown> = {};
  for (const operation of OPERATION_NAMES)
    adapter[OPERATIONS[operation].method] = (...args: unknown[]) => perform(operation, args);
  adapter.provider = definition.provider;
  if (definition.contract !== undefined) adapter.contract = definition.contract;
  adapter.capabilities = Object.freeze(capabilities);
  adapter.webhooks = redactingWebhooks(definition.webhooks);
  if (definition.resolve)
    adapter.resolve = tracedResolve(definition.provider, definition.resolve.bind(definition));
  if (definition.reconcile) adapter.reconcile = redactingReconcile(definition.reconcile);
  Object.defineProperty(adapter, 'perform', { value: perform, enumerable: false });
  return adapter as unknown as Adapter<T>;
}

/** What `defineAdapter` read of a definition, per operation, to build each operation's performer. */
interface OperationPlan {
  provider: string;
  implementations: Partial<Record<Operation, (...args: unknown[]) => Promise<unknown>>>;
  checks: Partial<Record<Operation, (...args: unknown[]) => unknown>>;
  /** Why an operation the adapter does not implement is refused, when the definition says. */
  reasons: Partial<Record<Operation, string>>;
}

/**
 * The definition's implementations, checks and refusal reasons, read when the adapter is built, as they always
 * were (a definition changed later changes nothing), so only the performers wait for a first call.
 */
function planOf<T extends AdapterTypes>(definition: AdapterDefinition<T>): OperationPlan {
  const operations = definition.operations as Partial<Record<OperationMethod, unknown>>;
  const checks = (definition.checks ?? {}) as Partial<Record<string, (...args: unknown[]) => unknown>>;
  const plan: OperationPlan = { provider: definition.provider, implementations: {}, checks: {}, reasons: {} };
  for (const operation of OPERATION_NAMES) {
    const method = OPERATIONS[operation].method;
    const implementation = operations[method] as ((...args: unknown[]) => Promise<unknown>) | undefined;
    if (implementation) {
      plan.implementations[operation] = implementation;
      plan.checks[operation] = checks[method];
    } else {
      const reason = definition.unsupported?.[operation] ?? definition.fallbackReason;
      if (reason !== undefined) plan.reasons[operation] = reason;
    }
  }
  return plan;
}

/**
 * How one operation runs: validated and performed when the adapter implements it, else refused with
 * `ProviderNotSupportedError` before validation and before any I/O.
 */
function performerFor(plan: OperationPlan, operation: Operation): Performer {
  const implementation = plan.implementations[operation];
  if (implementation) return validatingPerformer(operation, implementation, plan.checks[operation]);
  const reason = plan.reasons[operation] ?? `the provider offers no ${operation} call`;
  return redactingErrors(async () => {
    throw new ProviderNotSupportedError({ provider: plan.provider, operation, reason });
  });
}

/**
 * How an implemented operation runs: core's request contract, the dot-identifier refusal, the call options and the
 * adapter's own check, all before the ledger is touched (docs/architecture.md#adapter-operations), then the
 * implementation under `runOperation`; its errors redacted.
 */
function validatingPerformer(
  operation: Operation,
  implementation: (...args: unknown[]) => Promise<unknown>,
  check: ((...args: unknown[]) => unknown) | undefined,
): Performer {
  const shape = argumentsOf(operation);
  return redactingErrors((args: readonly unknown[], ledger?: IdempotencyLedger) =>
    runOperation(
      operation,
      args[shape.length],
      ledger,
      () => {
        const input = shape.map((argument, index) =>
          argument === 'id'
            ? parseInput(idSchema, args[index], { operation, prefix: 'id' })
            : parseInput(argument, args[index] ?? {}, { operation }),
        );
        refuseDotIdentifiers(shape, input, operation);
        const options = checkedCallOptions((args[shape.length] ?? {}) as CallOptions, operation);
        const normalised = check?.(...input);
        if (normalised !== undefined) input[input.length - 1] = normalised;
        return { input, options };
      },
      (input, context) => implementation(...input, context),
    ),
  );
}

/** The adapter's `resolve`, its errors redacted, on `pay:operation` as the operation `'resolve'`. */
function tracedResolve(
  provider: string,
  resolve: (lookup: ResolveLookup, options: CallOptions) => Promise<ResolvedRecord>,
): (lookup: ResolveLookup, options?: CallOptions) => Promise<ResolvedRecord> {
  const redacted = redactingErrors(async (lookup: ResolveLookup, options: CallOptions = {}) =>
    resolve(lookup, options),
  );
  return (lookup, options) =>
    traceOperation(
      () => ({ provider, operation: 'resolve', idempotencyKey: idempotencyKeyOf(lookup) }),
      () => redacted(lookup, options),
    );
}

/** The adapter's reconcile support, its refund read redacted like the operations. */
function redactingReconcile(reconcile: ReconcileSupport): ReconcileSupport {
  const { retrieveRefund } = reconcile;
  return { ...reconcile, ...(retrieveRefund ? { retrieveRefund: redactingErrors(retrieveRefund) } : {}) };
}

/** Fields of request objects that name a resource and so become a URL path segment. */
const IDENTIFIER_FIELDS = ['payment_id'] as const;

/**
 * Refuses identifiers `.` and `..`: as a URL path segment they collapse the path, so they can never be what the
 * caller meant (docs/architecture.md#http-client). Core's `path` helper refuses them too; this names the argument.
 */
function refuseDotIdentifiers(
  shape: readonly ('id' | v.GenericSchema)[],
  parsed: unknown[],
  operation: string,
) {
  const issues = shape.flatMap((argument, index) => {
    const value = parsed[index];
    const named: [string, unknown][] =
      argument === 'id'
        ? [['id', value]]
        : IDENTIFIER_FIELDS.map((field) => [field, (value as Record<string, unknown> | undefined)?.[field]]);
    return named
      .filter(([, id]) => id === '.' || id === '..')
      .map(([path, id]) => ({ path, message: `must not be "${String(id)}" (it would change the URL path)` }));
  });
  if (issues.length > 0) throw new ValidationError(issues, { operation });
}

/**
 * Wraps an async function so that whatever it throws passes through core's redaction first
 * (docs/architecture.md#redaction): for provider-specific methods outside the flat operations.
 */
export function redactingErrors<A extends unknown[], R>(
  run: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await run(...args);
    } catch (error) {
      throw redactError(error);
    }
  };
}

/**
 * The adapter's webhook definition with what `verify` throws, and what the `events()` of the delivery it resolves
 * to throws (a confirmation read), redacted like the operations.
 */
function redactingWebhooks<W extends WebhookDefinition>(webhooks: W): W {
  return {
    ...webhooks,
    verify: redactingErrors(async (delivery: WebhookDelivery, webhookSecrets: readonly string[]) => {
      const verified = (await webhooks.verify(delivery, webhookSecrets)) as { events?: unknown } | null;
      if (verified && !Array.isArray(verified) && typeof verified.events === 'function') {
        const events = (verified.events as () => Promise<unknown>).bind(verified);
        return { ...verified, events: redactingErrors(events) } as AuthenticatedDelivery;
      }
      return verified as AuthenticatedDelivery;
    }),
  };
}
