/**
 * The life of a session: its creation (capacity, the browser context, the trace, the record), its
 * end (the running step aborted, the queued ones failed, the screenshot and trace kept, the
 * context closed, the end recorded, retried while the store is unavailable), the `log()` lines of
 * stored runs, and the shutdown of every session when the server stops.
 */
import { randomBytes } from "node:crypto";
import type { SessionLogLine, SessionState, SessionStatus, WireError } from "@wf/core/protocol";
import type { BrowserHost } from "../browser/host.js";
import { StepExecutionError } from "../errors.js";
import type { ResolvedServerOptions } from "../config/options.js";
import { SessionSecrets } from "./secrets.js";
import type { StoreRetry } from "../store/retry.js";
import { timingMark } from "../observability/timing.js";
import { traceTitle } from "../browser/tracing.js";
import type { SessionRecord, Store } from "../store/store.js";
import { SessionFinishedError, SessionNotFoundError, TooManySessionsError } from "./errors.js";
import type { ChangeFeed } from "./feed.js";
import type { IdleTimers } from "./idle.js";
import { newId, type SessionRegistry } from "./registry.js";
import { contextOptionsOf, SessionBrowser, WarmSessionBrowser } from "./session-browser.js";
import type { CreateSessionOptions, LiveSession } from "./types.js";
import type { Telemetry } from "../observability/telemetry.js";
import { join } from "node:path";

/** How long a client is asked to wait after `WF_TOO_MANY_SESSIONS`, in ms. */
const TOO_MANY_SESSIONS_RETRY_AFTER_MS = 2_000;

/** What the {@link SessionLifecycle} works with. */
export interface SessionLifecycleParts {
  options: ResolvedServerOptions;
  browser: BrowserHost;
  store: Store;
  storeRetry: StoreRetry;
  registry: SessionRegistry;
  feed: ChangeFeed;
  idle: IdleTimers;
  telemetry: Telemetry;
}

export class SessionLifecycle {
  /** The context and page opened ahead of the next session (`options.warmSessions`). */
  private readonly warm: WarmSessionBrowser | undefined;

  constructor(private readonly parts: SessionLifecycleParts) {
    this.warm = parts.options.warmSessions ? new WarmSessionBrowser(parts.browser, parts.options) : undefined;
  }

  /** Opens a browser context and page ahead of the next session (with `options.warmSessions`). */
  warmUp(): void {
    this.warm?.fill();
  }

  /**
   * Creates a session: a new browser context and page (behind `proxy` when given), recorded and
   * stored. A `STEP` session is closed after `idleTimeoutMs` without steps.
   *
   * @throws {@link TooManySessionsError} when `maxSessions` are open.
   * @throws `WF_BROWSER_UNAVAILABLE` when the browser can't make a context (`BrowserHost.newContext`,
   *   {@link SessionBrowser.open}); the store's `WF_STORAGE_UNAVAILABLE` when the session can't be recorded.
   */
  async createSession(options: CreateSessionOptions): Promise<SessionRecord> {
    const { registry } = this.parts;
    const { maxSessions } = this.parts.options;
    if (registry.openSessionCount >= maxSessions) throw new TooManySessionsError(maxSessions, TOO_MANY_SESSIONS_RETRY_AFTER_MS);
    // The slot stays reserved until the session is committed and registered, or given back.
    registry.reserved += 1;
    let browser: SessionBrowser;
    try {
      // The one opened ahead when there is one (a proxy and context options are chosen at the context's creation).
      const own = options.proxy !== undefined || contextOptionsOf(options.context) !== undefined;
      browser =
        (own ? undefined : (await this.warm?.take())?.withBaseURL(options.context?.baseURL)) ??
        (await SessionBrowser.open(this.parts.browser, this.parts.options, options.proxy, options.context));
      timingMark("session: browser context taken");
      // Already recording when the context was opened ahead for a traced run (`wf run`).
      await browser.trace(options.trace ? traceTitle(options.kind) : undefined);
      timingMark("session: trace ready");
    } catch (error) {
      registry.reserved -= 1;
      throw error;
    }
    const now = new Date().toISOString();
    const session: SessionRecord = {
      sessionId: newId(12),
      kind: options.kind,
      workflowId: options.workflowId ?? null,
      token: randomBytes(24).toString("base64url"),
      jobTaskId: newId(12),
      status: "RUNNING",
      version: 1,
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
      currentUrl: null,
      error: null,
      proxied: options.proxy !== undefined,
      stepIds: [],
      instanceId: this.parts.options.instanceId,
    };
    // Nothing is registered before the session is committed: a failed write (a full disk, 503
    // WF_STORAGE_UNAVAILABLE) frees the browser context and leaves no trace.
    try {
      await this.parts.store.createSession(session);
    } catch (error) {
      await browser.close();
      throw error;
    } finally {
      registry.reserved -= 1;
    }
    registry.sessions.set(session.sessionId, session);
    browser.dialogs.rule = options.dialogs ?? "accept";
    browser.downloads.keepIn(join(this.parts.options.dataDir, "downloads", session.sessionId));
    const live: LiveSession = { browser, tail: Promise.resolve(), pending: 0, running: undefined, idleTimer: undefined, screenshot: options.screenshot ?? "only-on-failure", secrets: new SessionSecrets() };
    registry.live.set(session.sessionId, live);
    // A context that closes on its own or a crashed page ends the session FAILED at once and frees
    // its slot, rather than stay RUNNING until the idle timeout.
    browser.watch((error) => {
      if (registry.live.get(session.sessionId) !== live || session.status !== "RUNNING" || registry.stopping) return;
      if (error.code !== "WF_PAGE_UNRESPONSIVE") this.parts.telemetry.sessionLost(session, error);
      void this.finishSession(session.sessionId, { status: "FAILED", error }).catch(() => undefined);
    });
    this.parts.idle.arm(session, live);
    this.parts.feed.emit(session);
    return session;
  }

  /**
   * Ends a session: records its final `status` (and `output` or `error`), aborts its running
   * step, fails its queued steps with `WF_SESSION_CLOSED`, and closes its browser context (its
   * trace saved first, or dropped with `end.discardTrace`).
   *
   * @param end.status - `SUCCEEDED`, `FAILED` or `CANCELLED`.
   * @param end.discardTrace - the client will not keep the trace: it is stopped unsaved. @default false
   * @returns the session's status after the change.
   * @throws {@link SessionNotFoundError}; {@link SessionFinishedError} when it already ended; the
   *   store's `WF_STORAGE_UNAVAILABLE` (the end is then written as soon as the store takes it).
   */
  async finishSession(
    sessionId: string,
    end: { status: Exclude<SessionState, "RUNNING">; output?: unknown; error?: WireError | null; discardTrace?: boolean },
  ): Promise<SessionStatus> {
    const { registry, feed, store } = this.parts;
    const session = registry.sessions.get(sessionId) ?? (await registry.requireStoredSession(sessionId)).session;
    if (session.status !== "RUNNING") throw new SessionFinishedError(sessionId, session.status);
    const now = new Date().toISOString();
    session.status = end.status;
    if (end.output !== undefined) session.output = end.output;
    session.error = end.error ?? null;
    session.finishedAt = now;
    const live = registry.live.get(sessionId);
    if (live) {
      registry.ending += 1;
      this.parts.idle.disarm(live);
      const reason = new StepExecutionError(
        end.error?.code ?? "WF_SESSION_CLOSED",
        end.error?.message ?? `Session ${sessionId} was closed (${end.status}) before this step finished.`,
      );
      live.running?.abort(reason);
      try {
        await live.capture;
        if (end.discardTrace) await live.browser.discardTrace();
        else await live.browser.saveTrace(this.parts.options.dataDir, sessionId, live.secrets);
        if (!(await live.browser.close())) this.parts.telemetry.sessionFreedByForce(session, "its browser context did not close within 5 s");
        await live.tail.catch(() => undefined);
      } finally {
        registry.live.delete(sessionId);
        registry.ending -= 1;
      }
    }
    feed.bump(session);
    let status: SessionStatus;
    try {
      // The answer lists the session's steps: each needs its row (a deferred one, decision 0068).
      await registry.recordSession(sessionId);
      status = registry.toSessionStatus(session);
      await store.saveSession(session);
      registry.forget(session);
    } catch (error) {
      // The browser context is gone either way; the end is written as soon as the store takes it.
      void this.parts.storeRetry
        .write(`the end of session ${session.sessionId}`, () => store.saveSession(session), () => registry.stopping)
        .then(() => registry.forget(session))
        .catch(() => undefined);
      throw error;
    } finally {
      feed.emit(session);
    }
    return status;
  }

  /**
   * Adds a `log()` line to a running session (a stored run's): recorded, then shown in the
   * session's status (`logs`) and announced to long-polls like any change. `message` and `data`
   * must already be redacted.
   *
   * @throws {@link SessionNotFoundError}; the store's `WF_STORAGE_UNAVAILABLE`.
   */
  async appendLog(sessionId: string, line: { message: string; data?: Record<string, unknown> }): Promise<void> {
    const { registry } = this.parts;
    const session = registry.sessions.get(sessionId);
    if (!session) throw new SessionNotFoundError(sessionId);
    const entry: SessionLogLine = { at: new Date().toISOString(), message: line.message, ...(line.data ? { data: line.data } : {}), afterSteps: session.stepIds.length };
    registry.logs.set(sessionId, [...(registry.logs.get(sessionId) ?? []), entry]);
    try {
      await this.parts.store.appendLog(sessionId, "stored-log", { sessionId, ...entry });
    } finally {
      this.parts.feed.touch(session);
    }
  }

  /**
   * Closes every browser context without recording the sessions as ended, so the next start marks
   * them (and their unfinished steps) `FAILED` with `WF_SERVER_RESTARTED`; a traced session's trace
   * is saved first. Every wait under way ends.
   */
  async close(): Promise<void> {
    const { registry } = this.parts;
    registry.stopping = true;
    await this.warm?.close();
    const lives = [...registry.live.entries()];
    registry.live.clear();
    await Promise.all(
      lives.map(async ([sessionId, live]) => {
        this.parts.idle.disarm(live);
        live.running?.abort(new StepExecutionError("WF_SERVER_RESTARTED", "The server is stopping."));
        // A traced session's trace is kept: after the restart it ends FAILED, and its trace is what shows why.
        await live.browser.saveTrace(this.parts.options.dataDir, sessionId, live.secrets);
        await live.browser.close();
      }),
    );
    this.parts.feed.stop();
  }
}
