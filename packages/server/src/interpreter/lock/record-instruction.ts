/**
 * The instruction a resolved action is recorded as (what the action lock stores and a replay runs):
 * a grammar instruction that names exactly the element acted on, on the page it was recorded on.
 *
 * The rule, applied at record time, before the action runs: write the action plainly
 * (`check the checkbox`), resolve the text back through the grammar on the same page, and keep it
 * only if it finds that very element (the same DOM node, one match, the same role and accessible
 * name: what a replay checks). Otherwise scope it by the places the element lies in, innermost
 * first (`in the "Pay rent" item`, `in the "state" row`, `in the "Share settings" dialog`, a table,
 * a form, a section, then two places together), each checked the same way. When no instruction
 * names it alone, the element's recorded Playwright locator becomes its primary way to be found
 * (`primary: "locator"`), if that locator finds exactly it; failing that, an ordinal
 * (`the second checkbox`) that the grammar resolves to it; failing that, its position in the
 * document (`locator('xpath=…')`). Nothing is ever recorded that does not find the element on the
 * page it was recorded on.
 */
import type { ElementHandle, Page } from "playwright-core";
import { within, type StepClock } from "../_clock.js";
import { DESCRIBE_SOURCE, untraced } from "../page/index.js";
import { InterpreterError } from "../errors.js";
import { parseInstructions, type ParsedAction, type ScopeSpec, type TargetSpec } from "../grammar/index.js";
import { grammarText } from "./grammar-text.js";
import { locateTarget, type FoundElement, type TargetPurpose } from "../locate/index.js";
import { identifyViewElement } from "../page/index.js";
import { recordedLocator } from "./recorded-locator.js";
import type { ElementIdentity } from "../types.js";

/** The element a resolved action acts on: as found, its identity, and the target that names it plainly. */
export interface RecordTarget {
  found: FoundElement;
  identity: ElementIdentity;
  spec: TargetSpec;
}

/** What an action is recorded as: the instruction, and its element (with `primary: "locator"` when the instruction cannot name it alone). */
export interface RecordedInstruction {
  instruction: string;
  element?: ElementIdentity;
}

/** Texts longer than this are not written as a place's name (a long description is no name). */
const MAX_PLACE_CHARS = 80;
/** Ordinals tried before falling back to the document position. */
const MAX_ORDINAL = 20;

/**
 * Writes `action` as the instruction that names `target`'s element alone on `page`, checking it
 * through the grammar (see the file comment).
 *
 * @param action - the action as resolved (its target the plain one: role and name).
 * @param target - the element acted on; undefined for an action without one (`go back`).
 * @returns the instruction, and the element's identity (with `primary: "locator"` when the
 *   instruction does not name it alone).
 * @throws {@link InterpreterError} `WF_ELEMENT_NOT_FOUND` when the element left the page before it
 *   could be checked (nothing was done to it).
 */
export function recordInstruction(page: Page, action: ParsedAction, target: RecordTarget | undefined, clock: StepClock): Promise<RecordedInstruction> {
  return untraced(page, () => record(page, action, target, clock));
}

async function record(page: Page, action: ParsedAction, target: RecordTarget | undefined, clock: StepClock): Promise<RecordedInstruction> {
  const purpose = purposeOf(action);
  if (!target || !purpose || !("target" in action) || !action.target) return { instruction: grammarText(action, target?.identity), ...(target ? { element: target.identity } : {}) };
  const { ordinal: _ordinal, ...plain } = target.spec;
  const write = (spec: TargetSpec) => grammarText({ ...action, target: spec } as ParsedAction, target.identity);
  const plainText = write(plain);
  // The element's handle and the plain instruction's look are asked at once (one wait, not two;
  // neither rejects).
  const [handle, plainFound] = await Promise.all([
    target.found.locator.elementHandle({ timeout: clock.left() }).catch(() => null),
    lookAlone(page, plainText, purpose, target.identity, clock).catch(() => undefined),
  ]);
  if (!handle) {
    throw new InterpreterError("WF_ELEMENT_NOT_FOUND", `The element the model chose (${target.found.description}) left the page before it was acted on. Nothing was done to it.`, {
      target: target.identity.name,
    });
  }
  try {
    const names = async (spec: TargetSpec) => {
      const found = await lookAlone(page, write(spec), purpose, target.identity, clock);
      return found !== undefined && sameNode(found, handle, clock);
    };
    // Places go inside any the target already names (a frame).
    const scoped = (scopes: ScopeSpec[]): TargetSpec => ({ ...plain, scopes: [...scopes, ...(plain.scopes ?? [])] });

    if (plainFound && (await sameNode(plainFound, handle, clock))) return { instruction: plainText, element: target.identity };
    const places = (await target.found.locator.evaluate(placesOf, undefined, { timeout: clock.left() }).catch(() => [] as Place[])).filter((p) => p.texts.length > 0);
    const singles = places.flatMap((p) => p.texts.map((text): ScopeSpec[] => [{ kind: p.kind, text }]));
    for (const scopes of singles) {
      if (await names(scoped(scopes))) return { instruction: write(scoped(scopes)), element: target.identity };
    }
    // Two places together: an item of a dialog, a row of a section.
    for (const [i, inner] of places.entries()) {
      for (const outer of places.slice(i + 1)) {
        if (outer.kind === inner.kind) continue;
        const scopes: ScopeSpec[] = [
          { kind: inner.kind, text: inner.texts[0]! },
          { kind: outer.kind, text: outer.texts[0]! },
        ];
        if (await names(scoped(scopes))) return { instruction: write(scoped(scopes)), element: target.identity };
      }
    }
    // No instruction names it alone: the instruction that names it best, with the locator first.
    const best = write(singles.length ? scoped(singles[0]!) : plain);
    if (target.identity.locator && (await locatorFinds(page, target.identity.locator, handle, target.identity, clock))) {
      return { instruction: best, element: { ...target.identity, primary: "locator" } };
    }
    for (let ordinal = 1; ordinal <= MAX_ORDINAL; ordinal++) {
      const spec = { ...(singles.length ? scoped(singles[0]!) : plain), ordinal };
      if (await names(spec)) return { instruction: write(spec), element: target.identity };
    }
    const position = target.found.locator.toString();
    if (await locatorFinds(page, position, handle, target.identity, clock)) {
      return { instruction: best, element: { ...target.identity, locator: position, primary: "locator" } };
    }
    throw new InterpreterError(
      "WF_ELEMENT_NOT_FOUND",
      `The element the model chose (${target.found.description}) cannot be named so that a replay finds it again: no instruction, locator or position names it alone on this page. Nothing was done to it.`,
      { target: target.identity.name },
    );
  } finally {
    // Released in the background: nothing waits on it, and a step need not pay its round trip.
    void handle.dispose().catch(() => undefined);
  }
}

/**
 * The element `instruction`, resolved through the grammar on `page` now, finds when it finds one
 * (not the first of twins) with the recorded role and accessible name (what a replay checks before
 * acting); undefined otherwise. Whether it is the element acted on is {@link sameNode}'s to say.
 */
async function lookAlone(page: Page, instruction: string, purpose: TargetPurpose, identity: ElementIdentity, clock: StepClock): Promise<FoundElement | undefined> {
  const parsed = parseSafely(instruction);
  if (!parsed || !("target" in parsed) || !parsed.target || purposeOf(parsed) !== purpose) return undefined;
  const found = await locateTarget(page, parsed.target, purpose, 0, clock.signal, undefined, clock.left()).catch(() => undefined);
  if (!found || found.matches !== undefined) return undefined;
  if (found.role !== identity.role || !sameName(found.name, identity.name)) return undefined;
  return found;
}

/** True when a recorded locator text finds exactly `handle`'s element, with the recorded role and name. */
async function locatorFinds(page: Page, text: string, handle: ElementHandle, identity: ElementIdentity, clock: StepClock): Promise<boolean> {
  const locator = recordedLocator(page, text);
  if (!locator || (await locator.count().catch(() => 0)) !== 1) return false;
  const now = await locator.evaluate(identifyViewElement, undefined, { timeout: clock.left() }).catch(() => undefined);
  if (!now || now.role !== identity.role || !sameName(now.name, identity.name)) return false;
  return locator.evaluate((a, b) => a === b, handle, { timeout: clock.left() }).catch(() => false);
}

/** True when `found`'s locator matches exactly one element and it is `handle`'s: one round trip (`clock` bounds it). */
async function sameNode(found: FoundElement, handle: ElementHandle, clock: StepClock): Promise<boolean> {
  const same = found.locator.evaluateAll((elements, node) => elements.length === 1 && elements[0] === node, handle).catch(() => false);
  return (await within(same, clock.left())) === true;
}

function parseSafely(instruction: string): ParsedAction | undefined {
  try {
    const parsed = parseInstructions(instruction);
    return parsed.length === 1 ? parsed[0] : undefined;
  } catch {
    return undefined;
  }
}

/** What the grammar looks for when it carries out `action` (as `performAction` finds its target); undefined without a target. */
export function purposeOf(action: ParsedAction): TargetPurpose | undefined {
  switch (action.verb) {
    case "click":
    case "dblclick":
    case "rightclick":
      return "click";
    case "hover":
      return "any";
    case "fill":
    case "clear":
      return "fill";
    case "press":
      return action.target ? "key" : undefined;
    case "select":
      return "select";
    case "check":
    case "uncheck":
      return "check";
    case "scroll-to":
      return "scroll";
    case "upload":
      return "upload";
    default:
      return undefined;
  }
}

/**
 * True when two accessible names are the same name: whitespace collapsed (the page view and the
 * locator compute them slightly apart), case ignored and a trailing `*` dropped. Lock entries
 * recorded before names followed Playwright (decision 0058) hold what CSS showed (`"LOGIN"` for
 * "Login") and a required field's `aria-hidden` asterisk (`"Email *"` for "Email"); they still
 * name the same element.
 */
export function sameName(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/\s+/g, " ").trim().replace(/\s*\*$/, "").toLowerCase();
  return norm(a) === norm(b);
}

/** A place an element lies in, and the texts that may name it (tried in order). */
interface Place {
  kind: ScopeSpec["kind"];
  texts: string[];
}

/**
 * The places around an element, innermost first, each with the names the grammar's scopes read
 * (`inScopes` in `page/elements.ts`): its list item or card (first words, then its own text), its
 * table row (the other cells' first words, then their text), its dialog (label or heading, then
 * any dialog), its table (label or heading), its form (label or legend), its section (heading).
 */
const placesOf = new Function(
  String.raw`return function (el) {${DESCRIBE_SOURCE}
    var MAX = ${MAX_PLACE_CHARS};
    var out = [];
    function add(kind, texts) {
      var kept = [];
      texts.forEach(function (t) {
        if (t === null || t === undefined) return;
        t = String(t).replace(/\s+/g, " ").trim();
        if (t.length <= MAX && kept.indexOf(t) === -1) kept.push(t);
      });
      out.push({ kind: kind, texts: kept });
    }
    var headings = Array.prototype.slice.call(document.querySelectorAll(WF_HEADINGS));
    var item = wfClosest(el, "li,[role=listitem],article,[class*=card]");
    if (item) add("card", [wfLead(item), wfItemText(item)].filter(Boolean));
    var row = wfClosest(el, "tr,[role=row]");
    if (row) {
      var cells = Array.prototype.filter.call(row.querySelectorAll("td,th,[role=cell],[role=gridcell],[role=rowheader]"), function (c) { return !c.contains(el); });
      var leads = cells.map(wfLead), whole = cells.map(wfText);
      add("row", leads.concat(whole).filter(Boolean));
    }
    var dialog = wfClosest(el, "dialog,[role=dialog],[role=alertdialog]");
    if (dialog) {
      var heading = dialog.querySelector(WF_HEADINGS);
      add("dialog", [wfLabelOf(dialog) || (heading ? wfText(heading) : ""), ""].filter(function (t, i) { return t || i === 1; }));
    }
    var table = wfClosest(el, "table,[role=table],[role=grid]");
    if (table) {
      var th = wfOwnHeading(table, headings);
      add("table", [wfLabelOf(table), th ? wfText(th) : ""].filter(Boolean));
    }
    var form = wfClosest(el, "form,[role=form]");
    if (form) add("form", [wfLabelOf(form)].filter(Boolean));
    var own = wfOwnHeading(el, headings);
    if (own) add("section", [wfText(own)].filter(Boolean));
    return out;
  }`,
)() as (element: Element) => Place[];
