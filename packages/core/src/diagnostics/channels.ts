/**
 * Tracing channels (docs/architecture.md#tracing-channels): operations, provider calls and HTTP attempts on
 * `diagnostics_channel` tracing channels, webhook deliveries and reconciler runs on plain ones. The module is asked
 * of the runtime, never imported, so runtime code loads on edge runtimes too. Payloads carry ids and enums only.
 */
import type { WebhookFailureReason } from '../webhooks/errors.js';

/** The channel names: `tracing:<name>:start|end|asyncStart|asyncEnd|error` for the three tracing channels. */
export const PAY_CHANNELS = {
  operation: 'pay:operation',
  call: 'pay:call',
  attempt: 'pay:attempt',
  webhook: 'pay:webhook',
  reconcile: 'pay:reconcile',
} as const;

/** How a traced operation, call or attempt ended, in the words of `ProviderApiError.outcome` and `NetworkError`. */
export type TracedOutcome = 'succeeded' | 'refused' | 'not_sent' | 'unknown';

/** Context of `pay:operation`: one per public operation (`pay.payments.create(...)`). */
export interface OperationTrace {
  id: string;
  provider: string;
  /** The operation's name in the operation table, e.g. `'payments.create'`. */
  operation: string;
  idempotencyKey: string | undefined;
  /** Set before the end events. */
  outcome?: TracedOutcome;
  /** The returned record's id and provider request id, when the operation succeeded. */
  recordId?: string | undefined;
  requestId?: string | null | undefined;
  /** When it failed: the provider error's `kind`, else the error class name; and the (redacted) error. */
  errorType?: string | undefined;
  error?: unknown;
}

/** Fields shared by a logical provider call and each of its attempts. */
export interface HttpTraceBase {
  id: string;
  /** The enclosing operation's id (for a call) or the call's id (for an attempt). */
  parentId: string | undefined;
  provider: string;
  /** The adapter's name for the call, e.g. `'init-transaction'`. */
  call: string;
  method: string;
  /** The path with its id segments replaced by `{id}` placeholders, e.g. `/v1/transactions/{id}`. */
  urlTemplate: string;
  serverAddress: string;
  serverPort: number | undefined;
  /** The request id sent (and kept across retries of one call). */
  requestId: string | undefined;
}

/** Context of `pay:call`: one logical provider call, across its retries. */
export interface CallTrace extends HttpTraceBase {
  idempotencyKey: string | undefined;
  /** Set before the end events. */
  status?: number | undefined;
  attempts?: number;
  outcome?: TracedOutcome;
  /** The error class name or the provider error's `kind`. */
  errorType?: string | undefined;
  error?: unknown;
}

/** Context of `pay:attempt`: one HTTP attempt of a call. */
export interface AttemptTrace extends HttpTraceBase {
  /** 0 for the first attempt: OpenTelemetry's `http.request.resend_count`. */
  attempt: number;
  /** Set before the end events. */
  status?: number | undefined;
  /** `'timeout'`, `'network'` or the HTTP status as text when the attempt did not succeed. */
  errorType?: string | undefined;
  /** Whether this attempt may have reached the provider (a lost reply, a timeout after sending). */
  mayHaveReached?: boolean;
  error?: unknown;
}

/** Message of `pay:webhook`: one per delivery, published after the handler answered. */
export interface WebhookTrace {
  provider: string;
  verified: boolean;
  reason?: WebhookFailureReason | undefined;
  deliveryKey?: string | undefined;
  /** Which webhook secret (or Provider T public key) verified the delivery: its index in the configured list. */
  secretIndex?: number | undefined;
  eventTypes: string[];
  duplicate: boolean;
  callbackFailures: number;
  /** The HTTP status the handler answered with. */
  status: number;
  /** `Date.now()` when the delivery arrived, and how long handling it took. */
  startTime: number;
  durationMs: number;
}

/** Message of `pay:reconcile`: one per reconciler run (docs/architecture.md#reconciliation), when it ended. */
export interface ReconcileTrace {
  provider: string;
  /** Objects watched and due at the start of the run, and how late the oldest due one was (ms, 0 when none). */
  watched: number;
  due: number;
  lagMs: number;
  /** Provider reads made (objects and stale idempotency keys), and reads the shared budget refused. */
  reads: number;
  budgetRefused: number;
  /** Events delivered through the webhook handler, and transitions found already delivered (by a webhook). */
  transitions: number;
  duplicates: number;
  /** Stale idempotency keys resolved (found, not found or still unknown). */
  staleKeys: number;
  /** Stale idempotency keys this instance reports as needing a person (`reconciler.unresolved()`). */
  unresolved: number;
  /** Reads, resolves or deliveries that failed (each is retried on a later run). */
  errors: number;
  /** True when the store could not be reached: the run stopped, nothing was lost, the next run catches up. */
  paused: boolean;
  /** `Date.now()` when the run started, and how long it took. */
  startTime: number;
  durationMs: number;
}

/** The part of Node's `Channel` core uses. */
export interface ChannelLike<M> {
  readonly hasSubscribers: boolean;
  publish(message: M): void;
}

/** The part of Node's `TracingChannel` core uses. */
export interface TracingChannelLike<C extends object> {
  readonly hasSubscribers: boolean;
  tracePromise<T>(fn: () => Promise<T>, context: C): Promise<T>;
  /** The five event channels, for work that is not one promise (an HTTP attempt runs inside ky's hooks). */
  readonly start: ChannelLike<C>;
  readonly end: ChannelLike<C>;
  readonly asyncStart: ChannelLike<C>;
  readonly asyncEnd: ChannelLike<C>;
  readonly error: ChannelLike<C>;
}

interface DiagnosticsChannelModule {
  tracingChannel(name: string): unknown;
  channel(name: string): unknown;
}

/** A built-in module asked of the runtime (Node ≥ 20.16) instead of imported; undefined where it has none. */
export function builtinModule(id: string): Record<string, unknown> | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    const found = runtime?.getBuiltinModule?.(id);
    return typeof found === 'object' && found !== null ? (found as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The runtime's `diagnostics_channel`, or undefined on runtimes without one (edge, browsers). */
export function findDiagnosticsChannel(): DiagnosticsChannelModule | undefined {
  const found = builtinModule('node:diagnostics_channel');
  return typeof found?.tracingChannel === 'function'
    ? (found as unknown as DiagnosticsChannelModule)
    : undefined;
}

/** The five channels of the runtime's `diagnostics_channel`. */
function channelsOf(dc: DiagnosticsChannelModule) {
  return {
    operation: dc.tracingChannel(PAY_CHANNELS.operation) as TracingChannelLike<OperationTrace>,
    call: dc.tracingChannel(PAY_CHANNELS.call) as TracingChannelLike<CallTrace>,
    attempt: dc.tracingChannel(PAY_CHANNELS.attempt) as TracingChannelLike<AttemptTrace>,
    webhook: dc.channel(PAY_CHANNELS.webhook) as ChannelLike<WebhookTrace>,
    reconcile: dc.channel(PAY_CHANNELS.reconcile) as ChannelLike<ReconcileTrace>,
  };
}

/** Looked up once: channels are process-wide. */
let channels: ReturnType<typeof channelsOf> | null | undefined;

/** Returns the channels (created on first use), or undefined where the runtime has no `diagnostics_channel`. */
export function payChannels(): ReturnType<typeof channelsOf> | undefined {
  if (channels === undefined) {
    const dc = findDiagnosticsChannel();
    channels = dc ? channelsOf(dc) : null;
  }
  return channels ?? undefined;
}

let sequence = 0;

/** A process-unique id for a traced operation, call or attempt (not random: it only links parents to children). */
export function traceId(prefix: string): string {
  sequence += 1;
  return `${prefix}-${sequence.toString(36)}`;
}

/** The part of Node's `AsyncLocalStorage` core uses. */
export interface AsyncScope<T> {
  run<R>(store: T, fn: () => R): R;
  getStore(): T | undefined;
}

/** A new `AsyncLocalStorage`, asked of the runtime like the channels, or undefined where the runtime has none. */
export function createAsyncScope<T>(): AsyncScope<T> | undefined {
  const AsyncLocalStorage = builtinModule('node:async_hooks')?.AsyncLocalStorage;
  return typeof AsyncLocalStorage === 'function'
    ? new (AsyncLocalStorage as new () => AsyncScope<T>)()
    : undefined;
}

/** The enclosing operation's trace, carried across awaits; created on first use. */
let scope: AsyncScope<OperationTrace> | null | undefined;

/** Runs an operation with its trace as the parent of its provider calls (only while someone subscribes). */
export function withinOperation<R>(trace: OperationTrace, fn: () => R): R {
  if (scope === undefined) scope = createAsyncScope<OperationTrace>() ?? null;
  return scope ? scope.run(trace, fn) : fn();
}

/** The id of the traced operation this code runs in, if any: the parent of a provider call's trace. */
export function enclosingOperation(): OperationTrace | undefined {
  return scope ? scope.getStore() : undefined;
}
