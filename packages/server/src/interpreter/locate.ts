/**
 * Finds the element an instruction names, the way Playwright's user-facing locators do: by role
 * and accessible name (`getByRole`), label, placeholder, text, alt text and title, then by `name`
 * or `id` attribute. Exact matches beat case-insensitive whole matches, which beat substrings
 * (substrings only for fields: fill, select, check, upload); within a tier, earlier strategies
 * beat later ones and visible elements beat hidden ones.
 */
import type { FrameLocator, Locator, Page } from "playwright-core";
import { InterpreterError, type ElementCandidate } from "./errors.js";
import { childRoots, framePhrase, searchRoots, type SearchRoot } from "./frames.js";
import type { ScopeSpec, TargetSpec } from "./grammar.js";
import { describeElements, inScopes, nearLabelMatches, type ElementInfo } from "./_page-scripts.js";
import { similarity } from "./_text.js";

/**
 * What the element is for; decides the roles and strategies tried when the instruction gives no
 * role. `scroll` is `any` plus a preference among equal matches: a heading, else an element that
 * is not a link to an anchor of the same page (a table of contents entry names its heading).
 */
export type TargetPurpose = "click" | "fill" | "check" | "select" | "upload" | "key" | "any" | "scroll";

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
}

type AriaRole = Parameters<Page["getByRole"]>[0];

const INTERACTIVE: AriaRole[] = [
  "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "option",
  "treeitem", "combobox", "textbox", "searchbox", "spinbutton", "slider", "listbox",
];
/** Roles whose name may be written beside them rather than on them (labels by proximity). */
const FORM_CONTROLS = new Set<AriaRole>(["textbox", "searchbox", "combobox", "spinbutton", "checkbox", "radio", "switch", "listbox", "slider"]);
const TEXT_FIELDS: AriaRole[] = ["textbox", "searchbox", "combobox", "spinbutton"];
const PURPOSE_ROLES: Record<TargetPurpose, AriaRole[]> = {
  click: INTERACTIVE,
  any: [...INTERACTIVE, "heading"],
  scroll: [...INTERACTIVE, "heading"],
  fill: TEXT_FIELDS,
  check: ["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"],
  select: ["combobox", "listbox", ...TEXT_FIELDS],
  upload: ["button"],
  key: INTERACTIVE,
};

/**
 * `near`: a form control whose row, item or term beside it shows the text (below true accessible
 * names). `shown`: a clickable element whose visible text is the text while its accessible name
 * says something else (`<button aria-label="Apply settings"><span>Save</span></button>`).
 */
type Strategy = "role" | "label" | "placeholder" | "text" | "shown" | "alt" | "title" | "attribute" | "near";
const PURPOSE_STRATEGIES: Record<TargetPurpose, Strategy[]> = {
  click: ["role", "label", "text", "shown", "alt", "title", "placeholder", "attribute"],
  any: ["role", "label", "text", "shown", "alt", "title", "placeholder", "attribute"],
  scroll: ["role", "label", "text", "shown", "alt", "title", "placeholder", "attribute"],
  fill: ["role", "label", "placeholder", "title", "attribute", "near"],
  check: ["role", "label", "text", "title", "attribute", "near"],
  select: ["role", "label", "title", "attribute", "near"],
  upload: ["label", "role", "title", "attribute", "text"],
  key: ["role", "label", "placeholder", "title", "attribute", "text", "near"],
};

/** Roles whose name a click may give by its start (the `prefix` tier): `"Archive done"` for "Archive done (3)". */
const CLICKABLE = new Set<AriaRole>(["link", "button", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "treeitem"]);
/** Roles whose visible text may differ from their accessible name and still name them (the `shown` strategy). */
const SHOWN_ROLES = new Set<AriaRole>(["button", "link", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "treeitem", "switch"]);

/**
 * Matching tiers, tried in order: exact text; whole text with case, whitespace, dashes and quotes
 * folded; the unique start of a clickable element's name up to a separator (click, hover, scroll);
 * a folded substring (fields only).
 */
type Tier = "exact" | "whole" | "prefix" | "substring";
const TIERS: Tier[] = ["exact", "whole", "prefix", "substring"];

/** Roles listed as candidates when nothing matches (not `option`: a select's options are noise there). */
const CANDIDATE_ROLES = new Set<string>([...INTERACTIVE.filter((r) => r !== "option"), "heading", "img"]);
/** Candidates at least this {@link similarity} are "close"; when none is, the first few on the page are listed instead. */
const MIN_SIMILARITY = 0.35;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Dashes (hyphen, non-breaking hyphen, figure, en, em dash, minus) fold to one another below the exact tier. */
const DASHES = "\\-\u2010\u2011\u2012\u2013\u2014\u2015\u2212";
const DASH_CHARS = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212";
/** Straight and curly quotes, guillemets, backtick. */
const QUOTES = "\"'\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u00ab\u00bb`\u00b4";

/**
 * The text as a pattern blind to case, runs of whitespace, which dash and which quote: `json - JSON`
 * matches "json — JSON", `"Smart" quotes` matches “Smart” quotes.
 */
export function loosePattern(text: string): string {
  let out = "";
  for (const ch of text.trim()) {
    if (/\s/.test(ch)) {
      if (!out.endsWith("\\s+")) out += "\\s+";
    } else if (DASH_CHARS.includes(ch)) out += `[${DASHES}]`;
    else if (QUOTES.includes(ch)) out += `[${QUOTES}]`;
    else out += escapeRegExp(ch);
  }
  return out;
}

function textArg(text: string, tier: Tier): { value: string | RegExp; exact: boolean } {
  if (tier === "exact") return { value: text, exact: true };
  const body = loosePattern(text);
  if (tier === "whole") {
    // Case-insensitive, and blind to a section number before ("8.1.3. ", "K. ", "IV. ") and an arrow or punctuation after ("Next →").
    return { value: new RegExp(`^\\s*(?:(?:[A-Z]|[IVXLC]+)\\.\\s+|\\d+(?:\\.\\d+)*\\.?\\s+)?${body}\\s*[→»›>…:.!?*]*\\s*$`, "i"), exact: false };
  }
  if (tier === "prefix") {
    // The start of a name up to a separator (a dash, colon, parenthesis, bar, bullet): `json` for
    // "json — JSON encoder and decoder", not "jsonschema", and `Sign in` not for "Sign in with SSO".
    return { value: new RegExp(`^\\s*${body}(?=\\s*[${DASHES}:,;(/|·•])`, "i"), exact: false };
  }
  return { value: new RegExp(body, "i"), exact: false };
}

function cssString(s: string): string {
  return JSON.stringify(s);
}

function strategyLocator(page: Page | FrameLocator, strategy: Strategy, text: string, tier: Tier, roles: AriaRole[], hinted: boolean): Locator | undefined {
  const { value, exact } = textArg(text, tier);
  const roleUnion = (named: boolean): Locator | undefined => {
    let union: Locator | undefined;
    for (const role of roles) {
      const loc = named ? page.getByRole(role, { name: value, exact }) : page.getByRole(role);
      union = union ? union.or(loc) : loc;
    }
    return union;
  };
  let loc: Locator | undefined;
  switch (strategy) {
    case "role":
      return roleUnion(true);
    case "label":
      loc = page.getByLabel(value, { exact });
      break;
    case "placeholder":
      loc = page.getByPlaceholder(value, { exact });
      break;
    case "text":
      loc = page.getByText(value, { exact });
      break;
    case "shown": {
      // Its whole visible text, whatever its accessible name (an aria-label over a shorter text).
      if (tier !== "exact" && tier !== "whole") return undefined;
      const shownRoles = roles.filter((r) => SHOWN_ROLES.has(r));
      if (!shownRoles.length) return undefined;
      const whole = tier === "exact" ? new RegExp(`^\\s*${escapeRegExp(text.trim())}\\s*$`) : (value as RegExp);
      return shownRoles.map((r) => page.getByRole(r)).reduce((a, b) => a.or(b)).filter({ hasText: whole });
    }
    case "alt":
      loc = page.getByAltText(value, { exact });
      break;
    case "title":
      loc = page.getByTitle(value, { exact });
      break;
    case "near": {
      // Every form control of the roles; tryOnce keeps those whose nearby text matches.
      if (tier !== "exact" && tier !== "whole") return undefined;
      const controls = roles.filter((r) => FORM_CONTROLS.has(r));
      return controls.length ? controls.map((r) => page.getByRole(r)).reduce((a, b) => a.or(b)) : undefined;
    }
    case "attribute":
      if (tier !== "exact" || !/^[\w.:-]+$/.test(text)) return undefined;
      loc = page.locator(`[name=${cssString(text)}], [id=${cssString(text)}], [data-testid=${cssString(text)}]`);
      break;
  }
  if (hinted && loc) {
    const roleOnly = roleUnion(false);
    if (roleOnly) loc = loc.and(roleOnly);
  }
  return loc;
}

function describe(info: ElementInfo): string {
  return `${info.role} ${JSON.stringify(info.name)}`;
}

function found(locator: Locator, info: ElementInfo, target?: TargetSpec, note?: string, root?: SearchRoot): FoundElement {
  // The scopes as written, then the frames the element is in (by the frame's own label).
  const scopes = [...(target?.scopes ?? []).filter((sc) => sc.kind !== "frame"), ...(root?.frames ?? []).map((f) => ({ kind: "frame" as const, text: f.label }))];
  const where = scopes.length ? ` ${scopePhrase(scopes)}` : "";
  return { locator, description: describe(info) + where, href: info.href, role: info.role, name: info.name, ...(note ? { note } : {}) };
}

/** `in the "status" row of the "Order" section`: scopes as a person writes them, innermost first. */
export function scopePhrase(scopes: ScopeSpec[]): string {
  return scopes.map((sc, i) => `${i === 0 ? "in" : "of"} the ${sc.text ? `${JSON.stringify(sc.text)} ` : ""}${sc.kind}`).join(" ");
}

function ordinalWord(n: number): string {
  return n === -1 ? "last" : (["", "first", "second", "third", "fourth", "fifth"][n] ?? `${n}th`);
}

function targetLabel(target: TargetSpec): string {
  const ord = target.ordinal !== undefined ? `${ordinalWord(target.ordinal)} ` : "";
  const quoted = target.text ? JSON.stringify(target.text) : "";
  const where = target.scopes?.length ? scopePhrase(target.scopes) : "";
  return [ord + quoted, target.roleWord ?? "", where].filter(Boolean).join(" ").trim() || "(any)";
}

interface Attempt {
  locator: Locator;
  infos: ElementInfo[];
  root: SearchRoot;
}

/** Describes a locator's elements; with scopes, those outside them are marked `outOfScope`. */
async function describeAll(loc: Locator, target: TargetSpec): Promise<ElementInfo[]> {
  const infos = (await loc.evaluateAll(describeElements)) as ElementInfo[];
  const scopes = target.scopes?.filter((sc) => sc.kind !== "frame");
  if (!scopes?.length || infos.length === 0) return infos;
  const flags = await loc.evaluateAll(inScopes, scopes);
  return infos.map((info, i) => (flags[i] ? info : { ...info, outOfScope: true }));
}

/**
 * One look for the target in every document of the page ({@link searchRoots}: the main frame, then
 * its frames; only the frames a frame scope names). A better tier anywhere beats a worse one; within
 * a tier, the main frame comes first, then the frames in document order.
 */
async function tryOnce(page: Page, target: TargetSpec, purpose: TargetPurpose): Promise<FoundElement | { hidden?: Attempt }> {
  const roots = await searchRoots(page, target.scopes?.filter((sc) => sc.kind === "frame") ?? []);
  const result = await tryRoots(roots, target, purpose);
  if ("locator" in result && result.root.frames.length) {
    result.found.normalized = await result.locator.normalize().then(
      (l) => l.toString(),
      () => undefined,
    );
  }
  return "locator" in result ? result.found : result;
}

async function tryRoots(roots: SearchRoot[], target: TargetSpec, purpose: TargetPurpose): Promise<{ locator: Locator; found: FoundElement; root: SearchRoot } | { hidden?: Attempt }> {
  const hinted = Boolean(target.roles?.length);
  const roles = (hinted ? target.roles! : PURPOSE_ROLES[purpose]) as AriaRole[];
  let hiddenFallback: Attempt | undefined;
  const hit = (picked: FoundElement | undefined, root: SearchRoot) => (picked ? { locator: picked.locator, found: picked, root } : undefined);

  if (!target.text) {
    // `click the last link`: any element of the hinted role.
    for (const root of roots) {
      const loc = roles.map((r) => root.root.getByRole(r)).reduce((a, b) => a.or(b));
      const infos = await describeAll(loc, target);
      const picked = hit(pick(loc, infos, target, false, undefined, root), root);
      if (picked) return picked;
    }
    return {};
  }

  // Substrings only name fields (`"Email"` for "Email address"): a click on a substring could
  // hit the wrong element (`"Sign in"` must not click "Sign in with SSO").
  const clicky = purpose === "click" || purpose === "any" || purpose === "scroll";
  const tiers = TIERS.filter((t) => (clicky ? t !== "substring" : t !== "prefix"));
  for (const tier of tiers) {
    let strategies = hinted ? (["role", "label", "text", "shown", "alt", "title", "placeholder", "attribute", "near"] as Strategy[]) : PURPOSE_STRATEGIES[purpose];
    // A prefix names clickable elements only (`click "json"` for "json — JSON encoder and decoder",
    // `click "Archive done"` for "Archive done (3)"), never a field.
    const tierRoles = tier === "prefix" ? roles.filter((r) => CLICKABLE.has(r)) : roles;
    if (tier === "prefix") {
      if (!tierRoles.length) continue;
      strategies = ["role"];
    }
    for (const root of roots) {
      let textShown: boolean | undefined;
      for (const strategy of strategies) {
        // A visible text that the page does not show anywhere names no button either: skip the look (a not-found stays fast).
        if (strategy === "shown" && textShown === false) continue;
        const loc = strategyLocator(root.root, strategy, target.text, tier, tierRoles, hinted);
        if (!loc) continue;
        let infos = await describeAll(loc, target);
        if (strategy === "text") textShown = hinted ? undefined : infos.length > 0;
        if (strategy === "near" && infos.length) {
          const near = await loc.evaluateAll(nearLabelMatches, [target.text, tier !== "exact"] as [string, boolean]);
          // An unnamed control stands for the text beside it.
          infos = infos.map((info, i) => (near[i] ? { ...info, name: info.name || target.text } : { ...info, outOfScope: true }));
        }
        if (infos.length === 0 || infos.every((i) => i.outOfScope)) continue;
        let chosen = -1;
        const union = loc;
        const forAction = (index: number) => {
          chosen = index;
          return (strategy === "role" && actionLocator(root.root, infos, index, target.text, tier, tierRoles)) || union.nth(index);
        };
        const found = pick(loc, infos, target, false, purpose, root, forAction);
        // The report (a frame's element's normalized locator) names the match as the union does.
        if (found) return { locator: union.nth(chosen), found, root };
        if (!hiddenFallback) hiddenFallback = { locator: loc, infos, root };
      }
    }
  }
  return hiddenFallback ? { hidden: hiddenFallback } : {};
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
function actionLocator(root: Page | FrameLocator, infos: ElementInfo[], index: number, text: string, tier: Tier, roles: AriaRole[]): Locator | undefined {
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
function pick(
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

/**
 * Lists the elements a person could have meant: the accessible names of the page's interactive
 * elements (from Playwright's ARIA snapshot), the closest to `text` first.
 */
export async function closestCandidates(page: Page, text: string, limit = 5, roots: SearchRoot[] = [{ root: page, frames: [] }]): Promise<ElementCandidate[]> {
  const seen = new Set<string>();
  const all: Array<ElementCandidate & { score: number }> = [];
  for (const root of roots) {
    let snapshot = "";
    try {
      snapshot = await root.root.locator("body").ariaSnapshot({ timeout: 2_000 });
    } catch {
      continue;
    }
    const frame = framePhrase(root.frames);
    for (const candidate of snapshotCandidates(snapshot)) {
      const key = `${candidate.role}\u0000${candidate.name}\u0000${frame}`;
      if (seen.has(key)) continue;
      seen.add(key);
      all.push({ ...candidate, ...(frame ? { frame } : {}), score: similarity(text, candidate.name) });
    }
  }
  all.sort((a, b) => b.score - a.score);
  const close = all.filter((c) => c.score >= MIN_SIMILARITY);
  return (close.length ? close : all).slice(0, limit).map(({ score: _score, ...candidate }) => candidate);
}

/** The interactive elements an ARIA snapshot lists, as role and name. */
function snapshotCandidates(snapshot: string): ElementCandidate[] {
  const out: ElementCandidate[] = [];
  for (const line of snapshot.split("\n")) {
    const m = line.match(/^\s*-\s+['"]?([a-z]+)\s+"((?:[^"\\]|\\.)*)"/);
    if (!m || !CANDIDATE_ROLES.has(m[1]!)) continue;
    let name = m[2]!;
    try {
      name = JSON.parse(`"${name}"`) as string;
    } catch {
      // keep the raw text
    }
    if (name) out.push({ role: m[1]!, name });
  }
  return out;
}

/**
 * In-page: tag names of custom elements that render something but have no open shadow root and no
 * children of their own: their content is in a closed shadow root, out of everyone's reach.
 */
const closedComponents = new Function(
  String.raw`return function () {
    var out = [];
    var all = document.body ? document.body.querySelectorAll("*") : [];
    for (var i = 0; i < all.length && out.length < 5; i++) {
      var el = all[i];
      if (el.tagName.indexOf("-") < 0 || el.shadowRoot || el.childElementCount > 0) continue;
      var r = el.getBoundingClientRect();
      var tag = el.tagName.toLowerCase();
      if (r.width > 0 && r.height > 0 && out.indexOf(tag) < 0) out.push(tag);
    }
    return out;
  }`,
)() as () => string[];

/**
 * How long the page must show no DOM change (with its load done and no request in flight) before
 * a target that is not there is reported as not found, in ms.
 */
export const QUIET_MS = 500;

/**
 * Installs (once per document) a MutationObserver that records when the DOM last changed, in
 * `window.__wfQuiet.last` (a `performance.now()` time). Also run at every document's start once a
 * page has been searched (see {@link watchQuiet}), so the quiet period after a navigation counts
 * from the last real change, not from the first look.
 */
const QUIET_SCRIPT = `(function () {
  if (window.__wfQuiet) return;
  var quiet = { last: performance.now() };
  window.__wfQuiet = quiet;
  new MutationObserver(function () { quiet.last = performance.now(); })
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
})()`;
const watchedPages = new WeakSet<Page>();

/** Registers {@link QUIET_SCRIPT} as an init script of the page, once. */
function watchQuiet(page: Page): void {
  if (watchedPages.has(page)) return;
  watchedPages.add(page);
  page.addInitScript(QUIET_SCRIPT).catch(() => watchedPages.delete(page));
}

/**
 * Counts the requests the page starts from this call on that are still in flight. The page's
 * request listeners are added at its first call and stay: adding and removing them for every
 * step cost six Playwright calls a step (~1.3 ms, with stack capture, in `bench`).
 */
function watchRequests(page: Page): { inflight(): number } {
  let watched = pageRequests.get(page);
  if (!watched) {
    const state: PageRequests = { started: 0, open: new Map() };
    const end = (request: unknown) => state.open.delete(request);
    page.on("request", (request) => {
      // A page whose requests never end (streams) holds at most this many; the oldest go first.
      if (state.open.size >= MAX_TRACKED_REQUESTS) state.open.delete(state.open.keys().next().value);
      state.open.set(request, ++state.started);
    });
    page.on("requestfinished", end);
    page.on("requestfailed", end);
    pageRequests.set(page, state);
    watched = state;
  }
  const { open } = watched;
  const since = watched.started;
  return {
    inflight: () => {
      let count = 0;
      for (const started of open.values()) if (started > since) count += 1;
      return count;
    },
  };
}

/** A page's requests in flight, each with the number of requests the page had started with it. */
interface PageRequests {
  started: number;
  open: Map<unknown, number>;
}
const pageRequests = new WeakMap<Page, PageRequests>();
const MAX_TRACKED_REQUESTS = 1_000;

/**
 * True when the page is loaded and stable: `load` done, network idle (Playwright's `networkidle`
 * for the document, and no request started since we began looking still in flight), and no DOM
 * change for `quietMs` (a MutationObserver the first call installs in the document).
 */
async function isSettled(page: Page, quietMs: number, inflight: number): Promise<boolean> {
  if (inflight > 0) return false;
  let state: { ready: string; quietMs: number };
  try {
    watchQuiet(page);
    state = (await page.evaluate(`(${QUIET_SCRIPT}, { ready: document.readyState, quietMs: performance.now() - window.__wfQuiet.last })`)) as typeof state;
  } catch {
    return false; // navigating
  }
  if (state.ready !== "complete" || state.quietMs < quietMs) return false;
  return page
    .waitForLoadState("networkidle", { timeout: 1 })
    .then(() => true)
    .catch(() => false);
}

/**
 * Waits until the page is loaded and stable (see {@link isSettled}): `load`, network idle, no DOM
 * change for `quietMs`. Polls every 100 ms.
 * @returns true when it settled, false when `waitMs` ran out first.
 */
export async function waitForSettled(page: Page, waitMs: number, quietMs: number = QUIET_MS): Promise<boolean> {
  const deadline = Date.now() + Math.max(0, waitMs);
  const network = watchRequests(page);
  await page.waitForLoadState("load", { timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
  for (;;) {
    if (await isSettled(page, quietMs, network.inflight())) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await page.waitForTimeout(Math.min(left, 100));
  }
}

/**
 * Finds the one element `target` names, waiting up to `waitMs` for it to appear (polling, not
 * busy-looping: 100 ms, 250 ms, then every 250 ms), and no longer than the page takes to be loaded
 * and stable: once its load is done, the network idle and the DOM unchanged for `quietMs`, a
 * target still not there is not found.
 *
 * @throws {@link InterpreterError} `WF_ELEMENT_NOT_FOUND` with the closest candidates, or
 *   `WF_ELEMENT_AMBIGUOUS` with the equally good matches.
 */
export async function locateTarget(
  page: Page,
  target: TargetSpec,
  purpose: TargetPurpose,
  waitMs: number,
  signal?: AbortSignal,
  quietMs: number = QUIET_MS,
): Promise<FoundElement> {
  const deadline = Date.now() + Math.max(0, waitMs);
  const pauses = [100, 250];
  let last: { hidden?: Attempt } = {};
  const network = watchRequests(page);
  for (;;) {
    let result: FoundElement | { hidden?: Attempt };
    try {
      result = await tryOnce(page, target, purpose);
    } catch (error) {
      // The page navigated while we looked (a click before this step started a load): look again.
      if (!isNavigationRace(error)) throw error;
      result = {};
    }
    if ("locator" in result) return result;
    last = result;
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) break;
    // A loaded page that has stopped changing will not show the target by waiting longer.
    if (await isSettled(page, quietMs, network.inflight())) break;
    await page.waitForTimeout(Math.min(left, pauses.shift() ?? 250));
  }
  if (last.hidden) {
    // File inputs are often hidden behind a styled label; setting files on them works.
    if (purpose === "upload") {
      const picked = pick(last.hidden.locator, last.hidden.infos, target, true, undefined, last.hidden.root);
      if (picked) {
        if (last.hidden.root.frames.length) picked.normalized = await picked.locator.normalize().then((l) => l.toString(), () => undefined);
        return picked;
      }
    }
    const hidden = last.hidden.infos.filter((i) => i.sameAs === -1 && i.inside === -1).map((i) => ({ role: i.role, name: i.name }));
    throw new InterpreterError(
      "WF_ELEMENT_NOT_FOUND",
      `no visible element matches ${targetLabel(target)}; only hidden ones do: ${hidden.slice(0, 5).map((c) => `${JSON.stringify(c.name)} (${c.role})`).join(", ")}. ` +
        `Do first what shows it (open the menu, expand the section), or wait for it (\`wait for "…"\`).`,
      { target: target.text, candidates: hidden },
    );
  }
  // A place the page does not have is the thing to name: `in the "Payment" frame`, `in the "Shipping" section`.
  const frameScopes = target.scopes?.filter((sc) => sc.kind === "frame") ?? [];
  const roots = await searchRoots(page, frameScopes).catch(() => [] as SearchRoot[]);
  if (frameScopes.length && !roots.length) {
    const all = await childRoots(page).catch(() => [] as SearchRoot[]);
    const labels = [...new Set(all.map((r) => r.frames[0]!.label).filter(Boolean))].map((l) => JSON.stringify(l));
    const wanted = scopePhrase(frameScopes).replace(/^in /, "");
    throw new InterpreterError(
      "WF_ELEMENT_NOT_FOUND",
      `no element matches ${targetLabel(target)}: the page has no ${wanted.replace(/^the /, "")}. ` +
        (all.length ? `Its frames: ${labels.length ? labels.join(", ") : "none with a title, name, aria-label or id"}` : "It shows no frames") +
        `. Name a frame by its title, name, aria-label or id (\`in the "…" frame\`), or leave the frame out.`,
      { target: target.text, candidates: [] },
    );
  }
  for (const scope of target.scopes?.filter((sc) => sc.kind !== "frame") ?? []) {
    let any = false;
    for (const root of roots) {
      any = await root.root
        .locator("body *")
        .evaluateAll(inScopes, [scope])
        .then((flags) => flags.some(Boolean))
        .catch(() => true);
      if (any) break;
    }
    if (!any) {
      throw new InterpreterError(
        "WF_ELEMENT_NOT_FOUND",
        `no element matches ${targetLabel(target)}: the page has no ${scope.text ? `${JSON.stringify(scope.text)} ` : ""}${scope.kind}` +
          `${scope.kind === "section" ? " (no heading or labelled region of that name)" : ""}. Check the name as the page writes it, or leave the place out.`,
        { target: target.text, candidates: [] },
      );
    }
  }
  const candidates = await closestCandidates(page, target.text, 5, roots.length ? roots : [{ root: page, frames: [] }]);
  const anyClose = candidates.some((c) => similarity(target.text, c.name) >= MIN_SIMILARITY);
  const listed = candidates.map((c) => `${JSON.stringify(c.name)} (${c.role}${c.frame ? `, in ${c.frame}` : ""})`).join(", ");
  const closest = !candidates.length
    ? " The page shows no interactive elements."
    : anyClose
      ? ` Closest: ${listed}.`
      : ` Nothing on the page comes close; it shows ${listed}, among others.`;
  const closed = await page.evaluate(closedComponents).catch(() => [] as string[]);
  const hidden = closed.length
    ? ` The page shows components whose content no one can reach (closed shadow roots): ${closed.map((t) => `<${t}>`).join(", ")}; an element inside them cannot be found by any interpreter.`
    : "";
  throw new InterpreterError(
    "WF_ELEMENT_NOT_FOUND",
    `no element matches ${targetLabel(target)}.${closest}${hidden} Check the spelling, name the role (\`the "Save" button\`), or wait for the page to show it first.`,
    { target: target.text, candidates },
  );
}

/** True for errors of an evaluation cut short by a navigation; looking again on the new document is right. */
export function isNavigationRace(error: unknown): boolean {
  return error instanceof Error && /Execution context was destroyed|frame was detached|Cannot find context with specified id|navigation/i.test(error.message);
}
