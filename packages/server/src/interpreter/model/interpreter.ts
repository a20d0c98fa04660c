/**
 * The model-backed step interpreter ({@link createModelInterpreter}: its ASK in `ask.ts`, its ACT in
 * `act.ts`, its checks in `check.ts`, all through one conversation with the provider,
 * `conversation.ts`), and the policy that puts it behind the grammar
 * ({@link createGrammarThenModelInterpreter}).
 */
import { InterpreterError, UnexplainedNotFound } from "../errors.js";
import type { PerformOptions } from "../act/index.js";
import { routeCheck } from "../check/index.js";
import type { ActContext, ActResult, AskContext, StepInterpreter } from "../types.js";
import { modelAct } from "./act.js";
import { modelAsk } from "./ask.js";
import { modelCheck } from "./check.js";
import { createConversation } from "./conversation.js";
import type { ModelProvider } from "./provider.js";

/** Default prompt budget, in estimated tokens (`WF_MODEL_MAX_PROMPT_TOKENS`). */
export const DEFAULT_MAX_PROMPT_TOKENS = 12_000;

/** Options of {@link createModelInterpreter}. */
export interface ModelInterpreterOptions {
  provider: ModelProvider;
  /** Largest prompt, in estimated tokens (characters ÷ 4): system prompt, step and page together. @default 12_000 */
  maxPromptTokens?: number;
  /** How actions are carried out (the grammar's options, shared with the deterministic interpreter). */
  perform: Omit<PerformOptions, "locate">;
}

/**
 * Creates the model-backed interpreter.
 * @throws (from `act`/`ask`) {@link InterpreterError}: `WF_MODEL_NO_MATCH`, `WF_MODEL_ANSWER_INVALID`,
 *   `WF_MODEL_REFUSED`, `WF_ANSWER_NOT_FOUND` (a text ASK the page does not answer), the provider's
 *   codes (`WF_MODEL_AUTH_FAILED`, `WF_MODEL_NOT_FOUND`, `WF_MODEL_RATE_LIMITED`, `WF_MODEL_UNAVAILABLE`,
 *   `WF_MODEL_BAD_REQUEST`, `WF_MODEL_TIMEOUT`), `WF_STEP_TIMEOUT`, and those of the actions it runs.
 */
export function createModelInterpreter(options: ModelInterpreterOptions): StepInterpreter {
  const conversation = createConversation(options.provider, options.maxPromptTokens ?? DEFAULT_MAX_PROMPT_TOKENS);
  return {
    check: (context) => modelCheck(context, conversation),
    ask: (context: AskContext) => modelAsk(context, conversation),
    act: (context: ActContext): Promise<ActResult> => modelAct(context, conversation, options.perform),
  };
}

/**
 * Longest wait of the grammar for a target to appear when a model is configured, in ms: short,
 * since the model's page view then waits for the page to settle anyway (`readPageView`, at most the
 * server's `settleTimeoutMs`) before the model reads it. On a page that settles by its events the
 * grammar stops sooner: once it has settled with the target not there (the hand-over rule,
 * `locateTarget`'s `NotFoundRule`). See docs/decisions/0019-hand-over-to-the-model.md and
 * docs/decisions/0064-hand-over-without-a-wait.md.
 */
export const HAND_OVER_FIND_MS = 2_000;

/** Options of {@link createGrammarThenModelInterpreter}. */
export interface GrammarThenModelOptions {
  /** Longest wait of the grammar for its first target to appear before the model gets the step, in ms. @default {@link HAND_OVER_FIND_MS} */
  grammarFindTimeoutMs?: number;
}

/**
 * The policy when a model is configured: an ACT goes to the grammar first (no model call when it
 * understands the instruction and finds its target), and to the model when the grammar does not
 * understand it (at once: the parse comes before any wait), finds no target (as soon as the page
 * has settled by its events without showing it, with no quiet rule of the grammar's own; at most
 * `grammarFindTimeoutMs`), or finds several; an ASK goes to the model. The grammar's closest
 * candidates for a target it did not find are read only for an error: when the model fails too
 * (added to the model's failure, `The grammar alone: …`, with at least 1.5 s of the step left), or
 * when the step may not call the model (`WF_MODEL_FORBIDDEN`).
 *
 * With `allowModel: false` (a spent `--max-model-calls` budget, a frozen lock), a step that needs
 * the model fails `WF_MODEL_FORBIDDEN` without calling it: an ACT the grammar would hand over, and
 * every ASK (never answered by the page reader instead); an ACT the grammar carries out still runs.
 */
export function createGrammarThenModelInterpreter(grammar: StepInterpreter, model: StepInterpreter, options: GrammarThenModelOptions = {}): StepInterpreter {
  const grammarFindMs = options.grammarFindTimeoutMs ?? HAND_OVER_FIND_MS;
  return {
    check: (context) => routeCheck(grammar, model, context),
    async act(context: ActContext): Promise<ActResult> {
      const started = Date.now();
      const timeLeft = () => Math.max(1, context.timeoutMs - (Date.now() - started));
      try {
        return await grammar.act({ ...context, firstFindTimeoutMs: Math.min(context.firstFindTimeoutMs ?? Infinity, grammarFindMs), handOver: true });
      } catch (error) {
        if (context.signal.aborted) throw error;
        // The grammar's not-found says what the page has instead only where that is the step's answer.
        if (!handsOverToModel(error)) throw await explained(error, timeLeft());
        if (context.allowModel === false) throw modelForbidden((await explained(error, timeLeft())) as InterpreterError, "the grammar");
        context.report.resolved = undefined;
        try {
          return await model.act({ ...context, timeoutMs: timeLeft(), ...(error instanceof UnexplainedNotFound && error.settled ? { settled: error.settled } : {}) });
        } catch (modelError) {
          if (!(error instanceof UnexplainedNotFound) || !(modelError instanceof InterpreterError) || modelError.code === "WF_STEP_TIMEOUT" || context.signal.aborted) throw modelError;
          throw await withGrammarNotFound(modelError, error, timeLeft());
        }
      }
    },
    async ask(context: AskContext): Promise<unknown> {
      if (context.allowModel !== false) return model.ask(context);
      // With a model configured, every ASK is the model's: the model-free page reader answering
      // instead would be a silent change of who reads the page (it may read null where the page
      // states a value), so a spent budget or a frozen run fails here. See docs/decisions/0047.
      throw new InterpreterError(
        "WF_MODEL_FORBIDDEN",
        "The step needs the model, and it was sent with allowModel: false (no model was called). On a service with a model, every ASK is the model's to answer; " +
          "the model-free page reader answers ASKs only on a service without one (WF_MODEL unset).",
      );
    },
  };
}

/** The failure of an ACT sent with `allowModel: false` that the grammar could not carry out alone. */
function modelForbidden(error: InterpreterError, who: string): InterpreterError {
  return new InterpreterError(
    "WF_MODEL_FORBIDDEN",
    `The step needs the model, and it was sent with allowModel: false (no model was called). ${who[0]!.toUpperCase()}${who.slice(1)} alone: ${error.message}`,
    { ...error.details, cause: { code: error.code, message: error.message } },
  );
}

/** Least step time left, in ms, for which a failed model step still reads what the grammar's not-found would have listed. */
const EXPLAIN_MIN_MS = 1_500;

/** `error`, or the full not-found when it is one the grammar threw without reading the page's candidates. */
async function explained(error: unknown, timeLeftMs: number): Promise<unknown> {
  return error instanceof UnexplainedNotFound ? error.explain(timeLeftMs) : error;
}

/**
 * The model's failure of a step the grammar handed over for a target it did not find, with what the
 * grammar's not-found says of the page (its closest candidates) after it: read now, only because the
 * model failed too, and only with {@link EXPLAIN_MIN_MS} of the step left (else the model's failure as it is).
 */
async function withGrammarNotFound(modelError: InterpreterError, grammarError: UnexplainedNotFound, timeLeftMs: number): Promise<InterpreterError> {
  if (timeLeftMs < EXPLAIN_MIN_MS) return modelError;
  const full = await grammarError.explain(timeLeftMs - EXPLAIN_MIN_MS / 2);
  if (full === grammarError) return modelError;
  const candidates = modelError.details.candidates ?? full.details.candidates;
  return new InterpreterError(modelError.code, `${modelError.message} The grammar alone: ${full.message}`, { ...modelError.details, ...(candidates ? { candidates } : {}) }, { cause: modelError.cause });
}

/** Grammar failures the model may resolve: only before the grammar acted (its first action, or the parse). */
function handsOverToModel(error: unknown): boolean {
  if (!(error instanceof InterpreterError)) return false;
  if (!["WF_INSTRUCTION_NOT_UNDERSTOOD", "WF_ELEMENT_NOT_FOUND", "WF_ELEMENT_AMBIGUOUS"].includes(error.code)) return false;
  const index = error.details.actionIndex;
  return index === undefined || index === 0;
}
