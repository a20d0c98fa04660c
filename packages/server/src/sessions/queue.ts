/**
 * Submission of steps and the per-session step queue: a step is checked, registered, committed as
 * `QUEUED` (a keyed request that waits for the outcome: with its outcome, decision 0068) and
 * chained behind the session's earlier steps (one at a time per session, sessions
 * concurrently), then run by the {@link StepRunner}. Idempotency keys: the same key in the same
 * session gets the first step back (even while it still runs, and from the store once the session
 * ended) and runs nothing; the same key with another request is refused.
 */
import { createHmac } from "node:crypto";
import { redactText } from "@wf/core";
import { normalizeStepSchema, type StepStatus } from "@wf/core/protocol";
import { REQUEST_HASH_PREFIX } from "../config/request-secret.js";
import type { SessionRecord, StepRecord, Store } from "../store/store.js";
import { IdempotencyKeyReusedError, SessionClosedError, StepRequestInvalidError } from "./errors.js";
import type { ChangeFeed } from "./feed.js";
import type { IdleTimers } from "./idle.js";
import type { LongPolls } from "./long-poll.js";
import { idempotencyId, newId, type SessionRegistry } from "./registry.js";
import { secretsOf, type StepRunner } from "./step-runner.js";
import type { LiveSession, StepInput, SubmitStepOptions, SubmittedStep } from "./types.js";
import { toStepStatus } from "./wire.js";

/** What the {@link StepQueue} works with. */
export interface StepQueueParts {
  store: Store;
  /** Key of the request digests (see `loadServerSecret`). */
  secret: Buffer;
  registry: SessionRegistry;
  feed: ChangeFeed;
  idle: IdleTimers;
  runner: StepRunner;
  longPolls: LongPolls;
}

export class StepQueue {
  constructor(private readonly parts: StepQueueParts) {}

  /**
   * Queues a step in a session and returns its ids at once; `done` resolves when it finished.
   * With an idempotency key already used in this session, returns the first step (even while it
   * still runs) and runs nothing.
   *
   * @throws {@link SessionNotFoundError}; {@link SessionClosedError}; {@link StepRequestInvalidError}
   *   (an ACT with a non-empty schema, …); {@link IdempotencyKeyReusedError}; the store's
   *   `WF_STORAGE_UNAVAILABLE` when the step could not be recorded (it then never runs).
   */
  async submitStep(sessionId: string, input: StepInput, options: SubmitStepOptions = {}): Promise<SubmittedStep> {
    const { registry, feed } = this.parts;
    const requestHash = this.hashRequest(input);
    const session = registry.sessions.get(sessionId);
    // Not open on this server: a finished session (read from the store) or none. Only a retry
    // of a step it already has gets an answer.
    if (!session) return this.submitToFinished(sessionId, requestHash, options);
    if (options.idempotencyKey !== undefined) {
      const existingId = registry.idempotency.get(idempotencyId(sessionId, options.idempotencyKey));
      const existing = existingId ? registry.steps.get(existingId) : undefined;
      if (existing) {
        // A retry that arrives while the first request is still being written gets its outcome:
        // the same ids once written, the same 503 if the write failed.
        await registry.recording.get(existing.stepId);
        // An empty hash (a record from before keyed digests) can't tell: the retry gets the first step.
        checkSameRequest(existing, requestHash, options.idempotencyKey);
        // Its id goes out in this answer: its row must exist first (a deferred one is written now).
        await registry.record([existing.stepId]);
        return {
          stepId: existing.stepId,
          jobTaskId: existing.jobTaskId,
          created: false,
          done: registry.stepDone.get(existing.stepId) ?? this.parts.longPolls.waitForStep(existing.stepId, Infinity),
        };
      }
    }
    if (session.status !== "RUNNING" || !registry.live.has(sessionId)) throw new SessionClosedError(session.sessionId, session.status);
    checkStepInput(input);
    const live = registry.live.get(sessionId)!;
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
          ? { currentDomBytes: Buffer.byteLength(input.currentDom), currentDomHmac: createHmac("sha256", this.parts.secret).update(input.currentDom).digest("hex") }
          : {}),
        ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
      },
      idempotencyKey: options.idempotencyKey ?? null,
      requestHash,
      screenshot: false,
    };
    // Registered synchronously, before any await, so a concurrent retry with the same key finds it.
    registry.steps.set(step.stepId, step);
    session.stepIds.push(step.stepId);
    if (options.idempotencyKey !== undefined) registry.idempotency.set(idempotencyId(sessionId, options.idempotencyKey), step.stepId);
    live.pending += 1;
    this.parts.idle.disarm(live);
    // Deferred, the step's row is created by its outcome's transaction: one commit per step
    // instead of two, unless its id or status leaves the server first (registry.record).
    let recorded: Promise<void>;
    if (defersRecord(options) && !feed.watched(sessionId)) {
      registry.unrecorded.set(step.stepId, { step });
      recorded = Promise.resolve();
    } else {
      recorded = this.parts.store.createStep(step);
      registry.recording.set(step.stepId, recorded);
    }
    const done = new Promise<StepStatus>((resolve) => {
      const finished = () => resolve(toStepStatus(step));
      live.tail = live.tail
        .then(async () => {
          // A step that was never committed was answered 503 and never runs.
          if (!(await recorded.then(() => true, () => false))) return;
          await this.parts.runner.execute(session, live, step, input, options.signal, finished);
        })
        // The queue must survive anything one step does.
        .catch(() => undefined)
        .finally(finished);
    });
    registry.stepDone.set(step.stepId, done);
    void done.then(() => registry.stepDone.delete(step.stepId));
    feed.bump(session);
    try {
      await recorded;
    } catch (error) {
      this.unregisterStep(session, live, step);
      throw error;
    } finally {
      registry.recording.delete(step.stepId);
      feed.emit(session, step.stepId);
    }
    return { stepId: step.stepId, jobTaskId: step.jobTaskId, created: true, done };
  }

  /** {@link StepQueue.submitStep} for a session that is not open here. */
  private async submitToFinished(sessionId: string, requestHash: string, options: SubmitStepOptions): Promise<SubmittedStep> {
    const stored = await this.parts.registry.requireStoredSession(sessionId);
    if (options.idempotencyKey !== undefined) {
      const existing = stored.steps.find((s) => s.idempotencyKey === options.idempotencyKey);
      if (existing) {
        checkSameRequest(existing, requestHash, options.idempotencyKey);
        return { stepId: existing.stepId, jobTaskId: existing.jobTaskId, created: false, done: Promise.resolve(toStepStatus(existing)) };
      }
    }
    throw new SessionClosedError(stored.session.sessionId, stored.session.status);
  }

  /** Undoes the registration of a step whose record could not be written. */
  private unregisterStep(session: SessionRecord, live: LiveSession, step: StepRecord): void {
    const { registry } = this.parts;
    registry.steps.delete(step.stepId);
    registry.stepDone.delete(step.stepId);
    session.stepIds = session.stepIds.filter((id) => id !== step.stepId);
    if (step.idempotencyKey !== null) {
      const key = idempotencyId(step.sessionId, step.idempotencyKey);
      if (registry.idempotency.get(key) === step.stepId) registry.idempotency.delete(key);
    }
    live.pending -= 1;
    if (live.pending === 0) this.parts.idle.arm(session, live);
  }

  /** Keyed digest of the step request with keys sorted, so the same body digests the same however it was written. */
  private hashRequest(input: StepInput): string {
    return REQUEST_HASH_PREFIX + createHmac("sha256", this.parts.secret).update(canonicalJson({ ...input })).digest("hex");
  }
}

/**
 * Whether a step's `QUEUED` commit may wait (docs/decisions/0068-one-commit-per-step.md): its
 * request waits for the outcome (`waitMs`), which usually comes before the answer leaves, and
 * carries an idempotency key, so that a client answered 503 (its row could not be written when
 * the answer had to leave with the step unfinished) retries it without running it twice.
 */
function defersRecord(options: SubmitStepOptions): boolean {
  return options.idempotencyKey !== undefined && (options.waitMs ?? 0) > 0;
}

/** @throws {@link StepRequestInvalidError} for fields that contradict each other. */
function checkStepInput(input: StepInput): void {
  if (input.type === "ACT" && normalizeStepSchema(input.schema) !== undefined) {
    throw new StepRequestInvalidError("An ACT step takes no schema; send an empty or no schema, or make the step an ASK.", [
      { path: "/schema", message: "must be empty or absent for an ACT step" },
    ]);
  }
  if (input.check && (input.type !== "ASK" || normalizeStepSchema(input.schema) !== undefined || input.currentDom !== undefined)) {
    throw new StepRequestInvalidError("A check is an ASK on the live page with no schema: send type ASK, and no schema or currentDom, with `check`.", [
      { path: "/check", message: "needs type ASK, and no schema or currentDom" },
    ]);
  }
  if (input.checkRecipe && !input.check) {
    throw new StepRequestInvalidError("Only a check runs a check recipe; send the step with `check`, or without checkRecipe.", [{ path: "/checkRecipe", message: "needs `check`" }]);
  }
  if (input.recipe && (input.type !== "ASK" || input.check)) {
    throw new StepRequestInvalidError("Only an ASK (not a check) runs a read recipe; send the step without recipe.", [{ path: "/recipe", message: "must be absent for an ACT step or a check" }]);
  }
  if (input.type === "ASK" && input.replay) {
    throw new StepRequestInvalidError("Only an ACT step can be replayed; send an ASK without replay.", [{ path: "/replay", message: "must be absent for an ASK step" }]);
  }
}

/** @throws {@link IdempotencyKeyReusedError} when a retry's body differs from the first request's. */
function checkSameRequest(existing: StepRecord, requestHash: string, key: string): void {
  // An empty hash (a record from before keyed digests) can't tell: the retry gets the first step.
  if (existing.requestHash !== "" && existing.requestHash !== requestHash) throw new IdempotencyKeyReusedError(key, existing.stepId);
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
