/**
 * The step interpreter seam of `@wf/server` and its one implementation, the deterministic
 * interpreter of plain instructions. The server imports from here.
 */
export { createDeterministicInterpreter } from "./deterministic.js";
export type { DeterministicInterpreterOptions } from "./deterministic.js";
export { InterpreterError, isInterpreterError } from "./errors.js";
export type { InterpreterErrorCode, InterpreterErrorDetails, ElementCandidate } from "./errors.js";
export { ACT_GRAMMAR, parseInstruction, parseInstructions, describeGrammar } from "./grammar.js";
export type { ParsedAction, TargetSpec, GrammarRule } from "./grammar.js";
export type { StepInterpreter, ActContext, ActResult, AskContext, StepReport, ElementIdentity } from "./types.js";
export { createModelInterpreter, createGrammarThenModelInterpreter, DEFAULT_MAX_PROMPT_TOKENS, HAND_OVER_FIND_MS } from "./model/interpreter.js";
export { grammarText } from "./grammar-text.js";
export type { ModelInterpreterOptions, GrammarThenModelOptions } from "./model/interpreter.js";
export { createModelProvider } from "./model/provider.js";
export type { ModelProvider, ModelProviderOptions, ResponseFormatMode } from "./model/provider.js";
export { readPageView, renderPageView, estimateTokens } from "./model/page-view.js";
export type { PageView, PageViewOptions } from "./model/page-view.js";
export { ACT_RESPONSE_SCHEMA, ASK_SYSTEM_PROMPT, ACT_SYSTEM_PROMPT } from "./model/prompts.js";
