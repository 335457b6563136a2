/**
 * Tracing of provider calls (docs/architecture.md#tracing-channels): the logical call on `pay:call` (started by the
 * provider client, else the HTTP client) and each HTTP attempt on `pay:attempt`. Nothing is built or published
 * while a channel has no subscriber.
 */
import { ProviderApiError } from '../errors.js';
import {
  type AttemptTrace,
  type CallTrace,
  enclosingOperation,
  type HttpTraceBase,
  payChannels,
  type TracingChannelLike,
  traceId,
} from './channels.js';
import { errorTypeOf, outcomeOf } from './trace-fields.js';
import { withoutResult } from './tracing.js';
import { urlTemplateOf } from './url-template.js';

/** What a logical provider call is, before anything is sent: the start fields of its trace, without ids. */
export interface CallDescription {
  provider: string;
  /** The adapter's name for the call (`'init-transaction'`); default `'<METHOD> <url template>'`. */
  call: string | undefined;
  method: string;
  /** The client's base URL (host and port are read from it) and the request's path. */
  baseUrl: string;
  path: string;
  requestId: string | undefined;
  idempotencyKey?: string | undefined;
}

const DEFAULT_PORTS: Record<string, number> = { 'https:': 443, 'http:': 80 };

/** The fields a call and its attempts share, from a description: the URL reduced to its template and host. */
export function httpTraceFields(description: CallDescription): Omit<HttpTraceBase, 'id' | 'parentId'> {
  const urlTemplate = urlTemplateOf(description.path);
  let serverAddress = '';
  let serverPort: number | undefined;
  try {
    const url = new URL(description.baseUrl);
    serverAddress = url.hostname;
    serverPort = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol];
  } catch {
    // A base URL the client could not use either: the call fails on its own; the trace names no host.
  }
  return {
    provider: description.provider,
    call: description.call ?? `${description.method} ${urlTemplate}`,
    method: description.method,
    urlTemplate,
    serverAddress,
    serverPort,
    requestId: description.requestId,
  };
}

/** A request's call description; its request id is fixed here, so the trace names the id every attempt sends. */
export function describeCall(
  provider: string,
  baseUrl: string,
  request: { call?: string | undefined; method: string; path: string; requestId?: string | undefined },
): CallDescription {
  request.requestId ??= crypto.randomUUID();
  const { call, method, path, requestId } = request;
  const idempotencyKey = enclosingOperation()?.idempotencyKey;
  return { provider, call, method, baseUrl, path, requestId, idempotencyKey };
}

/** Undefined when neither a call nor its attempts would be published; else whether the call would. */
export function httpTracing(): { call: boolean } | undefined {
  const channels = payChannels();
  if (!channels || !(channels.call.hasSubscribers || channels.attempt.hasSubscribers)) return undefined;
  return { call: channels.call.hasSubscribers };
}

/** Calls already traced by the provider client, so the HTTP client underneath does not trace them again. */
const CALLS_TRACED_ABOVE = new WeakMap<object, CallTrace>();

/** The call trace a caller (the provider client) started for this request object, if any. */
export function callTraceOf(request: object): CallTrace | undefined {
  return CALLS_TRACED_ABOVE.get(request);
}

/**
 * Runs one logical provider call, traced on `pay:call` when someone subscribes; `request` is then registered so the
 * HTTP client below counts attempts on this trace instead of starting its own. `settle` sets the end fields.
 */
export function traceCall<R extends object, T>(
  describe: () => CallDescription,
  request: R,
  fn: (trace: CallTrace | undefined) => Promise<T>,
  settle: (
    trace: CallTrace,
    outcome: { ok: true; value: T } | { ok: false; error: unknown },
  ) => void = settleCall,
): Promise<T> {
  const channel = payChannels()?.call;
  if (!channel?.hasSubscribers) return fn(undefined);
  const description = describe();
  const trace: CallTrace = {
    id: traceId('call'),
    parentId: enclosingOperation()?.id,
    ...httpTraceFields(description),
    idempotencyKey: description.idempotencyKey,
    attempts: 0,
  };
  CALLS_TRACED_ABOVE.set(request, trace);
  return withoutResult(channel, trace, async () => {
    try {
      const value = await fn(trace);
      settle(trace, { ok: true, value });
      return value;
    } catch (error) {
      settle(trace, { ok: false, error });
      throw error;
    }
  });
}

/** The end fields of a call from a reply or a provider client's outcome, or from the error it threw. */
export function settleCall(
  trace: CallTrace,
  outcome: { ok: true; value: unknown } | { ok: false; error: unknown },
): void {
  if (!outcome.ok) {
    trace.outcome = outcomeOf(outcome.error);
    trace.errorType = errorTypeOf(outcome.error);
    trace.error = outcome.error;
    const status = (outcome.error as { status?: unknown } | null)?.status;
    if (ProviderApiError.isInstance(outcome.error) && typeof status === 'number') trace.status = status;
    return;
  }
  const value = outcome.value as
    | { status?: unknown; ok?: unknown; reply?: { status?: unknown }; error?: unknown }
    | null
    | undefined;
  const refusal = value && value.ok === false ? value.error : undefined;
  const status = typeof value?.status === 'number' ? value.status : value?.reply?.status;
  if (typeof status === 'number') trace.status = status;
  if (refusal !== undefined) {
    trace.outcome = 'refused';
    trace.errorType = errorTypeOf(refusal);
  } else if (typeof status === 'number' && status >= 400) {
    trace.outcome = 'refused';
    trace.errorType = String(status);
  } else {
    trace.outcome = 'succeeded';
  }
}

/** How an attempt ended: the status of the reply it got, or the error it failed with. */
export interface AttemptResult {
  status?: number | undefined;
  /** `'timeout'`, `'network'` (default for a failure) or, for a reply, the status (default when not 2xx/3xx). */
  errorType?: string | undefined;
  error?: unknown;
  mayHaveReached: boolean;
}

/**
 * Starts tracing one HTTP attempt on `pay:attempt` (undefined when nobody subscribes). An attempt is not one
 * promise, so the events are published by hand in `tracePromise`'s order: start and end now, the rest at `finish`.
 * `finish` publishes its end (only the first call counts).
 */
export function startAttempt(
  fields: Omit<HttpTraceBase, 'id' | 'parentId'>,
  parentId: string | undefined,
  attempt: number,
): { trace: AttemptTrace; finish(result: AttemptResult): void } | undefined {
  const channel = payChannels()?.attempt;
  if (!channel?.hasSubscribers) return undefined;
  const trace: AttemptTrace = {
    id: traceId('attempt'),
    parentId,
    // Picked one by one: `fields` may be the call's own trace, whose id, outcome and error are not the attempt's.
    provider: fields.provider,
    call: fields.call,
    method: fields.method,
    urlTemplate: fields.urlTemplate,
    serverAddress: fields.serverAddress,
    serverPort: fields.serverPort,
    requestId: fields.requestId,
    attempt,
  };
  publishSafely(channel, 'start', trace);
  publishSafely(channel, 'end', trace);
  let open = true;
  return {
    trace,
    finish(result) {
      if (!open) return;
      open = false;
      if (result.status !== undefined) trace.status = result.status;
      trace.mayHaveReached = result.mayHaveReached;
      const failed = result.error !== undefined || (result.status !== undefined && result.status >= 400);
      if (failed)
        trace.errorType =
          result.errorType ?? (result.error === undefined ? String(result.status) : 'network');
      if (result.error !== undefined) {
        trace.error = result.error;
        publishSafely(channel, 'error', trace);
      }
      publishSafely(channel, 'asyncStart', trace);
      publishSafely(channel, 'asyncEnd', trace);
    },
  };
}

function publishSafely<C extends object>(
  channel: TracingChannelLike<C>,
  event: 'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error',
  trace: C,
): void {
  // Node catches what a subscriber throws and reports it as an uncaught exception on the next tick; a
  // channel object that is not Node's could throw here, and must not change the call.
  try {
    channel[event].publish(trace);
  } catch {}
}
