/**
 * The opt-in start-up trace of `wf` (`WF_TIMING=1`): one stderr line per milestone,
 * `wf timing: <epoch ms> <label>`, the time as milliseconds since the Unix epoch with µs precision
 * (`performance.timeOrigin + performance.now()`), so a parent process (`bench:e2e`) can line the
 * milestones up with the moment it spawned `wf`. Off (and free: one boolean test) unless
 * `WF_TIMING` is a yes word of the environment schema (`1`, `true`, `yes`…), read when this module
 * loads, before zod and the configuration are (see `env-flag.ts`; a malformed value fails where the
 * configuration is parsed). The embedded server writes its own milestones the same way
 * (`packages/server/src/observability/timing.ts`).
 */
import { earlyFlag } from "@wf/server/env-flag";

const enabled = earlyFlag(process.env, "WF_TIMING") === true;

/** Writes `wf timing: <epoch ms> <label>` to stderr when `WF_TIMING` is on (`1`); does nothing otherwise. */
export function timingMark(label: string): void {
  if (enabled) process.stderr.write(`wf timing: ${(performance.timeOrigin + performance.now()).toFixed(1)} ${label}\n`);
}
