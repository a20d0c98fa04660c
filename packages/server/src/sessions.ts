/**
 * The session registry and the per-session step queue: which sessions are open on this server,
 * their steps in arrival order (one at a time per session, sessions concurrently), step timeouts,
 * the idle timeout, idempotency keys, change notifications for long-polls and live pages, and when
 * each change is written to the store. The browser side is `session-browser.ts`; the records are
 * `store/`.
 */
import { createHmac, randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { join } from "node:path";
import type { BrowserContextOptions } from "playwright-core";
import {
  normalizeStepSchema,
  routePath,
  ROUTES,
  type ScreenshotMode,
  type SessionKind,
  type SessionLogLine,
  type SessionState,
  type SessionStatus,
  type StepState,
  type StepStatus,
  type StepInterpreterKind,
  type StepType,
  type StepUsage,
  type WireError,
  type ReplayAction,
  type StepFile,
} from "@wf/core/protocol";
import { isWfError, redactText, redactValue } from "@wf/core";
import type { BrowserHost } from "./browser.js";
import { HttpProblem, isHttpProblem, StepExecutionError } from "./errors.js";
import { StoreRetry, stderrLog } from "./store-retry.js";
import type { RecoveredWork, SessionRecord, StepRecord, Store, StoredSession } from "./store/store.js";
import type { ResolvedServerOptions } from "./options.js";
import { REQUEST_HASH_PREFIX } from "./secret.js";
import { saveTrace, startTracing, tracePath } from "./tracing.js";
import type { StepInterpreter, StepReport } from "./interpreter/types.js";
import { saveScreenshot, screenshotFile, SessionBrowser, WarmSessionBrowser } from "./session-browser.js";
import { SessionSecrets } from "./session-secrets.js";

/** How long a client is asked to wait after a 429, in ms. */
const TOO_MANY_SESSIONS_RETRY_AFTER_MS = 2_000;
/** How long a timed-out step's interpreter call may take to wind down before the next step starts, in ms. */
const SETTLE_GRACE_MS = 2_000;
/** How long a step runs before its RUNNING state is committed to the store, in ms (a quicker step commits only its end). */
const RUNNING_WRITE_DELAY_MS = 250;

/** What a session needs at creation. */
export interface CreateSessionOptions {
  /** `STEP` for step mode, `STORED` for a stored-workflow run. */
  kind: SessionKind;
  /** For `STORED`: the stored workflow's id. */
  workflowId?: string;
  /**
   * Proxy of the session's browser context, passed to `browser.newContext({ proxy })`: a proxy
   * URL (`http://host:port`, credentials in the URL are used) or Playwright's proxy settings.
   */
  proxy?: string | NonNullable<BrowserContextOptions["proxy"]>;
  /** Record a Playwright trace of the session, saved when it ends (see `tracing.ts`). */
  trace?: boolean;
  /** Which steps get a screenshot after them (Playwright Test's `screenshot` values). @default "only-on-failure" */
  screenshot?: ScreenshotMode;
}

/** A step to run, as `POST /workflow/step/run/{id}` takes it (already validated). */
export interface StepInput {
  type: StepType;
  /** The instruction (ACT) or question (ASK). */
  step: string;
  /** Structured output wanted from an ASK, in any form `normalizeStepSchema` accepts. Must be absent or `{}` for an ACT. */
  schema?: Record<string, unknown>;
  /** HTML an ASK reads instead of the live page. */
  currentDom?: string;
  /** Base URL of `currentDom`. */
  currentPageURL?: string;
  /** Step timeout in ms. @default the server's `stepTimeoutMs` */
  timeoutMs?: number;
  /**
   * Secret values kept out of every record, status and page: each occurrence in the step's text,
   * result and error is replaced by `[secret]`. The interpreter still gets the real text.
   */
  redact?: string[];
  /** ACT only: recorded actions to replay instead of interpreting `step` (see `interpreter/replay.ts`). */
  replay?: ReplayAction[];
  /** With `replay`: look again for a recorded element its instruction no longer finds (see `interpreter/replay.ts`). @default false */
  refind?: boolean;
  /** Whether the step may call the model (see `BrowserStepInput`). @default true */
  allowModel?: boolean;
  /** ACT: files the step brought (a remote client's upload bytes); never recorded (see `session-uploads.ts`). */
  files?: StepFile[];
  /** ASK: the step is a check (an assertion) of the statement `step`; see `interpreter/check.ts`. */
  check?: { timeoutMs?: number };
}

/** Options of {@link SessionManager.submitStep} and {@link SessionManager.runStep}. */
export interface SubmitStepOptions {
  /** Idempotency key: the same key in the same session returns the first step without running again. */
  idempotencyKey?: string;
  /** Aborts the step (it fails with the abort reason's code, or `WF_ABORTED`). */
  signal?: AbortSignal;
}

export type { SessionRecord, StepRecord } from "./store/store.js";

/** A change of a session or one of its steps: what long-polls and live pages wait for. */
export interface SessionChange {
  sessionId: string;
  version: number;
  /** The step that changed, when a step did. */
  stepId?: string;
}

/** What {@link SessionManager.submitStep} returns. */
export interface SubmittedStep {
  stepId: string;
  jobTaskId: string;
  /** False when an earlier request with the same idempotency key made the step. */
  created: boolean;
  /** Resolves with the step's status once it finished (never rejects). */
  done: Promise<StepStatus>;
}

interface LiveSession {
  browser: SessionBrowser;
  /** The tail of the session's step queue. */
  tail: Promise<void>;
  /** Steps queued or running. */
  pending: number;
  running: AbortController | undefined;
  idleTimer: NodeJS.Timeout | undefined;
  /** The screenshot being taken after the last step: a close waits for it (the failed step's picture matters most). */
  capture?: Promise<unknown>;
  /** Which steps get a screenshot; every step while a debugger page watches (see `watchView`). */
  screenshot: ScreenshotMode;
  /** The session's secrets: redaction of its URLs and results, masked fields, the trace's scrub. */
  secrets: SessionSecrets;
}

/** Dependencies of the {@link SessionManager}. */
export interface SessionManagerDeps {
  options: ResolvedServerOptions;
  browser: BrowserHost;
  store: Store;
  interpreter: StepInterpreter;
  /** The base URL of links handed out (`viewUrl`, `debuggerUrl`), known once the server listens. */
  publicUrl: () => string;
  /** Key of the request digests (idempotency); see `loadServerSecret`. @default random per process (digests then don't survive a restart) */
  secret?: Buffer;
  /** Retries of writes that must reach the store (outcomes, ends). @default one that warns on stderr */
  storeRetry?: StoreRetry;
}

/**
 * Owns every session and step. One instance per server, reached through `ServerContext.sessions`.
 * Every method that changes state has the change committed to the store before it resolves.
 */
export class SessionManager {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly steps = new Map<string, StepRecord>();
  private readonly live = new Map<string, LiveSession>();
  /** The `log()` lines of stored runs, by session id (journaled as `stored-log` lines). */
  private readonly logs = new Map<string, SessionLogLine[]>();
  private readonly idempotency = new Map<string, string>();
  private readonly stepDone = new Map<string, Promise<StepStatus>>();
  /** Steps whose first record is being written: an identical retry waits for the write's outcome. */
  private readonly recording = new Map<string, Promise<void>>();
  private readonly events = new EventEmitter();
  private reserved = 0;
  private stopping = false;
  /** The context and page opened ahead of the next session (`options.warmSessions`). */
  private readonly warm: WarmSessionBrowser | undefined;

  private readonly secret: Buffer;
  private readonly storeRetry: StoreRetry;

  constructor(private readonly deps: SessionManagerDeps) {
    this.events.setMaxListeners(0);
    this.secret = deps.secret ?? randomBytes(32);
    this.storeRetry = deps.storeRetry ?? new StoreRetry({ location: deps.store.location, log: stderrLog });
    this.warm = deps.options.warmSessions ? new WarmSessionBrowser(deps.browser, deps.options) : undefined;
  }

  /** Opens a browser context and page ahead of the next session (with `options.warmSessions`). */
  warmUp(): void {
    this.warm?.fill();
  }

  /** Folder of the screenshots taken after steps. */
  get screenshotDir(): string {
    return join(this.deps.options.dataDir, "screenshots");
  }

  /**
   * At start-up: steps that were `QUEUED`/`RUNNING` and sessions that were open become `FAILED`
   * with code `WF_SERVER_RESTARTED` (one transaction; only those rows are read). Finished records
   * stay in the store and are read when asked for.
   */
  async recover(): Promise<RecoveredWork> {
    return this.deps.store.failUnfinished(
      { code: "WF_SERVER_RESTARTED", message: "The server stopped while this session was open, so its browser context is gone. Create a new session." },
      (step) => ({
        code: "WF_SERVER_RESTARTED",
        message: `The server stopped while this step was ${step.status.toLowerCase()}, so it did not finish. Run it again in a new session.`,
      }),
      new Date().toISOString(),
      { instanceId: this.deps.options.instanceId },
    );
  }

  /**
   * Ends, `FAILED` with `WF_SERVER_LOST`, the open sessions (and their unfinished steps) of other
   * instances whose lease ran out (see `instances.ts`), and wakes the requests waiting here on them.
   */
  async failLostInstances(): Promise<RecoveredWork> {
    const recovered = await this.deps.store.failUnfinished(
      serverLost("session"),
      (step) => serverLost(`step (${step.status.toLowerCase()})`),
      new Date().toISOString(),
      { lostInstances: true },
    );
    for (const sessionId of recovered.sessionIds) {
      const stored = await this.deps.store.getSession(sessionId).catch(() => undefined);
      if (stored) this.events.emit("change", { sessionId, version: stored.session.version } satisfies SessionChange);
    }
    return recovered;
  }

  /**
   * Ends every session open here `FAILED` with `WF_SERVER_LOST`: this instance's lease ran out,
   * so another instance may already have ended them in the database (see `instances.ts`).
   */
  async loseOwnSessions(): Promise<void> {
    const open = [...this.live.keys()];
    await Promise.all(
      open.map((sessionId) =>
        this.finishSession(sessionId, { status: "FAILED", error: serverLost("session") }).catch(() => undefined),
      ),
    );
  }

  /** Whether this instance holds the session (`{ sessionId }`) or the step's session (`{ stepId }`) in memory: it is open here. */
  holds(target: { sessionId: string } | { stepId: string }): boolean {
    return "sessionId" in target ? this.sessions.has(target.sessionId) : this.steps.has(target.stepId);
  }

  /**
   * Number of open sessions: those holding a browser context, less those that ended and are
   * closing theirs (a client that sees a session end may create the next at once), plus the
   * creates under way.
   */
  get openSessionCount(): number {
    return this.live.size - this.ending + this.reserved;
  }

  /** Live sessions that ended and are closing their browser context. */
  private ending = 0;

  /**
   * Creates a session: a new browser context and page (behind `proxy` when given), recorded and
   * stored. A `STEP` session is closed after `idleTimeoutMs` without steps.
   *
   * @throws {@link HttpProblem} `WF_TOO_MANY_SESSIONS` (429) when `maxSessions` are open.
   * @throws {@link HttpProblem} `WF_BROWSER_UNAVAILABLE` (503) when the browser can't make a context.
   */
  async createSession(options: CreateSessionOptions): Promise<SessionRecord> {
    const { maxSessions } = this.deps.options;
    if (this.openSessionCount >= maxSessions) {
      throw new HttpProblem("WF_TOO_MANY_SESSIONS", `${maxSessions} sessions are open, the most this server allows. Close one, or retry later.`, {
        retryAfterMs: TOO_MANY_SESSIONS_RETRY_AFTER_MS,
      });
    }
    // The slot stays reserved until the session is committed and registered, or given back.
    this.reserved += 1;
    let browser: SessionBrowser;
    try {
      // The one opened ahead when there is one (a proxy is chosen at the context's creation).
      browser = (options.proxy === undefined ? await this.warm?.take() : undefined) ?? (await SessionBrowser.open(this.deps.browser, this.deps.options, options.proxy));
      if (options.trace) {
        const opened = browser;
        await startTracing(opened.context, `wf session (${options.kind})`).catch(async (error: unknown) => {
          await opened.close();
          throw error;
        });
      }
    } catch (error) {
      this.reserved -= 1;
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
      instanceId: this.deps.options.instanceId,
    };
    // Nothing is registered before the session is committed: a failed write (a full disk, 503
    // WF_STORAGE_UNAVAILABLE) frees the browser context and leaves no trace.
    try {
      await this.deps.store.createSession(session);
    } catch (error) {
      await browser.close();
      throw error;
    } finally {
      this.reserved -= 1;
    }
    this.sessions.set(session.sessionId, session);
    const live: LiveSession = { browser, tail: Promise.resolve(), pending: 0, running: undefined, idleTimer: undefined, screenshot: options.screenshot ?? "only-on-failure", secrets: new SessionSecrets() };
    this.live.set(session.sessionId, live);
    // A context that closes on its own or a crashed page ends the session FAILED at once and frees
    // its slot, rather than stay RUNNING until the idle timeout.
    browser.watch((error) => {
      if (this.live.get(session.sessionId) !== live || session.status !== "RUNNING" || this.stopping) return;
      void this.finishSession(session.sessionId, { status: "FAILED", error }).catch(() => undefined);
    });
    this.armIdleTimer(session, live);
    this.emit(session);
    return session;
  }

  /**
   * Queues a step in a session and returns its ids at once; `done` resolves when it finished.
   * With an idempotency key already used in this session, returns the first step (even while it
   * still runs) and runs nothing.
   *
   * @throws {@link HttpProblem} `WF_SESSION_NOT_FOUND` (404), `WF_SESSION_CLOSED` (409),
   *   `WF_VALIDATION_FAILED` (422: an ACT with a non-empty schema), `WF_IDEMPOTENCY_KEY_REUSED` (422).
   */
  async submitStep(sessionId: string, input: StepInput, options: SubmitStepOptions = {}): Promise<SubmittedStep> {
    const requestHash = this.hashRequest(input);
    const session = this.sessions.get(sessionId);
    // Not open on this server: a finished session (read from the store) or none. Only a retry
    // of a step it already has gets an answer.
    if (!session) return this.submitToFinished(sessionId, requestHash, options);
    if (options.idempotencyKey !== undefined) {
      const existingId = this.idempotency.get(idempotencyId(sessionId, options.idempotencyKey));
      const existing = existingId ? this.steps.get(existingId) : undefined;
      if (existing) {
        // A retry that arrives while the first request is still being written gets its outcome:
        // the same ids once written, the same 503 if the write failed.
        await this.recording.get(existing.stepId);
        // An empty hash (a record from before keyed digests) can't tell: the retry gets the first step.
        checkSameRequest(existing, requestHash, options.idempotencyKey);
        return { stepId: existing.stepId, jobTaskId: existing.jobTaskId, created: false, done: this.stepDone.get(existing.stepId) ?? this.waitForStep(existing.stepId, Infinity) };
      }
    }
    if (session.status !== "RUNNING" || !this.live.has(sessionId)) throw sessionClosed(session);
    if (input.type === "ACT" && normalizeStepSchema(input.schema) !== undefined) {
      throw new HttpProblem("WF_VALIDATION_FAILED", "An ACT step takes no schema; send an empty or no schema, or make the step an ASK.", {
        errors: [{ path: "/schema", message: "must be empty or absent for an ACT step" }],
      });
    }
    if (input.check && (input.type !== "ASK" || normalizeStepSchema(input.schema) !== undefined || input.currentDom !== undefined)) {
      throw new HttpProblem("WF_VALIDATION_FAILED", "A check is an ASK on the live page with no schema: send type ASK, and no schema or currentDom, with `check`.", {
        errors: [{ path: "/check", message: "needs type ASK, and no schema or currentDom" }],
      });
    }
    if (input.type === "ASK" && input.replay) {
      throw new HttpProblem("WF_VALIDATION_FAILED", "Only an ACT step can be replayed; send an ASK without replay.", { errors: [{ path: "/replay", message: "must be absent for an ASK step" }] });
    }
    const live = this.live.get(sessionId)!;
    const now = new Date().toISOString();
    const step: StepRecord = {
      stepId: newId(12),
      jobTaskId: session.jobTaskId,
      sessionId,
      index: session.stepIds.length,
      type: input.type,
      step: redactText(input.step, secretsOf(input)),
      status: "QUEUED",
      createdAt: now,
      startedAt: null,
      finishedAt: null,
      durationMs: null,
      error: null,
      pageUrl: null,
      request: {
        ...(input.schema !== undefined ? { schema: input.schema } : {}),
        ...(input.currentPageURL !== undefined ? { currentPageURL: input.currentPageURL } : {}),
        ...(input.currentDom !== undefined
          ? { currentDomBytes: Buffer.byteLength(input.currentDom), currentDomHmac: createHmac("sha256", this.secret).update(input.currentDom).digest("hex") }
          : {}),
        ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
      },
      idempotencyKey: options.idempotencyKey ?? null,
      requestHash,
      screenshot: false,
    };
    // Registered synchronously, before any await, so a concurrent retry with the same key finds it.
    this.steps.set(step.stepId, step);
    session.stepIds.push(step.stepId);
    if (options.idempotencyKey !== undefined) this.idempotency.set(idempotencyId(sessionId, options.idempotencyKey), step.stepId);
    live.pending += 1;
    this.disarmIdleTimer(live);
    const recorded = this.deps.store.createStep(step);
    this.recording.set(step.stepId, recorded);
    const done = new Promise<StepStatus>((resolve) => {
      const finished = () => resolve(this.toStepStatus(step));
      live.tail = live.tail
        .then(async () => {
          // A step that was never committed was answered 503 and never runs.
          if (!(await recorded.then(() => true, () => false))) return;
          await this.execute(session, live, step, input, options.signal, finished);
        })
        // The queue must survive anything one step does.
        .catch(() => undefined)
        .finally(finished);
    });
    this.stepDone.set(step.stepId, done);
    void done.then(() => this.stepDone.delete(step.stepId));
    this.bump(session);
    try {
      await recorded;
    } catch (error) {
      this.unregisterStep(session, live, step);
      throw error;
    } finally {
      this.recording.delete(step.stepId);
      this.emit(session, step.stepId);
    }
    return { stepId: step.stepId, jobTaskId: step.jobTaskId, created: true, done };
  }

  /** {@link SessionManager.submitStep} for a session that is not open here. */
  private async submitToFinished(sessionId: string, requestHash: string, options: SubmitStepOptions): Promise<SubmittedStep> {
    const stored = await this.requireStoredSession(sessionId);
    if (options.idempotencyKey !== undefined) {
      const existing = stored.steps.find((s) => s.idempotencyKey === options.idempotencyKey);
      if (existing) {
        checkSameRequest(existing, requestHash, options.idempotencyKey);
        return { stepId: existing.stepId, jobTaskId: existing.jobTaskId, created: false, done: Promise.resolve(this.toStepStatus(existing)) };
      }
    }
    throw sessionClosed(stored.session);
  }

  /** Undoes the registration of a step whose record could not be written. */
  private unregisterStep(session: SessionRecord, live: LiveSession, step: StepRecord): void {
    this.steps.delete(step.stepId);
    this.stepDone.delete(step.stepId);
    session.stepIds = session.stepIds.filter((id) => id !== step.stepId);
    if (step.idempotencyKey !== null) {
      const key = idempotencyId(step.sessionId, step.idempotencyKey);
      if (this.idempotency.get(key) === step.stepId) this.idempotency.delete(key);
    }
    live.pending -= 1;
    if (live.pending === 0) this.armIdleTimer(session, live);
  }

  /** Runs a write, retrying while the store is unavailable, with warnings: see `store-retry.ts`. */
  private writePersistently(what: string, write: () => Promise<void>, giveUp: () => boolean): Promise<void> {
    return this.storeRetry.write(what, write, giveUp);
  }

  /**
   * Runs a step in a session in-process (same queue, timeouts, records and screenshots as a step
   * run over HTTP) and resolves with its status once it finished, `SUCCEEDED` or `FAILED`.
   *
   * @throws {@link HttpProblem} as {@link SessionManager.submitStep}.
   */
  async runStep(sessionId: string, input: StepInput, options: SubmitStepOptions = {}): Promise<StepStatus> {
    const submitted = await this.submitStep(sessionId, input, options);
    return submitted.done;
  }

  /**
   * Ends a session: records its final `status` (and `output` or `error`), aborts its running
   * step, fails its queued steps with `WF_SESSION_CLOSED`, and closes its browser context.
   *
   * @param status - `SUCCEEDED`, `FAILED` or `CANCELLED`.
   * @returns the session's status after the change.
   * @throws {@link HttpProblem} `WF_SESSION_NOT_FOUND` (404); `WF_SESSION_FINISHED` (409) when it already ended.
   */
  async finishSession(sessionId: string, end: { status: Exclude<SessionState, "RUNNING">; output?: unknown; error?: WireError | null }): Promise<SessionStatus> {
    const session = this.sessions.get(sessionId) ?? (await this.requireStoredSession(sessionId)).session;
    if (session.status !== "RUNNING") {
      throw new HttpProblem("WF_SESSION_FINISHED", `Session ${sessionId} already ended (${session.status}).`, { extra: { sessionStatus: session.status } });
    }
    const now = new Date().toISOString();
    session.status = end.status;
    if (end.output !== undefined) session.output = end.output;
    session.error = end.error ?? null;
    session.finishedAt = now;
    const live = this.live.get(sessionId);
    if (live) {
      this.ending += 1;
      this.disarmIdleTimer(live);
      const reason = new StepExecutionError(
        end.error?.code ?? "WF_SESSION_CLOSED",
        end.error?.message ?? `Session ${sessionId} was closed (${end.status}) before this step finished.`,
      );
      live.running?.abort(reason);
      try {
        await live.capture;
        await saveTrace(live.browser.context, tracePath(this.deps.options.dataDir, sessionId), live.secrets);
        await live.browser.close();
        await live.tail.catch(() => undefined);
      } finally {
        this.live.delete(sessionId);
        this.ending -= 1;
      }
    }
    this.bump(session);
    const status = this.toSessionStatus(session);
    try {
      await this.deps.store.saveSession(session);
      this.forget(session);
    } catch (error) {
      // The browser context is gone either way; the end is written as soon as the store takes it.
      void this.writePersistently(`the end of session ${session.sessionId}`, () => this.deps.store.saveSession(session), () => this.stopping)
        .then(() => this.forget(session))
        .catch(() => undefined);
      throw error;
    } finally {
      this.emit(session);
    }
    return status;
  }

  /**
   * Adds a `log()` line to a running session (a stored run's): recorded, then shown in the
   * session's status (`logs`) and announced to long-polls like any change. `message` and `data`
   * must already be redacted.
   *
   * @throws {@link HttpProblem} `WF_SESSION_NOT_FOUND` (404); the store's `WF_STORAGE_UNAVAILABLE` (503).
   */
  async appendLog(sessionId: string, line: { message: string; data?: Record<string, unknown> }): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) throw sessionNotFound(sessionId);
    const entry: SessionLogLine = { at: new Date().toISOString(), message: line.message, ...(line.data ? { data: line.data } : {}), afterSteps: session.stepIds.length };
    this.logs.set(sessionId, [...(this.logs.get(sessionId) ?? []), entry]);
    try {
      await this.deps.store.appendLog(sessionId, "stored-log", { sessionId, ...entry });
    } finally {
      this.touch(session);
    }
  }

  /** Drops a finished session and its steps from memory: from now on they are read from the store. */
  private forget(session: SessionRecord): void {
    if (this.sessions.get(session.sessionId) !== session) return;
    this.sessions.delete(session.sessionId);
    this.logs.delete(session.sessionId);
    for (const stepId of session.stepIds) {
      const step = this.steps.get(stepId);
      this.steps.delete(stepId);
      this.stepDone.delete(stepId);
      if (step?.idempotencyKey != null) this.idempotency.delete(idempotencyId(session.sessionId, step.idempotencyKey));
    }
  }

  /** The session's record (from memory while it is open here, else from the store), or undefined. */
  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    if (!isRecordId(sessionId)) return undefined;
    return this.sessions.get(sessionId) ?? (await this.deps.store.getSession(sessionId))?.session;
  }

  /** The step's record (from memory while its session is open here, else from the store), or undefined. */
  async getStep(stepId: string): Promise<StepRecord | undefined> {
    if (!isRecordId(stepId)) return undefined;
    return this.steps.get(stepId) ?? (await this.deps.store.getStep(stepId));
  }

  /** The wire status of a session. @throws {@link HttpProblem} `WF_SESSION_NOT_FOUND` (404). */
  async sessionStatus(sessionId: string): Promise<SessionStatus> {
    const session = this.sessions.get(sessionId);
    if (session) return this.toSessionStatus(session);
    const stored = await this.requireStoredSession(sessionId);
    return this.toSessionStatus(stored.session, stored.steps, await this.storedLogs(sessionId));
  }

  /** A finished session's `log()` lines, read from the store. */
  private async storedLogs(sessionId: string): Promise<SessionLogLine[]> {
    const records = await this.deps.store.getLogs(sessionId, "stored-log");
    return records.flatMap((r) =>
      typeof r.message === "string" && typeof r.at === "string"
        ? [{ at: r.at, message: r.message, ...(r.data && typeof r.data === "object" ? { data: r.data as Record<string, unknown> } : {}), afterSteps: typeof r.afterSteps === "number" ? r.afterSteps : Number.MAX_SAFE_INTEGER }]
        : [],
    );
  }

  /** The wire status of a step. @throws {@link HttpProblem} `WF_STEP_NOT_FOUND` (404). */
  async stepStatus(stepId: string): Promise<StepStatus> {
    return this.toStepStatus(await this.requireStep(stepId));
  }

  /**
   * Long-poll of a step: resolves with its status once it finished, or after `waitMs`.
   * @throws {@link HttpProblem} `WF_STEP_NOT_FOUND` (404).
   */
  async waitForStep(stepId: string, waitMs: number, signal?: AbortSignal): Promise<StepStatus> {
    const step = await this.requireStep(stepId);
    if (this.steps.get(stepId) !== step && !isFinished(step.status)) {
      // Read from the store: its session is held by an instance that could not be reached (see
      // `instances.ts`); the change that can come here is that session being ended as lost.
      await this.waitForChangeOf(step.sessionId, waitMs, signal);
      return this.stepStatus(stepId);
    }
    await this.waitUntil(step.sessionId, () => isFinished(step.status), waitMs, signal);
    return this.toStepStatus(step);
  }

  /**
   * Long-poll of a session: with `since`, resolves once its `version` exceeds it; without, once
   * the session ended. Resolves after `waitMs` at the latest.
   * @throws {@link HttpProblem} `WF_SESSION_NOT_FOUND` (404).
   */
  async waitForSession(sessionId: string, options: { since?: number; waitMs: number }, signal?: AbortSignal): Promise<SessionStatus> {
    const session = this.sessions.get(sessionId);
    if (!session) {
      const stored = await this.sessionStatus(sessionId);
      // Not open here. A finished session changes no more, so the answer is at once; a running one
      // is held by an instance that could not be reached (see `instances.ts`), and the change
      // that can come here is its end as lost.
      const waiting = stored.status === "RUNNING" && (options.since === undefined || stored.version <= options.since);
      if (!waiting) return stored;
      await this.waitForChangeOf(sessionId, options.waitMs, signal);
      return this.sessionStatus(sessionId);
    }
    const ready =
      options.since !== undefined
        ? () => session.version > options.since! || session.status !== "RUNNING"
        : () => session.status !== "RUNNING";
    await this.waitUntil(sessionId, ready, options.waitMs, signal);
    return this.sessions.get(sessionId) === session ? this.toSessionStatus(session) : this.sessionStatus(sessionId);
  }

  /**
   * What the debugger page shows: the session's status and the ids of its steps that have a
   * screenshot. @throws {@link HttpProblem} `WF_SESSION_NOT_FOUND` (404).
   */
  async sessionView(sessionId: string): Promise<{ status: SessionStatus; screenshotStepIds: string[] }> {
    const session = this.sessions.get(sessionId);
    const { session: record, steps } = session
      ? { session, steps: session.stepIds.flatMap((id) => this.steps.get(id) ?? []) }
      : await this.requireStoredSession(sessionId);
    return { status: this.toSessionStatus(record, steps), screenshotStepIds: steps.filter((s) => s.screenshot).map((s) => s.stepId) };
  }

  /**
   * Counts a debugger page watching a session: while one does, every step of the session gets a
   * screenshot whatever its `screenshot` mode. @returns a function that ends this watch (idempotent).
   */
  watchView(sessionId: string): () => void {
    this.viewers.set(sessionId, (this.viewers.get(sessionId) ?? 0) + 1);
    let watching = true;
    return () => {
      if (!watching) return;
      watching = false;
      const left = (this.viewers.get(sessionId) ?? 1) - 1;
      if (left > 0) this.viewers.set(sessionId, left);
      else this.viewers.delete(sessionId);
    };
  }

  /** How many debugger pages watch a session now (event streams open on it). */
  viewCount(sessionId: string): number {
    return this.viewers.get(sessionId) ?? 0;
  }

  /** Debugger pages watching each session, by session id (only sessions with at least one). */
  private readonly viewers = new Map<string, number>();

  /** Calls `listener` on every change of any session or step. @returns a function that unsubscribes. */
  onChange(listener: (change: SessionChange) => void): () => void {
    this.events.on("change", listener);
    return () => this.events.off("change", listener);
  }

  /** Path of the PNG screenshot taken after a step, or undefined when there is none. */
  async screenshotPath(stepId: string): Promise<string | undefined> {
    const step = await this.getStep(stepId);
    return step?.screenshot ? screenshotFile(this.screenshotDir, stepId) : undefined;
  }

  /** The debugger / preview page of a session, with its token. */
  viewUrl(session: SessionRecord): string {
    return `${this.deps.publicUrl()}${routePath(ROUTES.sessionView, { id: session.sessionId })}?token=${encodeURIComponent(session.token)}`;
  }

  /**
   * Closes every browser context without recording the sessions as ended, so the next start marks
   * them (and their unfinished steps) `FAILED` with `WF_SERVER_RESTARTED`; a traced session's trace
   * is saved first.
   */
  async close(): Promise<void> {
    this.stopping = true;
    await this.warm?.close();
    const lives = [...this.live.entries()];
    this.live.clear();
    await Promise.all(
      lives.map(async ([sessionId, live]) => {
        this.disarmIdleTimer(live);
        live.running?.abort(new StepExecutionError("WF_SERVER_RESTARTED", "The server is stopping."));
        // A traced session's trace is kept: after the restart it ends FAILED, and its trace is what shows why.
        await saveTrace(live.browser.context, tracePath(this.deps.options.dataDir, sessionId), live.secrets);
        await live.browser.close();
      }),
    );
    this.events.emit("stopping");
  }

  // -------------------------------------------------------------------------------------------

  /** Keyed digest of the step request with keys sorted, so the same body digests the same however it was written. */
  private hashRequest(input: StepInput): string {
    return REQUEST_HASH_PREFIX + createHmac("sha256", this.secret).update(canonicalJson({ ...input })).digest("hex");
  }

  private async requireStoredSession(sessionId: string): Promise<StoredSession> {
    const stored = isRecordId(sessionId) ? await this.deps.store.getSession(sessionId) : undefined;
    if (!stored) throw sessionNotFound(sessionId);
    return stored;
  }

  private async requireStep(stepId: string): Promise<StepRecord> {
    const step = await this.getStep(stepId);
    if (!step) throw new HttpProblem("WF_STEP_NOT_FOUND", `No step has the id ${stepId}. Use the stepId a step run returned.`);
    return step;
  }

  /**
   * Runs one step (the session's queue calls it, one at a time). `onFinished` is called as soon as
   * the step's outcome is recorded; the screenshot is taken after that, still inside the queue, so
   * the answer isn't delayed by it and the next step still sees the page as this one left it.
   */
  private async execute(
    session: SessionRecord,
    live: LiveSession,
    step: StepRecord,
    input: StepInput,
    externalSignal: AbortSignal | undefined,
    onFinished: () => void,
  ): Promise<void> {
    /** Settles `live.capture` once this step's picture is recorded, or when there is none. */
    let pictureRecorded: (() => void) | undefined;
    try {
      if (session.status !== "RUNNING" || this.stopping) {
        if (this.stopping) return;
        await this.finishStep(session, step, {
          error: session.error ?? { code: "WF_SESSION_CLOSED", message: `Session ${session.sessionId} was closed (${session.status}) before this step ran.` },
        });
        return;
      }
      step.status = "RUNNING";
      step.startedAt = new Date().toISOString();
      this.touch(session, step.stepId);
      // RUNNING is committed only for a step still running after RUNNING_WRITE_DELAY_MS: no answer
      // depends on it (a restart fails QUEUED and RUNNING steps alike), and a durable commit on the
      // event loop while the step acts costs a quick step ~2 ms (server README, "Speed"). The step's
      // end waits for a write that started, so the two rows never cross.
      let runningRecorded: Promise<void> | undefined;
      const runningWrite = setTimeout(() => (runningRecorded = this.deps.store.saveStep({ ...step }).catch(() => undefined)), RUNNING_WRITE_DELAY_MS);

      const timeoutMs = input.timeoutMs ?? this.deps.options.stepTimeoutMs;
      const controller = new AbortController();
      live.running = controller;
      const timer = setTimeout(
        () =>
          controller.abort(
            new StepExecutionError("WF_STEP_TIMEOUT", `The step did not finish within ${timeoutMs} ms. Send a larger timeoutMs, or split the step.`, { details: { timeoutMs } }),
          ),
        timeoutMs,
      );
      const onExternalAbort = () => controller.abort(externalSignal?.reason ?? new StepExecutionError("WF_ABORTED", "The step was aborted."));
      if (externalSignal?.aborted) onExternalAbort();
      else externalSignal?.addEventListener("abort", onExternalAbort, { once: true });

      const report: StepReport = {};
      live.secrets.add(input.redact);
      const work = live.browser.interpret(this.deps.interpreter, this.deps.options, input, { timeoutMs, signal: controller.signal, secrets: secretsOf(input), report });
      const aborted = new Promise<never>((_, reject) => {
        if (controller.signal.aborted) reject(controller.signal.reason);
        controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
      });
      let outcome: { result?: unknown; error?: WireError; endedAt?: string };
      try {
        outcome = { result: await Promise.race([work, aborted]) };
        outcome.endedAt = new Date().toISOString();
      } catch (error) {
        outcome = { error: toWireError(error), endedAt: new Date().toISOString() };
        // Let the interpreter's call wind down before the next step touches the page.
        await Promise.race([work.catch(() => undefined), delay(SETTLE_GRACE_MS)]);
      } finally {
        clearTimeout(timer);
        clearTimeout(runningWrite);
        externalSignal?.removeEventListener("abort", onExternalAbort);
        live.running = undefined;
      }
      // Every secret of the session so far: a URL or a page may still carry an earlier step's.
      outcome = live.secrets.redactor.value(redactValue(outcome, secretsOf(input)));
      Object.assign(step, live.secrets.redactor.value(redactValue(reportFields(report), secretsOf(input))));
      if (this.stopping && outcome.error) return;
      await live.secrets.markFields(live.browser.page);
      const rawUrl = live.browser.currentUrl();
      const pageUrl = rawUrl === undefined ? undefined : live.secrets.redactor.text(rawUrl);
      if (session.status === "RUNNING" && pageUrl !== undefined) {
        step.pageUrl = pageUrl;
        session.currentUrl = pageUrl;
      }
      // The capture starts now, while the outcome is recorded (a commit), so the two overlap; the
      // next step still waits for it, so the picture is the page as this step left it.
      const wanted = live.screenshot === "on" || (live.screenshot === "only-on-failure" && outcome.error !== undefined) || this.viewers.has(session.sessionId);
      const shot = wanted && session.status === "RUNNING" && !this.stopping ? live.browser.capture((page) => live.secrets.maskFor(page)) : Promise.resolve(undefined);
      // A close waits for this step's picture to be written and recorded (the failed step's
      // picture, the one that matters, comes right before the runtime's close).
      live.capture = new Promise<void>((done) => (pictureRecorded = done));
      await runningRecorded;
      await this.finishStep(session, step, outcome);
      onFinished();
      const png = await shot;
      // Taken while the session ran; written even if it was closed meanwhile (right after a failed step).
      if (png && !this.stopping && (await saveScreenshot(this.screenshotDir, step.stepId, png))) {
        step.screenshot = true;
        this.touch(session, step.stepId);
        // Not awaited by the queue: nothing else writes this step's row now, and a crash that loses
        // it only loses the debugger's link to this picture. A close waits for it.
        const recorded = pictureRecorded;
        pictureRecorded = undefined;
        void this.deps.store.saveStep({ ...step }).catch(() => undefined).then(recorded);
      }
    } catch (error) {
      // Never let one step break the session's queue.
      if (!isFinished(step.status) && !this.stopping) {
        await this.finishStep(session, step, { error: redactValue(toWireError(error), secretsOf(input)) }).catch(() => undefined);
      }
    } finally {
      pictureRecorded?.();
      live.pending -= 1;
      if (live.pending === 0) this.armIdleTimer(session, live);
    }
  }

  private async finishStep(session: SessionRecord, step: StepRecord, outcome: { result?: unknown; error?: WireError; endedAt?: string }): Promise<void> {
    const now = outcome.endedAt ?? new Date().toISOString();
    const finished: StepRecord = {
      ...step,
      finishedAt: now,
      durationMs: step.startedAt ? Date.parse(now) - Date.parse(step.startedAt) : null,
      ...(outcome.error ? { status: "FAILED" as const, error: outcome.error } : { status: "SUCCEEDED" as const, result: outcome.result }),
    };
    // The step's row and the session's version in one transaction, committed before anyone
    // waiting hears of the outcome: the record in memory (what status answers read) changes only
    // once the database holds it. A full disk holds the session's queue here until space returns.
    try {
      await this.writePersistently(
        `the outcome of step ${step.stepId}`,
        () => this.deps.store.saveStep(finished, session.status === "RUNNING" ? { ...session, version: session.version + 1, updatedAt: now } : undefined),
        () => this.stopping || session.status !== "RUNNING",
      );
    } finally {
      Object.assign(step, finished);
      this.bump(session);
      this.emit(session, step.stepId);
    }
  }

  private touch(session: SessionRecord, stepId?: string): void {
    this.bump(session);
    this.emit(session, stepId);
  }

  private bump(session: SessionRecord): void {
    session.version += 1;
    session.updatedAt = new Date().toISOString();
  }

  private emit(session: SessionRecord, stepId?: string): void {
    const change: SessionChange = { sessionId: session.sessionId, version: session.version, ...(stepId ? { stepId } : {}) };
    this.events.emit("change", change);
  }

  private armIdleTimer(session: SessionRecord, live: LiveSession): void {
    if (session.kind !== "STEP" || session.status !== "RUNNING" || this.stopping) return;
    this.disarmIdleTimer(live);
    const { idleTimeoutMs } = this.deps.options;
    live.idleTimer = setTimeout(() => {
      if (session.status !== "RUNNING" || live.pending > 0) return;
      void this.finishSession(session.sessionId, {
        status: "CANCELLED",
        error: { code: "WF_SESSION_IDLE_TIMEOUT", message: `No step came for ${idleTimeoutMs} ms, so the session was closed and its browser context freed. Create a new session.` },
      }).catch(() => undefined);
    }, idleTimeoutMs);
    live.idleTimer.unref();
  }

  private disarmIdleTimer(live: LiveSession): void {
    if (live.idleTimer) clearTimeout(live.idleTimer);
    live.idleTimer = undefined;
  }

  private async waitUntil(sessionId: string, ready: () => boolean, waitMs: number, signal?: AbortSignal): Promise<void> {
    if (ready() || waitMs <= 0 || this.stopping) return;
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        if (timer) clearTimeout(timer);
        this.events.off("change", onChange);
        this.events.off("stopping", finish);
        signal?.removeEventListener("abort", finish);
        resolve();
      };
      const onChange = (change: SessionChange) => {
        if (change.sessionId === sessionId && ready()) finish();
      };
      this.events.on("change", onChange);
      this.events.on("stopping", finish);
      signal?.addEventListener("abort", finish, { once: true });
      if (Number.isFinite(waitMs)) timer = setTimeout(finish, waitMs);
    });
  }

  /** Resolves at the next change of a session announced here, after `waitMs`, or when `signal` aborts. */
  private async waitForChangeOf(sessionId: string, waitMs: number, signal?: AbortSignal): Promise<void> {
    let changed = false;
    const unsubscribe = this.onChange((change) => {
      if (change.sessionId === sessionId) changed = true;
    });
    try {
      await this.waitUntil(sessionId, () => changed, waitMs, signal);
    } finally {
      unsubscribe();
    }
  }

  /** The wire form of a step (drops what the server keeps for itself). */
  toStepStatus(step: StepRecord): StepStatus {
    return {
      stepId: step.stepId,
      jobTaskId: step.jobTaskId,
      sessionId: step.sessionId,
      index: step.index,
      type: step.type,
      step: step.step,
      status: step.status,
      createdAt: step.createdAt,
      startedAt: step.startedAt,
      finishedAt: step.finishedAt,
      durationMs: step.durationMs,
      ...(step.status === "SUCCEEDED" ? { result: step.result ?? null } : {}),
      error: step.error,
      pageUrl: step.pageUrl,
      interpreter: step.interpreter ?? null,
      ...(step.type === "ACT" ? { resolved: step.resolved ?? null } : {}),
      usage: step.usage ?? null,
      ...(step.pageReduced ? { pageReduced: true } : {}),
      ...(step.replayed ? { replayed: true } : {}),
    };
  }

  /** The wire form of a session, its steps included. */
  toSessionStatus(session: SessionRecord, steps?: StepRecord[], logs: SessionLogLine[] | undefined = this.logs.get(session.sessionId)): SessionStatus {
    return {
      sessionId: session.sessionId,
      kind: session.kind,
      workflowId: session.workflowId,
      status: session.status,
      version: session.version,
      createdAt: session.createdAt,
      updatedAt: session.updatedAt,
      finishedAt: session.finishedAt,
      currentUrl: session.currentUrl,
      steps: (steps ?? session.stepIds.flatMap((id) => this.steps.get(id) ?? [])).map((step) => this.toStepStatus(step)),
      ...(session.output !== undefined ? { output: session.output } : {}),
      error: session.error,
      ...(logs && logs.length > 0 ? { logs: logs.map((line) => ({ ...line, afterSteps: Math.min(line.afterSteps, session.stepIds.length) })) } : {}),
      viewUrl: this.viewUrl(session),
    };
  }
}

/** The error of a session or step of an instance whose lease ran out. */
function serverLost(what: string): WireError {
  return {
    code: "WF_SERVER_LOST",
    message: `The server instance holding this ${what} stopped renewing its lease (it died, or lost the database), so its browser context is gone. Run it again in a new session.`,
  };
}

function sessionNotFound(sessionId: string): HttpProblem {
  return new HttpProblem("WF_SESSION_NOT_FOUND", `No session has the id ${sessionId}. Use the workflowId (or sessionId) that creating the session returned.`);
}

function sessionClosed(session: SessionRecord): HttpProblem {
  return new HttpProblem("WF_SESSION_CLOSED", `Session ${session.sessionId} is ${session.status.toLowerCase()}; it takes no more steps. Create a new session.`, {
    extra: { sessionStatus: session.status },
  });
}

/** @throws {@link HttpProblem} `WF_IDEMPOTENCY_KEY_REUSED` when a retry's body differs from the first request's. */
function checkSameRequest(existing: StepRecord, requestHash: string, key: string): void {
  // An empty hash (a record from before keyed digests) can't tell: the retry gets the first step.
  if (existing.requestHash !== "" && existing.requestHash !== requestHash) {
    throw new HttpProblem(
      "WF_IDEMPOTENCY_KEY_REUSED",
      `The idempotency key "${key}" was already used in this session for a different step (${existing.stepId}). Use a new key for a new step.`,
      { extra: { stepId: existing.stepId } },
    );
  }
}

/** Session and step ids are lowercase hex (`newId`); anything else names no record and never reaches the store. */
function isRecordId(id: string): boolean {
  return /^[0-9a-f]{1,64}$/.test(id);
}

function isFinished(status: StepState): boolean {
  return status === "SUCCEEDED" || status === "FAILED";
}

function newId(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}

function idempotencyId(sessionId: string, key: string): string {
  return `${sessionId}\u0000${key}`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** The fields of an interpreter's {@link StepReport} a step record keeps. */
function reportFields(report: StepReport): Pick<StepRecord, "interpreter" | "resolved" | "usage" | "pageReduced" | "replayed"> {
  return {
    ...(report.interpreter ? { interpreter: report.interpreter } : {}),
    ...(report.resolved !== undefined ? { resolved: report.resolved } : {}),
    ...(report.usage ? { usage: { ...report.usage } } : {}),
    ...(report.pageReduced ? { pageReduced: true } : {}),
    ...(report.replayed ? { replayed: true } : {}),
  };
}

/** The secret values of a step, longest first so a secret containing another is replaced whole. */
function secretsOf(input: StepInput): string[] {
  return input.redact && input.redact.length > 0 ? [...input.redact].sort((a, b) => b.length - a.length) : [];
}


function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Turns anything thrown by a step into its wire error, keeping wf codes. */
export function toWireError(error: unknown): WireError {
  if (isWfError(error)) {
    const details = (error as { details?: unknown }).details;
    return { code: error.code, message: error.message, ...(details !== undefined ? { details } : {}) };
  }
  if (error instanceof Error) {
    if (error.name === "TimeoutError") return { code: "WF_STEP_TIMEOUT", message: error.message.split("\n")[0] ?? error.message };
    return { code: "WF_STEP_FAILED", message: error.message.split("\n")[0] ?? error.message };
  }
  return { code: "WF_STEP_FAILED", message: String(error) };
}
