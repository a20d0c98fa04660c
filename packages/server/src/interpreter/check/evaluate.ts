/**
 * Checks (assertions): a statement about the page evaluated again and again until it holds or its
 * time is up, like Playwright's `expect`. This file holds the loop every check runs in
 * ({@link pollCheck}), the evaluation of the grammar forms of `./parse.ts` with no model
 * ({@link evaluateGrammarCheck}), and the check of the deterministic interpreter
 * ({@link grammarCheck}). The model's evaluation of other statements is `../model/check.ts`.
 *
 * Semantics, as Playwright's assertions have them: "visible" is Playwright's visibility (an element
 * the grammar finds as `click "…"` would, among visible ones); text forms match a case-sensitive
 * substring with whitespace folded (`toContainText`), `the title is` and `the "…" field is` the
 * whole value (`toHaveTitle`, `toHaveValue`); counts count visible elements (`toHaveCount` of a
 * visible filter).
 */
import type { Locator, Page } from "playwright-core";
import { InterpreterError, isInterpreterError } from "../errors.js";
import { StepClock } from "../_clock.js";
import { COUNT_NOUNS, describeCheckGrammar, parseCheck, type CheckSpec } from "./parse.js";
import { childRoots } from "../locate/index.js";
import { locateTarget, loosePattern, scopePhrase, type TargetPurpose } from "../locate/index.js";
import { DEFAULT_SETTLE_TIMEOUT_MS, inScopes, recordSettle, settleBeforeRead } from "../page/index.js";
import { similarity } from "../_text.js";
import type { StepInterpreterKind } from "@wf/core/protocol";
import type { CheckContext, CheckResult, StepInterpreter } from "../types.js";
import type { ScopeSpec, TargetSpec } from "../grammar/index.js";

/** One evaluation of a statement. `uncertain`: the evaluation could not tell (the model did not quote the page). */
export interface Verdict {
  holds: boolean;
  /** Why it holds or not, one sentence. */
  reason: string;
  /** What was seen on the page. */
  evidence: string;
  uncertain?: boolean;
}

/** Pauses between evaluations of a grammar form, in ms (Playwright's `expect` polls 100, 250, 500, then every 1000). */
export const GRAMMAR_POLL_MS = [100, 250, 500, 1_000];

/**
 * Waits for the page to settle (`settleBeforeRead`, at most `context.settleTimeoutMs`), then
 * evaluates until the statement holds or `context.checkTimeoutMs` has passed (at least once, and
 * once more at the end of the window), pausing `pausesMs` between evaluations (the last repeats).
 *
 * @returns the check's answer, once a verdict holds.
 * @throws {@link InterpreterError} `WF_CHECK_FAILED` (details: reason, evidence, attempts) when the
 *   last verdict does not hold; `WF_ANSWER_UNCERTAIN` when it could not tell; `WF_STEP_TIMEOUT`.
 */
export async function pollCheck(
  context: CheckContext,
  interpreter: StepInterpreterKind,
  pausesMs: readonly number[],
  evaluate: (clock: StepClock) => Promise<Verdict>,
): Promise<CheckResult> {
  const clock = new StepClock(context.timeoutMs, context.signal);
  const deadline = Date.now() + context.checkTimeoutMs;
  return clock.guard(async () => {
    // The first evaluation sees the page once it has settled (its requests, a quiet DOM), capped, and
    // within half the step's time left: the rest is the statement's.
    recordSettle(context.report, await settleBeforeRead(context.page, context.settleTimeoutMs ?? DEFAULT_SETTLE_TIMEOUT_MS, { withinMs: clock.left() / 2 }));
    for (let attempts = 1; ; attempts++) {
      const verdict = await evaluate(clock);
      if (verdict.holds && !verdict.uncertain) return { holds: true, reason: verdict.reason, evidence: verdict.evidence, interpreter, attempts };
      const left = deadline - Date.now();
      if (left <= 0) throw checkFailure(context, verdict, attempts);
      await clock.sleep(Math.min(left, pausesMs[Math.min(attempts - 1, pausesMs.length - 1)]!));
    }
  });
}

function checkFailure(context: CheckContext, verdict: Verdict, attempts: number): InterpreterError {
  const within = context.checkTimeoutMs > 0 ? ` within ${context.checkTimeoutMs} ms (${attempts} evaluation${attempts === 1 ? "" : "s"})` : "";
  const details = { reason: verdict.reason, evidence: verdict.evidence, attempts };
  if (verdict.uncertain) {
    return new InterpreterError(
      "WF_ANSWER_UNCERTAIN",
      `The check ${JSON.stringify(context.statement)} could not be shown to hold${within}: ${verdict.reason} A check passes only on evidence quoted from the page. ` +
        `Rephrase the statement, or use a grammar form (${describeCheckGrammar()}).`,
      details,
    );
  }
  return new InterpreterError(
    "WF_CHECK_FAILED",
    `The check ${JSON.stringify(context.statement)} did not hold${within}: ${verdict.reason}${verdict.evidence ? ` Seen: ${verdict.evidence}` : ""}`,
    details,
  );
}

/**
 * The deterministic interpreter's check: a statement in a grammar form, evaluated with no model.
 * @throws {@link InterpreterError} `WF_INSTRUCTION_NOT_UNDERSTOOD` (listing the forms) for any
 *   other statement; as {@link pollCheck}.
 */
export async function grammarCheck(context: CheckContext): Promise<CheckResult> {
  context.report.interpreter = "grammar";
  const spec = parseCheck(context.statement);
  if (!spec) throw checkNotUnderstood(context.statement);
  return pollCheck(context, "grammar", GRAMMAR_POLL_MS, () => evaluateGrammarCheck(context.page, spec));
}

/**
 * The check of the grammar-then-model policy: a statement in a grammar form is the grammar's (no
 * model call), any other the model's; with the model forbidden (`allowModel: false`), such a
 * statement fails `WF_MODEL_FORBIDDEN`.
 */
export function routeCheck(grammar: StepInterpreter, model: StepInterpreter, context: CheckContext): Promise<CheckResult> {
  if (parseCheck(context.statement)) return grammar.check!(context);
  if (context.allowModel === false) {
    const cause = checkNotUnderstood(context.statement);
    return Promise.reject(
      new InterpreterError("WF_MODEL_FORBIDDEN", `The check needs the model, and it was sent with allowModel: false (no model was called). ${cause.message}`, {
        cause: { code: cause.code, message: cause.message },
      }),
    );
  }
  return model.check!(context);
}

/** The error for a statement in no grammar form on a service without a model (or with the model forbidden). */
export function checkNotUnderstood(statement: string): InterpreterError {
  return new InterpreterError(
    "WF_INSTRUCTION_NOT_UNDERSTOOD",
    `Check not understood: ${JSON.stringify(statement)} is in none of the forms checked without a model: ${describeCheckGrammar()}. ` +
      `Quote names and values ("…"). Any other statement needs a model (configure one: WF_MODEL, see the server README).`,
  );
}

/** Evaluates a grammar form once on the page as it is now. */
export async function evaluateGrammarCheck(page: Page, spec: CheckSpec): Promise<Verdict> {
  switch (spec.form) {
    case "text":
      return spec.scopes ? scopedText(page, spec.text, spec.negated, spec.scopes) : pageText(page, spec.text, spec.negated);
    case "url": {
      const url = page.url();
      const holds = spec.exact ? url === spec.text : url.includes(spec.text);
      return { holds, reason: `the URL ${holds ? "" : "does not "}${spec.exact ? "equal" : "contain"}${holds ? "s" : ""} ${JSON.stringify(spec.text)}.`, evidence: `URL: ${url}` };
    }
    case "title": {
      const title = fold(await page.title());
      const want = fold(spec.text);
      const holds = spec.exact ? title === want : title.includes(want);
      return { holds, reason: `the title ${holds ? "" : "does not "}${spec.exact ? "equal" : "contain"}${holds ? "s" : ""} ${JSON.stringify(spec.text)}.`, evidence: `title: ${JSON.stringify(title)}` };
    }
    case "visible":
      return visibility(page, spec.target, spec.negated);
    case "checked":
    case "enabled":
    case "value":
      return elementState(page, spec);
    case "count":
      return count(page, spec);
  }
}

/** Whitespace folded: runs of whitespace (also non-breaking) become one space, ends trimmed. */
function fold(text: string): string {
  return text.replace(/[\s\u00a0]+/g, " ").trim();
}

function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The rendered text of the page (`innerText`) and of its shown frames, line by line, whitespace folded. */
async function pageLines(page: Page): Promise<string[]> {
  const texts = [await page.locator("body").innerText({ timeout: 2_000 }).catch(() => "")];
  for (const root of await childRoots(page).catch(() => [])) {
    texts.push(await root.root.locator("body").innerText({ timeout: 1_000 }).catch(() => ""));
  }
  return texts.flatMap((t) => t.split("\n")).map(fold).filter(Boolean);
}

async function pageText(page: Page, text: string, negated: boolean): Promise<Verdict> {
  const want = fold(text);
  const lines = await pageLines(page);
  const all = lines.join(" ");
  const shown = all.includes(want);
  const line = lines.find((l) => l.includes(want));
  let evidence: string;
  if (line !== undefined) evidence = JSON.stringify(clip(line));
  else if (shown) evidence = JSON.stringify(clip(all.slice(Math.max(0, all.indexOf(want) - 60), all.indexOf(want) + want.length + 60)));
  else {
    const closest = [...lines].sort((a, b) => similarity(want, b) - similarity(want, a))[0];
    evidence = closest === undefined ? "the page shows no text" : `closest text on the page: ${JSON.stringify(clip(closest))}`;
  }
  return { holds: shown !== negated, reason: `the page ${shown ? "shows" : "does not show"} ${JSON.stringify(text)}.`, evidence };
}

/** `the page shows "X" in the "…" dialog`: an element in the scopes shows the text (case-sensitive, whitespace folded). */
async function scopedText(page: Page, text: string, negated: boolean, scopes: ScopeSpec[]): Promise<Verdict> {
  const loc = page.getByText(new RegExp(loosePattern(text))).filter({ visible: true });
  const texts = (await loc.evaluateAll((els) => els.map((e) => ((e as HTMLElement).innerText || e.textContent || "").replace(/\s+/g, " ").trim()))) as string[];
  const flags = texts.length ? ((await loc.evaluateAll(inScopes, scopes)) as boolean[]) : [];
  const inside = texts.filter((_t, i) => flags[i]);
  const where = scopePhrase(scopes);
  const shown = inside.length > 0;
  const evidence = shown
    ? JSON.stringify(clip(inside[0]!))
    : texts.length
      ? `shown only outside it: ${texts.slice(0, 3).map((t) => JSON.stringify(clip(t, 80))).join(", ")}`
      : `nothing on the page shows ${JSON.stringify(text)}`;
  return { holds: shown !== negated, reason: `the page ${shown ? "shows" : "does not show"} ${JSON.stringify(text)} ${where}.`, evidence };
}

/** Finds the target now (no wait), as the grammar finds `click "…"`'s: the element, or the reason it is not one visible element. */
async function findNow(page: Page, target: TargetSpec, purpose: TargetPurpose): Promise<{ locator: Locator; description: string } | { error: InterpreterError }> {
  try {
    const found = await locateTarget(page, target, purpose, 0);
    return { locator: found.locator, description: found.description };
  } catch (error) {
    if (isInterpreterError(error) && (error.code === "WF_ELEMENT_NOT_FOUND" || error.code === "WF_ELEMENT_AMBIGUOUS")) return { error };
    throw error;
  }
}

function named(target: TargetSpec): string {
  return `${JSON.stringify(target.text)}${target.roleWord ? ` ${target.roleWord}` : ""}${target.scopes?.length ? ` ${scopePhrase(target.scopes)}` : ""}`;
}

async function visibility(page: Page, target: TargetSpec, negated: boolean): Promise<Verdict> {
  const found = await findNow(page, target, "any");
  let visible: boolean;
  let evidence: string;
  if ("locator" in found) {
    visible = true;
    evidence = `${found.description} is visible`;
  } else if (found.error.code === "WF_ELEMENT_AMBIGUOUS") {
    // Several visible elements match: it is visible.
    visible = true;
    evidence = `${found.error.details.candidates?.length ?? "several"} visible elements match: ${(found.error.details.candidates ?? []).slice(0, 3).map((c) => `${c.role} ${JSON.stringify(c.name)}`).join(", ")}`;
  } else {
    visible = false;
    evidence = found.error.message;
  }
  return { holds: visible !== negated, reason: `${named(target)} is ${visible ? "" : "not "}visible.`, evidence };
}

/**
 * In-page: what a field shows, its value and, for a select, its chosen option's label (built from a
 * string, as `page/index.ts` explains).
 */
const readState = new Function(
  String.raw`return function (el) {
    if (el.tagName === "SELECT") {
      var option = el.selectedOptions[0];
      return { value: el.value, label: option ? (option.label || option.textContent || "").trim() : "" };
    }
    var value = typeof el.value === "string" ? el.value : (el.innerText || "");
    return { value: value, label: value };
  }`,
)() as (el: Element) => { value: string; label: string };

async function elementState(page: Page, spec: Extract<CheckSpec, { form: "checked" | "enabled" | "value" }>): Promise<Verdict> {
  const purpose: TargetPurpose = spec.form === "checked" ? "check" : spec.form === "value" ? "fill" : "any";
  const found = await findNow(page, spec.target, purpose);
  const what = named(spec.target);
  if (!("locator" in found)) return { holds: false, reason: `${what} is not one visible element on the page.`, evidence: found.error.message };
  const { locator, description } = found;
  if (spec.form === "checked") {
    const checked = await locator.isChecked({ timeout: 1_000 }).catch(() => undefined);
    if (checked === undefined) return { holds: false, reason: `${description} cannot be checked (it is no checkbox, radio button or switch).`, evidence: `${description}` };
    return { holds: checked !== spec.negated, reason: `${description} is ${checked ? "" : "not "}checked.`, evidence: `${description} is ${checked ? "checked" : "not checked"}` };
  }
  if (spec.form === "enabled") {
    const enabled = await locator.isEnabled({ timeout: 1_000 });
    return { holds: enabled === spec.enabled, reason: `${description} is ${enabled ? "enabled" : "disabled"}.`, evidence: `${description} is ${enabled ? "enabled" : "disabled"}` };
  }
  const state = await locator.evaluate(readState);
  const holds = spec.value === "" ? state.value === "" : state.value === spec.value || state.label === spec.value;
  const shown = state.label !== state.value ? `${JSON.stringify(state.label)} (value ${JSON.stringify(state.value)})` : JSON.stringify(state.value);
  return {
    holds,
    reason: spec.value === "" ? `${description} is ${holds ? "" : "not "}empty.` : `${description} is ${holds ? "" : "not "}${JSON.stringify(spec.value)}.`,
    evidence: `${description} = ${shown}`,
  };
}

async function count(page: Page, spec: Extract<CheckSpec, { form: "count" }>): Promise<Verdict> {
  const role = COUNT_NOUNS[spec.noun];
  const re = spec.text ? new RegExp(loosePattern(spec.text)) : undefined;
  let loc: Locator;
  if (role === "row") {
    // Header rows are not counted: `there are 3 rows` means three rows of data.
    loc = page.getByRole("row").filter({ hasNot: page.getByRole("columnheader") });
    if (re) loc = loc.filter({ hasText: re });
  } else if (role === "listitem") {
    loc = page.getByRole("listitem");
    if (re) loc = loc.filter({ hasText: re });
  } else {
    loc = re ? page.getByRole(role, { name: re }) : page.getByRole(role);
  }
  loc = loc.filter({ visible: true });
  const texts = (await loc.evaluateAll((els) => els.map((e) => ((e as HTMLElement).innerText || e.getAttribute("aria-label") || e.textContent || "").replace(/\s+/g, " ").trim()))) as string[];
  let kept = texts;
  if (spec.scopes?.length && texts.length) {
    const flags = (await loc.evaluateAll(inScopes, spec.scopes)) as boolean[];
    kept = texts.filter((_t, i) => flags[i]);
  }
  const what = `${spec.text ? `${JSON.stringify(spec.text)} ` : ""}${spec.noun}${spec.scopes?.length ? ` ${scopePhrase(spec.scopes)}` : ""}`;
  const listed = kept.slice(0, 5).map((t) => JSON.stringify(clip(t, 60))).join(", ");
  return {
    holds: kept.length === spec.count,
    reason: `there ${kept.length === 1 ? "is" : "are"} ${kept.length} visible ${what}, not ${spec.count}.`.replace(/, not (\d+)\.$/, (all, n: string) => (Number(n) === kept.length ? "." : all)),
    evidence: kept.length ? `${kept.length} visible: ${listed}${kept.length > 5 ? ", …" : ""}` : `no visible ${spec.noun.replace(/s$/, "")} matches`,
  };
}
