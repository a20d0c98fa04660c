/**
 * The in-memory {@link Store}: records held by the process and gone when it exits. For a server
 * whose records are thrown away anyway (`wf run`'s embedded server, with its temporary data
 * directory: the run record and the report in `wf-report/` are what outlive it), where opening the
 * embedded database would cost seconds and hundreds of MB for nothing. Selected with the database
 * URL `memory:`. Records are copied in and out (`structuredClone`), as a database would, so the
 * caller's later changes to an object never reach what was stored.
 */
import type { WireError } from "@wf/core/protocol";
import type { RecoveredWork, SaveStepOptions, SessionOwner, SessionRecord, StepRecord, Store, StoredSession, SweepResult, UnfinishedScope } from "./store.js";

/** The `databaseUrl` that selects the in-memory store. */
export const MEMORY_DATABASE_URL = "memory:";

export class MemoryStore implements Store {
  readonly driver = "memory" as const;
  readonly location = "memory (records are gone when the server stops)";
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly steps = new Map<string, StepRecord>();
  private readonly logs: Array<{ sessionId: string; type: string; record: Record<string, unknown> }> = [];

  async createSession(session: SessionRecord): Promise<void> {
    this.sessions.set(session.sessionId, structuredClone(session));
  }

  async saveSession(session: SessionRecord): Promise<void> {
    this.sessions.set(session.sessionId, structuredClone(session));
  }

  async createStep(step: StepRecord): Promise<void> {
    if (step.idempotencyKey != null && (await this.findStepByIdempotencyKey(step.sessionId, step.idempotencyKey))) {
      throw new Error(`A step of session ${step.sessionId} already has the idempotency key ${step.idempotencyKey}.`);
    }
    this.steps.set(step.stepId, structuredClone(step));
  }

  async saveStep(step: StepRecord, session?: SessionRecord, options: SaveStepOptions = {}): Promise<void> {
    if (options.insert) await this.createStep(step);
    this.steps.set(step.stepId, structuredClone(step));
    if (session) this.sessions.set(session.sessionId, structuredClone(session));
  }

  async getSession(sessionId: string): Promise<StoredSession | undefined> {
    const session = this.sessions.get(sessionId);
    if (!session) return undefined;
    const steps = [...this.steps.values()].filter((s) => s.sessionId === sessionId).sort((a, b) => a.index - b.index);
    return { session: structuredClone(session), steps: structuredClone(steps) };
  }

  async getStep(stepId: string): Promise<StepRecord | undefined> {
    const step = this.steps.get(stepId);
    return step ? structuredClone(step) : undefined;
  }

  async findStepByIdempotencyKey(sessionId: string, key: string): Promise<StepRecord | undefined> {
    for (const step of this.steps.values()) if (step.sessionId === sessionId && step.idempotencyKey === key) return structuredClone(step);
    return undefined;
  }

  /** Nothing is unfinished at start (a new process has no records), and no other instance shares them. */
  async failUnfinished(_sessionError: WireError, _stepError: (step: StepRecord) => WireError, _now: string, _scope: UnfinishedScope): Promise<RecoveredWork> {
    return { sessionIds: [], stepIds: [], corrupt: [] };
  }

  /** One process holds the records: its own lease never lapses. */
  async renewInstance(_instanceId: string, _url: string, _leaseMs: number): Promise<boolean> {
    return true;
  }

  /** Every session here is this process's own. */
  async sessionOwner(id: { sessionId: string } | { stepId: string }): Promise<SessionOwner | undefined> {
    const sessionId = "sessionId" in id ? id.sessionId : this.steps.get(id.stepId)?.sessionId;
    const session = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    return session ? { sessionId: session.sessionId, instanceId: session.instanceId, url: undefined, alive: true } : undefined;
  }

  async appendLog(sessionId: string, type: string, record: Record<string, unknown>): Promise<void> {
    this.logs.push({ sessionId, type, record: structuredClone(record) });
  }

  async getLogs(sessionId: string, type: string): Promise<Array<Record<string, unknown>>> {
    return this.logs.filter((l) => l.sessionId === sessionId && l.type === type).map((l) => structuredClone(l.record));
  }

  async sweep(before: Date): Promise<SweepResult> {
    const old = [...this.sessions.values()].filter((s) => s.status !== "RUNNING" && s.finishedAt !== null && Date.parse(s.finishedAt) < before.getTime());
    const sessionIds = new Set(old.map((s) => s.sessionId));
    const stepIds = [...this.steps.values()].filter((s) => sessionIds.has(s.sessionId)).map((s) => s.stepId);
    for (const id of stepIds) this.steps.delete(id);
    for (const id of sessionIds) this.sessions.delete(id);
    for (let i = this.logs.length - 1; i >= 0; i--) if (sessionIds.has(this.logs[i]!.sessionId)) this.logs.splice(i, 1);
    return { sessions: sessionIds.size, steps: stepIds.length, stepIds, sessionIds: [...sessionIds] };
  }

  async close(): Promise<void> {
    this.sessions.clear();
    this.steps.clear();
    this.logs.length = 0;
  }
}
