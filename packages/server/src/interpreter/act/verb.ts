/**
 * The shape of a verb handler: one per grammar verb (or family of verbs), in `verbs/`, gathered in
 * the table {@link VERBS} that {@link performAction} dispatches through. A handler declares what it
 * acts on ({@link VerbHandler.acts}) beside how it runs, so what a verb may be applied to is read
 * off one place.
 */
import type { Page } from "playwright-core";
import type { StepClock } from "../_clock.js";
import type { ParsedAction, TargetSpec } from "../grammar/index.js";
import type { AriaRole, FoundElement, TargetPurpose } from "../locate/index.js";
import type { ElementFacts } from "../page/index.js";
import type { ActResult, ElementIdentity, TabsController } from "../types.js";

/** A verb of the grammar (`ParsedAction["verb"]`): `goto`, `click`, `fill`, `select`, `check`, … */
export type Verb = ParsedAction["verb"];
/** Each verb → its parsed action (a family such as `click`/`hover` shares one). */
type ActionByVerb = { [A in ParsedAction as A["verb"]]: A };
/** The parsed action of a verb (or of each of several). */
export type ActionOf<V extends Verb> = ActionByVerb[V];

/** How {@link performAction} runs: the interpreter's options, and how a target is found. */
export interface PerformOptions {
  uploadRoot: string;
  findTimeoutMs: number;
  allowFileUrls: boolean;
  /**
   * Finds the element a target names. @default the grammar's `locateTarget`. The model
   * interpreter passes one that returns the element the model referred to (a replay: the one the
   * lock recorded). With it, the action's element is *given*: the verb must fit it as it is, and no
   * grammar shortcut applies (see {@link VerbFit}).
   */
  locate?: (target: TargetSpec, purpose: TargetPurpose, waitMs: number) => Promise<FoundElement>;
  /**
   * The hand-over rule for the action's own target (the first element it looks for): the grammar's
   * find stops once the page has settled by its events, with no quiet rule of its own, and a target
   * not there is thrown as an `UnexplainedNotFound` (see `locateTarget`'s `NotFoundRule`). Set by the
   * grammar for the first action of a step a policy may hand over. Absent: the grammar's own rule.
   */
  handOver?: { settleCapMs: number };
  /** The step's tabs (`switch to the … tab`, `close this tab`); without it those verbs fail `WF_TAB_NOT_FOUND`. */
  tabs?: TabsController;
  /** Files the step brought (path as the instruction names it → local file); `upload` looks here before `uploadRoot`. */
  uploads?: ReadonlyMap<string, string>;
}

/** What one action did; `url` is added by the caller once every action ran. */
export type ActionDone = Omit<ActResult, "url">;

/** What a handler gets besides its action. */
export interface VerbContext {
  page: Page;
  clock: StepClock;
  options: PerformOptions;
  /**
   * True when the action's element is given (by a model's reference or a lock's record) rather
   * than found by the grammar from the instruction's words: grammar shortcuts (the checkbox of an
   * item, a button that opens a file chooser) do not apply.
   */
  given: boolean;
  /**
   * Finds the action's own element and checks that the verb fits it ({@link verify}).
   * @throws {@link InterpreterError} those of `locateTarget`, and `WF_ACTION_NOT_APPLICABLE`,
   *   `WF_ELEMENT_DISABLED`, `WF_ELEMENT_NOT_FOUND` (hidden) from the check.
   */
  find(target: TargetSpec, purpose: TargetPurpose): Promise<FoundElement>;
  /** Finds an element a target names, unchecked: another element the verb reaches (a dropdown's option), or one a grammar shortcut starts from. */
  locate(target: TargetSpec, purpose: TargetPurpose): Promise<FoundElement>;
  /**
   * Checks, before the action, that the verb fits `el` (its {@link VerbHandler.fits}), that it is
   * visible and, where the verb needs it, enabled and editable; waits for a disabled or hidden
   * element while the page is still changing (at most the find timeout), never for a misfit.
   * @throws {@link InterpreterError} `WF_ACTION_NOT_APPLICABLE`, `WF_ELEMENT_DISABLED`, `WF_ELEMENT_NOT_FOUND`.
   */
  verify(el: FoundElement): Promise<void>;
  /** Waits for `domcontentloaded` within the step's time left (after an action that may navigate); never throws. */
  settle(): Promise<void>;
}

/**
 * Which elements a verb may act on, checked on the element found (or given) before anything is
 * done to it (`act/fit.ts`).
 * @typeParam V - the verbs it carries out.
 */
export interface VerbFit<V extends Verb = Verb> {
  /** What it applies to, for messages: `a checkbox, radio button, switch or checkable menu item`. */
  what: string;
  /**
   * Whether the verb applies to an element with these facts. `given`: the element was given (a
   * model's reference, a lock's record), not found by the grammar. Absent: any element.
   */
  test?(el: ElementFacts, action: ActionOf<V>, given: boolean): boolean;
  /** Whether the element must be enabled (and, for typing, not read-only) for the verb to act on it. */
  enabled: boolean | ((action: ActionOf<V>) => boolean);
}

/**
 * One verb's handler.
 * @typeParam V - the verbs it carries out.
 */
export interface VerbHandler<V extends Verb = Verb> {
  /**
   * What the grammar looks among for the verb's target: `"page"` (no element: a navigation, a key
   * press on the page, a wait), `"any"` (whatever element the instruction names: a click, a hover)
   * or the ARIA roles of the elements it applies to, as `getByRole` names them (`check`: checkbox,
   * radio, switch, …).
   */
  acts: "page" | "any" | readonly AriaRole[];
  /** Which elements it may act on, checked before it acts (see {@link VerbFit}); absent for verbs without an element. */
  fits?: VerbFit<V>;
  run(action: ActionOf<V>, context: VerbContext): Promise<ActionDone>;
}

/** The element a step reports; inside an iframe, with its locator, which names the frame. */
export function identity(el: FoundElement): ElementIdentity {
  return { role: el.role, name: el.name, ...(el.normalized ? { locator: el.normalized } : {}) };
}

/** The first line of an error's message, without Playwright's `page.goto: ` prefix. */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.replace(/^page\.\w+:\s*/, "");
}
