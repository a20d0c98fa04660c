/**
 * The ACT grammar, reading a target: the part of an instruction that names an element
 * (`the second "Edit" button in the "Billing" section`) as a {@link TargetSpec}: its text, the
 * roles its role word stands for, an ordinal, and the places (scopes) it is looked for in. Also
 * the quoting every grammar rule relies on ({@link extractQuotes}). Pure: no browser here.
 */

/**
 * A place the target is looked for in: `in the "Billing" section`, `inside the dialog`, `in the
 * "status" row`, `in the "Payment" frame` (an iframe by its title, name, aria-label or id). `text`
 * `""` is any of that kind (`inside the dialog`: the open one; `in the frame`: any frame).
 */
export interface ScopeSpec {
  kind: "section" | "dialog" | "row" | "list" | "table" | "form" | "card" | "region" | "frame";
  text: string;
}

/** What an instruction names as the element to act on. */
export interface TargetSpec {
  /**
   * Where to look, innermost first (`the "[...]" expander in the "status" row of the "Order"
   * schema` → row "status", then table "Order"); absent: the whole page.
   */
  scopes?: ScopeSpec[];
  /** The text that names the element (accessible name, label, placeholder, text, title or alt). `""` with a role: any element of that role. */
  text: string;
  /** Roles the instruction hints at (`the "Save" button` → `["button"]`), ARIA role names. */
  roles?: string[];
  /** The role word as written (`button`, `field`), for messages. */
  roleWord?: string;
  /** 1-based position among equally good matches (`second` → 2); `-1` is `last`. */
  ordinal?: number;
  /** True when the text was quoted in the instruction. */
  quoted: boolean;
  /** Words beside the target that are neither a role nor filler (`"Menu" and then frobnicate`); such a parse is rejected. */
  leftover?: string;
}

/** Cuts quoted parts out of `input`: `click "Save"` → `{ text: "click «0»", quotes: ["Save"] }`. */
export function extractQuotes(input: string): { text: string; quotes: string[] } {
  const quotes: string[] = [];
  const text = input.replace(/"([^"]*)"|“([^”]*)”|‘([^’]*)’|(^|[\s(])'(.*?)'(?=$|[\s.,;:!?)])/g, (_all, d, cd, cs, pre, s) => {
    const value = (d ?? cd ?? cs ?? s) as string;
    quotes.push(value);
    return `${(pre as string | undefined) ?? ""}«${quotes.length - 1}»`;
  });
  return { text, quotes };
}

/** `phrase` with its placeholders (`«0»`) put back as the quoted texts. */
export function unquote(phrase: string, quotes: string[]): string {
  return phrase.replace(/«(\d+)»/g, (_all, i: string) => quotes[Number(i)] ?? "");
}

/** Role words a person writes, and the ARIA roles they stand for. Longest first. */
const ROLE_WORDS: ReadonlyArray<[RegExp, string[]]> = [
  [/radio\s*buttons?|radios?/i, ["radio"]],
  [/check\s*box(?:es)?|tick\s*box(?:es)?/i, ["checkbox", "switch"]],
  [/text\s*(?:box|field|area|input)|textarea|search\s*(?:box|field|input)|input\s*(?:box|field)?|fields?|inputs?/i, ["textbox", "searchbox", "combobox", "spinbutton"]],
  [/drop\s*-?\s*downs?|select(?:\s*box)?|combo\s*box(?:es)?|list\s*box(?:es)?|pickers?/i, ["combobox", "listbox"]],
  [/buttons?|btn|expanders?|disclosures?|chevrons?|carets?/i, ["button"]],
  [/links?|hyperlinks?/i, ["link"]],
  [/tabs?/i, ["tab"]],
  [/menu\s*items?|menu\s*entr(?:y|ies)/i, ["menuitem", "menuitemcheckbox", "menuitemradio"]],
  [/options?|suggestions?/i, ["option"]],
  [/switch(?:es)?|toggles?/i, ["switch", "checkbox"]],
  [/images?|icons?|pictures?|logos?|img/i, ["img"]],
  [/headings?|headers?|titles?/i, ["heading"]],
  [/rows?/i, ["row"]],
  [/cells?/i, ["cell", "gridcell"]],
  [/boxe?s?/i, ["checkbox", "textbox", "searchbox", "combobox"]],
];

/** Ordinal words and the 1-based position they name (`last`: -1). */
export const ORDINALS: Record<string, number> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10, last: -1,
};

/**
 * Parses the part of an instruction that names an element: `the second "Edit" button`,
 * `link "Docs"`, `"Remember me" checkbox`, or unquoted `Sign in`.
 */
export function parseTarget(phrase: string, quotes: string[]): TargetSpec {
  const scoped = splitScopes(phrase.trim(), quotes);
  let rest = scoped.rest.replace(/^(?:on|at|onto|into|in|to)\s+/i, "").replace(/^(?:the|a|an)\s+/i, "");
  let ordinal: number | undefined;
  const ord = rest.match(/^(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|(\d+)(?:st|nd|rd|th))\s+/i);
  if (ord) {
    ordinal = ord[2] ? Number(ord[2]) : ORDINALS[ord[1]!.toLowerCase()];
    rest = rest.slice(ord[0].length);
  }
  const quoted = rest.match(/«(\d+)»/);
  let text: string;
  let roleText: string;
  if (quoted) {
    text = quotes[Number(quoted[1])] ?? "";
    roleText = (rest.slice(0, quoted.index) + " " + rest.slice(quoted.index! + quoted[0].length)).trim();
  } else {
    // Unquoted: a role word at the start (`link Docs`) or the end (`Sign in button`) is the hint.
    text = rest;
    roleText = "";
    for (const [re] of ROLE_WORDS) {
      const end = text.match(new RegExp(`\\s+(?:${re.source})$`, "i"));
      const start = text.match(new RegExp(`^(?:${re.source})(?:\\s+|$)`, "i"));
      if (end) {
        roleText = end[0].trim();
        text = text.slice(0, end.index).trim();
        break;
      }
      if (start && text.length > start[0].length) {
        roleText = start[0].trim();
        text = text.slice(start[0].length).trim();
        break;
      }
      if (start) {
        roleText = text;
        text = "";
        break;
      }
    }
  }
  for (let before = ""; before !== roleText; ) {
    before = roleText;
    roleText = roleText
      .replace(/^(?:the|a|an)\s+/i, "")
      .replace(/\s*\b(?:labell?ed|named|called|with (?:the )?(?:text|label|name))$/i, "")
      .replace(FILLER, "")
      .trim();
  }
  // `the search box` / `the search field`: the field named "search", not any text field.
  if (!text.trim() && /^search\s*(?:box|field|input|bar)$/i.test(roleText.replace(/^(?:the|a|an)\s+/i, ""))) text = "search";
  const spec: TargetSpec = { text: text.trim(), quoted: Boolean(quoted) };
  if (scoped.scopes.length) spec.scopes = scoped.scopes;
  if (ordinal !== undefined) spec.ordinal = ordinal;
  if (roleText) {
    for (const [re, roles] of ROLE_WORDS) {
      if (new RegExp(`^(?:${re.source})$`, "i").test(roleText)) {
        spec.roles = roles;
        spec.roleWord = roleText.toLowerCase();
        break;
      }
    }
    // Words that are neither a role nor filler are not silently dropped: the rule does not match.
    if (!spec.roles) spec.leftover = roleText;
  }
  return spec;
}

/** Scope words as written, and the kind they stand for. */
const SCOPE_KINDS: ReadonlyArray<[RegExp, ScopeSpec["kind"]]> = [
  [/^(?:section|chapter|part|heading|schema|tab\s*panel)$/i, "section"],
  [/^(?:dialog|modal|popup|pop-up|dialog box|modal dialog)$/i, "dialog"],
  [/^(?:row|line|entry|record)$/i, "row"],
  [/^(?:list)$/i, "list"],
  [/^(?:table|grid)$/i, "table"],
  [/^(?:form)$/i, "form"],
  [/^(?:card|tile|item|list item|entry)$/i, "card"],
  [/^(?:region|panel|pane|area|box|group|block|widget)$/i, "region"],
  [/^(?:i?frame)$/i, "frame"],
];
const SCOPE_WORD = "iframe|frame|section|chapter|part|heading|schema|tab\\s*panel|dialog box|modal dialog|dialog|modal|popup|pop-up|row|line|entry|record|list item|list|table|grid|form|card|tile|item|region|panel|pane|area|box|group|block|widget";

/**
 * Cuts the places off the end of a target phrase, outermost last: `"Edit" in the "Billing" section`
 * → `"Edit"` + section "Billing"; `the "[...]" expander in the "status" row of the "Order" schema`
 * → row "status", then section "Order". Unquoted names work (`in the Billing section`); a bare
 * `inside the dialog` names the open dialog.
 */
function splitScopes(phrase: string, quotes: string[]): { rest: string; scopes: ScopeSpec[] } {
  const scopes: ScopeSpec[] = [];
  let rest = phrase;
  const re = new RegExp(`^(.*?\\S)\\s+(?:in|inside|within|under|of|on|from)\\s+(?:the\\s+|a\\s+|an\\s+)?(?:«(\\d+)»\\s*|([\\w'’.-]+(?:\\s+[\\w'’.-]+){0,4}?)\\s+)?(${SCOPE_WORD})$`, "i");
  for (;;) {
    const m = re.exec(rest);
    if (!m) break;
    const word = m[4]!.replace(/\s+/g, " ");
    const kind = SCOPE_KINDS.find(([k]) => k.test(word))?.[1];
    if (!kind) break;
    const text = m[2] !== undefined ? (quotes[Number(m[2])] ?? "") : (m[3] ?? "").trim();
    // `the "Edit" button in the form` keeps meaning the form; `on the page` is not a scope (filler).
    scopes.unshift({ kind, text: text.replace(/^(?:the|a|an)\s+/i, "") });
    rest = m[1]!;
  }
  // Innermost first, as the phrase lists them (`in the row of the table`).
  return { rest, scopes };
}

/** Words around a target that say nothing about it: `below`, `on the page`, `to continue`… */
const FILLER =
  /\s*(?:\b(?:below|above|here|again|now|once|please)|\b(?:on|in|at|from|of) (?:the |this )?(?:page|menu|top|bottom|header|footer|sidebar|toolbar|screen|left|right)|\bto (?:continue|proceed|submit|confirm|sign in|log in))\s*$/i;
