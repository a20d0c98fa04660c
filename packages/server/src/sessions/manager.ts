/**
 * The {@link SessionManager}: the one object the rest of the server reaches the session wing
 * through (`ServerContext.sessions`). It composes the wing's parts and holds no logic of its own:
 *
 * - `registry.ts`: the sessions open here, their steps, idempotency keys, capacity, the reads
 *   that fall back to the store, the wire shapes (`wire.ts`);
 * - `lifecycle.ts`: creation (capacity, the browser context, the trace), the end, `log()` lines,
 *   the shutdown;
 * - `queue.ts`: submission, idempotency and the per-session step queue;
 * - `step-runner.ts`: one step's run (deadline, abort, redaction, screenshot policy) and the
 *   commit of its outcome;
 * - `feed.ts` and `long-poll.ts`: the change feed, the debugger pages watching, the long-polls;
 * - `idle.ts`: the idle timeout of step sessions;
 * - `recovery.ts`: work left open by a previous run or a lost instance;
 * - `session-browser.ts`: the browser side (context, page, step's interpreter call, screenshots,
 *   trace), with the session's tabs (`tabs.ts`), secrets (`secrets.ts`: what is masked and
 *   redacted) and uploaded files (`uploads.ts`).
 *
 * `index.ts` is the wing's entry for the rest of the server.
 *
 * Errors are the wing's own (`errors.ts`), never HTTP ones: the HTTP edge maps them to problem
 * details (`http/problems.ts`).
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { SessionLogLine, SessionState, SessionStatus, StepDownload, StepStatus, WireError } from "@wf/core/protocol";
import { StoreRetry, stderrLog } from "../store/retry.js";
import type { RecoveredWork, SessionRecord, StepRecord } from "../store/store.js";
import { ChangeFeed } from "./feed.js";
import { IdleTimers } from "./idle.js";
import { SessionLifecycle } from "./lifecycle.js";
import { LongPolls } from "./long-poll.js";
import { StepQueue } from "./queue.js";
import { SessionRecovery } from "./recovery.js";
import { SessionRegistry } from "./registry.js";
import { screenshotFile } from "./session-browser.js";
import { StepRunner } from "./step-runner.js";
import type { CreateSessionOptions, SessionChange, SessionManagerDeps, StepInput, SubmitStepOptions, SubmittedStep } from "./types.js";
import { toStepStatus } from "./wire.js";
import { Telemetry } from "../observability/telemetry.js";
import { downloadFile } from "./downloads.js";

/**
 * Owns every session and step. One instance per server, reached through `ServerContext.sessions`.
 * Every method that changes state has the change committed to the store before it resolves.
 */
export class SessionManager {
  private readonly registry: SessionRegistry;
  private readonly feed: ChangeFeed;
  private readonly lifecycle: SessionLifecycle;
  private readonly queue: StepQueue;
  private readonly longPolls: LongPolls;
  private readonly recovery: SessionRecovery;
  /** Folder of the screenshots taken after steps. */
  readonly screenshotDir: string;
  private readonly dataDir: string;

  constructor(deps: SessionManagerDeps) {
    const { options, store } = deps;
    const storeRetry = deps.storeRetry ?? new StoreRetry({ location: store.location, log: stderrLog });
    const telemetry = deps.telemetry ?? new Telemetry(undefined);
    this.screenshotDir = join(options.dataDir, "screenshots");
    this.dataDir = options.dataDir;
    const registry = (this.registry = new SessionRegistry(store, deps.publicUrl));
    const isStopping = () => registry.stopping;
    const feed = (this.feed = new ChangeFeed(isStopping));
    const idle = new IdleTimers(options.idleTimeoutMs, isStopping, (session, error) => {
      void this.lifecycle.finishSession(session.sessionId, { status: "CANCELLED", error }).catch(() => undefined);
    });
    this.lifecycle = new SessionLifecycle({ options, browser: deps.browser, store, storeRetry, registry, feed, idle, telemetry });
    const runner = new StepRunner({ options, interpreter: deps.interpreter, store, storeRetry, registry, feed, idle, screenshotDir: this.screenshotDir, telemetry });
    this.longPolls = new LongPolls(registry, feed);
    this.queue = new StepQueue({ store, secret: deps.secret ?? randomBytes(32), registry, feed, idle, runner, longPolls: this.longPolls });
    this.recovery = new SessionRecovery({ options, store, registry, feed, lifecycle: this.lifecycle });
  }

  /** Opens a browser context and page ahead of the next session (with `options.warmSessions`). */
  warmUp(): void {
    this.lifecycle.warmUp();
  }

  /** See {@link SessionRecovery.recover}: this instance's work left open by its previous run ends `FAILED` `WF_SERVER_RESTARTED`. */
  recover(): Promise<RecoveredWork> {
    return this.recovery.recover();
  }

  /** See {@link SessionRecovery.failLostInstances}: lost instances' open work ends `FAILED` `WF_SERVER_LOST`. */
  failLostInstances(): Promise<RecoveredWork> {
    return this.recovery.failLostInstances();
  }

  /** See {@link SessionRecovery.loseOwnSessions}: this instance's lease ran out; its sessions end `FAILED` `WF_SERVER_LOST`. */
  loseOwnSessions(): Promise<void> {
    return this.recovery.loseOwnSessions();
  }

  /** Whether this instance holds the session (`{ sessionId }`) or the step's session (`{ stepId }`) in memory: it is open here. */
  holds(target: { sessionId: string } | { stepId: string }): boolean {
    return this.registry.holds(target);
  }

  /** Number of open sessions (see {@link SessionRegistry.openSessionCount}). */
  get openSessionCount(): number {
    return this.registry.openSessionCount;
  }

  /** See {@link SessionLifecycle.createSession}. @throws {@link TooManySessionsError}, `WF_BROWSER_UNAVAILABLE`, `WF_STORAGE_UNAVAILABLE` */
  createSession(options: CreateSessionOptions): Promise<SessionRecord> {
    return this.lifecycle.createSession(options);
  }

  /**
   * See {@link StepQueue.submitStep}: queues a step and returns its ids at once.
   * @throws {@link SessionNotFoundError}, {@link SessionClosedError}, {@link StepRequestInvalidError}, {@link IdempotencyKeyReusedError}
   */
  submitStep(sessionId: string, input: StepInput, options: SubmitStepOptions = {}): Promise<SubmittedStep> {
    return this.queue.submitStep(sessionId, input, options);
  }

  /**
   * Runs a step in a session in-process (same queue, timeouts, records and screenshots as a step
   * run over HTTP) and resolves with its status once it finished, `SUCCEEDED` or `FAILED`.
   * @throws as {@link SessionManager.submitStep}.
   */
  async runStep(sessionId: string, input: StepInput, options: SubmitStepOptions = {}): Promise<StepStatus> {
    const submitted = await this.queue.submitStep(sessionId, input, options);
    return submitted.done;
  }

  /** See {@link SessionLifecycle.finishSession}. @throws {@link SessionNotFoundError}, {@link SessionFinishedError} */
  finishSession(sessionId: string, end: Parameters<SessionLifecycle["finishSession"]>[1]): Promise<SessionStatus> {
    return this.lifecycle.finishSession(sessionId, end);
  }

  /** See {@link SessionLifecycle.appendLog}. @throws {@link SessionNotFoundError} */
  appendLog(sessionId: string, line: { message: string; data?: Record<string, unknown> }): Promise<void> {
    return this.lifecycle.appendLog(sessionId, line);
  }

  /** The session's record (from memory while it is open here, else from the store), or undefined. */
  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return this.registry.getSession(sessionId);
  }

  /** The step's record (from memory while its session is open here, else from the store), or undefined. */
  getStep(stepId: string): Promise<StepRecord | undefined> {
    return this.registry.getStep(stepId);
  }

  /** The wire status of a session. @throws {@link SessionNotFoundError} */
  sessionStatus(sessionId: string): Promise<SessionStatus> {
    return this.registry.sessionStatus(sessionId);
  }

  /** The wire status of a step. @throws {@link StepNotFoundError} */
  stepStatus(stepId: string): Promise<StepStatus> {
    return this.registry.stepStatus(stepId);
  }

  /** Long-poll of a step (see {@link LongPolls.waitForStep}). @throws {@link StepNotFoundError} */
  waitForStep(stepId: string, waitMs: number, signal?: AbortSignal): Promise<StepStatus> {
    return this.longPolls.waitForStep(stepId, waitMs, signal);
  }

  /** Long-poll of a session (see {@link LongPolls.waitForSession}). @throws {@link SessionNotFoundError} */
  waitForSession(sessionId: string, options: { since?: number; waitMs: number }, signal?: AbortSignal): Promise<SessionStatus> {
    return this.longPolls.waitForSession(sessionId, options, signal);
  }

  /** What the debugger page shows (see {@link SessionRegistry.sessionView}). @throws {@link SessionNotFoundError} */
  sessionView(sessionId: string): Promise<{ status: SessionStatus; screenshotStepIds: string[] }> {
    return this.registry.sessionView(sessionId);
  }

  /** Counts a debugger page watching a session (see {@link ChangeFeed.watchView}). @returns a function that ends this watch. */
  watchView(sessionId: string): () => void {
    return this.feed.watchView(sessionId);
  }

  /** How many debugger pages watch a session now (event streams open on it). */
  viewCount(sessionId: string): number {
    return this.feed.viewCount(sessionId);
  }

  /** Calls `listener` on every change of any session or step. @returns a function that unsubscribes. */
  onChange(listener: (change: SessionChange) => void): () => void {
    return this.feed.onChange(listener);
  }

  /** Path of the PNG screenshot taken after a step, or undefined when there is none. */
  async screenshotPath(stepId: string): Promise<string | undefined> {
    const step = await this.registry.getStep(stepId);
    return step?.screenshot ? screenshotFile(this.screenshotDir, stepId) : undefined;
  }

  /**
   * A file a step of the session downloaded: its path and entry (`StepStatus.downloads`), or
   * undefined when the session has no such download.
   */
  async downloadOf(sessionId: string, downloadId: string): Promise<{ path: string; entry: StepDownload } | undefined> {
    if (!/^[0-9a-f]+$/i.test(downloadId)) return undefined;
    const stored = await this.registry.getSession(sessionId);
    if (!stored) return undefined;
    for (const stepId of stored.stepIds) {
      const step = await this.registry.getStep(stepId);
      const entry = step?.downloads?.find((d) => d.downloadId === downloadId);
      if (entry) return { path: downloadFile(this.dataDir, sessionId, downloadId), entry };
    }
    return undefined;
  }

  /** The debugger / preview page of a session, with its token. */
  viewUrl(session: SessionRecord): string {
    return this.registry.viewUrl(session);
  }

  /** See {@link SessionLifecycle.close}: closes every browser context without recording the sessions as ended. */
  close(): Promise<void> {
    return this.lifecycle.close();
  }

  /** The wire form of a step (drops what the server keeps for itself). */
  toStepStatus(step: StepRecord): StepStatus {
    return toStepStatus(step);
  }

  /** The wire form of a session, its steps included (`steps` and `logs` default to what is held here). */
  toSessionStatus(session: SessionRecord, steps?: StepRecord[], logs?: SessionLogLine[]): SessionStatus {
    return logs === undefined ? this.registry.toSessionStatus(session, steps) : this.registry.toSessionStatus(session, steps, logs);
  }
}
