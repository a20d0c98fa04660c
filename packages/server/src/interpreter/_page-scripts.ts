/**
 * Code that runs inside the page, one module per concern, gathered here for the interpreters:
 * the shared in-page helpers (`_page-source.ts`), the scripts on a locator's elements
 * (`_page-elements.ts`) and the page reading for ASK (`_page-extract.ts`). Written as plain
 * JavaScript source and turned into functions with `new Function`, because TypeScript loaders
 * (tsx) wrap named functions in a `__name` helper that does not exist in the page; a function
 * built from a string keeps its source as written, which is what Playwright sends to the browser.
 */
export { DESCRIBE_SOURCE } from "./_page-source.js";
export { describeElements, inScopes, listSelectOptions, nearLabelMatches, scrollPage, type ElementInfo, type ScopeArg } from "./_page-elements.js";
export { extractPage, extractPageJson, type ExtractOptions, type PageData } from "./_page-extract.js";
