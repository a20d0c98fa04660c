/**
 * A run's model budget (`--max-model-calls N`): the model calls its steps made so far, counted from
 * each finished step attempt's `usage.calls`, and whether the next step may still call the model.
 * Shared by `runWorkflow` (wf run) and the server's stored runs.
 */
import type { StepUsage, WireError } from "@wf/core/protocol";

/** The model calls of a run, against an optional limit. */
export class ModelBudget {
  /** Model calls made so far: HTTP requests to the provider, failed, retried and timed-out ones too. */
  calls = 0;
  /** Tokens of those calls. */
  tokens = 0;

  /**
   * @param max - the most model calls the run may make; 0: none at all; undefined: no limit.
   * @throws RangeError when `max` is not a whole number of 0 or more.
   */
  constructor(readonly max?: number) {
    if (max !== undefined && (!Number.isInteger(max) || max < 0)) throw new RangeError(`The model budget must be a whole number of calls, 0 or more; got ${max}.`);
  }

  /** Whether a step may still call the model: the limit is not reached yet. */
  get allowsModel(): boolean {
    return this.max === undefined || this.calls < this.max;
  }

  /** Counts a finished attempt's model usage. */
  add(usage: Pick<StepUsage, "calls" | "totalTokens"> | null | undefined): void {
    if (!usage) return;
    this.calls += usage.calls;
    this.tokens += usage.totalTokens;
  }

  /** Whether the calls counted went over the limit (a step's own retry after an invalid answer can take it one over). */
  get overspent(): boolean {
    return this.max !== undefined && this.calls > this.max;
  }

  /**
   * The error of a step the budget stopped: `WF_MODEL_BUDGET_EXCEEDED`, keeping the service's own
   * failure in `details`.
   * @param why - what the service said (its `WF_MODEL_FORBIDDEN`), or undefined when the step went over.
   */
  exceeded(why: WireError | undefined): WireError {
    const spent = `${this.calls} model call${this.calls === 1 ? "" : "s"} (${this.tokens} tokens)`;
    const message = why
      ? `The run's model budget of ${this.max} call${this.max === 1 ? "" : "s"} is spent (${spent} so far) and this step needs the model: ${why.message} Record the step in the action lock (\`--lock write\`), or raise --max-model-calls.`
      : `The run went over its model budget of ${this.max} call${this.max === 1 ? "" : "s"}: this step took it to ${spent} (every request to the provider is a call: the SDK's retries, a retry after an invalid answer, the json_object fallback). Raise --max-model-calls, or record the step in the action lock.`;
    return { code: "WF_MODEL_BUDGET_EXCEEDED", message, details: { maxModelCalls: this.max, modelCalls: this.calls, ...(why ? { serviceCode: why.code } : {}) } };
  }
}
