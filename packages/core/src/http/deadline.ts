/**
 * Waiting for something that is not ours to cancel (a shared login) only until the caller aborts; the call's
 * overall cap is the retry policy's `callCapMs`.
 */

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
