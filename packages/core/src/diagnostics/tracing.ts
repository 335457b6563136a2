/** Publishing on the tracing channels (docs/architecture.md#tracing-channels), nothing while nobody subscribes. */
import { knownCredentials, redact } from '../redaction.js';
import {
  type ChannelLike,
  type OperationTrace,
  payChannels,
  type ReconcileTrace,
  type TracingChannelLike,
  traceId,
  type WebhookTrace,
  withinOperation,
} from './channels.js';
import { errorTypeOf, outcomeOf, recordFields } from './trace-fields.js';

/** What starts an operation's trace. */
export type OperationDescription = Pick<OperationTrace, 'provider' | 'operation' | 'idempotencyKey'>;

/**
 * Runs one public operation, traced on `pay:operation` when someone subscribes (`describe` is called only then):
 * provider calls inside it name it as their parent. What `fn` throws (already redacted) is the trace's `error`.
 */
export function traceOperation<T>(describe: () => OperationDescription, fn: () => Promise<T>): Promise<T> {
  const channel = payChannels()?.operation;
  if (!channel?.hasSubscribers) return fn();
  const trace: OperationTrace = { id: traceId('op'), ...describe() };
  return withoutResult(channel, trace, () =>
    withinOperation(trace, async () => {
      try {
        const value = await fn();
        trace.outcome = 'succeeded';
        const record = recordFields(value);
        if (record) {
          // A provider's ids, but a gateway could echo a credential into a request id header: redacted.
          const secrets = knownCredentials();
          trace.recordId = redact(record.id, secrets);
          trace.requestId = record.requestId === null ? null : redact(record.requestId, secrets);
        }
        return value;
      } catch (error) {
        trace.outcome = outcomeOf(error);
        trace.errorType = errorTypeOf(error);
        trace.error = error;
        throw error;
      }
    }),
  );
}

/**
 * `tracePromise`, except that the context never receives the resolved value (Node stores it as `result`): a record
 * or a reply holds names, e-mails and bodies a trace must not carry.
 */
export async function withoutResult<C extends object, T>(
  channel: TracingChannelLike<C>,
  trace: C,
  fn: () => Promise<T>,
): Promise<T> {
  let value: T | undefined;
  await channel.tracePromise(async () => {
    value = await fn();
  }, trace);
  return value as T;
}

/** Publishes one webhook delivery on `pay:webhook` when someone subscribes. Never throws. */
export function publishWebhook(describe: () => WebhookTrace): void {
  publish(payChannels()?.webhook, describe);
}

/** Publishes one reconciler run on `pay:reconcile` when someone subscribes. Never throws. */
export function publishReconcile(trace: ReconcileTrace): void {
  publish(payChannels()?.reconcile, () => trace);
}

function publish<M>(channel: ChannelLike<M> | undefined, message: () => M): void {
  if (!channel?.hasSubscribers) return;
  try {
    channel.publish(message());
  } catch {}
}
