/**
 * What the interpreters read of a page, one module per concern: code that runs inside the page (the
 * shared in-page helpers, `source.ts`; the scripts on a locator's elements, `elements.ts`; the page
 * reading for ASK, `extract.ts`; the page view's snapshot, `view-script.ts`), when a page is
 * settled (`settle.ts`), and the page view a model is shown (`view.ts`). In-page code is Written as plain
 * JavaScript source and turned into functions with `new Function`, because TypeScript loaders
 * (tsx) wrap named functions in a `__name` helper that does not exist in the page; a function
 * built from a string keeps its source as written, which is what Playwright sends to the browser.
 */
export { DESCRIBE_SOURCE } from "./source.js";
export { describeElements, inScopes, leadMatches, listSelectOptions, nearLabelMatches, scrollPage } from "./elements.js";
export type { ElementInfo } from "./elements.js";
export { extractPageJson } from "./extract.js";
export { elementFacts } from "./facts.js";
export type { ElementFacts } from "./facts.js";
export type { ExtractOptions, ItemField, PageData, Region, Severity } from "./extract.js";
export { DEFAULT_SETTLE_TIMEOUT_MS, QUIET_MS, READ_QUIET_MS, recordSettle, domQuietAndStamp, domQuietForMs, domStamp, isNavigationRace, isSettled, settleBeforeRead, waitForDomChange, waitForSettled, watchRequests } from "./settle.js";
export type { DomStamp, SettleOutcome } from "./settle.js";
export { trackRequests } from "./requests.js";
export { elementsShowing } from "./text-element.js";
export { VIEW_MARKS, identifyViewElement, identifyViewElements } from "./view-script.js";
export type { ViewLine } from "./view-script.js";
export { estimateTokens, readPageView, renderPageView, wantsLinkTargets } from "./view.js";
export {
  DOCUMENT,
  HIDDEN,
  LINK,
  MARKUP,
  PAGE_DATA,
  PAGE_TEXT,
  TEXT,
  contentIn,
  elementAt,
  findText,
  foldText,
  lineAt,
  numbersIn,
  parseViewLine,
  segmentsTouched,
  shownIn,
} from "./view-source.js";
export type { FindMode, SourceKind, TextRange, ViewSource } from "./view-source.js";
export type { PageView, PageViewOptions, RawPageView, ViewElement } from "./view.js";
// wf's own reads of a page, left out of a session's trace (decision 0074).
export { untraced } from "../../browser/tracing.js";
