/**
 * `ServerContext`: everything a group of routes needs from the running server, handed to each
 * route module of `src/http/` (`registerStepRoutes`, `registerStoredWorkflowRoutes`, …). The
 * stored-workflow routes and runs of issue 5 (`src/http/stored.ts`, `src/stored/`) are built on
 * this object only.
 *
 * What it gives:
 * - `options`: the resolved server options, including the stored-workflow ones (`workflowsDir`,
 *   `importModule`, `proxyUrl`).
 * - `sessions`: the {@link SessionManager}:
 *   - `createSession({ kind: "STORED", workflowId, proxy })` opens a session with its own browser
 *     context (`proxy` is a URL such as `options.proxyUrl`, passed to `browser.newContext({ proxy })`);
 *     throws `TooManySessionsError` / `WF_BROWSER_UNAVAILABLE` when the pool is full or the browser is down.
 *   - `runStep(sessionId, { type, step, schema, timeoutMs }, { signal })` runs one step in-process
 *     through the same queue, interpreter, timeouts, records and screenshots as step mode,
 *     and resolves with the finished `StepStatus` (`SUCCEEDED` or `FAILED`, never rejects for a
 *     step failure; throws `SessionNotFoundError` / `SessionClosedError` when the session is unknown or closed).
 *   - `finishSession(sessionId, { status, output?, error? })` records the end of a session
 *     (`SUCCEEDED` with `output`, `FAILED`/`CANCELLED` with `error`), aborts its running step and
 *     frees its browser context; throws `SessionFinishedError` (`WF_SESSION_FINISHED`) if it already ended.
 *   - `sessionStatus(id)`, `waitForSession(id, { since, waitMs })`, `onChange(listener)` for
 *     status answers, long-polls and live pages; `viewUrl(session)` for the `previewUrl`.
 * - `browser`: the one browser process (`newContext()`), for pages outside any session.
 * - `store`: the records (see `store/store.ts`); `store.appendLog(sessionId, type, record)` keeps
 *   a stored run's log lines.
 * - `auth`: `requireApiKey` (a Fastify `onRequest` hook) and `checkSessionToken`.
 * - `parse(schema, value, prefix?)`: validates with a zod schema or throws the 422 problem with
 *   JSON Pointer field errors.
 * - `publicUrl()`: base of the links handed out.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { BrowserHost } from "./browser/host.js";
import type { z } from "zod";
import type { ResolvedServerOptions } from "./config/options.js";
import type { SessionManager, SessionRecord } from "./sessions/index.js";
import type { StepInterpreter } from "./interpreter/index.js";
import type { Store } from "./store/store.js";
import type { Telemetry } from "./observability/telemetry.js";

/** Authentication helpers of the server. */
export interface ServerAuth {
  /**
   * Fastify `onRequest`/`preHandler` hook: passes when the request carries a valid API key
   * (`api-key` header, any case, or `Authorization: Bearer <key>`), else throws the 401 problem.
   */
  requireApiKey(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** True when `key` is one of the configured API keys (constant-time comparison). */
  isValidApiKey(key: string | undefined): boolean;
  /**
   * Checks the `?token=` of a debugger / preview request against the session's token (or an
   * API key in the headers); throws the 401 problem otherwise.
   */
  checkSessionToken(request: FastifyRequest, session: SessionRecord): void;
}

/** What route modules get from the running server. */
export interface ServerContext {
  /** The resolved options. `publicUrl` there may be undefined; use {@link ServerContext.publicUrl}. */
  options: ResolvedServerOptions;
  /** Base URL of the links the server hands out, without a trailing slash. Known once listening. */
  publicUrl(): string;
  /** Sessions and steps. */
  sessions: SessionManager;
  /**
   * The server's one browser. Sessions get their contexts through `sessions.createSession`; use
   * `browser.newContext()` directly only for pages outside any session (tests opening the debugger).
   */
  browser: BrowserHost;
  /** The step interpreter every step goes through. */
  interpreter: StepInterpreter;
  /** The records: the embedded database in `options.dataDir`, or PostgreSQL (`options.databaseUrl`). */
  store: Store;
  /** What operators see: warn lines and, with `options.metrics`, the metrics `GET /metrics` serves. */
  telemetry: Telemetry;
  auth: ServerAuth;
  /**
   * Parses `value` with `schema`; on failure throws the `WF_VALIDATION_FAILED` (422) problem whose
   * `errors` carry JSON Pointer paths (`prefix` + issue path, e.g. `/variables/url`).
   */
  parse<S extends z.ZodType>(schema: S, value: unknown, prefix?: string): z.output<S>;
  /** The server's version (from package.json), as `GET /health` reports it. */
  version: string;
}
