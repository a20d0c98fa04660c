/**
 * The opt-in start-up trace of `wf` (`WF_TIMING=1`): one stderr line per milestone,
 * `wf timing: <epoch ms> <label>`, the time as milliseconds since the Unix epoch with µs precision
 * (`performance.timeOrigin + performance.now()`), so a parent process (`bench:e2e`) can line the
 * milestones up with the moment it spawned `wf`. Off (and free: one boolean test) unless the
 * variable is exactly `1`. The embedded server writes its own milestones the same way
 * (`packages/server/src/timing.ts`).
 */
const enabled = process.env.WF_TIMING === "1";

/** Writes `wf timing: <epoch ms> <label>` to stderr when `WF_TIMING=1`; does nothing otherwise. */
export function timingMark(label: string): void {
  if (enabled) process.stderr.write(`wf timing: ${(performance.timeOrigin + performance.now()).toFixed(1)} ${label}\n`);
}
