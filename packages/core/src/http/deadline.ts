/**
 * The time budget of one logical call beyond ky's per-attempt timeout: the overall cap (every attempt's timeout
 * plus the longest waits between them: no retry starts that would not fit), and waiting for something that is
 * not ours to cancel (a shared login) only until the caller aborts.
 */
import { MAX_WAIT_MS } from './retry-policy.js';

/** The overall cap of a call with `retries` retries of `timeoutMs` each. */
export function callCapMs(timeoutMs: number, retries: number): number {
  return timeoutMs * (retries + 1) + MAX_WAIT_MS * retries + 1_000;
}

/** Rejection used when the caller's signal fires while waiting for something that is not ours to cancel. */
export class CallerAbort {}

/** Waits for `work`, but stops waiting (leaving `work` running) when `signal` aborts. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new CallerAbort());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CallerAbort());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
