/**
 * The in-process {@link Executor} of a stored run: each `act`/`ask` of the workflow becomes a step
 * of the run's session, queued and interpreted by the session manager exactly as a step-mode
 * step is (same interpreter, same records, same screenshots).
 */
import { RunAbortedError, StepFailedError, redactText, untilAborted, type Executor, type StepOutcome, type StepRequest } from "@wf/core";
import type { StepStatus } from "@wf/core/protocol";

/** Runs one step in a session and resolves with its finished status (the session manager's `runStep`). */
export type RunSessionStep = (
  sessionId: string,
  step: { type: "ACT" | "ASK"; step: string; schema?: Record<string, unknown>; timeoutMs?: number; redact?: string[] },
  options: { signal?: AbortSignal },
) => Promise<StepStatus>;

/**
 * Creates the executor of stored run `sessionId`.
 *
 * `runStep` resolves with the step's final status: `SUCCEEDED` gives the step's `result` (for an
 * ASK the answer JSON, which the DSL then decodes through the workflow's schema); `FAILED`
 * throws {@link StepFailedError} carrying the service's error code and message and the call site.
 * When `signal` aborts, the step is aborted in the session manager too and {@link RunAbortedError}
 * is thrown at once. `secrets` (the run's secret param values) travel with each step as its
 * `redact` list, so the session's records never hold them.
 */
export function createStoredRunExecutor(runStep: RunSessionStep, sessionId: string, secrets: ReadonlyArray<string> = []): Executor {
  return {
    async runStep(request: StepRequest, signal: AbortSignal): Promise<StepOutcome> {
      if (signal.aborted) throw new RunAbortedError(signal.reason);
      const pending = runStep(sessionId, {
        type: request.type,
        step: request.instruction,
        ...(request.responseFormat ? { schema: request.responseFormat as unknown as Record<string, unknown> } : {}),
        ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
        ...(secrets.length > 0 ? { redact: [...secrets] } : {}),
      }, { signal });
      const status = await untilAborted(pending, signal);
      if (status.status === "FAILED") {
        throw new StepFailedError({
          index: request.index,
          type: request.type,
          instruction: redactText(request.instruction, secrets),
          stepId: status.stepId,
          serviceCode: status.error?.code ?? "WF_STEP_FAILED",
          serviceMessage: status.error?.message ?? "the step failed",
          ...(request.callSite ? { callSite: request.callSite } : {}),
        });
      }
      return { result: status.result, stepId: status.stepId };
    },
  };
}

