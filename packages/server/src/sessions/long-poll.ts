/**
 * The long-polls of steps and sessions (`?waitMs=` on the status routes): they answer as soon as
 * what they wait for happened, announced on the {@link ChangeFeed}, or at `waitMs`.
 */
import type { SessionStatus, StepStatus } from "@wf/core/protocol";
import type { ChangeFeed } from "./feed.js";
import { isFinished, type SessionRegistry } from "./registry.js";
import { toStepStatus } from "./wire.js";

export class LongPolls {
  constructor(
    private readonly registry: SessionRegistry,
    private readonly feed: ChangeFeed,
  ) {}

  /**
   * Long-poll of a step: resolves with its status once it finished, or after `waitMs`.
   * @throws {@link StepNotFoundError}
   */
  async waitForStep(stepId: string, waitMs: number, signal?: AbortSignal): Promise<StepStatus> {
    // A step held here is read from memory without writing its row: that waits for the answer.
    const held = this.registry.steps.get(stepId);
    const step = held ?? (await this.registry.requireStep(stepId));
    if (!held && !isFinished(step.status)) {
      // Read from the store: its session is held by an instance that could not be reached (see
      // `cluster/instances.ts`); the change that can come here is that session being ended as lost.
      await this.feed.waitForChangeOf(step.sessionId, waitMs, signal);
      return this.registry.stepStatus(stepId);
    }
    await this.feed.waitUntil(step.sessionId, () => isFinished(step.status), waitMs, signal);
    // Finished, its outcome's transaction wrote its row; still unfinished (waitMs ran out), a
    // deferred row is written now, before the answer acknowledges the step.
    await this.registry.record([stepId]);
    return toStepStatus(step);
  }

  /**
   * Long-poll of a session: with `since`, resolves once its `version` exceeds it; without, once
   * the session ended. Resolves after `waitMs` at the latest.
   * @throws {@link SessionNotFoundError}
   */
  async waitForSession(sessionId: string, options: { since?: number; waitMs: number }, signal?: AbortSignal): Promise<SessionStatus> {
    const session = this.registry.sessions.get(sessionId);
    if (!session) {
      const stored = await this.registry.sessionStatus(sessionId);
      // Not open here. A finished session changes no more, so the answer is at once; a running one
      // is held by an instance that could not be reached (see `cluster/instances.ts`), and the change
      // that can come here is its end as lost.
      const waiting = stored.status === "RUNNING" && (options.since === undefined || stored.version <= options.since);
      if (!waiting) return stored;
      await this.feed.waitForChangeOf(sessionId, options.waitMs, signal);
      return this.registry.sessionStatus(sessionId);
    }
    const ready =
      options.since !== undefined
        ? () => session.version > options.since! || session.status !== "RUNNING"
        : () => session.status !== "RUNNING";
    await this.feed.waitUntil(sessionId, ready, options.waitMs, signal);
    if (this.registry.sessions.get(sessionId) !== session) return this.registry.sessionStatus(sessionId);
    await this.registry.recordSession(sessionId);
    return this.registry.toSessionStatus(session);
  }
}
