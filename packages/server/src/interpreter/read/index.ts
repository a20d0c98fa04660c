export { answerErrors } from "./answer-check.js";
export { answerFromPage, answerTextFromPage } from "./answer.js";
export { NeedsFullRead, readPage } from "./page-read.js";
export { normalizePage } from "./labelled.js";
