/**
 * Check recipes (`CheckRecipe` of `@wf/core/protocol`, docs/decisions/0067-check-recipes.md): a
 * `check()` the model decided, evaluated again with no model. Derived after the model's verdict
 * (it held, on evidence quoted from the page): the element that shows the evidence is found,
 * recorded by position (its locator never names the text the condition reads, so a changed text
 * is a failed check, not a missing element), with the condition that its text `equals` or
 * `contains` the evidence. The recipe is run on the same page and kept only when it holds there
 * too: otherwise no recipe, and why (`noRecipe`).
 *
 * Statements whose truth is more than one element's text (a quantity over the page: `only`, `all`,
 * `no`, `exactly`, `more than`; a negation) get no recipe: the evidence for them says nothing about
 * the rest of the page, and the same text could be there while the statement is false.
 *
 * Replay: the element must still be one element of its recorded role at its locator, else the
 * recipe is stale (`WF_LOCK_STALE`, naming it); its text is read as it is now and the check holds
 * or fails on it, retried as a grammar check is until its time is up.
 */
import type { Page } from "playwright-core";
import type { CheckRecipe } from "@wf/core/protocol";
import { TIMED_OUT, within, type StepClock } from "../_clock.js";
import { normalizeText } from "../_text.js";
import { InterpreterError, isInterpreterError } from "../errors.js";
import { GRAMMAR_POLL_MS, pollCheck, type Verdict } from "../check/index.js";
import { elementsShowing, foldText, identifyViewElements } from "../page/index.js";
import type { CheckContext, CheckResult } from "../types.js";
import { recordedLocator } from "./recorded-locator.js";

/** A check recipe kept, or why none was. */
export type DerivedCheckRecipe = { recipe: CheckRecipe } | { noRecipe: string };

/** Words that make a statement about more than the element its evidence is in, or about an absence. */
const JUDGED = /\b(?:not|no|never|none|nothing|nobody|neither|nor|without|only|all|every|each|any|exactly|both|either|most|least|more|less|fewer|than|over|under|above|below|before|after|between|at\s+least|at\s+most)\b|n't\b/i;

/** Longest the derivation may take (the page search and the recipe's own run), in ms. */
const DERIVE_MS = 5_000;
/** Time left to the step after the derivation, in ms. */
const DERIVE_MARGIN_MS = 500;
/** Below this (ms), no derivation is tried. */
const MIN_DERIVE_MS = 200;
/** Longest one read of the recorded element's text may take, in ms. */
const READ_MS = 2_000;

/**
 * Derives the recipe of a check the model decided (it held, on `evidence`: page text the model
 * quoted, as `model/evidence.ts` accepted it), and keeps it only when it holds on the same page.
 * Never throws for the step: a page that cannot be searched is a `noRecipe`.
 */
export async function recordCheckRecipe(page: Page, statement: string, evidence: string, clock: StepClock): Promise<DerivedCheckRecipe> {
  const judged = JUDGED.exec(statement);
  if (judged) return { noRecipe: `the statement needs judgement: ${JSON.stringify(judged[0])} makes it about more than the text of the element its evidence is in` };
  const text = normalizeText(evidence);
  if (!text) return { noRecipe: "the model's evidence is empty" };
  const budgetMs = Math.min(DERIVE_MS, clock.left() - DERIVE_MARGIN_MS);
  if (budgetMs < MIN_DERIVE_MS) return { noRecipe: "the step had no time left to find the evidence's element and check a recipe" };
  const started = Date.now();
  try {
    const found = await within(page.evaluate(elementsShowing, text), budgetMs);
    if (found === TIMED_OUT) return { noRecipe: `finding the element of the evidence took over ${budgetMs} ms` };
    if (found.length === 0) return { noRecipe: `no one element of the page shows the model's evidence ${JSON.stringify(clip(text))} whole (it spans several, or lies in a frame or shadow root)` };
    if (found.length > 1) return { noRecipe: `the model's evidence ${JSON.stringify(clip(text))} is shown by ${found.length} elements: the recipe could not tell which the statement is about` };
    const { selector, text: shown } = found[0]!;
    const locatorText = `locator('${selector.replace(/[\\']/g, "\\$&")}')`;
    const locator = recordedLocator(page, locatorText);
    if (!locator) return { noRecipe: `the element's selector ${JSON.stringify(selector)} cannot be written as a locator` };
    const identities = await within(locator.evaluateAll(identifyViewElements), Math.max(1, budgetMs - (Date.now() - started)));
    if (identities === TIMED_OUT || identities.length !== 1) return { noRecipe: `the element that shows the evidence could not be found again by its selector ${JSON.stringify(selector)}` };
    const { role, name } = identities[0]!;
    const recipe: CheckRecipe = {
      element: { role, name: clip(name, 1000), locator: locatorText },
      ...(shown === foldText(text) ? { equals: text } : { contains: text }),
    };
    // The rule: the recipe must give the model's verdict (it holds) on the same page.
    const again = await evaluateCheckRecipe(page, recipe);
    if (!again.holds) return { noRecipe: `the recipe did not give the model's verdict on the same page: ${again.stale ?? again.reason}` };
    return { recipe };
  } catch (error) {
    return { noRecipe: `the page could not be searched for the evidence's element (${(error as Error).message.split("\n")[0]})` };
  }
}

/** One evaluation of a check recipe; `stale`: why its element is not there (then it does not hold). */
export async function evaluateCheckRecipe(page: Page, recipe: CheckRecipe): Promise<Verdict & { stale?: string }> {
  const { role, name, locator: locatorText } = recipe.element;
  const recorded = `the recorded ${role} ${JSON.stringify(clip(name, 80))} (${locatorText})`;
  const want = recipe.equals ?? recipe.contains;
  if (want === undefined) return { holds: false, stale: `${recorded}: its recipe has neither \`equals\` nor \`contains\` (the lock entry was edited?)`, reason: "the recipe names no text.", evidence: "" };
  const locator = recordedLocator(page, locatorText);
  if (!locator) return { holds: false, stale: `${recorded}: its locator cannot be read (the lock entry was edited?)`, reason: "the recipe's locator cannot be read.", evidence: "" };
  const now = await locator.evaluateAll(identifyViewElements);
  if (now.length !== 1 || now[0]!.role !== role) {
    const seen = now.length === 0 ? "nothing there" : now.length > 1 ? `${now.length} elements there` : `a ${now[0]!.role} ${JSON.stringify(clip(now[0]!.name, 80))} in its place`;
    return { holds: false, stale: `${recorded}; the page has ${seen}`, reason: `${recorded} is not on the page.`, evidence: seen };
  }
  const text = await locator.innerText({ timeout: READ_MS }).catch(() => undefined);
  // It left the page between the two reads: as good as not there (the next evaluation tells).
  if (text === undefined) return { holds: false, stale: `${recorded}; it left the page while its text was read`, reason: `${recorded} left the page.`, evidence: "" };
  const visible = await locator.isVisible();
  const have = foldText(text);
  const says = recipe.equals !== undefined ? have === foldText(recipe.equals) : have.includes(foldText(want));
  const holds = visible && says;
  const verb = recipe.equals !== undefined ? "reads" : "shows";
  const reason = !visible ? `${recorded} is not visible.` : `${recorded} ${holds ? verb : `no longer ${verb}`} ${JSON.stringify(clip(want))} (the model's evidence when it was recorded).`;
  return { holds, reason, evidence: JSON.stringify(clip(normalizeText(text))) };
}

/**
 * Replays a check recipe: its element's text evaluated until the condition holds or the check's
 * time is up, as a grammar check is. Marks the report `replayed` (no model is called).
 * @throws {@link InterpreterError} `WF_CHECK_FAILED` when the element is there and its text no
 *   longer says it; `WF_LOCK_STALE` (details `lookedFor`, `seen`) when the element is not there at
 *   the end; `WF_STEP_TIMEOUT`.
 */
export async function replayCheck(context: CheckContext, recipe: CheckRecipe): Promise<CheckResult> {
  context.report.interpreter = "grammar";
  context.report.replayed = true;
  let stale: string | undefined;
  try {
    return await pollCheck(context, "grammar", GRAMMAR_POLL_MS, async () => {
      const verdict = await evaluateCheckRecipe(context.page, recipe);
      stale = verdict.stale;
      return verdict;
    });
  } catch (error) {
    if (stale !== undefined && isInterpreterError(error) && error.code === "WF_CHECK_FAILED") {
      throw new InterpreterError(
        "WF_LOCK_STALE",
        `The recorded check of ${JSON.stringify(context.statement)} no longer applies to this page: it looked for ${stale}. It was not evaluated. Record the step again (wf run <file> --lock write), or let a model check it (--lock heal).`,
        { lookedFor: recipe.element.locator, seen: stale },
      );
    }
    throw error;
  }
}

function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
