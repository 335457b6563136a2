/**
 * Observability (issue 15): the tracing channel names and payload types (application API, what `@pay/otel`
 * subscribes to), and the `Logger` option type. Entry points re-export this barrel.
 */
export {
  type AttemptTrace,
  type CallTrace,
  type ChannelLike,
  findDiagnosticsChannel,
  type HttpTraceBase,
  type OperationTrace,
  PAY_CHANNELS,
  type TracedOutcome,
  type TracingChannelLike,
  type WebhookTrace,
} from './channels.js';
export { createLogger, type Logger, type LogLevel, type PayLogger } from './logger.js';
