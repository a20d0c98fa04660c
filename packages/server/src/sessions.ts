/**
 * Sessions and steps: one browser context (and page) per session, a per-session queue so the
 * steps of one session run one at a time in arrival order while sessions run concurrently, step
 * timeouts, the idle timeout, idempotency keys, screenshots, change notifications for long-polls
 * and live pages, and the journal records that let a restart lose nothing finished.
 */
import { createHmac, randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { BrowserContext, BrowserContextOptions, CDPSession, Page } from "playwright-core";
import {
  normalizeStepSchema,
  routePath,
  ROUTES,
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
} from "@wf/core/protocol";
import { isWfError, redactText, redactValue } from "@wf/core";
import type { BrowserHost } from "./browser.js";
import { HttpProblem, isHttpProblem, StepExecutionError } from "./errors.js";
import { STORAGE_RETRY_AFTER_MS, type Journal, type JournalReplay } from "./journal.js";
import type { ResolvedServerOptions } from "./options.js";
import { REQUEST_HASH_PREFIX } from "./secret.js";
import { blockPrivateNetworkRequests } from "./network-guard.js";
import type { StepInterpreter, StepReport } from "./interpreter/types.js";
import { answerErrors } from "./interpreter/_answer-check.js";
import { replayActions, replayOptions } from "./interpreter/replay.js";

/** How long a client is asked to wait after a 429, in ms. */
const TOO_MANY_SESSIONS_RETRY_AFTER_MS = 2_000;
/** How long a timed-out step's interpreter call may take to wind down before the next step starts, in ms. */
const SETTLE_GRACE_MS = 2_000;
/** Longest a screenshot after a step may take, in ms. */
const SCREENSHOT_TIMEOUT_MS = 5_000;

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
}

/** Options of {@link SessionManager.submitStep} and {@link SessionManager.runStep}. */
export interface SubmitStepOptions {
  /** Idempotency key: the same key in the same session returns the first step without running again. */
  idempotencyKey?: string;
  /** Aborts the step (it fails with the abort reason's code, or `WF_ABORTED`). */
  signal?: AbortSignal;
}

/** The public record of a session (what the session manager keeps and journals). */
export interface SessionRecord {
  sessionId: string;
  kind: SessionKind;
  workflowId: string | null;
  /** Token that opens the session's debugger page and its live updates without the API key. */
  token: string;
  /** The job id reported with every step of the session. */
  jobTaskId: string;
  status: SessionState;
  version: number;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  currentUrl: string | null;
  output?: unknown;
  error: WireError | null;
  /** Whether the context runs behind a proxy. */
  proxied: boolean;
  stepIds: string[];
}

/** The record of a step: its wire status plus what the server keeps about the request. */
export interface StepRecord {
  stepId: string;
  jobTaskId: string;
  sessionId: string;
  index: number;
  type: StepType;
  step: string;
  status: StepState;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  result?: unknown;
  error: WireError | null;
  pageUrl: string | null;
  /** The request without `currentDom` (recorded by length and SHA-256 instead). */
  request: {
    schema?: Record<string, unknown>;
    currentPageURL?: string;
    currentDomBytes?: number;
    /** HMAC-SHA-256 of `currentDom` with the server's secret (see `secret.ts`). */
    currentDomHmac?: string;
    timeoutMs?: number;
  };
  idempotencyKey: string | null;
  /**
   * `hmac-sha256:<hex>`: HMAC-SHA-256 of the canonical request body with the server's secret, to
   * tell a reused idempotency key from a retry. Never a bare digest: the body may carry secrets.
   * Empty for records of older servers (their bare SHA-256 is dropped at start).
   */
  requestHash: string;
  /** True when a screenshot was taken after the step. */
  screenshot: boolean;
  /** What the interpreter reported (see `StepReport`), once the step ran. */
  interpreter?: StepInterpreterKind;
  resolved?: string;
  usage?: StepUsage;
  pageReduced?: boolean;
  replayed?: boolean;
}

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
  context: BrowserContext;
  page: Page;
  /** The tail of the session's step queue. */
  tail: Promise<void>;
  /** Steps queued or running. */
  pending: number;
  running: AbortController | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

/** Dependencies of the {@link SessionManager}. */
export interface SessionManagerDeps {
  options: ResolvedServerOptions;
  browser: BrowserHost;
  journal: Journal;
  interpreter: StepInterpreter;
  /** The base URL of links handed out (`viewUrl`, `debuggerUrl`), known once the server listens. */
  publicUrl: () => string;
  /** Key of the request digests (idempotency); see `loadServerSecret`. @default random per process (digests then don't survive a restart) */
  secret?: Buffer;
}

/**
 * Owns every session and step. One instance per server, reached through `ServerContext.sessions`.
 * All methods that change state write to the journal before they resolve.
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
  private readonly journaling = new Map<string, Promise<void>>();
  private readonly events = new EventEmitter();
  /** One CDP session per page, for screenshots (opened at the first one). */
  private readonly cdpSessions = new WeakMap<Page, Promise<CDPSession>>();
  private reserved = 0;
  private stopping = false;

  private readonly secret: Buffer;

  constructor(private readonly deps: SessionManagerDeps) {
    this.events.setMaxListeners(0);
    this.secret = deps.secret ?? randomBytes(32);
  }

  /** Folder of the screenshots taken after steps. */
  get screenshotDir(): string {
    return join(this.deps.options.dataDir, "screenshots");
  }

  /**
   * Rebuilds sessions and steps from the journal. Steps that were `QUEUED`/`RUNNING` and sessions
   * that were open become `FAILED` with code `WF_SERVER_RESTARTED`; then the journal is compacted
   * to one line per record (so it holds those changes too). Unreadable lines are first copied to
   * `journal.corrupt-<time>.ndjson` beside the journal (see {@link Journal.quarantine}).
   *
   * @returns where the unreadable lines were kept, if there were any.
   */
  async restore(replay: JournalReplay): Promise<{ quarantinePath?: string }> {
    for (const event of replay.events) {
      if (event.type === "session") {
        const record = event.record as unknown as SessionRecord;
        if (typeof record.sessionId === "string") this.sessions.set(record.sessionId, record);
      } else if (event.type === "step") {
        const record = event.record as unknown as StepRecord;
        if (typeof record.stepId === "string") this.steps.set(record.stepId, record);
      } else if (event.type === "stored-log") {
        const { sessionId, at, message, data, afterSteps } = event.record as { sessionId?: unknown; at?: unknown; message?: unknown; data?: Record<string, unknown>; afterSteps?: unknown };
        if (typeof sessionId !== "string" || typeof message !== "string") continue;
        // Lines of older servers have no `at`/`afterSteps` of their own: the journal line's time, and after every step.
        const line: SessionLogLine = { at: typeof at === "string" ? at : event.at, message, ...(data ? { data } : {}), afterSteps: typeof afterSteps === "number" ? afterSteps : Number.MAX_SAFE_INTEGER };
        this.logs.set(sessionId, [...(this.logs.get(sessionId) ?? []), line]);
      }
    }
    // A session's step list comes from the step records (a step is journaled before its session is).
    const bySession = new Map<string, StepRecord[]>();
    for (const step of this.steps.values()) bySession.set(step.sessionId, [...(bySession.get(step.sessionId) ?? []), step]);
    for (const session of this.sessions.values()) {
      session.stepIds = (bySession.get(session.sessionId) ?? []).sort((a, b) => a.index - b.index).map((s) => s.stepId);
    }
    const now = new Date().toISOString();
    let changed = replay.skippedLines.length > 0;
    for (const step of this.steps.values()) {
      // Bare SHA-256 digests of older servers could give away a secret of the body: dropped.
      if (typeof step.requestHash === "string" && step.requestHash !== "" && !step.requestHash.startsWith(REQUEST_HASH_PREFIX)) {
        step.requestHash = "";
        changed = true;
      }
      const legacyDom = step.request as { currentDomSha256?: string } | undefined;
      if (legacyDom?.currentDomSha256 !== undefined) {
        delete legacyDom.currentDomSha256;
        changed = true;
      }
      if (step.idempotencyKey) this.idempotency.set(idempotencyId(step.sessionId, step.idempotencyKey), step.stepId);
      if (step.status === "QUEUED" || step.status === "RUNNING") {
        step.error = {
          code: "WF_SERVER_RESTARTED",
          message: `The server stopped while this step was ${step.status.toLowerCase()}, so it did not finish. Run it again in a new session.`,
        };
        step.status = "FAILED";
        step.finishedAt = now;
        step.durationMs = step.startedAt ? Math.max(0, Date.parse(now) - Date.parse(step.startedAt)) : null;
        changed = true;
      }
    }
    for (const session of this.sessions.values()) {
      if (session.status === "RUNNING") {
        session.status = "FAILED";
        session.error = { code: "WF_SERVER_RESTARTED", message: "The server stopped while this session was open, so its browser context is gone. Create a new session." };
        session.finishedAt = now;
        session.updatedAt = now;
        session.version += 1;
        changed = true;
      }
    }
    // Other record types (e.g. the stored-workflow routes') are kept as they were.
    const others = replay.events.filter((e) => e.type !== "session" && e.type !== "step");
    const quarantinePath = await this.deps.journal.quarantine(replay.corruptLines);
    if (changed || replay.events.length > this.sessions.size + this.steps.size + others.length) {
      await this.deps.journal.rewrite([
        ...[...this.sessions.values()].map((record) => ({ type: "session", record: { ...record } })),
        ...[...this.steps.values()].map((record) => ({ type: "step", record: { ...record } })),
        ...others,
      ]);
    }
    return quarantinePath !== undefined ? { quarantinePath } : {};
  }

  /** Number of sessions holding a browser context. */
  get openSessionCount(): number {
    return this.live.size + this.reserved;
  }

  /**
   * Creates a session: a new browser context and page (behind `proxy` when given), recorded and
   * journaled. A `STEP` session is closed after `idleTimeoutMs` without steps.
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
    // The slot stays reserved until the session is on disk and registered, or given back.
    this.reserved += 1;
    let context: BrowserContext;
    let page: Page;
    try {
      const guarded = this.deps.options.blockPrivateNetworks;
      context = await this.deps.browser.newContext({
        ...(options.proxy ? { proxy: toProxySettings(options.proxy) } : {}),
        // A service worker's requests would bypass the guard's route.
        ...(guarded ? { serviceWorkers: "block" as const } : {}),
      });
      if (guarded) await blockPrivateNetworkRequests(context).catch(async (error: unknown) => {
        await context.close().catch(() => undefined);
        throw error;
      });
      page = await context.newPage();
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
    };
    // Nothing is registered before the session is on disk: a failed write (a full disk, 503
    // WF_STORAGE_UNAVAILABLE) frees the browser context and leaves no trace.
    try {
      await this.deps.journal.append({ type: "session", record: { ...session } });
    } catch (error) {
      await context.close().catch(() => undefined);
      throw error;
    } finally {
      this.reserved -= 1;
    }
    this.sessions.set(session.sessionId, session);
    const live: LiveSession = { context, page, tail: Promise.resolve(), pending: 0, running: undefined, idleTimer: undefined };
    this.live.set(session.sessionId, live);
    // A context that closes on its own (the browser crashed or a remote browser went away) ends the session.
    context.once("close", () => {
      if (this.live.get(session.sessionId) !== live || session.status !== "RUNNING" || this.stopping) return;
      void this.finishSession(session.sessionId, {
        status: "FAILED",
        error: { code: "WF_BROWSER_CLOSED", message: "The session's browser context closed unexpectedly (the browser crashed or disconnected). Create a new session." },
      }).catch(() => undefined);
    });
    // A crashed renderer makes every later step fail: the session ends FAILED at once and frees its
    // slot, rather than stay RUNNING until the idle timeout.
    const onCrash = (crashed: Page) => {
      if (this.live.get(session.sessionId) !== live || crashed !== live.page || session.status !== "RUNNING" || this.stopping) return;
      void this.finishSession(session.sessionId, {
        status: "FAILED",
        error: { code: "WF_PAGE_CRASHED", message: `The session's page crashed (its renderer process died) at ${crashed.url() || "about:blank"}. Create a new session.` },
      }).catch(() => undefined);
    };
    page.on("crash", onCrash);
    context.on("page", (opened) => opened.on("crash", onCrash));
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
    const session = this.requireSession(sessionId);
    const requestHash = this.hashRequest(input);
    if (options.idempotencyKey !== undefined) {
      const existingId = this.idempotency.get(idempotencyId(sessionId, options.idempotencyKey));
      const existing = existingId ? this.steps.get(existingId) : undefined;
      if (existing) {
        // A retry that arrives while the first request is still being written gets its outcome:
        // the same ids once written, the same 503 if the write failed.
        await this.journaling.get(existing.stepId);
        // An empty hash (a record from before keyed digests) can't tell: the retry gets the first step.
        if (existing.requestHash !== "" && existing.requestHash !== requestHash) {
          throw new HttpProblem(
            "WF_IDEMPOTENCY_KEY_REUSED",
            `The idempotency key "${options.idempotencyKey}" was already used in this session for a different step (${existing.stepId}). Use a new key for a new step.`,
            { extra: { stepId: existing.stepId } },
          );
        }
        return { stepId: existing.stepId, jobTaskId: existing.jobTaskId, created: false, done: this.stepDone.get(existing.stepId) ?? this.waitForStep(existing.stepId, Infinity) };
      }
    }
    if (session.status !== "RUNNING" || !this.live.has(sessionId)) {
      throw new HttpProblem("WF_SESSION_CLOSED", `Session ${sessionId} is ${session.status.toLowerCase()}; it takes no more steps. Create a new session.`, {
        extra: { sessionStatus: session.status },
      });
    }
    if (input.type === "ACT" && normalizeStepSchema(input.schema) !== undefined) {
      throw new HttpProblem("WF_VALIDATION_FAILED", "An ACT step takes no schema; send an empty or no schema, or make the step an ASK.", {
        errors: [{ path: "/schema", message: "must be empty or absent for an ACT step" }],
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
    const journaled = this.deps.journal.append({ type: "step", record: { ...step } });
    this.journaling.set(step.stepId, journaled);
    const done = new Promise<StepStatus>((resolve) => {
      const finished = () => resolve(this.toStepStatus(step));
      live.tail = live.tail
        .then(async () => {
          // A step that never reached the disk was answered 503 and never runs.
          if (!(await journaled.then(() => true, () => false))) return;
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
      await journaled;
    } catch (error) {
      this.unregisterStep(session, live, step);
      throw error;
    } finally {
      this.journaling.delete(step.stepId);
      this.emit(session, step.stepId);
    }
    return { stepId: step.stepId, jobTaskId: step.jobTaskId, created: true, done };
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

  /**
   * Appends events, retrying while the journal reports the disk unavailable (every
   * {@link STORAGE_RETRY_AFTER_MS}), until written or `giveUp()` says the outcome no longer
   * matters (the server stops, the session ended).
   * @throws the last write error when it gave up.
   */
  private async appendPersistently(events: () => Array<{ type: string; record: Record<string, unknown> }>, giveUp: () => boolean): Promise<void> {
    for (;;) {
      try {
        await Promise.all(events().map((event) => this.deps.journal.append(event)));
        return;
      } catch (error) {
        if (giveUp() || !isHttpProblem(error) || error.code !== "WF_STORAGE_UNAVAILABLE") throw error;
        await delay(STORAGE_RETRY_AFTER_MS);
      }
    }
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
    const session = this.requireSession(sessionId);
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
      this.disarmIdleTimer(live);
      const reason = new StepExecutionError(
        end.error?.code ?? "WF_SESSION_CLOSED",
        end.error?.message ?? `Session ${sessionId} was closed (${end.status}) before this step finished.`,
      );
      live.running?.abort(reason);
      await live.context.close().catch(() => undefined);
      await live.tail.catch(() => undefined);
      this.live.delete(sessionId);
    }
    this.bump(session);
    try {
      await this.deps.journal.append({ type: "session", record: { ...session } });
    } catch (error) {
      // The browser context is gone either way; the end is written as soon as the disk takes it.
      void this.appendPersistently(() => [{ type: "session", record: { ...session } }], () => this.stopping).catch(() => undefined);
      throw error;
    } finally {
      this.emit(session);
    }
    return this.toSessionStatus(session);
  }

  /**
   * Adds a `log()` line to a running session (a stored run's): journaled, then shown in the
   * session's status (`logs`) and announced to long-polls like any change. `message` and `data`
   * must already be redacted.
   *
   * @throws {@link HttpProblem} `WF_SESSION_NOT_FOUND` (404); the journal's `WF_STORAGE_UNAVAILABLE` (503).
   */
  async appendLog(sessionId: string, line: { message: string; data?: Record<string, unknown> }): Promise<void> {
    const session = this.requireSession(sessionId);
    const entry: SessionLogLine = { at: new Date().toISOString(), message: line.message, ...(line.data ? { data: line.data } : {}), afterSteps: session.stepIds.length };
    this.logs.set(sessionId, [...(this.logs.get(sessionId) ?? []), entry]);
    try {
      await this.deps.journal.append({ type: "stored-log", record: { sessionId, ...entry } });
    } finally {
      this.touch(session);
    }
  }

  /** The session's record, or undefined. */
  getSession(sessionId: string): SessionRecord | undefined {
    return this.sessions.get(sessionId);
  }

  /** The step's record, or undefined. */
  getStep(stepId: string): StepRecord | undefined {
    return this.steps.get(stepId);
  }

  /** The wire status of a session. @throws {@link HttpProblem} `WF_SESSION_NOT_FOUND` (404). */
  sessionStatus(sessionId: string): SessionStatus {
    return this.toSessionStatus(this.requireSession(sessionId));
  }

  /** The wire status of a step. @throws {@link HttpProblem} `WF_STEP_NOT_FOUND` (404). */
  stepStatus(stepId: string): StepStatus {
    const step = this.steps.get(stepId);
    if (!step) throw new HttpProblem("WF_STEP_NOT_FOUND", `No step has the id ${stepId}. Use the stepId a step run returned.`);
    return this.toStepStatus(step);
  }

  /**
   * Long-poll of a step: resolves with its status once it finished, or after `waitMs`.
   * @throws {@link HttpProblem} `WF_STEP_NOT_FOUND` (404).
   */
  async waitForStep(stepId: string, waitMs: number, signal?: AbortSignal): Promise<StepStatus> {
    const step = this.steps.get(stepId);
    if (!step) throw new HttpProblem("WF_STEP_NOT_FOUND", `No step has the id ${stepId}. Use the stepId a step run returned.`);
    await this.waitUntil(step.sessionId, () => isFinished(step.status), waitMs, signal);
    return this.toStepStatus(step);
  }

  /**
   * Long-poll of a session: with `since`, resolves once its `version` exceeds it; without, once
   * the session ended. Resolves after `waitMs` at the latest.
   * @throws {@link HttpProblem} `WF_SESSION_NOT_FOUND` (404).
   */
  async waitForSession(sessionId: string, options: { since?: number; waitMs: number }, signal?: AbortSignal): Promise<SessionStatus> {
    const session = this.requireSession(sessionId);
    // A finished session changes no more: answer at once rather than hold the poll for nothing.
    const ready =
      options.since !== undefined
        ? () => session.version > options.since! || session.status !== "RUNNING"
        : () => session.status !== "RUNNING";
    await this.waitUntil(sessionId, ready, options.waitMs, signal);
    return this.toSessionStatus(session);
  }

  /** Calls `listener` on every change of any session or step. @returns a function that unsubscribes. */
  onChange(listener: (change: SessionChange) => void): () => void {
    this.events.on("change", listener);
    return () => this.events.off("change", listener);
  }

  /** Path of the PNG screenshot taken after a step, or undefined when there is none. */
  screenshotPath(stepId: string): string | undefined {
    const step = this.steps.get(stepId);
    return step?.screenshot ? join(this.screenshotDir, `${stepId}.png`) : undefined;
  }

  /** The debugger / preview page of a session, with its token. */
  viewUrl(session: SessionRecord): string {
    return `${this.deps.publicUrl()}${routePath(ROUTES.sessionView, { id: session.sessionId })}?token=${encodeURIComponent(session.token)}`;
  }

  /**
   * Closes every browser context without recording the sessions as ended, so the next start marks
   * them (and their unfinished steps) `FAILED` with `WF_SERVER_RESTARTED`.
   */
  async close(): Promise<void> {
    this.stopping = true;
    const lives = [...this.live.values()];
    this.live.clear();
    await Promise.all(
      lives.map(async (live) => {
        this.disarmIdleTimer(live);
        live.running?.abort(new StepExecutionError("WF_SERVER_RESTARTED", "The server is stopping."));
        await live.context.close().catch(() => undefined);
      }),
    );
    this.events.emit("stopping");
  }

  // -------------------------------------------------------------------------------------------

  /** Keyed digest of the step request with keys sorted, so the same body digests the same however it was written. */
  private hashRequest(input: StepInput): string {
    return REQUEST_HASH_PREFIX + createHmac("sha256", this.secret).update(canonicalJson({ ...input })).digest("hex");
  }

  private requireSession(sessionId: string): SessionRecord {
    const session = this.sessions.get(sessionId);
    if (!session) throw new HttpProblem("WF_SESSION_NOT_FOUND", `No session has the id ${sessionId}. Use the workflowId (or sessionId) that creating the session returned.`);
    return session;
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
      // Not awaited: no answer depends on RUNNING being on disk (a restart fails QUEUED and RUNNING
      // steps alike), and the step's end is written after it in the same ordered file.
      const runningJournaled = this.deps.journal.append({ type: "step", record: { ...step } }).catch(() => undefined);

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
      const work = this.interpret(live, input, controller.signal, timeoutMs, report);
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
        externalSignal?.removeEventListener("abort", onExternalAbort);
        live.running = undefined;
      }
      outcome = redactValue(outcome, secretsOf(input));
      Object.assign(step, redactValue(reportFields(report), secretsOf(input)));
      if (this.stopping && outcome.error) return;
      if (session.status === "RUNNING" && !live.page.isClosed()) {
        step.pageUrl = live.page.url();
        session.currentUrl = step.pageUrl;
      }
      // The capture starts now, while the outcome is journaled (an fsync), so the two overlap; the
      // next step still waits for it, so the picture is the page as this step left it.
      const shot = this.capturePage(session, live);
      await runningJournaled;
      await this.finishStep(session, step, outcome);
      onFinished();
      if (await this.saveScreenshot(session, step, await shot)) {
        this.touch(session, step.stepId);
        // Not awaited: the line is ordered before the next step's lines in the same file, and a
        // restart that loses it only loses the debugger's link to this picture.
        this.deps.journal.append({ type: "step", record: { ...step } }).catch(() => undefined);
      }
    } catch (error) {
      // Never let one step break the session's queue.
      if (!isFinished(step.status) && !this.stopping) {
        await this.finishStep(session, step, { error: redactValue(toWireError(error), secretsOf(input)) }).catch(() => undefined);
      }
    } finally {
      live.pending -= 1;
      if (live.pending === 0) this.armIdleTimer(session, live);
    }
  }

  private async interpret(live: LiveSession, input: StepInput, signal: AbortSignal, timeoutMs: number, report: StepReport): Promise<unknown> {
    const { interpreter } = this.deps;
    if (live.page.isClosed()) live.page = await live.context.newPage();
    const base = { timeoutMs, signal, secrets: secretsOf(input), report };
    if (input.type === "ACT") {
      if (input.replay) return replayActions({ page: live.page, instruction: input.step, ...base }, input.replay, replayOptions(this.deps.options));
      return interpreter.act({ page: live.page, instruction: input.step, ...base });
    }
    const schema = normalizeStepSchema(input.schema);
    let answer: unknown;
    if (input.currentDom !== undefined) {
      const scratch = await live.context.newPage();
      try {
        await scratch.setContent(withBaseHref(input.currentDom, input.currentPageURL), { timeout: timeoutMs, waitUntil: "domcontentloaded" });
        answer = await interpreter.ask({ page: scratch, question: input.step, ...(schema ? { schema } : {}), ...base });
      } finally {
        await scratch.close().catch(() => undefined);
      }
    } else {
      answer = await interpreter.ask({ page: live.page, question: input.step, ...(schema ? { schema } : {}), ...base });
    }
    if (schema) validateAnswer(answer, schema.schema);
    return answer;
  }

  /**
   * Captures the session's page as a PNG through CDP `Page.captureScreenshot` with
   * `optimizeForSpeed` (faster encoding, larger file); see "Speed" in the README for the
   * figures behind this choice. @returns the image, or undefined when the page can't be captured
   * (closed mid-way, crashed, slower than `SCREENSHOT_TIMEOUT_MS`).
   */
  private async capturePage(session: SessionRecord, live: LiveSession): Promise<Buffer | undefined> {
    if (session.status !== "RUNNING" || live.page.isClosed() || this.stopping) return undefined;
    const page = live.page;
    let timer: NodeJS.Timeout | undefined;
    try {
      let cdp = this.cdpSessions.get(page);
      if (!cdp) {
        cdp = page.context().newCDPSession(page);
        this.cdpSessions.set(page, cdp);
      }
      const capture = (await cdp).send("Page.captureScreenshot", { format: "png", optimizeForSpeed: true });
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`The screenshot took over ${SCREENSHOT_TIMEOUT_MS} ms.`)), SCREENSHOT_TIMEOUT_MS);
      });
      const { data } = await Promise.race([capture, timeout]);
      return Buffer.from(data, "base64");
    } catch {
      this.cdpSessions.delete(page);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Writes a captured PNG to `<dataDir>/screenshots/<stepId>.png` and marks the step. @returns whether it did. */
  private async saveScreenshot(session: SessionRecord, step: StepRecord, png: Buffer | undefined): Promise<boolean> {
    if (!png || session.status !== "RUNNING" || this.stopping) return false;
    try {
      await mkdir(this.screenshotDir, { recursive: true });
      await writeFile(join(this.screenshotDir, `${step.stepId}.png`), png);
      step.screenshot = true;
      return true;
    } catch {
      // A full or read-only disk leaves the step without a screenshot.
      return false;
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
    // One group commit for both lines, on disk before anyone waiting hears of the outcome: the
    // record in memory (what status answers read) changes only once the disk holds it. A full
    // disk holds the session's queue here until space returns.
    try {
      await this.appendPersistently(
        () => [
          { type: "step", record: { ...finished } },
          ...(session.status === "RUNNING" ? [{ type: "session", record: { ...session, version: session.version + 1, updatedAt: now } }] : []),
        ],
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
  toSessionStatus(session: SessionRecord): SessionStatus {
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
      steps: session.stepIds.flatMap((id) => {
        const step = this.steps.get(id);
        return step ? [this.toStepStatus(step)] : [];
      }),
      ...(session.output !== undefined ? { output: session.output } : {}),
      error: session.error,
      ...(this.logs.has(session.sessionId) ? { logs: this.logs.get(session.sessionId)!.map((line) => ({ ...line, afterSteps: Math.min(line.afterSteps, session.stepIds.length) })) } : {}),
      viewUrl: this.viewUrl(session),
    };
  }
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

/**
 * Checks an ASK's answer against the step's JSON Schema (converted with zod 4's
 * `z.fromJSONSchema`). A schema zod can't convert is not checked.
 * @throws {@link StepExecutionError} `WF_ANSWER_INVALID` listing each mismatch as a JSON Pointer.
 */
export function validateAnswer(answer: unknown, schema: Record<string, unknown>): void {
  const errors = answerErrors(answer, schema);
  if (errors.length > 0) {
    throw new StepExecutionError(
      "WF_ANSWER_INVALID",
      `The answer does not match the step's schema: ${errors.map((e) => `${e.path || "(root)"} ${e.message}`).join("; ")}`,
      { details: { errors, answer } },
    );
  }
}

/** Puts `<base href>` into HTML so its relative links resolve against `baseUrl`. */
export function withBaseHref(html: string, baseUrl: string | undefined): string {
  if (!baseUrl) return html;
  const base = `<base href="${baseUrl.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}">`;
  if (/<head[^>]*>/i.test(html)) return html.replace(/<head[^>]*>/i, (head) => head + base);
  return base + html;
}

function toProxySettings(proxy: string | NonNullable<BrowserContextOptions["proxy"]>): NonNullable<BrowserContextOptions["proxy"]> {
  if (typeof proxy !== "string") return proxy;
  const url = new URL(proxy);
  const settings: NonNullable<BrowserContextOptions["proxy"]> = { server: `${url.protocol}//${url.host}` };
  if (url.username) settings.username = decodeURIComponent(url.username);
  if (url.password) settings.password = decodeURIComponent(url.password);
  return settings;
}
