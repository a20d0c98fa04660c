/**
 * The step interpreter seam: turns one ACT instruction into browser actions, or one ASK question
 * into an answer read from a page. Implementations: the deterministic interpreter of plain
 * instructions (no model, no network) and the model-backed one; a policy combines them.
 */
import type { Page } from "playwright-core";
import type { CheckRecipe, NormalizedStepSchema, ReadRecipe, StepInterpreterKind, StepSettle, StepUsage } from "@wf/core/protocol";

/**
 * What an interpreter tells about a step besides its result, filled in as the step runs so it
 * survives a failure (a failed model step still cost tokens). The session manager copies it onto
 * the step's record: `interpreter`, `resolved`, `usage` and `pageReduced` of the step status.
 */
export interface StepReport {
  /** Who carried the step out. */
  interpreter?: StepInterpreterKind;
  /** ACT: the grammar instruction executed (secrets as the instruction wrote them; the server redacts). */
  resolved?: string;
  /** Model calls of the step, summed. */
  usage?: StepUsage;
  /** True when the page sent to the model was reduced to fit the prompt budget. */
  pageReduced?: boolean;
  /** True when the step replayed recorded actions (ACT) or a recorded read recipe (ASK) instead of interpreting its instruction. */
  replayed?: boolean;
  /** ASK answered by the model: the read recipe that reproduced its answer on the same page (`lock/derive-recipe.ts`). */
  recipe?: ReadRecipe;
  /** A check the model decided: the check recipe that gave its verdict on the same page (`lock/check-recipe.ts`). */
  checkRecipe?: CheckRecipe;
  /** ASK answered by the model with no {@link StepReport.recipe} (a check with no {@link StepReport.checkRecipe}): why none reproduces the answer. */
  noRecipe?: string;
  /**
   * The step's waits for the page to settle before it read it (`page/settle.ts`, `settleBeforeRead`),
   * summed: recorded when it waited, reached the cap, or left long-lived requests out.
   */
  settle?: StepSettle;
  /**
   * The model call in flight, while one is (`gpt-4.1-mini at https://api.openai.com/v1`): a step
   * whose deadline comes meanwhile fails `WF_MODEL_TIMEOUT` naming it, not the bare `WF_STEP_TIMEOUT`.
   * Not part of the step's record.
   */
  awaitingModel?: string | undefined;
  /**
   * ASK answered by the model: each value of the answer with the page text it rests on and where
   * the page view shows it (`model/grounding.ts`). Internal: not on the wire nor in the records;
   * what a read recipe is derived from.
   */
  grounding?: GroundedValue[];
}

/** A value of a model's answer and the page text it rests on (see `model/grounding.ts`). */
export interface GroundedValue {
  /** JSON Pointer of the value in the step's answer, e.g. `/value/0/price`, `/total`. */
  path: string;
  value: string | number | boolean;
  /**
   * How the value follows from its quotes: written in one (`quoted`: text, number, date or link as
   * the page writes it), their count (`count`), their sum (`sum`), or a yes/no read from them
   * (`judged`: that the quotes are on the page is checked, not the judgement).
   */
  basis: "quoted" | "count" | "sum" | "judged";
  /** The page text it rests on. */
  quotes: GroundingQuote[];
}

/** Page text an answer's value rests on, and where the page view shows it. */
export interface GroundingQuote {
  /** The page's text (the view's own markup left out), whitespace folded. */
  text: string;
  /** Index of its line among the page view's lines (frames stitched in); -1 for the title and URL. */
  line: number;
  /** That line as the view shows it, e.g. `| Anvil | $120.00 | 4 |`. */
  lineText: string;
  /** The element whose name or value holds the text: its reference in the page view (`e12`). */
  ref?: string;
  /** Places of the view holding the same text: more than 1 means the text alone does not say which. */
  occurrences: number;
}

/** Fields every interpreter call gets. */
interface StepContextBase {
  /** Time left for the step, in ms. */
  timeoutMs: number;
  /** Aborts when the step times out or the session closes. */
  signal: AbortSignal;
  /**
   * Secret values of the step (its `redact` list): they must never leave the server (no prompt,
   * no log). The instruction itself still carries them where the workflow interpolated them.
   */
  secrets: readonly string[];
  /** Filled in by the interpreter as it works; see {@link StepReport}. */
  report: StepReport;
  /**
   * Longest wait for the page to settle (its requests, then a quiet DOM) before the step reads it,
   * in ms: before an ASK reads, before a check evaluates, before a model's view of the page.
   * @default 3_000 (`DEFAULT_SETTLE_TIMEOUT_MS`; the server's `settleTimeoutMs`)
   */
  settleTimeoutMs?: number;
  /**
   * Whether the step may call the model (the request's `allowModel`). false: where it would need
   * the model, the step fails `WF_MODEL_FORBIDDEN` instead. @default true
   */
  allowModel?: boolean;
}

/** What an ACT gets. */
export interface ActContext extends StepContextBase {
  /**
   * The session's current page. With {@link ActContext.tabs}, it follows the session's current tab:
   * a tab an action opens (a `target=_blank` link, `window.open`) or switches to becomes it.
   */
  page: Page;
  /** The instruction, e.g. `click "Sign in"`. */
  instruction: string;
  /**
   * Longest wait for the target of the instruction's first action to appear, in ms, when shorter
   * than the interpreter's own (the grammar's `findTimeoutMs` option); later actions of a chained
   * instruction wait as long as ever. Set by a policy that has something better to do than wait:
   * the grammar-then-model policy hands a first target that has not appeared to the model (a step
   * that has already acted is never handed over).
   * @default the interpreter's own
   */
  firstFindTimeoutMs?: number;
  /**
   * Set by a policy that hands a first target the grammar does not find to the model: the grammar
   * then looks for it only until the page has settled by its events (its requests done, the DOM
   * quiet for a read's short while; at most `settleTimeoutMs`), with no quiet
   * rule of its own, and throws its not-found at once as an `UnexplainedNotFound`, whose closest
   * candidates are read only if the policy asks (the model failed too). See
   * docs/decisions/0064-hand-over-without-a-wait.md. @default false
   */
  handOver?: boolean;
  /**
   * The page's DOM as the grammar's look before a hand-over last found it quiet (set by the policy
   * that handed the step over): the model's page view does not wait for the page to settle again
   * while its DOM is unchanged and none of its requests ended since (`settleBeforeRead`'s `since`).
   */
  settled?: QuietMark;
  /** The session's tabs, to list, switch and close them; absent where a step has only one page. */
  tabs?: TabsController;
  /**
   * Files the step brought with it (a remote client sent their bytes): the path as the
   * instruction names it → the local file holding the bytes. `upload` looks here before the
   * upload root.
   */
  uploads?: ReadonlyMap<string, string>;
}

/** One open tab of a session. */
export interface TabInfo {
  /** 1-based position in opening order. */
  index: number;
  title: string;
  url: string;
  /** True for the session's current tab. */
  current: boolean;
}

/**
 * Which tab an instruction names: a 1-based position (`-1` the last one), a text found in its
 * title or URL (case-folded), or the current tab.
 */
export type TabSelector = { index: number } | { text: string } | { current: true };

/** What happened to the session's tabs during an ACT: the step result's `tab`, the current tab after it. */
export interface TabChange {
  /** `opened`: an action opened a tab (or popup) and the session followed it; `switched`; `closed` (the current tab is then the one before it). */
  change: "opened" | "switched" | "closed";
  /** 1-based position of the current tab after the change. */
  index: number;
  /** Tabs open after the change. */
  count: number;
  /** URL of the current tab. */
  url: string;
  /** Title of the current tab. */
  title: string;
}

/**
 * The session's tabs as interpreters may drive them (`switch to the "Invoice" tab`,
 * `close this tab`). Implemented by the session (`sessions/tabs.ts`).
 */
export interface TabsController {
  /** The open tabs, in opening order. */
  list(): Promise<TabInfo[]>;
  /**
   * Makes a tab the current one (its `domcontentloaded` awaited within `timeoutMs`).
   * @throws {@link InterpreterError} `WF_TAB_NOT_FOUND` (none matches; the message lists the open
   *   tabs) or `WF_TAB_AMBIGUOUS` (several match at the same level).
   */
  switchTo(which: TabSelector, timeoutMs: number): Promise<TabChange>;
  /**
   * Closes a tab; when it was the current one, the tab that was current before it becomes current.
   * @throws {@link InterpreterError} `WF_TAB_NOT_FOUND`, `WF_TAB_AMBIGUOUS`, `WF_TAB_CLOSE_REFUSED`
   *   (the session's only tab).
   */
  close(which: TabSelector, timeoutMs: number): Promise<TabChange>;
  /**
   * After an action: waits (within `timeoutMs`) for a tab the action is opening to arrive and
   * become current, so the next action acts on it; returns at once when none is opening.
   */
  settle(timeoutMs: number): Promise<void>;
}

/** Who an element is, as a person and Playwright would name it. */
export interface ElementIdentity {
  /** ARIA role, e.g. `button`. */
  role: string;
  /** Accessible name, e.g. `Sign in`. */
  name: string;
  /** A Playwright locator for it, e.g. `getByRole('button', { name: 'Sign in' })`. */
  locator?: string;
  /**
   * `"locator"` when no grammar instruction names this element alone on the page it was recorded
   * on: a replay looks for it by `locator` first, and by the instruction only after. Absent: the
   * instruction first.
   */
  primary?: "locator";
}

/** What an ACT did: the step's `result` on the wire. */
export interface ActResult {
  /** The verb understood, e.g. `click`, `goto`, `fill`. */
  action: string;
  /** The element acted on, described for people: `button "Sign in"`. */
  target?: string;
  /** One line on what was done. */
  message: string;
  /** The page URL after the action. */
  url: string;
  /** The element acted on (the last action's, for a chained instruction), when there was one. */
  element?: ElementIdentity;
  /**
   * For a step the model resolved or a replay: each action it ran, as a grammar instruction and the
   * element it acted on (what a lock of resolved steps records to replay without the model).
   * `refound` marks a replayed action whose recorded instruction no longer found its element and
   * which acted on the recorded element found again (its instruction is then the one naming it now).
   */
  actions?: Array<{ instruction: string; element?: ElementIdentity; refound?: true }>;
  /** The session's tabs changed during the step (a tab opened and was followed, a switch, a close): the current tab after it. */
  tab?: TabChange;
}

/** What an ASK gets. */
export interface AskContext extends StepContextBase {
  /** The page to read: the session's page, or a scratch page holding `currentDom`. */
  page: Page;
  /** The question. */
  question: string;
  /** The wanted structured output, or undefined for a text answer. */
  schema?: NormalizedStepSchema;
  /**
   * Whether a model's answer gets a read recipe derived (`report.recipe`, else `report.noRecipe`):
   * one more read of the page, asked for only when a lock records it. @default false
   */
  deriveRecipe?: boolean;
}

/** What a check gets (an ASK sent with `check`). */
export interface CheckContext extends StepContextBase {
  /** The session's page. */
  page: Page;
  /** The statement, e.g. `the page shows "Saved"`. */
  statement: string;
  /** How long the statement is retried until it holds, in ms (within the step's `timeoutMs`); 0 evaluates it once. */
  checkTimeoutMs: number;
  /** Whether a model's verdict gets a check recipe derived (`report.checkRecipe`, else `report.noRecipe`). @default false */
  deriveRecipe?: boolean;
}

/** What a check that held answers: the step's `result` (`CheckAnswer` of the protocol). */
export interface CheckResult {
  holds: true;
  /** Why it holds, one sentence. */
  reason: string;
  /** What was seen: quoted page text, the element and its state, the URL or title. */
  evidence: string;
  interpreter: StepInterpreterKind;
  /** Evaluations made until it held. */
  attempts: number;
}

/** Interprets steps. Throws `InterpreterError` (see `../errors.ts`) when it cannot. */
export interface StepInterpreter {
  act(context: ActContext): Promise<ActResult>;
  /** Returns the answer: JSON valid against `schema.schema`, or a string when there is no schema. */
  ask(context: AskContext): Promise<unknown>;
  /**
   * Evaluates a statement until it holds (see `check/evaluate.ts`). Throws `WF_CHECK_FAILED` when it did
   * not hold within `checkTimeoutMs`. Optional: an interpreter without it does not take checks.
   */
  check?(context: CheckContext): Promise<CheckResult>;
}

/**
 * A page's DOM found quiet by a wait for it to settle (`page/settle.ts`, `SettleOutcome.quiet`): its
 * stamp then (the document's observer id, its count of changes) and when (`at`, `Date.now()` in ms,
 * taken before the read that found it quiet).
 */
export interface QuietMark {
  stamp: { id: number; changes: number };
  at: number;
}
