/** Waiting on work that may ignore an abort signal. */
import { RunAbortedError } from "./errors.js";

/**
 * Settles like `promise`, except that it rejects with {@link RunAbortedError} as soon as `signal`
 * aborts, without waiting for `promise` (a step or handler that ignores its signal). A rejection
 * of `promise` after the abort is swallowed.
 *
 * @throws {@link RunAbortedError} when `signal` is or becomes aborted first.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(new RunAbortedError(signal.reason));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(new RunAbortedError(signal.reason));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
