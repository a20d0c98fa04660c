/**
 * The registry of the sessions open on this server: their records and steps in memory (what status
 * answers read while a session is open), their {@link LiveSession} parts, idempotency keys, the
 * capacity count, and the reads that fall back to the store once a session ended here (or is held
 * by another instance).
 */
import { randomBytes } from "node:crypto";
import type { SessionLogLine, SessionStatus, StepState, StepStatus } from "@wf/core/protocol";
import type { SessionRecord, StepRecord, Store, StoredSession } from "../store/store.js";
import { SessionNotFoundError, StepNotFoundError } from "./errors.js";
import type { LiveSession } from "./types.js";
import { toSessionStatus, toStepStatus, viewUrlOf } from "./wire.js";

/** Holds every session open here; one per server, shared by the parts of the session wing. */
export class SessionRegistry {
  /** Records of the sessions open here, by id (changed in place as they change). */
  readonly sessions = new Map<string, SessionRecord>();
  /** Records of their steps, by id. */
  readonly steps = new Map<string, StepRecord>();
  /** The browser side, queue and timers of each session holding a browser context. */
  readonly live = new Map<string, LiveSession>();
  /** The `log()` lines of stored runs, by session id (journaled as `stored-log` lines). */
  readonly logs = new Map<string, SessionLogLine[]>();
  /** Step id by {@link idempotencyId}. */
  readonly idempotency = new Map<string, string>();
  /** Resolves with each queued or running step's status once it finished. */
  readonly stepDone = new Map<string, Promise<StepStatus>>();
  /** Steps whose first record is being written: an identical retry waits for the write's outcome. */
  readonly recording = new Map<string, Promise<void>>();
  /**
   * Steps of sessions open here that have no row in the store yet: their `QUEUED` commit was
   * deferred (docs/decisions/0068-one-commit-per-step.md), so the write of their outcome creates
   * the row, unless someone outside hears of them first ({@link SessionRegistry.record}).
   */
  readonly unrecorded = new Map<string, UnrecordedStep>();
  /** Session creates under way (counted as open). */
  reserved = 0;
  /** Live sessions that ended and are closing their browser context (no longer counted as open). */
  ending = 0;
  /** Set once the server stops: nothing new starts, waits end. */
  stopping = false;

  constructor(
    private readonly store: Store,
    private readonly publicUrl: () => string,
  ) {}

  /**
   * Number of open sessions: those holding a browser context, less those that ended and are
   * closing theirs (a client that sees a session end may create the next at once), plus the
   * creates under way.
   */
  get openSessionCount(): number {
    return this.live.size - this.ending + this.reserved;
  }

  /** Whether this instance holds the session (`{ sessionId }`) or the step's session (`{ stepId }`) in memory: it is open here. */
  holds(target: { sessionId: string } | { stepId: string }): boolean {
    return "sessionId" in target ? this.sessions.has(target.sessionId) : this.steps.has(target.stepId);
  }

  /** The steps of a session open here, in order. */
  stepsOf(session: SessionRecord): StepRecord[] {
    return session.stepIds.flatMap((id) => this.steps.get(id) ?? []);
  }

  /**
   * Makes the rows of these steps exist before anything about them leaves the server (an answer
   * carrying their id or status): a step whose `QUEUED` commit was deferred is written now as it
   * is (`QUEUED`, `RUNNING`, or finished when its outcome's write failed), or the write under
   * way that creates its row is awaited. Steps with a row cost nothing.
   * @throws the store's `WF_STORAGE_UNAVAILABLE` when a row could not be written: the caller must
   *   not answer with the step then.
   */
  async record(stepIds: Iterable<string>): Promise<void> {
    for (const stepId of stepIds) {
      for (let entry = this.unrecorded.get(stepId); entry; entry = this.unrecorded.get(stepId)) {
        const pending = entry;
        await (pending.write ?? this.writeFirstRow(pending, () => this.store.createStep({ ...pending.step })));
      }
    }
  }

  /** {@link SessionRegistry.record} for every step of a session that has no row yet. */
  async recordSession(sessionId: string): Promise<void> {
    if (this.unrecorded.size === 0) return;
    await this.record([...this.unrecorded.values()].filter((e) => e.step.sessionId === sessionId).map((e) => e.step.stepId));
  }

  /**
   * Runs `write`, a write that creates the step's row, as the one under way (a concurrent
   * {@link SessionRegistry.record} awaits it instead of inserting the row twice). The step counts
   * as recorded once it succeeded; a failed write leaves it unrecorded for the next try.
   */
  writeFirstRow(entry: UnrecordedStep, write: () => Promise<void>): Promise<void> {
    const attempt: Promise<void> = write().then(
      () => {
        if (this.unrecorded.get(entry.step.stepId) === entry) this.unrecorded.delete(entry.step.stepId);
      },
      (error: unknown) => {
        if (entry.write === attempt) entry.write = undefined;
        throw error;
      },
    );
    entry.write = attempt;
    return attempt;
  }

  /** The session's record (from memory while it is open here, else from the store), or undefined. */
  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    if (!isRecordId(sessionId)) return undefined;
    return this.sessions.get(sessionId) ?? (await this.store.getSession(sessionId))?.session;
  }

  /** The step's record (from memory while its session is open here, else from the store), or undefined. */
  async getStep(stepId: string): Promise<StepRecord | undefined> {
    if (!isRecordId(stepId)) return undefined;
    const held = this.steps.get(stepId);
    if (held) await this.record([stepId]);
    return held ?? (await this.store.getStep(stepId));
  }

  /** A session and its steps read from the store. @throws {@link SessionNotFoundError} */
  async requireStoredSession(sessionId: string): Promise<StoredSession> {
    const stored = isRecordId(sessionId) ? await this.store.getSession(sessionId) : undefined;
    if (!stored) throw new SessionNotFoundError(sessionId);
    return stored;
  }

  /** The step's record, as {@link SessionRegistry.getStep}. @throws {@link StepNotFoundError} */
  async requireStep(stepId: string): Promise<StepRecord> {
    const step = await this.getStep(stepId);
    if (!step) throw new StepNotFoundError(stepId);
    return step;
  }

  /** The debugger / preview page of a session, with its token. */
  viewUrl(session: SessionRecord): string {
    return viewUrlOf(this.publicUrl(), session);
  }

  /** The wire form of a session; `steps` and `logs` default to what is held here. */
  toSessionStatus(session: SessionRecord, steps?: StepRecord[], logs: SessionLogLine[] | undefined = this.logs.get(session.sessionId)): SessionStatus {
    return toSessionStatus(session, steps ?? this.stepsOf(session), logs, this.viewUrl(session));
  }

  /** The wire status of a session. @throws {@link SessionNotFoundError} */
  async sessionStatus(sessionId: string): Promise<SessionStatus> {
    const session = this.sessions.get(sessionId);
    if (session) {
      await this.recordSession(sessionId);
      return this.toSessionStatus(session);
    }
    const stored = await this.requireStoredSession(sessionId);
    return this.toSessionStatus(stored.session, stored.steps, await this.storedLogs(sessionId));
  }

  /** The wire status of a step. @throws {@link StepNotFoundError} */
  async stepStatus(stepId: string): Promise<StepStatus> {
    return toStepStatus(await this.requireStep(stepId));
  }

  /** What the debugger page shows: the session's status and the ids of its steps that have a screenshot. @throws {@link SessionNotFoundError} */
  async sessionView(sessionId: string): Promise<{ status: SessionStatus; screenshotStepIds: string[] }> {
    const session = this.sessions.get(sessionId);
    if (session) await this.recordSession(sessionId);
    const { session: record, steps } = session ? { session, steps: this.stepsOf(session) } : await this.requireStoredSession(sessionId);
    return { status: this.toSessionStatus(record, steps), screenshotStepIds: steps.filter((s) => s.screenshot).map((s) => s.stepId) };
  }

  /** Drops a finished session and its steps from memory: from now on they are read from the store. */
  forget(session: SessionRecord): void {
    if (this.sessions.get(session.sessionId) !== session) return;
    this.sessions.delete(session.sessionId);
    this.logs.delete(session.sessionId);
    for (const stepId of session.stepIds) {
      const step = this.steps.get(stepId);
      this.steps.delete(stepId);
      this.stepDone.delete(stepId);
      this.unrecorded.delete(stepId);
      if (step?.idempotencyKey != null) this.idempotency.delete(idempotencyId(session.sessionId, step.idempotencyKey));
    }
  }

  /** A finished session's `log()` lines, read from the store. */
  private async storedLogs(sessionId: string): Promise<SessionLogLine[]> {
    const records = await this.store.getLogs(sessionId, "stored-log");
    return records.flatMap((r) =>
      typeof r.message === "string" && typeof r.at === "string"
        ? [{ at: r.at, message: r.message, ...(r.data && typeof r.data === "object" ? { data: r.data as Record<string, unknown> } : {}), afterSteps: typeof r.afterSteps === "number" ? r.afterSteps : Number.MAX_SAFE_INTEGER }]
        : [],
    );
  }
}

/** A step whose row is not in the store yet (see {@link SessionRegistry.unrecorded}). */
export interface UnrecordedStep {
  /** The step's record in memory (the registry's own object, changed in place as the step runs). */
  step: StepRecord;
  /** The write under way that creates its row, if one is. */
  write?: Promise<void>;
}

/** Session and step ids are lowercase hex (`newId`); anything else names no record and never reaches the store. */
export function isRecordId(id: string): boolean {
  return /^[0-9a-f]{1,64}$/.test(id);
}

/** Whether a step ended (`SUCCEEDED` or `FAILED`). */
export function isFinished(status: StepState): boolean {
  return status === "SUCCEEDED" || status === "FAILED";
}

/** A new session, step or job id: `bytes` random bytes in lowercase hex. */
export function newId(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}

/** Key of {@link SessionRegistry.idempotency}: an idempotency key is unique within its session. */
export function idempotencyId(sessionId: string, key: string): string {
  return `${sessionId}\u0000${key}`;
}
