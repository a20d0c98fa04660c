/**
 * Choosing among one strategy's matches (`pick`): visible ones, twins counted once, the ordinal or
 * the only one, else `WF_ELEMENT_AMBIGUOUS` with a way to name the one meant; the found element as
 * a step reports it ({@link FoundElement}, `button "Save" in the "Billing" section`), and the
 * locator its action goes through.
 */
import type { FrameLocator, Locator, Page } from "playwright-core";
import { InterpreterError, type ElementCandidate } from "../errors.js";
import type { SearchRoot } from "./frames.js";
import type { ScopeSpec, TargetSpec } from "../grammar/index.js";
import { textArg, type AriaRole, type TargetPurpose, type Tier } from "./strategies.js";
import type { ElementFacts, ElementInfo } from "../page/index.js";

/** A found element. */
export interface FoundElement {
  locator: Locator;
  /** For people: `button "Sign in"`. */
  description: string;
  /** The resolved `href` when the element is a link, else `""` (lets a click refuse a `file:` link before it navigates). */
  href: string;
  /** Its ARIA role and accessible name, as the page computes them. */
  role: string;
  name: string;
  /**
   * A remark for the step's message, e.g. that the element has identical twins and the first in
   * document order was used. Optional: a `locate` that returns none is fine.
   */
  note?: string;
  /** How many identical matches (twins) there were when the first was used; absent for a single match or an ordinal. */
  matches?: number;
  /**
   * For an element inside an iframe: its locator as `locator.normalize()` writes it, naming the
   * frame (`locator('iframe[title="Payment"]').contentFrame().getByRole('button', { name: 'Pay' })`);
   * the step reports it as its element's `locator`. Absent for the main frame.
   */
  normalized?: string;
  /**
   * The element's facts and visibility as the look that found it read them (see
   * `ElementInfo.facts`); the check before the action (`act/fit.ts`) judges them instead of reading
   * them again; a model's reference reads them when it is resolved back to the element. Absent for
   * an element found another way (a lock's locator, the checkbox beside an item): the check then reads them.
   */
  facts?: ElementFacts & { visible: boolean };
}
function describe(info: ElementInfo): string {
  return `${info.role} ${JSON.stringify(info.name)}`;
}

function found(locator: Locator, info: ElementInfo, target?: TargetSpec, note?: string, root?: SearchRoot): FoundElement {
  // The scopes as written, then the frames the element is in (by the frame's own label).
  const scopes = [...(target?.scopes ?? []).filter((sc) => sc.kind !== "frame"), ...(root?.frames ?? []).map((f) => ({ kind: "frame" as const, text: f.label }))];
  const where = scopes.length ? ` ${scopePhrase(scopes)}` : "";
  return { locator, description: describe(info) + where, href: info.href, role: info.role, name: info.name, ...(info.facts ? { facts: info.facts } : {}), ...(note ? { note } : {}) };
}

/** `in the "status" row of the "Order" section`: scopes as a person writes them, innermost first. */
export function scopePhrase(scopes: ScopeSpec[]): string {
  return scopes.map((sc, i) => `${i === 0 ? "in" : "of"} the ${sc.text ? `${JSON.stringify(sc.text)} ` : ""}${sc.kind}`).join(" ");
}

function ordinalWord(n: number): string {
  return n === -1 ? "last" : (["", "first", "second", "third", "fourth", "fifth"][n] ?? `${n}th`);
}

/** The target as a person wrote it, for messages: `second "Save" button in the "Billing" section`. */
export function targetLabel(target: TargetSpec): string {
  const ord = target.ordinal !== undefined ? `${ordinalWord(target.ordinal)} ` : "";
  const quoted = target.text ? JSON.stringify(target.text) : "";
  const where = target.scopes?.length ? scopePhrase(target.scopes) : "";
  return [ord + quoted, target.roleWord ?? "", where].filter(Boolean).join(" ").trim() || "(any)";
}
/**
 * The locator an action on match `index` of a role strategy's union (`getByRole(r1).or(getByRole(r2))…`)
 * goes through: the one role's `getByRole(role, { name }).nth(j)`, when every match of the union
 * has a role Playwright is sure to compute ({@link ElementInfo.certainRole}), so that the one
 * role's matches are the union's matches of that role, in the same document order. Undefined
 * otherwise (the union's `nth(index)` is used). The same element either way; what it saves is
 * Playwright's work on a 17-role selector in the action: parsing it, rendering it for the action's
 * log (`asLocator`, ~1–5 ms of CPU), and matching it in the page again.
 */
export function actionLocator(root: Page | FrameLocator, infos: ElementInfo[], index: number, text: string, tier: Tier, roles: AriaRole[]): Locator | undefined {
  const role = infos[index]!.certainRole as AriaRole;
  if (roles.length < 2 || !role || !roles.includes(role) || !infos.every((info) => info.certainRole)) return undefined;
  const before = infos.slice(0, index).filter((info) => info.certainRole === role).length;
  const { value, exact } = textArg(text, tier);
  return root.getByRole(role, { name: value, exact }).nth(before);
}

/**
 * Picks among one strategy's matches: visible, de-duplicated, then the ordinal or the only one.
 * For `scroll` without an ordinal, several matches narrow to the headings among them, else to
 * those that are not links to an anchor of the same page.
 */
export function pick(
  loc: Locator,
  infos: ElementInfo[],
  target: TargetSpec,
  includeHidden = false,
  purpose?: TargetPurpose,
  root?: SearchRoot,
  forAction: (index: number) => Locator = (index) => loc.nth(index),
): FoundElement | undefined {
  let kept: number[] = [];
  infos.forEach((info, i) => {
    if (info.sameAs !== -1 || info.inside !== -1 || info.outOfScope) return;
    if (!includeHidden && !info.visible) return;
    kept.push(i);
  });
  if (kept.length === 0) return undefined;
  if (purpose === "scroll" && target.ordinal === undefined && kept.length > 1) {
    const headings = kept.filter((i) => infos[i]!.role === "heading");
    const notAnchors = kept.filter((i) => !infos[i]!.samePageAnchor);
    if (headings.length) kept = headings;
    else if (notAnchors.length) kept = notAnchors;
  }
  // `in the "Billing" section`: an element right under that heading beats one in a sub-section of it.
  const section = target.scopes?.find((sc) => sc.kind === "section" && sc.text);
  if (section && kept.length > 1) {
    const direct = kept.filter((i) => fold(infos[i]!.context.section) === fold(section.text));
    if (direct.length) kept = direct;
  }
  if (target.ordinal !== undefined) {
    const index = target.ordinal === -1 ? kept[kept.length - 1] : kept[target.ordinal - 1];
    if (index === undefined) {
      throw new InterpreterError(
        "WF_ELEMENT_NOT_FOUND",
        `no ${ordinalWord(target.ordinal)} element matches ${targetLabel(target)}: only ${kept.length} match${kept.length === 1 ? "es" : ""}. ` +
          `Use a smaller ordinal or a more specific target.`,
        { target: target.text, candidates: kept.map((i) => ({ role: infos[i]!.role, name: infos[i]!.name })) },
      );
    }
    return found(forAction(index), infos[index]!, target, undefined, root);
  }
  if (kept.length === 1) return found(forAction(kept[0]!), infos[kept[0]!]!, target, undefined, root);
  // Twins: the same role and name and nothing else to tell them apart (links to the same address,
  // fields with the same placeholder, name and form, elements in the same section, row, table and
  // dialog). They do the same thing: act on the first visible one, in document order, and say so.
  const first = infos[kept[0]!]!;
  const twins = kept.every((i) => {
    const o = infos[i]!;
    if (o.role !== first.role || o.name !== first.name) return false;
    if (first.href || o.href) return o.href === first.href;
    if (first.fieldKey || o.fieldKey) return o.fieldKey === first.fieldKey && o.context.form === first.context.form;
    return JSON.stringify(o.context) === JSON.stringify(first.context);
  });
  if (twins) {
    return { ...found(forAction(kept[0]!), first, target, `${kept.length} identical matches, ${describe(first)}; used the first in document order`, root), matches: kept.length };
  }
  const candidates: ElementCandidate[] = kept.map((i) => ({ role: infos[i]!.role, name: infos[i]!.name }));
  const list = kept
    .slice(0, 8)
    .map((i) => `${JSON.stringify(infos[i]!.name)} (${infos[i]!.role}${whereText(infos[i]!.context)})`)
    .join(", ");
  throw new InterpreterError(
    "WF_ELEMENT_AMBIGUOUS",
    `${kept.length} elements match ${targetLabel(target)} equally well: ${list}. ${disambiguationHint(kept.map((i) => infos[i]!), target)}`,
    { target: target.text, candidates },
  );
}

function fold(text: string): string {
  return text.toLowerCase().replace(/[\u2010-\u2015\u2212]/g, "-").replace(/\s+/g, " ").trim().replace(/^(?:(?:[a-z]|[ivxlc]+)\.\s+|\d+(?:\.\d+)*\.?\s+)/, "");
}

function whereText(context: ElementInfo["context"]): string {
  const parts = [
    context.dialog ? `in the ${context.dialog === "dialog" ? "" : `${JSON.stringify(context.dialog)} `}dialog` : "",
    context.row ? `in the ${JSON.stringify(context.row)} row` : "",
    !context.row && context.item ? `in the ${JSON.stringify(context.item.length > 40 ? context.item.slice(0, 39) + "…" : context.item)} item` : "",
    context.table ? `of the ${JSON.stringify(context.table)} table` : "",
    !context.row && context.section ? `under ${JSON.stringify(context.section)}` : "",
  ].filter(Boolean);
  return parts.length ? `, ${parts.join(" ")}` : "";
}

/**
 * A way to name one of several matches that itself names one: a role that only one has, a place
 * (section, row, table, dialog) where the first is alone, else an ordinal.
 */
function disambiguationHint(matches: ElementInfo[], target: TargetSpec): string {
  const text = JSON.stringify(target.text || "…");
  const first = matches[0]!;
  const ways: string[] = [];
  const sameRole = matches.filter((m) => m.role === first.role).length;
  if (sameRole === 1) ways.push(`\`the ${text} ${first.role}\``);
  const places: Array<[keyof ElementInfo["context"], string]> = [
    ["dialog", "dialog"],
    ["row", "row"],
    ["item", "item"],
    ["table", "table"],
    ["section", "section"],
  ];
  for (const [key, kind] of places) {
    const value = first.context[key];
    if (!value || value === "dialog" || value.length > 40) continue;
    const alone = matches.filter((m) => fold(m.context[key]) === fold(value)).length === 1;
    if (alone) {
      ways.push(`\`${text} in the ${JSON.stringify(value)} ${kind}\``);
      break;
    }
  }
  const roleWord = sameRole === matches.length ? ` ${first.role}` : "";
  ways.push(`an ordinal (\`the first ${text}${roleWord}\`, \`the second ${text}${roleWord}\`)`);
  return `Name the one you mean: ${ways.join(", or ")}.`;
}
