/** What a trace says about how an operation or call ended (docs/architecture.md#tracing-channels). */
import { InvalidResponseError, NetworkError, PayError, ProviderApiError } from '../errors.js';
import type { TracedOutcome } from './channels.js';

/** Whether a failed operation or call may have done something, in the words of the errors themselves. */
export function outcomeOf(error: unknown): TracedOutcome {
  const own = (error as { outcome?: unknown } | null | undefined)?.outcome;
  if (own === 'unknown' || own === 'not_sent') return own;
  const step = (error as { context?: { outcome?: unknown } } | null | undefined)?.context?.outcome;
  if (step === 'unknown') return 'unknown';
  if (NetworkError.isInstance(error)) return error.outcome;
  if (ProviderApiError.isInstance(error)) return 'refused';
  // An answer nobody can read may be a success: the money may have moved.
  if (InvalidResponseError.isInstance(error)) return 'unknown';
  // Core's own refusals (validation, configuration, idempotency conflicts) come before any call.
  if (PayError.isInstance(error)) return 'not_sent';
  return 'unknown';
}

/** A low-cardinality name for an error: a provider refusal's portable `kind`, else the error's class name. */
export function errorTypeOf(error: unknown): string {
  if (ProviderApiError.isInstance(error)) return error.kind;
  if (error instanceof Error) return error.name;
  return typeof error;
}

/** The id and provider request id of a returned record (`{ id, request_id }`), when the value is one. */
export function recordFields(value: unknown): { id: string; requestId: string | null } | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { id, request_id: requestId } = value as { id?: unknown; request_id?: unknown };
  if (typeof id !== 'string') return undefined;
  return { id, requestId: typeof requestId === 'string' ? requestId : null };
}
