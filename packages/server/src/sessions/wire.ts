/**
 * The wire shapes of sessions and steps (`SessionStatus`, `StepStatus` of `@wf/core/protocol`):
 * what status answers, long-polls and live pages send, without what the server keeps for itself
 * (tokens, request digests, idempotency keys).
 */
import { routePath, ROUTES, type SessionLogLine, type SessionStatus, type StepStatus } from "@wf/core/protocol";
import type { SessionRecord, StepRecord } from "../store/store.js";

/** The wire form of a step (drops what the server keeps for itself). */
export function toStepStatus(step: StepRecord): StepStatus {
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
    ...(step.recipe ? { recipe: step.recipe } : {}),
    ...(step.checkRecipe ? { checkRecipe: step.checkRecipe } : {}),
    ...(step.noRecipe ? { noRecipe: step.noRecipe } : {}),
    ...(step.settle ? { settle: step.settle } : {}),
    ...(step.downloads?.length ? { downloads: step.downloads } : {}),
    ...(step.dialogs?.length ? { dialogs: step.dialogs } : {}),
  };
}

/** The wire form of a session: its `steps` (in order), its `logs` when it has any, and its debugger page's `viewUrl`. */
export function toSessionStatus(session: SessionRecord, steps: StepRecord[], logs: SessionLogLine[] | undefined, viewUrl: string): SessionStatus {
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
    steps: steps.map((step) => toStepStatus(step)),
    ...(session.output !== undefined ? { output: session.output } : {}),
    error: session.error,
    ...(logs && logs.length > 0 ? { logs: logs.map((line) => ({ ...line, afterSteps: Math.min(line.afterSteps, session.stepIds.length) })) } : {}),
    viewUrl,
  };
}

/** The debugger / preview page of a session, with its token, under `publicUrl`. */
export function viewUrlOf(publicUrl: string, session: SessionRecord): string {
  return `${publicUrl}${routePath(ROUTES.sessionView, { id: session.sessionId })}?token=${encodeURIComponent(session.token)}`;
}
