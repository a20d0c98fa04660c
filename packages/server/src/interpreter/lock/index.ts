export { ROLE_WORDS, grammarText } from "./grammar-text.js";
export { recordInstruction } from "./record-instruction.js";
export { replayActions, replayOptions } from "./replay.js";
