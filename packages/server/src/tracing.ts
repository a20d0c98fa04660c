/**
 * Playwright traces of sessions. A session created with `trace: true` records its browser context
 * with `context.tracing` (screenshots and DOM snapshots, as Playwright Test's `trace` option does);
 * the trace is saved to `<dataDir>/traces/<sessionId>.zip` when the session ends, before its
 * context closes, and served by `GET /workflow/view/{id}/trace` as long as the session's records
 * are kept. `npx playwright show-trace trace.zip` opens it. A session's secrets are scrubbed out
 * of the zip before it is written (`trace-scrub.ts`).
 */
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import type { BrowserContext } from "playwright-core";
import { z } from "zod";
import { ROUTES } from "@wf/core/protocol";
import { requestApiKey } from "./auth.js";
import type { ServerContext } from "./context.js";
import { HttpProblem } from "./errors.js";
import type { SessionRecord } from "./sessions.js";
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

/** Stands for a session that doesn't exist when checking a token: no token matches its random one. */
const UNKNOWN_SESSION = { token: randomBytes(24).toString("base64url") } as SessionRecord;

/** Registers `GET /workflow/view/{id}/trace` (the session token or the API key). */
export function registerTraceRoute(app: FastifyInstance, context: ServerContext): void {
  context.openapi.add({
    method: "get",
    path: ROUTES.sessionTrace,
    summary: "Playwright trace of a session (zip)",
    description: "For a session created with `trace: true`, once it ended. Open it with `npx playwright show-trace trace.zip`.",
    pathParams: { id: "The session id." },
    query: z.object({ token: z.string().optional() }),
    response: { contentType: "application/zip", description: "The trace." },
    errors: { 401: "Missing or wrong token or API key", 404: "Unknown session, or no trace (not traced, still running, or the browser closed first)" },
    auth: "sessionToken",
    tags: ["sessions"],
  });
  app.get<{ Params: { id: string } }>(ROUTES.sessionTrace.replace(/\{(\w+)\}/g, ":$1"), async (request, reply) => {
    const session = await context.sessions.getSession(request.params.id);
    // The token (or key) is checked before saying whether the session exists, as on the debugger page.
    if (!session) {
      if (!context.auth.isValidApiKey(requestApiKey(request))) context.auth.checkSessionToken(request, UNKNOWN_SESSION);
      throw new HttpProblem("WF_SESSION_NOT_FOUND", `No session has the id ${request.params.id}.`);
    }
    context.auth.checkSessionToken(request, session);
    if (session.status === "RUNNING") {
      throw new HttpProblem("WF_TRACE_NOT_FOUND", `Session ${session.sessionId} is still running: its trace is saved when it ends (close it first).`);
    }
    const path = tracePath(context.options.dataDir, session.sessionId);
    const info = await stat(path).catch(() => undefined);
    if (!info) {
      throw new HttpProblem(
        "WF_TRACE_NOT_FOUND",
        `Session ${session.sessionId} has no trace: it was created without \`trace: true\`, or its browser closed before the trace was saved.`,
      );
    }
    return reply
      .type("application/zip")
      .header("content-disposition", 'attachment; filename="trace.zip"')
      .header("cache-control", "private, max-age=3600")
      .header("content-length", info.size)
      .send(createReadStream(path));
  });
}
