/**
 * How the grammar looks for a target, as Playwright's user-facing locators: the roles a purpose
 * allows ({@link PURPOSE_ROLES}), the strategies tried in order (role and accessible name, label,
 * placeholder, text, visible text, alt text, title, `name`/`id` attribute, a label beside a
 * control), and the matching tiers (exact, whole text folded, a clickable name's start, a field's
 * substring). {@link strategyLocator} builds one strategy's locator at one tier.
 */
import type { FrameLocator, Locator, Page } from "playwright-core";

/**
 * What the element is for; decides the roles and strategies tried when the instruction gives no
 * role. `scroll` is `any` plus a preference among equal matches: a heading, else an element that
 * is not a link to an anchor of the same page (a table of contents entry names its heading).
 */
export type TargetPurpose = "click" | "fill" | "check" | "select" | "upload" | "key" | "any" | "scroll";

/** A role `getByRole` takes. */
export type AriaRole = Parameters<Page["getByRole"]>[0];

/** The roles of elements a person acts on (a click without a role word looks among these). */
export const INTERACTIVE: AriaRole[] = [
  "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "option",
  "treeitem", "combobox", "textbox", "searchbox", "spinbutton", "slider", "listbox",
];
/** Roles whose name may be written beside them rather than on them (labels by proximity). */
const FORM_CONTROLS = new Set<AriaRole>(["textbox", "searchbox", "combobox", "spinbutton", "checkbox", "radio", "switch", "listbox", "slider"]);
const TEXT_FIELDS: AriaRole[] = ["textbox", "searchbox", "combobox", "spinbutton"];
/** The roles a target may have when the instruction names none, by what it is for. */
export const PURPOSE_ROLES: Record<TargetPurpose, AriaRole[]> = {
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
 * names; a field's description when it has no name). `shown`: a clickable element whose visible
 * text is the text while its accessible name says something else (`<button aria-label="Apply
 * settings"><span>Save</span></button>`). `lead`: an option or item whose first line is the text
 * (an autocomplete's suggestion "react-dom" over its description and version).
 */
export type Strategy = "role" | "label" | "placeholder" | "text" | "shown" | "alt" | "title" | "attribute" | "near" | "lead";
/** The strategies tried, in order, when the instruction names no role, by what the target is for. */
export const PURPOSE_STRATEGIES: Record<TargetPurpose, Strategy[]> = {
  click: ["role", "label", "text", "shown", "alt", "title", "placeholder", "attribute", "lead"],
  any: ["role", "label", "text", "shown", "alt", "title", "placeholder", "attribute"],
  scroll: ["role", "label", "text", "shown", "alt", "title", "placeholder", "attribute"],
  fill: ["role", "label", "placeholder", "title", "attribute", "near"],
  check: ["role", "label", "text", "title", "attribute", "near"],
  select: ["role", "label", "title", "attribute", "near"],
  upload: ["label", "role", "title", "attribute", "text"],
  key: ["role", "label", "placeholder", "title", "attribute", "text", "near"],
};

/** Roles whose name a click may give by its start (the `prefix` tier): `"Archive done"` for "Archive done (3)". */
export const CLICKABLE = new Set<AriaRole>(["link", "button", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "treeitem"]);
/** Roles of the entries of a list, named by the line they lead with (the `lead` strategy). */
const LEAD_ROLES = new Set<AriaRole>(["option", "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem"]);
/** Roles whose visible text may differ from their accessible name and still name them (the `shown` strategy). */
const SHOWN_ROLES = new Set<AriaRole>(["button", "link", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "treeitem", "switch"]);

/**
 * Matching tiers, tried in order: exact text; whole text with case, whitespace, dashes and quotes
 * folded; the unique start of a clickable element's name up to a separator (click, hover, scroll);
 * a folded substring (fields only).
 */
export type Tier = "exact" | "whole" | "prefix" | "substring";
export const TIERS: Tier[] = ["exact", "whole", "prefix", "substring"];

/**
 * User text as a literal inside a pattern: every character but ASCII letters and digits written as
 * a `\uXXXX` escape (per UTF-16 code unit), so that no quote, bracket, slash, backslash or regex
 * character of the text reaches the pattern or the Playwright selector that carries it as itself
 * (Playwright's selector parser reads a quote inside `[name=/…/]` as the end of the value).
 */
export function escapeRegExp(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    out += /[A-Za-z0-9]/.test(ch) ? ch : `\\u${s.charCodeAt(i).toString(16).padStart(4, "0")}`;
  }
  return out;
}

/** Dashes (hyphen, non-breaking hyphen, figure, en, em dash, minus) fold to one another below the exact tier. */
const DASHES = escapeRegExp("-\u2010\u2011\u2012\u2013\u2014\u2015\u2212");
const DASH_CHARS = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212";
/** What may follow a name and still leave it whole: an arrow or punctuation ("Next →"). */
const AFTER_NAME = escapeRegExp("→»›>…:.!?*");
/** What ends the start of a name (the `prefix` tier): a colon, comma, parenthesis, slash, bar, bullet. */
const SEPARATORS = escapeRegExp(":,;(/|·•");
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
    else if (QUOTES.includes(ch)) out += `[${escapeRegExp(QUOTES)}]`;
    else out += escapeRegExp(ch);
  }
  return out;
}

/** The name argument of a locator for `text` at `tier`: the text itself (exact), or a pattern (`i`). */
export function textArg(text: string, tier: Tier): { value: string | RegExp; exact: boolean } {
  if (tier === "exact") return { value: text, exact: true };
  const body = loosePattern(text);
  if (tier === "whole") {
    // Case-insensitive, and blind to a section number before ("8.1.3. ", "K. ", "IV. ") and an arrow or punctuation after ("Next →").
    return { value: new RegExp(`^\\s*(?:(?:[A-Z]|[IVXLC]+)\\.\\s+|\\d+(?:\\.\\d+)*\\.?\\s+)?${body}\\s*[${AFTER_NAME}]*\\s*$`, "i"), exact: false };
  }
  if (tier === "prefix") {
    // The start of a name up to a separator (a dash, colon, parenthesis, bar, bullet): `json` for
    // "json — JSON encoder and decoder", not "jsonschema", and `Sign in` not for "Sign in with SSO".
    return { value: new RegExp(`^\\s*${body}(?=\\s*[${DASHES}${SEPARATORS}])`, "i"), exact: false };
  }
  return { value: new RegExp(body, "i"), exact: false };
}

function cssString(s: string): string {
  return JSON.stringify(s);
}

/**
 * One strategy's locator for `text` at `tier` under `page` (a page or a frame's locator), among
 * `roles`; with `hinted` (the instruction named a role), strategies other than `role` keep only
 * elements of those roles. Undefined when the strategy has nothing to look for at this tier.
 */
export function strategyLocator(page: Page | FrameLocator, strategy: Strategy, text: string, tier: Tier, roles: AriaRole[], hinted: boolean): Locator | undefined {
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
    case "lead": {
      // Every entry of the roles; tryOnce keeps those whose first line matches.
      if (tier !== "exact" && tier !== "whole") return undefined;
      const entries = roles.filter((r) => LEAD_ROLES.has(r));
      return entries.length ? entries.map((r) => page.getByRole(r)).reduce((a, b) => a.or(b)) : undefined;
    }
    case "near": {
      // Every form control of the roles; tryOnce keeps those whose nearby text matches (at the
      // substring tier, those whose description holds the text's words).
      if (tier === "prefix") return undefined;
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
