/**
 * The step clock: one step's deadline and abort signal, shared by every Playwright call of the
 * step, whichever interpreter runs it.
 */
import { InterpreterError } from "./errors.js";

/** The step's deadline and abort signal, shared by every Playwright call of the step. */
export class StepClock {
  private readonly deadline: number;
  constructor(
    readonly timeoutMs: number,
    readonly signal: AbortSignal,
  ) {
    this.deadline = Date.now() + Math.max(0, timeoutMs);
  }

  /** Time left, in ms (at least 1: Playwright reads 0 as "no timeout"). */
  left(): number {
    return Math.max(1, this.deadline - Date.now());
  }

  timeoutError(cause?: unknown): InterpreterError {
    return new InterpreterError(
      "WF_STEP_TIMEOUT",
      this.signal.aborted
        ? `The step was aborted${this.signal.reason instanceof Error ? `: ${this.signal.reason.message}` : ""}.`
        : `The step did not finish within its ${this.timeoutMs} ms. Raise the step's timeoutMs, or wait for the page to be ready first (\`wait for "…"\`).`,
      {},
      { cause },
    );
  }

  /** Runs `fn`, failing with `WF_STEP_TIMEOUT` when the signal aborts or a Playwright timeout fires. */
  async guard<T>(fn: () => Promise<T>): Promise<T> {
    if (this.signal.aborted) throw this.timeoutError();
    let onAbort: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(this.timeoutError());
      this.signal.addEventListener("abort", onAbort, { once: true });
      // A backstop for calls that take no timeout (keyboard, evaluate): the step ends at its deadline.
      timer = setTimeout(() => reject(this.timeoutError()), this.left() + 50);
    });
    try {
      return await Promise.race([fn(), aborted]);
    } catch (error) {
      if (error instanceof InterpreterError) throw error;
      if (error instanceof Error && error.name === "TimeoutError") throw this.timeoutError(error);
      if (this.signal.aborted) throw this.timeoutError(error);
      throw error;
    } finally {
      clearTimeout(timer);
      if (onAbort) this.signal.removeEventListener("abort", onAbort);
      aborted.catch(() => undefined);
    }
  }

  /** Sleeps `ms`, waking early on abort. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(this.timeoutError());
      };
      this.signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** What {@link within} returns when the time ran out first. */
export const TIMED_OUT: unique symbol = Symbol("timed out");

/**
 * `promise`'s value, or {@link TIMED_OUT} when it takes over `ms` (it is then left to settle
 * unwatched): for a browser call that takes no timeout of its own (an evaluation on a huge page).
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms)))]);
  } finally {
    clearTimeout(timer);
    promise.catch(() => undefined);
  }
}
