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
   * interpreter passes one that returns the element the model referred to.
   */
  locate?: (target: TargetSpec, purpose: TargetPurpose, waitMs: number) => Promise<FoundElement>;
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
  /** Finds the element a target names, for a purpose (which decides the roles and strategies tried). */
  find(target: TargetSpec, purpose: TargetPurpose): Promise<FoundElement>;
  /** Waits for `domcontentloaded` within the step's time left (after an action that may navigate); never throws. */
  settle(): Promise<void>;
}

/**
 * One verb's handler.
 * @typeParam V - the verbs it carries out.
 */
export interface VerbHandler<V extends Verb = Verb> {
  /**
   * What the verb acts on: `"page"` (no element: a navigation, a key press on the page, a wait),
   * `"any"` (whatever element the instruction names: a click, a hover) or the ARIA roles of the
   * elements it applies to, as `getByRole` names them (`check`: checkbox, radio, switch, …).
   */
  acts: "page" | "any" | readonly AriaRole[];
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
