export { GRAMMAR_POLL_MS, grammarCheck, pollCheck, routeCheck } from "./evaluate.js";
export type { Verdict } from "./evaluate.js";
export { parseCheck } from "./parse.js";
