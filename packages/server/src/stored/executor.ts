/**
 * The in-process {@link Executor} of a stored run: each `act`/`ask` of the workflow becomes a step
 * of the run's session, queued and interpreted by the session manager exactly as a step-mode
 * step is (same interpreter, same records, same screenshots). With the workflow's action lock, its
 * ACTs go through the lock exactly as under `wf run` (see `@wf/runtime/lock`).
 */
import { RunAbortedError, StepFailedError, redactText, untilAborted, type Executor, type StepGroup, type StepOutcome, type StepRequest } from "@wf/core";
import type { CheckRecipe, ReadRecipe, ReplayAction, StepStatus } from "@wf/core/protocol";
import { runLockedAct, runLockedAsk, type LockedAttemptOptions, type LockState, type ModelBudget } from "@wf/runtime/lock";

/** Runs one step in a session and resolves with its finished status (the session manager's `runStep`). */
export type RunSessionStep = (
  sessionId: string,
  step: {
    type: "ACT" | "ASK";
    step: string;
    schema?: Record<string, unknown>;
    timeoutMs?: number;
    redact?: string[];
    replay?: ReplayAction[];
    refind?: boolean;
    recipe?: ReadRecipe;
    checkRecipe?: CheckRecipe;
    deriveRecipe?: boolean;
    allowModel?: boolean;
    check?: { timeoutMs?: number };
    groups?: Array<{ id: string; title: string }>;
  },
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
 * `redact` list, so the session's records never hold them. With `options.lock`, each ACT replays,
 * heals and records its lock entry (`log` says what is not a failure: an entry healed, a lock not
 * writable); in `frozen`, an ACT with no entry that needs the model fails `WF_LOCK_MISSING`. With
 * `options.budget`, once its model calls are made every step is sent with `allowModel: false` and
 * one that needs the model fails `WF_MODEL_BUDGET_EXCEEDED` (as under `wf run --max-model-calls`).
 */
export function createStoredRunExecutor(
  runStep: RunSessionStep,
  sessionId: string,
  secrets: ReadonlyArray<string> = [],
  options: { lock?: LockState; log?: (message: string) => void; budget?: ModelBudget } = {},
): Executor {
  let pageUrl: string | null | undefined;
  // The run's step() groups, so each step's are sent with it (the session's trace groups them).
  const groups = new Map<number, StepGroup>();
  const groupPath = (id: number | undefined) => {
    const path: Array<{ id: string; title: string }> = [];
    for (let at = id; at !== undefined && path.length < 32; at = groups.get(at)?.parentId) {
      const group = groups.get(at);
      if (!group) break;
      path.unshift({ id: String(group.id), title: redactText(group.title, secrets).slice(0, 1000) });
    }
    return path;
  };
  return {
    onGroupStart: (group: StepGroup) => void groups.set(group.id, group),
    async runStep(request: StepRequest, signal: AbortSignal): Promise<StepOutcome> {
      if (signal.aborted) throw new RunAbortedError(signal.reason);
      const { budget } = options;
      const overBefore = budget?.overspent ?? false;
      const attempt = async ({ replay, refind = false, allowModel = true, recipe, checkRecipe, deriveRecipe = false }: LockedAttemptOptions = {}): Promise<StepStatus> => {
        const budgetForbids = allowModel && budget !== undefined && !budget.allowsModel;
        const pending = runStep(sessionId, {
          // A check runs as an ASK with `check`, as over HTTP.
          type: request.type === "CHECK" ? "ASK" : request.type,
          ...(request.check ? { check: { timeoutMs: request.check.timeoutMs } } : {}),
          step: request.instruction,
          ...(request.responseFormat ? { schema: request.responseFormat as unknown as Record<string, unknown> } : {}),
          ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
          ...(secrets.length > 0 ? { redact: [...secrets] } : {}),
          ...(replay ? { replay, ...(refind ? { refind } : {}) } : {}),
          ...(recipe ? { recipe } : {}),
          ...(checkRecipe ? { checkRecipe } : {}),
          ...(deriveRecipe ? { deriveRecipe } : {}),
          ...(!allowModel || budgetForbids ? { allowModel: false } : {}),
          ...(request.groupId !== undefined ? { groups: groupPath(request.groupId) } : {}),
        }, { signal });
        const status = await untilAborted(pending, signal);
        budget?.add(status.usage);
        if (budgetForbids && status.status === "FAILED" && status.error?.code === "WF_MODEL_FORBIDDEN") return { ...status, error: budget!.exceeded(status.error) };
        return status;
      };
      let status: StepStatus;
      if (options.lock && request.type === "ACT") {
        const log = options.log ?? (() => undefined);
        const locked = await runLockedAct(request, options.lock, attempt, { pageUrl, log });
        status = locked.status as StepStatus;
        if (locked.healed) log(`Step ${request.index} healed its lock entry in ${options.lock.options.path}.`);
      } else if (options.lock && (request.type === "ASK" || request.type === "CHECK")) {
        const log = options.log ?? (() => undefined);
        const locked = await runLockedAsk(request, options.lock, attempt, { pageUrl, log });
        status = locked.status as StepStatus;
        if (locked.healed) log(`Step ${request.index} healed its lock entry in ${options.lock.options.path}.`);
      } else {
        status = await attempt();
      }
      if (status.status === "SUCCEEDED" && budget?.overspent && !overBefore) status = { ...status, status: "FAILED", error: budget.exceeded(undefined) };
      if (status.pageUrl !== undefined) pageUrl = status.pageUrl;
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
      return { result: status.result, stepId: status.stepId, ...(status.downloads?.length ? { downloads: status.downloads } : {}) };
    },
  };
}

