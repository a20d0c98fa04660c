/**
 * Deadlines for browser calls. The rule of the step path: no Playwright call without a deadline
 * (ARCHITECTURE.md, "The session wing"). A call that takes a `timeout` gets one; a call that takes
 * none (`locator.count()`, `context.close()`, `tracing.stop()`, a CDP `send`, `dialog.accept()`) is
 * raced against a timer here, and what the caller does when the time is up (no picture, a missing
 * trace, the page declared unresponsive) is its own decision. The call itself is left to settle in
 * the background; its late rejection is swallowed.
 */

/** What {@link within} returns when the time ran out first. */
export const TIMED_OUT: unique symbol = Symbol("timed out");

/**
 * Whether `promise` settles within `ms`: its value, or {@link TIMED_OUT}. A rejection within the
 * time passes through; one after it is swallowed (nobody waits for it any more).
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
    promise.catch(() => undefined);
  }
}

/**
 * Waits up to `ms` for `promise` to settle, either way. @returns true when it settled in time
 * (resolved or rejected), false when the time ran out first.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const outcome = await within(
    promise.then(
      () => true,
      () => true,
    ),
    ms,
  );
  return outcome !== TIMED_OUT;
}
