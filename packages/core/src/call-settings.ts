/**
 * Per-call transport settings (docs/architecture.md#createpay). `defineAdapter` checks a call's
 * `timeoutMs` / `retry` and hands them to core's HTTP client on the signal every adapter already passes to its
 * requests, so they apply to every upstream call of the operation without each adapter copying them. The
 * signal it passes follows the caller's own signal (same abort, same reason).
 */
import { ValidationError, type ValidationIssue } from './errors.js';

/** Per-call overrides of the adapter's transport settings. */
export interface CallSettings {
  timeoutMs?: number;
  retry?: number;
}

/** The longest per-call attempt timeout accepted: 10 minutes. */
export const MAX_CALL_TIMEOUT_MS = 600_000;
/** The most retries one call may ask for. */
export const MAX_CALL_RETRY = 10;

/** Where the settings ride on a signal. A registry symbol, so two copies of core agree on it. */
const SETTINGS = Symbol.for('@pay/core.call-settings');

/** The issues of a call's `timeoutMs` / `retry`, for a `ValidationError` before any I/O. */
export function callSettingsIssues(settings: CallSettings): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const { timeoutMs, retry } = settings;
  if (
    timeoutMs !== undefined &&
    !(Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= MAX_CALL_TIMEOUT_MS)
  )
    issues.push({
      path: 'options.timeoutMs',
      message: `must be a whole number of milliseconds from 1 to ${MAX_CALL_TIMEOUT_MS}`,
    });
  if (retry !== undefined && !(Number.isInteger(retry) && retry >= 0 && retry <= MAX_CALL_RETRY))
    issues.push({ path: 'options.retry', message: `must be a whole number from 0 to ${MAX_CALL_RETRY}` });
  return issues;
}

/** Throws `ValidationError` when a call's settings are out of bounds. */
export function assertCallSettings(settings: CallSettings, operation?: string): void {
  const issues = callSettingsIssues(settings);
  if (issues.length > 0) throw new ValidationError(issues, operation ? { operation } : {});
}

/**
 * A signal that aborts with `signal` (when given) and carries `settings` for core's HTTP client; `release()`
 * detaches it from the caller's signal once the call is over.
 */
export function signalWithSettings(
  settings: CallSettings,
  signal: AbortSignal | undefined,
): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const follow = () => controller.abort(signal?.reason);
  if (signal?.aborted) follow();
  else signal?.addEventListener('abort', follow, { once: true });
  Object.defineProperty(controller.signal, SETTINGS, { value: Object.freeze({ ...settings }) });
  return { signal: controller.signal, release: () => signal?.removeEventListener('abort', follow) };
}

/** The settings a signal carries (from {@link signalWithSettings}), if any. */
export function settingsOf(signal: AbortSignal | undefined): CallSettings | undefined {
  return signal ? (signal as unknown as { [SETTINGS]?: CallSettings })[SETTINGS] : undefined;
}
