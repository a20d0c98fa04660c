/**
 * A stored run (`wf trigger`) in the language of `wf run`: the service's session status turned
 * into the runtime's {@link RunRecord} and {@link RunEvent}s, so both commands print through the
 * same reporters (`pretty`, `json`, `ndjson`) and write the same record (docs/run-report.md).
 */
import { RUN_RECORD_VERSION, totalUsage, type RunEvent, type RunRecord, type StepRecord } from "@wf/runtime";
import { WRAPPER_KEY } from "@wf/core";
import { CheckAnswer, type SessionStatus, type StepStatus } from "@wf/core/protocol";

/**
 * The run record of a stored run's session status.
 *
 * Step indexes become 1-based (as `wf run` numbers them), statuses lower-case, an ASK's wire
 * `result` is kept and its decoded `answer` added (see {@link decodeStepAnswer}). The service does
 * not send the run's params back, so `params` is `{}`; the call site of a failed step comes from
 * the run's error. A run still going is reported as `cancelled` only once it ended that way.
 *
 * @param status - the session's status (`GET /workflow/status/{id}`).
 * @param previewUrl - the run's preview page, kept as `debuggerUrl`.
 */
export function sessionToRunRecord(status: SessionStatus, previewUrl?: string): RunRecord {
  const steps = [...status.steps].sort((a, b) => a.index - b.index).filter((s) => s.status === "SUCCEEDED" || s.status === "FAILED").map((s) => toStepRecord(s, status));
  const finishedAt = status.finishedAt ?? status.updatedAt;
  const details = (status.error?.details ?? {}) as { stepIndex?: unknown; callSite?: unknown };
  const usage = totalUsage(steps);
  return {
    version: RUN_RECORD_VERSION,
    workflow: status.workflowId ?? status.sessionId,
    status: status.status === "SUCCEEDED" ? "succeeded" : status.status === "CANCELLED" ? "cancelled" : "failed",
    params: {},
    ...(status.status === "SUCCEEDED" && status.output !== undefined ? { output: status.output } : {}),
    ...(status.error
      ? {
          error: {
            code: status.error.code,
            message: status.error.message,
            ...(typeof details.stepIndex === "number" ? { stepIndex: details.stepIndex } : {}),
            ...(typeof details.callSite === "string" ? { callSite: details.callSite } : {}),
          },
        }
      : {}),
    sessionId: status.sessionId,
    debuggerUrl: previewUrl ?? status.viewUrl,
    startedAt: status.createdAt,
    finishedAt,
    durationMs: Math.max(0, Date.parse(finishedAt) - Date.parse(status.createdAt)),
    steps,
    ...(usage ? { usage } : {}),
  };
}

/**
 * A stored run's check (`check()`, `check.soft()`), which the session status shows as an ASK: one
 * that held answered exactly `{ holds: true, reason, evidence }`; one that did not failed
 * `WF_CHECK_FAILED` (a code only checks fail with), its reason and evidence in the error's
 * details. It was a soft check when the run went on after it (more steps came), or when the run
 * itself failed `WF_CHECK_FAILED` (what `check.soft` failures fail a run with; a failed `check()`
 * fails it `WF_STEP_FAILED`). Undefined for a plain ASK or an ACT.
 */
function checkOf(step: StepStatus, status: SessionStatus): StepRecord["check"] | undefined {
  if (step.type !== "ASK") return undefined;
  if (step.status === "SUCCEEDED") {
    const held = CheckAnswer.strict().safeParse(step.result);
    return held.success ? { holds: true, reason: held.data.reason, evidence: held.data.evidence } : undefined;
  }
  if (step.status !== "FAILED" || step.error?.code !== "WF_CHECK_FAILED") return undefined;
  const details = (step.error.details ?? {}) as { reason?: unknown; evidence?: unknown };
  const soft = status.steps.some((s) => s.index > step.index) || status.error?.code === "WF_CHECK_FAILED";
  return {
    holds: false,
    reason: typeof details.reason === "string" ? details.reason : step.error.message,
    evidence: typeof details.evidence === "string" ? details.evidence : "",
    ...(soft ? { soft: true as const } : {}),
  };
}

function toStepRecord(step: StepStatus, status: SessionStatus): StepRecord {
  const index = step.index + 1;
  const details = (status.error?.details ?? {}) as { stepIndex?: unknown; callSite?: unknown };
  const callSite = step.status === "FAILED" && details.stepIndex === index && typeof details.callSite === "string" ? details.callSite : undefined;
  const check = checkOf(step, status);
  if (check) {
    return {
      index,
      type: "CHECK",
      instruction: step.step,
      ...(callSite ? { callSite } : {}),
      stepId: step.stepId,
      status: step.status === "SUCCEEDED" ? "succeeded" : "failed",
      attempts: 1,
      startedAt: step.startedAt ?? step.createdAt,
      finishedAt: step.finishedAt ?? step.createdAt,
      durationMs: Math.round(step.durationMs ?? 0),
      ...(step.status === "SUCCEEDED" && step.result !== undefined ? { result: step.result } : {}),
      ...(step.error ? { error: step.error } : {}),
      ...(step.interpreter ? { interpreter: step.interpreter } : {}),
      ...(step.usage ? { usage: step.usage } : {}),
      check,
    };
  }
  return {
    index,
    type: step.type,
    instruction: step.step,
    ...(callSite ? { callSite } : {}),
    stepId: step.stepId,
    status: step.status === "SUCCEEDED" ? "succeeded" : "failed",
    attempts: 1,
    startedAt: step.startedAt ?? step.createdAt,
    finishedAt: step.finishedAt ?? step.createdAt,
    durationMs: Math.round(step.durationMs ?? 0),
    ...(step.status === "SUCCEEDED" && step.result !== undefined ? { result: step.result } : {}),
    ...(step.status === "SUCCEEDED" && step.type === "ASK" && step.result !== undefined ? { answer: decodeStepAnswer(step.result) } : {}),
    ...(step.error ? { error: step.error } : {}),
    ...(step.interpreter ? { interpreter: step.interpreter } : {}),
    ...(step.resolved ? { resolved: step.resolved } : {}),
    ...(step.usage ? { usage: step.usage } : {}),
    ...(step.replayed ? { replayed: true } : {}),
  };
}

/**
 * Turns successive statuses of one session (long-poll answers) into the events `wf run` emits, in
 * the same order: `run-started` once, then per step `step-started` (when first seen queued or
 * running) and `step-finished`, the `log` lines between the steps they were logged after, and
 * `run-finished` with {@link sessionToRunRecord} once the session ended. Each status yields only
 * what is new since the one before.
 */
export function createSessionEventStream(previewUrl: string): { next(status: SessionStatus): RunEvent[] } {
  let started = false;
  let finished = false;
  const stepsStarted = new Set<string>();
  const stepsFinished = new Set<string>();
  let logsShown = 0;
  return {
    next(status) {
      const events: RunEvent[] = [];
      if (finished) return events;
      if (!started) {
        started = true;
        events.push({ type: "run-started", workflow: status.workflowId ?? status.sessionId, sessionId: status.sessionId, debuggerUrl: previewUrl, params: {} });
      }
      const logs = status.logs ?? [];
      const flushLogs = (upTo: number) => {
        while (logsShown < logs.length && logs[logsShown]!.afterSteps <= upTo) {
          const line = logs[logsShown++]!;
          events.push({ type: "log", message: line.message, ...(line.data ? { data: line.data } : {}) });
        }
      };
      const steps = [...status.steps].sort((a, b) => a.index - b.index);
      for (const step of steps) {
        // Lines logged before this step started come before it.
        flushLogs(step.index);
        if (!stepsStarted.has(step.stepId)) {
          stepsStarted.add(step.stepId);
          // A check is known as one once it ended (its answer or its error's code).
          const finished = step.status === "SUCCEEDED" || step.status === "FAILED";
          const stepType = finished && checkOf(step, status) ? "CHECK" : step.type;
          events.push({ type: "step-started", index: step.index + 1, stepType, instruction: step.step, attempt: 1 });
        }
        // A failed check is soft when the run goes on after it: wait for the next step (or the end) to tell.
        const undecided = status.status === "RUNNING" && step.status === "FAILED" && step.error?.code === "WF_CHECK_FAILED" && !steps.some((s) => s.index > step.index);
        if (undecided) break;
        if ((step.status === "SUCCEEDED" || step.status === "FAILED") && !stepsFinished.has(step.stepId)) {
          stepsFinished.add(step.stepId);
          events.push({ type: "step-finished", step: toStepRecord(step, status) });
        } else if (step.status === "QUEUED" || step.status === "RUNNING") {
          break;
        }
      }
      if (status.status !== "RUNNING") {
        flushLogs(Number.MAX_SAFE_INTEGER);
        finished = true;
        events.push({ type: "run-finished", record: sessionToRunRecord(status, previewUrl) });
      } else {
        flushLogs(stepsFinished.size);
      }
      return events;
    },
  };
}

/**
 * The answer of a succeeded ASK step as the workflow sees it, from the step's `result` on the wire.
 *
 * The service stores the answer as the strict schema has it: a schema whose root is not an object
 * (a string, a number, an array, an enum, …) travels wrapped as `{ "value": … }` (`WRAPPER_KEY` and
 * `isWrapped` of `@wf/core`). The step status carries neither the zod schema nor its JSON Schema,
 * so the rule here is by shape: a plain object whose only key is `value` is unwrapped; anything
 * else is shown as it is. The one case this reads wrongly is an object schema with a single field
 * named `value` (`z.object({ value: … })`): its answer is shown as the field's value. The step's
 * `result` in the record keeps the wire form.
 *
 * @param result - `StepStatus.result` of an ASK step.
 * @returns the unwrapped value, or `result` unchanged.
 */
export function decodeStepAnswer(result: unknown): unknown {
  if (result === null || typeof result !== "object" || Array.isArray(result)) return result;
  const keys = Object.keys(result);
  return keys.length === 1 && keys[0] === WRAPPER_KEY ? (result as Record<string, unknown>)[WRAPPER_KEY] : result;
}
