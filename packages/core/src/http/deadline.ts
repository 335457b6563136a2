/** Waiting for a shared login only until the caller aborts (the call's overall cap is `callCapMs`). */

/** Rejection used when the caller's signal fires while waiting for something that is not ours to cancel. */
export class CallerAbort {}

/** Waits for `work` until `signal` aborts, then rejects with `aborted()`, leaving `work` running. */
export function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  aborted: () => unknown = () => new CallerAbort(),
): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
