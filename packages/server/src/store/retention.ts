/**
 * Retention: a background sweep that deletes finished sessions (with their steps, logs,
 * screenshots and traces) older than `retentionDays` (`WF_RETENTION_DAYS`), once at start and then hourly.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { ServerContext } from "../context.js";
import type { SweepResult } from "./store.js";
import { tracePath } from "../browser/tracing.js";

/** How often the sweep runs, in ms. */
export const RETENTION_SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes what finished more than `retentionDays` before `now`: the records (one transaction),
 * then the screenshot files of the deleted steps and the trace and download files of the deleted sessions.
 *
 * @param now - the time to count from. @default the current time
 * @returns what was deleted.
 * @throws the store's 503 problem when the delete could not be written (nothing was deleted).
 */
export async function sweepOnce(context: Pick<ServerContext, "store" | "options">, retentionDays: number, now: Date = new Date()): Promise<SweepResult> {
  const result = await context.store.sweep(new Date(now.getTime() - retentionDays * DAY_MS));
  const dir = join(context.options.dataDir, "screenshots");
  for (const stepId of result.stepIds) await rm(join(dir, `${stepId}.png`), { force: true }).catch(() => undefined);
  for (const sessionId of result.sessionIds) {
    await rm(tracePath(context.options.dataDir, sessionId), { force: true }).catch(() => undefined);
    await rm(join(context.options.dataDir, "downloads", sessionId), { recursive: true, force: true }).catch(() => undefined);
  }
  return result;
}

/**
 * Starts the sweep when `options.retentionDays` is set (else does nothing).
 * @param onError - told about a sweep that failed (the next one tries again).
 * @returns `stop()`, idempotent.
 */
export function startRetentionSweep(context: Pick<ServerContext, "store" | "options">, onError: (error: unknown) => void): { stop(): void } {
  const days = context.options.retentionDays;
  if (days === undefined) return { stop() {} };
  let running: Promise<unknown> | undefined;
  const run = () => {
    running ??= sweepOnce(context, days)
      .catch(onError)
      .finally(() => (running = undefined));
  };
  run();
  const timer = setInterval(run, RETENTION_SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
    },
  };
}
