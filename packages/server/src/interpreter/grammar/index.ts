/**
 * The ACT grammar: plain instructions parsed into actions, with no browser (`parse.ts` and its
 * parts). Documented in `packages/server/README-interpreter.md`. Imports nothing of the
 * interpreter but its errors and types.
 */
export { describeGrammar, parseInstruction, parseInstructions } from "./parse.js";
export { ACT_GRAMMAR } from "./rules.js";
export type { GrammarRule, ParsedAction } from "./rules.js";
export { extractQuotes, parseTarget } from "./target.js";
export type { ScopeSpec, TargetSpec } from "./target.js";
export { normalizeKey } from "./words.js";
