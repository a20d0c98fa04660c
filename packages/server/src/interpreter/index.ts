/**
 * The step interpreter seam of `@wf/server` and its one implementation, the deterministic
 * interpreter of plain instructions. The server imports from here.
 */
export { createDeterministicInterpreter } from "./deterministic.js";
export type { DeterministicInterpreterOptions } from "./deterministic.js";
export { InterpreterError, isInterpreterError } from "./errors.js";
export type { InterpreterErrorCode, InterpreterErrorDetails, ElementCandidate } from "./errors.js";
export { ACT_GRAMMAR, parseInstruction, describeGrammar } from "./grammar.js";
export type { ParsedAction, TargetSpec, GrammarRule } from "./grammar.js";
export type { StepInterpreter, ActContext, ActResult, AskContext, StepReport, ElementIdentity } from "./types.js";
