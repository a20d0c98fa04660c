/**
 * Playwright traces of sessions. A session created with `trace: true` records its browser context
 * with `context.tracing` (screenshots and DOM snapshots, as Playwright Test's `trace` option does);
 * the trace is saved to `<dataDir>/traces/<sessionId>.zip` when the session ends, before its
 * context closes, and served by `GET /workflow/view/{id}/trace` as long as the session's records
 * are kept (the route: `http/trace.ts`). `npx playwright show-trace trace.zip` opens it. A
 * session's secrets are scrubbed out of the zip before it is written (`trace-scrub.ts`).
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { scrubTrace, type TraceScrubber } from "./trace-scrub.js";

/** Contexts recording a trace. */
const traced = new WeakSet<BrowserContext>();

/** Where the trace of a session is kept. */
export function tracePath(dataDir: string, sessionId: string): string {
  return join(dataDir, "traces", `${sessionId}.zip`);
}

/**
 * Starts recording a trace of `context` (screenshots and DOM snapshots; no sources: the steps'
 * code is not in the browser's process). On failure the context is closed and the error rethrown,
 * so a session that asked for a trace never runs without one.
 */
export async function startTracing(context: BrowserContext, title: string): Promise<void> {
  try {
    await context.tracing.start({ screenshots: true, snapshots: true, title });
    traced.add(context);
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Stops the trace of `context` and writes it to `path`, when `context` records one; nothing
 * otherwise. With `secrets` (a session whose steps carried any), the trace is scrubbed of them
 * before it is written (see `trace-scrub.ts`); a trace that can't be scrubbed is not kept. A
 * failure (the browser is gone) leaves the session without a trace.
 */
export async function saveTrace(context: BrowserContext, path: string, secrets?: TraceScrubber & { any: boolean }): Promise<void> {
  if (!traced.delete(context)) return;
  try {
    await mkdir(dirname(path), { recursive: true });
    if (!secrets?.any) {
      await context.tracing.stop({ path });
      return;
    }
    // Written under another name, scrubbed, then renamed: the served path never holds a secret.
    const raw = `${path}.${randomBytes(6).toString("hex")}.raw`;
    try {
      await context.tracing.stop({ path: raw });
      const { zip } = scrubTrace(await readFile(raw), secrets);
      const scrubbed = `${path}.${randomBytes(6).toString("hex")}.tmp`;
      await writeFile(scrubbed, zip, { mode: 0o600 });
      await rename(scrubbed, path);
    } finally {
      await rm(raw, { force: true });
    }
  } catch {
    // The route answers 404 WF_TRACE_NOT_FOUND, which says why a trace may be missing.
  }
}
