/**
 * Playwright traces of sessions. A session created with `trace: true` records its browser context
 * with `context.tracing` (screenshots and DOM snapshots, as Playwright Test's `trace` option does);
 * the trace is saved to `<dataDir>/traces/<sessionId>.zip` when the session ends, before its
 * context closes, and served by `GET /workflow/view/{id}/trace` as long as the session's records
 * are kept (the route: `http/trace.ts`). `npx playwright-core show-trace trace.zip` (or `wf show-trace`) opens it. A
 * session's secrets are scrubbed out of the zip before it is written (`trace-scrub.ts`).
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import type { TraceScrubber } from "./trace-scrub.js";
import { settlesWithin, TIMED_OUT, within } from "./deadline.js";

/**
 * Longest stopping a trace may take, in ms (writing a long session's zip takes a few seconds; a
 * context whose page hangs may never answer). Past it the trace is missing.
 */
export const TRACE_STOP_TIMEOUT_MS = 10_000;
/** Longest starting one may take, in ms. */
const TRACE_START_TIMEOUT_MS = 10_000;

/** Contexts recording a trace, with the trace's title. */
const traced = new WeakMap<BrowserContext, string>();

/**
 * What is recorded: the screencast and a DOM snapshot around each action, as Playwright Test's
 * `trace` option records (`on`, `retain-on-failure`…); no sources (the steps' code is not in
 * this process). bench (2026-11-25): snapshots are most of the cost (the HAR of the page's
 * resources, the snapshotter in every frame), the screencast less; both are what a failure is
 * read from in the trace viewer, so both stay.
 */
const TRACE_OPTIONS = { screenshots: true, snapshots: true } as const;

/** The title of a session's trace, shown by the trace viewer: `wf session (<kind>)`. */
export function traceTitle(kind: string): string {
  return `wf session (${kind})`;
}

/** The title of the trace `context` records, or undefined when it records none. */
export function tracingTitle(context: BrowserContext): string | undefined {
  return traced.get(context);
}

/** playwright-core's way to run calls as its own internal ones (1.65: `ChannelOwner._wrapApiCall`). */
type WrapApiCall = (call: () => Promise<unknown>, options: { internal: boolean }) => Promise<unknown>;

/**
 * Runs `call`, wf's own probes of `page` (the settle's waits and DOM stamps, the check of an element
 * before acting, the recording's check), as Playwright-internal calls when the page's context
 * records a session's trace ({@link startTracing}): they are left out of the trace, which shows the
 * steps' actions, the grammar's looks for their targets and the reads, each with its DOM snapshots.
 * Traced, every such evaluation took a DOM snapshot before and after it (~45 ms each on a
 * documentation page, 2026-11-29; decision 0074). A trace a caller starts itself on the context
 * records them all.
 *
 * Relies on playwright-core's `_wrapApiCall(call, { internal: true })`, feature-detected: without
 * it the calls are traced as before. An error of `call` is rethrown unchanged (Playwright would
 * prefix its message).
 */
export async function untraced<T>(page: Page, call: () => Promise<T>): Promise<T> {
  const wrap = (page as unknown as { _wrapApiCall?: WrapApiCall })._wrapApiCall;
  if (typeof wrap !== "function" || !traced.has(page.context())) return call();
  let failure: { error: unknown } | undefined;
  const result = await wrap.call(
    page,
    async () => {
      try {
        return await call();
      } catch (error) {
        failure = { error };
        return undefined;
      }
    },
    { internal: true },
  );
  if (failure) throw failure.error;
  return result as T;
}

/** The ids of the step groups open in each context's trace, outermost first. */
const openGroups = new WeakMap<BrowserContext, string[]>();

/** Longest wait for the driver to open or close one trace group, in ms. */
const GROUP_CALL_TIMEOUT_MS = 5_000;

/**
 * Makes the groups open in the trace of `context` the step's `groups` (outermost first; `step()`
 * of `@wf/core`, sent with each step): closes those the step is no longer in and opens the new
 * ones (Playwright's `tracing.group`/`groupEnd`), so the step's actions show under them in the
 * trace viewer. Nothing when `context` records no trace. Never throws: a group that cannot be
 * opened leaves the trace flat, the step runs anyway.
 */
export async function enterTraceGroups(context: BrowserContext, groups: ReadonlyArray<{ id: string; title: string }>): Promise<void> {
  if (!traced.has(context)) return;
  const open = openGroups.get(context) ?? [];
  openGroups.set(context, open);
  let kept = 0;
  while (kept < open.length && kept < groups.length && open[kept] === groups[kept]!.id) kept++;
  try {
    while (open.length > kept) {
      open.pop();
      await bounded(context.tracing.groupEnd());
    }
    for (const group of groups.slice(kept)) {
      await bounded(context.tracing.group(group.title));
      open.push(group.id);
    }
  } catch {
    // The driver did not answer in time, or tracing stopped: the step runs in a flat trace.
  }
}

function bounded<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("trace group call timed out")), GROUP_CALL_TIMEOUT_MS)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Where the trace of a session is kept. */
export function tracePath(dataDir: string, sessionId: string): string {
  return join(dataDir, "traces", `${sessionId}.zip`);
}

/**
 * Starts recording a trace of `context` ({@link TRACE_OPTIONS}: screenshots and DOM snapshots)
 * titled `title`. A context can start it before its session exists (a context opened ahead,
 * `BrowserHost.openAhead`); the session then keeps it ({@link tracingTitle}). On failure the
 * context is closed and the error rethrown, so a session that asked for a trace never runs
 * without one.
 */
export async function startTracing(context: BrowserContext, title: string): Promise<void> {
  try {
    const started = await within(context.tracing.start({ ...TRACE_OPTIONS, title }), TRACE_START_TIMEOUT_MS);
    if (started === TIMED_OUT) throw new Error(`The browser did not start the trace within ${TRACE_START_TIMEOUT_MS} ms.`);
    traced.set(context, title);
  } catch (error) {
    await settlesWithin(context.close(), TRACE_STOP_TIMEOUT_MS);
    throw error;
  }
}

/**
 * Stops the trace of `context` without writing it (a context opened ahead with a trace that its
 * session does not want). Never throws.
 */
export async function discardTrace(context: BrowserContext): Promise<void> {
  if (!traced.delete(context)) return;
  await settlesWithin(context.tracing.stop(), TRACE_STOP_TIMEOUT_MS);
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
      await stopWithin(context, path);
      return;
    }
    // Written under another name, scrubbed, then renamed: the served path never holds a secret.
    const raw = `${path}.${randomBytes(6).toString("hex")}.raw`;
    try {
      // Loaded only here (fflate): `prelaunch.ts` imports this module to start a trace ahead.
      const { scrubTrace } = await import("./trace-scrub.js");
      await stopWithin(context, raw);
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

/** Stops the trace into `path`. @throws when it fails or takes over {@link TRACE_STOP_TIMEOUT_MS}. */
async function stopWithin(context: BrowserContext, path: string): Promise<void> {
  const stopped = await within(context.tracing.stop({ path }), TRACE_STOP_TIMEOUT_MS);
  if (stopped === TIMED_OUT) throw new Error(`The browser did not stop the trace within ${TRACE_STOP_TIMEOUT_MS} ms.`);
}
