/**
 * Whether an action may run on its element, decided before anything is done to it: the verb fits
 * the element (each handler's {@link VerbFit}: `check` a checkbox, `select` a dropdown, `fill` a
 * text field, `upload` a file input), the element is visible and, for a verb that needs it,
 * enabled (and a text field not read-only). {@link misfit} judges facts (the page view's, for a
 * model's plan before it runs); {@link verifyElement} reads them live, waiting for a disabled or
 * hidden element only while the page is still changing. The rule and its reasons:
 * docs/decisions/0045-verbs-fit-their-elements.md.
 */
import type { Page } from "playwright-core";
import type { StepClock } from "../_clock.js";
import { InterpreterError, type InterpreterErrorCode } from "../errors.js";
import type { ParsedAction } from "../grammar/index.js";
import type { FoundElement } from "../locate/index.js";
import { elementFacts, isSettled, QUIET_MS, untraced, watchRequests, type ElementFacts } from "../page/index.js";
import type { VerbHandler } from "./verb.js";
import { VERBS } from "./verbs/index.js";

/** Why an action may not run on its element. */
export interface Misfit {
  code: Extract<InterpreterErrorCode, "WF_ACTION_NOT_APPLICABLE" | "WF_ELEMENT_DISABLED" | "WF_ELEMENT_NOT_FOUND">;
  /** What is wrong, after the element's description: `is disabled`, `is not a checkbox…: check applies to …`. */
  why: string;
}

/** The verb as the instruction says it, for messages. */
function verbWord(action: ParsedAction): string {
  if (action.verb === "fill") return action.typed ? "type" : "fill";
  return action.verb.replace(/-.*/, "");
}

/**
 * Judges whether `action` may act on an element with `facts` (visible unless `facts.visible` is
 * false). `given`: the element was given (a model's reference, a lock's record), so no grammar
 * shortcut applies. Undefined when it may.
 */
export function misfit(action: ParsedAction, facts: ElementFacts & { visible?: boolean }, given: boolean): Misfit | undefined {
  const fit = (VERBS[action.verb] as VerbHandler).fits;
  if (!fit) return undefined;
  if (fit.test && !fit.test(facts, action as never, given)) {
    return { code: "WF_ACTION_NOT_APPLICABLE", why: `is not what \`${verbWord(action)}\` acts on: it applies to ${fit.what}${hint(action, facts, given)}` };
  }
  // A file input is often hidden behind its styled label; setting files on it works.
  if (facts.visible === false && !facts.fileInput) return { code: "WF_ELEMENT_NOT_FOUND", why: "is not visible (hidden, or not shown yet)" };
  const enabled = typeof fit.enabled === "function" ? fit.enabled(action as never) : fit.enabled;
  if (enabled && facts.disabled) return { code: "WF_ELEMENT_DISABLED", why: "is disabled" };
  if (enabled && facts.readOnly && (action.verb === "fill" || action.verb === "clear" || (action.verb === "select" && facts.editable))) {
    return { code: "WF_ELEMENT_DISABLED", why: "is read-only" };
  }
  return undefined;
}

/** What the grammar would have the user write instead, where there is a form for it. */
function hint(action: ParsedAction, facts: ElementFacts, given: boolean): string {
  if (given) return "";
  if (action.verb === "select" && facts.editable) return '. To type into a text field, write `fill "…" with "…"` or `set "…" to "…"`';
  if ((action.verb === "fill" || action.verb === "clear") && (facts.nativeSelect || facts.role === "combobox" || facts.role === "listbox")) return '. To pick an option, write `select "…" in "…"`';
  if (action.verb === "check" || action.verb === "uncheck") return '. Name the checkbox itself (`check the "…" checkbox`), or click the element (`click "…"`)';
  return "";
}

/** The error of a {@link Misfit} on the element described as `description`. */
export function misfitError(m: Misfit, description: string, el: { role: string; name: string }, advice: string): InterpreterError {
  return new InterpreterError(m.code, `${description} ${m.why}. Nothing was done to it.${advice ? ` ${advice}` : ""}`, {
    target: el.name,
    candidates: [{ role: el.role, name: el.name }],
  });
}

/** Advice after a misfit, by code. */
function adviceFor(m: Misfit): string {
  if (m.code === "WF_ELEMENT_DISABLED") return "Do first what enables it (fill the fields it needs, choose an option), or wait for it (`wait for \"…\"`).";
  if (m.code === "WF_ELEMENT_NOT_FOUND") return "Do first what shows it (open the menu, expand the section), or wait for it (`wait for \"…\"`).";
  return "";
}

/** Longest pause between two looks at a disabled or hidden element, in ms. */
const POLL_MS = 250;

/**
 * Checks that `action` may act on `el` ({@link misfit} on facts read in the page: those the look
 * that found it read, `el.facts`, else read now). A disabled or hidden element is looked at again,
 * live, while the page is still changing (requests in flight, the DOM not quiet for `QUIET_MS`),
 * for at most `waitMs`; a verb that does not fit fails at once.
 * @throws {@link InterpreterError} `WF_ACTION_NOT_APPLICABLE`, `WF_ELEMENT_DISABLED`, or
 *   `WF_ELEMENT_NOT_FOUND` (hidden, or gone from the page).
 */
export function verifyElement(page: Page, el: FoundElement, action: ParsedAction, given: boolean, clock: StepClock, waitMs: number): Promise<void> {
  return untraced(page, () => verify(page, el, action, given, clock, waitMs));
}

async function verify(page: Page, el: FoundElement, action: ParsedAction, given: boolean, clock: StepClock, waitMs: number): Promise<void> {
  // The element was found a moment ago; one that left the page since is not waited for until the step's deadline.
  const readMs = Math.max(waitMs, 5_000);
  const read = () =>
    el.locator.evaluate(elementFacts, undefined, { timeout: Math.min(clock.left(), readMs) }).catch((error: unknown) => {
      if (clock.signal.aborted || !(error instanceof Error) || error.name !== "TimeoutError" || clock.left() <= 1) throw error;
      throw new InterpreterError("WF_ELEMENT_NOT_FOUND", `${el.description} left the page before it was acted on. Nothing was done to it.`, { target: el.name });
    });
  // The look that found the element read its facts a moment ago, in the same round trip: judged
  // as they are; read live only to look again at a disabled or hidden element (below).
  let problem = misfit(action, el.facts ?? (await read()), given);
  if (problem && problem.code !== "WF_ACTION_NOT_APPLICABLE") {
    const deadline = Date.now() + Math.max(0, Math.min(waitMs, clock.left()));
    const network = watchRequests(page);
    while (problem && problem.code !== "WF_ACTION_NOT_APPLICABLE") {
      const left = deadline - Date.now();
      if (left <= 0 || clock.signal.aborted || (await isSettled(page, QUIET_MS, network.inflight()))) break;
      await page.waitForTimeout(Math.min(left, POLL_MS));
      problem = misfit(action, await read(), given);
    }
  }
  if (problem) throw misfitError(problem, el.description, el, adviceFor(problem));
}
