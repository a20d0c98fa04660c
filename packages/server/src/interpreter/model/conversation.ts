/**
 * The conversation with the provider that every model step has: one question, its answer checked,
 * and one retry that says what was wrong ({@link ModelConversation.converse}); and the prompt
 * budget the page view is cut to ({@link ModelConversation.pageBudget}).
 */
import { InterpreterError } from "../errors.js";
import type { StepClock } from "../_clock.js";
import type { StepReport } from "../types.js";
import { estimateTokens } from "../page/index.js";
import { addUsage, ProviderCallError, schemaInstruction, type ChatMessage, type Completion, type ModelProvider } from "./provider.js";
import { retryMessages } from "./prompts.js";

/** Tries per model question: the first answer, and one retry after an invalid or refused one. */
const MAX_ATTEMPTS = 2;

/**
 * What a model step's check of an answer says: accepted (with the value the step keeps), or not,
 * with the problem told to the model when it is asked again, and, optionally, the step's failure
 * when it was the last try (else `WF_MODEL_ANSWER_INVALID`).
 */
export type AnswerCheck<T> = { ok: true; value: T } | { ok: false; problem: string; failure?: () => Error };

/** A model step's tools: its conversation with the provider and its prompt budget. */
export interface ModelConversation {
  readonly provider: ModelProvider;
  /**
   * Asks the model until it gives an answer `check` accepts, at most twice, adding each HTTP
   * request (the SDK's retries and the `json_object` fallback too) and its tokens to `report.usage`.
   * A rejection may carry the step's `failure` for when it is the last try's (an action that does not
   * fit its element, an answer that is valid but that the page does not support).
   * @throws {@link InterpreterError} `WF_MODEL_REFUSED` (refused twice, or stopped by the provider's
   *   content filter, at once), `WF_MODEL_ANSWER_INVALID` (no valid answer in two tries) or the last
   *   rejection's `failure`, and the provider's codes (see {@link ModelProvider.complete}).
   */
  converse<T>(
    messages: ChatMessage[],
    schema: { name: string; schema: Record<string, unknown> },
    clock: StepClock,
    report: StepReport,
    check: (json: unknown) => AnswerCheck<T>,
  ): Promise<T>;
  /** Estimated tokens the page may take beside `fixed` (the rest of the prompt). */
  pageBudget(fixed: string): number;
  /** What the provider adds to the prompt for the schema (`json_object` mode), counted in the budget. */
  schemaInPromptText(schema: Record<string, unknown>): string;
}

/**
 * Creates the conversation tools of a provider.
 * @param maxPromptTokens - largest prompt, in estimated tokens (characters ÷ 4).
 */
export function createConversation(provider: ModelProvider, maxPromptTokens: number): ModelConversation {
  /** Asks the model until it gives an answer `check` accepts, at most {@link MAX_ATTEMPTS} times. */
  async function converse<T>(
    messages: ChatMessage[],
    schema: { name: string; schema: Record<string, unknown> },
    clock: StepClock,
    report: StepReport,
    check: (json: unknown) => AnswerCheck<T>,
  ): Promise<T> {
    let lastProblem = "";
    let lastFailure: Error | undefined;
    // Each HTTP request is a call in the books as it is sent, so a step that ends before the answer
    // still shows it; a step whose deadline comes meanwhile names the provider it waited for.
    const onRequest = () => void (report.usage = addUsage(report.usage, provider.model, { calls: 1 }));
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      let completion: Completion;
      report.awaitingModel = `${provider.model} at ${provider.endpoint}`;
      try {
        completion = await provider.complete({ messages, schema, timeoutMs: clock.left(), signal: clock.signal, onRequest });
      } catch (error) {
        // A failed request has no tokens the provider reported: its time is counted.
        if (error instanceof ProviderCallError) report.usage = addUsage(report.usage, provider.model, { durationMs: error.durationMs });
        throw error;
      } finally {
        report.awaitingModel = undefined;
      }
      report.usage = addUsage(report.usage, provider.model, completion);
      if (completion.finishReason === "content_filter") {
        // The provider's filter stopped the answer: asking the same again gets the same filter.
        throw new InterpreterError(
          "WF_MODEL_REFUSED",
          `The model provider's content filter stopped the answer of ${provider.model} at ${provider.endpoint} (finish_reason "content_filter"): the page or the step holds text its filter blocks. Rephrase the step, or use a model or endpoint without that filter.`,
        );
      }
      if (completion.refusal) {
        if (attempt === MAX_ATTEMPTS) {
          throw new InterpreterError("WF_MODEL_REFUSED", `The model (${provider.model}) refused to answer, twice: ${clip(completion.refusal)}. Rephrase the step.`);
        }
        messages = [...messages, ...retryMessages(null, `you refused (${clip(completion.refusal)}). The page is the user's own; read it and answer.`)];
        continue;
      }
      lastFailure = undefined;
      const problem = (() => {
        if (completion.finishReason === "length") return "it was cut off (the output limit was reached); answer more briefly.";
        if (!completion.content) return "it was empty.";
        let json: unknown;
        try {
          json = JSON.parse(stripFence(completion.content));
        } catch {
          return "it is not valid JSON.";
        }
        const checked = check(json);
        if (checked.ok) return checked;
        lastFailure = checked.failure?.();
        return checked.problem;
      })();
      if (typeof problem !== "string") return problem.value;
      lastProblem = problem;
      if (attempt < MAX_ATTEMPTS) messages = [...messages, ...retryMessages(completion.content, problem)];
    }
    if (lastFailure) throw lastFailure;
    throw new InterpreterError(
      "WF_MODEL_ANSWER_INVALID",
      `The model (${provider.model}) gave no valid answer in ${MAX_ATTEMPTS} tries; the last one: ${lastProblem} ` +
        (provider.responseFormat === "json_object" ? "Use a larger model." : "Use a larger model, or check that the endpoint honours strict json_schema response formats."),
    );
  }

  /**
   * What the provider adds to the prompt for the schema, counted in the budget: in `json_object`
   * mode the schema is written into the system prompt. (A request that falls back from
   * json_schema to json_object on its first call carries it once over the budget's margin.)
   */
  function schemaInPromptText(schema: Record<string, unknown>): string {
    return provider.responseFormat === "json_object" ? schemaInstruction(schema) : "";
  }

  /** Tokens the page may take: the budget less the rest of the prompt (and a margin for the retry). */
  function pageBudget(fixed: string): number {
    return Math.max(200, maxPromptTokens - estimateTokens(fixed) - 300);
  }

  return { provider, converse, pageBudget, schemaInPromptText };
}

function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return fenced ? fenced[1]! : text;
}

/** A text on one line, cut to `max` characters. */
export function clip(text: string, max = 300): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}
