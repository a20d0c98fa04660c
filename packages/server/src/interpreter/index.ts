/**
 * The step interpreters of `@wf/server`, as the rest of the server sees them: the interpreter seam
 * (`types.ts`), the deterministic interpreter of plain instructions (`deterministic.ts`, built from
 * `grammar/`, `locate/`, `act/`, `read/` and `check/`), the replay of recorded actions (`lock/`),
 * the check every answer passes (`read/`) and the page view (`page/`). The model-backed
 * interpreter is `model/index.ts`, its own entry: it loads the `openai` SDK (~14 MB), so the server
 * imports it only when a model is configured.
 *
 * Files outside `interpreter/` import this file or `model/index.ts`, nothing else of the folder
 * (`.dependency-cruiser.cjs` checks it).
 */
export { createDeterministicInterpreter } from "./deterministic.js";
export type { DeterministicInterpreterOptions } from "./deterministic.js";
export { InterpreterError, isInterpreterError } from "./errors.js";
export type { InterpreterErrorCode, InterpreterErrorDetails, ElementCandidate } from "./errors.js";
export { ACT_GRAMMAR, parseInstruction, parseInstructions, describeGrammar } from "./grammar/index.js";
export type { ParsedAction, TargetSpec, GrammarRule } from "./grammar/index.js";
export { parseCheck } from "./check/index.js";
export { grammarText, replayActions, replayCheck, replayOptions, replayRead } from "./lock/index.js";
export { DEFAULT_SETTLE_TIMEOUT_MS, estimateTokens, readPageView, renderPageView, trackRequests } from "./page/index.js";
export type { PageView, PageViewOptions } from "./page/index.js";
export { answerErrors } from "./read/index.js";
export { setBaseURL } from "./act/index.js";
export type {
  ActContext,
  ActResult,
  AskContext,
  CheckContext,
  ElementIdentity,
  StepInterpreter,
  StepReport,
  TabChange,
  TabInfo,
  TabSelector,
  TabsController,
} from "./types.js";
