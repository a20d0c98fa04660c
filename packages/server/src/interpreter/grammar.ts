/**
 * The ACT grammar: one table of patterns ({@link ACT_GRAMMAR}) that turns a plain instruction into
 * a {@link ParsedAction}. Pure: no browser here. Documented in `packages/server/README-interpreter.md`.
 *
 * Before matching, quoted parts (`"…"`, `'…'`, `“…”`, `‘…’`) are cut out and replaced by
 * placeholders, so a quoted target never confuses the patterns; the patterns are case-insensitive.
 */
import { InterpreterError } from "./errors.js";

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

/** An instruction, understood. */
export type ParsedAction =
  | { verb: "goto"; url: string }
  | { verb: "back" }
  | { verb: "forward" }
  | { verb: "reload" }
  | { verb: "click" | "dblclick" | "rightclick" | "hover"; target: TargetSpec }
  | { verb: "fill"; text: string; target: TargetSpec; typed: boolean }
  | { verb: "type-focused"; text: string }
  | { verb: "clear"; target: TargetSpec }
  | { verb: "press"; key: string; target?: TargetSpec }
  | { verb: "select"; option: string; target: TargetSpec }
  | { verb: "check" | "uncheck"; target: TargetSpec }
  | { verb: "scroll"; direction: "up" | "down"; pixels?: number }
  | { verb: "scroll-edge"; edge: "top" | "bottom" }
  | { verb: "scroll-to"; target: TargetSpec }
  | { verb: "wait-text"; text: string }
  | { verb: "wait-gone"; text: string }
  | { verb: "wait-time"; ms: number }
  /** Wait until the page is loaded and stable: `load`, network idle, no DOM change for a quiet period. */
  | { verb: "wait-settled" }
  /** Type into the page's search box and submit (Enter). */
  | { verb: "search"; text: string }
  | { verb: "upload"; path: string; target: TargetSpec };

/** One row of the grammar: a pattern over the instruction with its quoted parts as `«0»`, `«1»`… */
export interface GrammarRule {
  /** The verb family, as reported in `ActResult.action`. */
  verb: string;
  pattern: RegExp;
  /** Instructions this rule understands, for docs and error messages. */
  examples: string[];
  /** Builds the action from the match; returns undefined to let later rules try. */
  build(match: RegExpMatchArray, quotes: string[]): ParsedAction | undefined;
}

const Q = "«(\\d+)»";
/** What `wait for the …` names when it means "until the page is loaded and stable", not a text. */
const SETTLE_NOUNS = "page|site|app|application|results?|search\\s+results?|content|contents|data|list|table|everything|it|loading|spinner|request|requests|network";
const TARGET = "(.+?)";

/**
 * The grammar, in the order rules are tried: more specific rules first (`press "Enter"` before
 * `press "Submit"` as a click, `select "X" in "Y"` before `select "Y"` as a check).
 */
export const ACT_GRAMMAR: readonly GrammarRule[] = [
  {
    verb: "goto",
    pattern: /^(?:go to|goto|open|navigate to|visit|load|browse to|go)\s+(?:the\s+)?(?:url|page|site|address)?\s*(.+?)$/i,
    examples: ['go to "https://example.com"', "open http://127.0.0.1:8080/login", 'navigate to "/settings"'],
    build: (m, q) => {
      const raw = unquote(m[1]!, q).trim();
      return looksLikeUrl(raw) ? { verb: "goto", url: raw } : undefined;
    },
  },
  {
    verb: "goto",
    // `Go to the library index at http://127.0.0.1:8080/lib/`: the URL ends the sentence.
    pattern: /^(?:go to|goto|open|navigate to|visit|load|browse to|head to|go)\s+(?:.+?\s+)?(?:at|on|via|:)?\s*(«\d+»|\S+)$/i,
    examples: ["go to the library index at http://127.0.0.1:8080/lib/"],
    build: (m, q) => {
      const raw = unquote(m[1]!, q).trim();
      // Only a URL that says it is one: a scheme, localhost or an IP (a dotted word could be a name).
      return /^(?:https?|file|data):/i.test(raw) || /^(?:about:blank|localhost(?::\d+)?(?:[/?#]|$)|\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?(?:[/?#]|$))/i.test(raw)
        ? { verb: "goto", url: raw }
        : undefined;
    },
  },
  {
    verb: "search",
    pattern: /^(?:search|look)\s+(?:the\s+(?:site|page|docs|documentation)\s+)?(?:for|up)\s+(«\d+»|.+)$/i,
    examples: ['search for "dataclass"'],
    build: (m, q) => {
      const text = unquote(m[1]!, q).trim();
      return text ? { verb: "search", text } : undefined;
    },
  },
  {
    verb: "back",
    pattern: /^(?:(?:go|navigate|browse|step)\s+)?back(?:\s+.*)?$/i,
    examples: ["go back"],
    build: () => ({ verb: "back" }),
  },
  {
    verb: "forward",
    pattern: /^(?:(?:go|navigate|browse|step)\s+)?forwards?(?:\s+.*)?$/i,
    examples: ["go forward"],
    build: () => ({ verb: "forward" }),
  },
  {
    verb: "reload",
    pattern: /^(?:reload|refresh)(?:\s+(?:the\s+)?(?:page|tab|site))?$/i,
    examples: ["reload", "refresh the page"],
    build: () => ({ verb: "reload" }),
  },
  {
    verb: "upload",
    pattern: new RegExp(`^(?:upload|attach|choose|select|set)\\s+(?:the\\s+)?(?:file\\s+)?${Q}\\s+(?:to|into|in|on|for|using|with|as)\\s+${TARGET}$`, "i"),
    examples: ['upload "fixtures/report.pdf" to "Attachment"'],
    build: (m, q) => {
      const path = q[Number(m[1])]!;
      // `select "Red" in "Colour"` is an option; only file-looking values or upload/attach verbs are uploads.
      if (!/^(?:upload|attach)/i.test(m[0]) && !/[/\\]|\.[a-z][a-z0-9]{1,4}$/i.test(path)) return undefined;
      return { verb: "upload", path, target: parseTarget(m[2]!, q) };
    },
  },
  {
    verb: "select",
    pattern: new RegExp(`^(?:select|choose|pick)\\s+(?:the\\s+)?(?:option\\s+)?${Q}(?:\\s+option)?\\s+(?:in|from|on|for)\\s+${TARGET}$`, "i"),
    examples: ['select "France" in "Country"', 'choose "Large" from the "Size" dropdown'],
    build: (m, q) => ({ verb: "select", option: q[Number(m[1])]!, target: parseTarget(m[2]!, q) }),
  },
  {
    verb: "select",
    pattern: new RegExp(`^(?:set|change)\\s+${TARGET}\\s+to\\s+(?:the\\s+option\\s+)?${Q}$`, "i"),
    examples: ['set "Country" to "France"'],
    // Resolved at run time: a <select> gets the option, a text field gets the text (see interpreter).
    build: (m, q) => ({ verb: "select", option: q[Number(m[2])]!, target: parseTarget(m[1]!, q) }),
  },
  {
    verb: "fill",
    pattern: new RegExp(`^(type|fill(?:\\s+in)?|enter|input|write|put|key in)\\s+${Q}\\s+(?:into|in|to|on|inside|for)\\s+${TARGET}$`, "i"),
    examples: ['type "ada@example.com" into "Email"', 'fill "secret" in the "Password" field', 'enter "pg" in "Search"'],
    build: (m, q) => ({ verb: "fill", text: q[Number(m[2])]!, target: parseTarget(m[3]!, q), typed: /^(?:type|key)/i.test(m[1]!) }),
  },
  {
    verb: "fill",
    pattern: new RegExp(`^(?:fill(?:\\s+in)?|fill out|complete|populate)\\s+${TARGET}\\s+with\\s+${Q}$`, "i"),
    examples: ['fill "Email" with "ada@example.com"'],
    build: (m, q) => ({ verb: "fill", text: q[Number(m[2])]!, target: parseTarget(m[1]!, q), typed: false }),
  },
  {
    verb: "fill",
    // `fill the search box with dataclass`: an unquoted value runs to the end.
    pattern: new RegExp(`^(?:fill(?:\\s+in)?|fill out|complete|populate)\\s+${TARGET}\\s+with\\s+(?!«)(.+)$`, "i"),
    examples: ["fill the search box with dataclass"],
    build: (m, q) => ({ verb: "fill", text: unquote(m[2]!, q).trim(), target: parseTarget(m[1]!, q), typed: false }),
  },
  {
    verb: "type",
    pattern: new RegExp(`^(?:type|enter|write)\\s+${Q}$`, "i"),
    examples: ['type "hello"'],
    build: (m, q) => ({ verb: "type-focused", text: q[Number(m[1])]! }),
  },
  {
    verb: "clear",
    pattern: new RegExp(`^(?:clear|empty|erase|blank)(?:\\s+out)?\\s+${TARGET}$`, "i"),
    examples: ['clear "Search"', 'clear the "Email" field'],
    build: (m, q) => ({ verb: "clear", target: parseTarget(m[1]!, q) }),
  },
  {
    verb: "press",
    pattern: new RegExp(`^(?:press|hit|tap|push|send)\\s+(?:the\\s+)?(?:key\\s+)?(${Q}|[\\w+\\- ]+?)(?:\\s+key)?(?:\\s+(?:in|on|into|inside|at)\\s+${TARGET})?$`, "i"),
    examples: ['press "Enter"', "press Tab", 'press "Enter" in "Search"', 'press "Control+A"'],
    build: (m, q) => {
      const raw = m[2] !== undefined ? q[Number(m[2])]! : m[1]!;
      const key = normalizeKey(raw);
      if (!key) return undefined;
      return m[3] ? { verb: "press", key, target: parseTarget(m[3], q) } : { verb: "press", key };
    },
  },
  {
    verb: "dblclick",
    pattern: new RegExp(`^(?:double[- ]?click|dblclick|double[- ]?tap)(?:\\s+on)?\\s+${TARGET}$`, "i"),
    examples: ['double-click "Row 1"'],
    build: (m, q) => ({ verb: "dblclick", target: parseTarget(m[1]!, q) }),
  },
  {
    verb: "rightclick",
    pattern: new RegExp(`^(?:right[- ]?click|context[- ]?click)(?:\\s+on)?\\s+${TARGET}$`, "i"),
    examples: ['right-click "File"'],
    build: (m, q) => ({ verb: "rightclick", target: parseTarget(m[1]!, q) }),
  },
  {
    verb: "hover",
    pattern: new RegExp(`^(?:hover(?:\\s+over|\\s+on)?|mouse\\s*over|move\\s+(?:the\\s+)?mouse\\s+(?:over|to|onto))\\s+${TARGET}$`, "i"),
    examples: ['hover over "Menu"', 'hover "Profile"'],
    build: (m, q) => ({ verb: "hover", target: parseTarget(m[1]!, q) }),
  },
  {
    verb: "uncheck",
    pattern: new RegExp(`^(?:uncheck|untick|unselect|deselect|disable|turn\\s+off|switch\\s+off)\\s+${TARGET}$`, "i"),
    examples: ['uncheck "Newsletter"'],
    build: (m, q) => ({ verb: "uncheck", target: parseTarget(m[1]!, q) }),
  },
  {
    verb: "check",
    pattern: new RegExp(`^(?:check|tick|mark|enable|turn\\s+on|switch\\s+on)\\s+${TARGET}$`, "i"),
    examples: ['check "Remember me"', 'check the "Terms" checkbox'],
    build: (m, q) => ({ verb: "check", target: parseTarget(m[1]!, q) }),
  },
  {
    verb: "scroll",
    pattern: /^scroll(?:\s+(?:the\s+)?page)?(?:\s+(down|up))?(?:\s+(?:by\s+)?(\d+)\s*(?:px|pixels?)?)?$/i,
    examples: ["scroll down", "scroll up by 200 pixels", "scroll down 500px"],
    build: (m) => ({ verb: "scroll", direction: (m[1]?.toLowerCase() ?? "down") as "up" | "down", ...(m[2] ? { pixels: Number(m[2]) } : {}) }),
  },
  {
    verb: "scroll",
    pattern: /^scroll(?:\s+(?:the\s+)?page)?\s+(?:(?:all\s+the\s+way\s+)?(?:down|up)\s+)?(?:to\s+)?(?:the\s+)?(bottom|top|end|start|beginning)(?:\s+of\s+(?:the\s+)?page)?$/i,
    examples: ["scroll to bottom", "scroll to the top of the page"],
    build: (m) => ({ verb: "scroll-edge", edge: /bottom|end/i.test(m[1]!) ? "bottom" : "top" }),
  },
  {
    verb: "scroll",
    pattern: new RegExp(`^scroll(?:\\s+(?:down|up))?\\s+(?:to|until)\\s+${TARGET}(?:\\s+is\\s+visible)?$`, "i"),
    examples: ['scroll to "Pricing"'],
    build: (m, q) => ({ verb: "scroll-to", target: parseTarget(m[1]!, q) }),
  },
  {
    verb: "scroll",
    pattern: new RegExp(`^(?:scroll|bring)\\s+${TARGET}\\s+into\\s+view$`, "i"),
    examples: ['scroll "Footer" into view'],
    build: (m, q) => ({ verb: "scroll-to", target: parseTarget(m[1]!, q) }),
  },
  {
    verb: "wait",
    pattern: /^(?:wait|pause|sleep)(?:\s+for)?\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)?$/i,
    examples: ["wait 2 seconds", "wait for 500 ms"],
    build: (m) => ({ verb: "wait-time", ms: Math.round(Number(m[1]) * unitMs(m[2])) }),
  },
  {
    verb: "wait",
    pattern: new RegExp(
      `^wait(?:\\s+(?:for|until|till))?(?:\\s+(?:the|a|an|all|any|its|my))?(?:\\s+(?:${SETTLE_NOUNS}))+` +
        `(?:\\s+(?:to\\s+(?:finish\\s+|complete\\s+|be\\s+)?(?:load|loading|loaded|render|rendering|rendered|ready|done|settle|complete|appear|show(?:\\s+up)?)|(?:has|have|is|are)\\s+(?:finished\\s+|done\\s+)?(?:loaded|loading|rendered|ready|done|complete|finished|settled|shown)|(?:has|have)\\s+(?:finished|settled|loaded)|(?:finish(?:es)?|complete[sd]?)(?:\\s+loading)?|loads?|(?:is|are)\\s+idle))?$`,
      "i",
    ),
    examples: ["wait for the results", "wait until the page has loaded", "wait for the search results to finish loading"],
    build: () => ({ verb: "wait-settled" }),
  },
  {
    verb: "wait",
    pattern: /^wait(?:\s+(?:for|until|till))?\s+(?:the\s+)?(?:page\s+)?(?:load|loading\s+to\s+finish|network\s+(?:to\s+be\s+)?idle|idle)$/i,
    examples: ["wait for page load"],
    build: () => ({ verb: "wait-settled" }),
  },
  {
    verb: "wait",
    pattern: new RegExp(
      `^wait\\s+(?:for|until)\\s+(?:the\\s+)?(?:text\\s+)?${TARGET}\\s+(?:to\\s+)?(?:disappear|disappears|vanish|vanishes|is\\s+(?:gone|hidden)|to\\s+be\\s+(?:gone|hidden)|goes\\s+away|to\\s+go\\s+away)$`,
      "i",
    ),
    examples: ['wait until "Loading…" disappears'],
    build: (m, q) => {
      const text = unquote(m[1]!, q).trim();
      noCheckableText(m, q);
      return text ? { verb: "wait-gone", text } : undefined;
    },
  },
  {
    verb: "wait",
    pattern: new RegExp(
      `^wait\\s+(?:for|until)\\s+(?:the\\s+)?(?:text\\s+)?${TARGET}(?:\\s+(?:to\\s+)?(?:appear|appears|is\\s+(?:shown|visible|displayed)|to\\s+be\\s+(?:shown|visible|displayed)|shows(?:\\s+up)?|to\\s+show(?:\\s+up)?)(?:\\s+on\\s+the\\s+page)?)?$`,
      "i",
    ),
    examples: ['wait for "Saved"', 'wait until "Done" appears'],
    build: (m, q) => {
      const text = unquote(m[1]!, q).trim();
      noCheckableText(m, q);
      return text ? { verb: "wait-text", text } : undefined;
    },
  },
  {
    verb: "click",
    pattern: new RegExp(`^(?:click|tap|press|push|hit|select|choose|follow|open|go\\s+to|activate|submit)(?:\\s+(?:on|at))?\\s+${TARGET}$`, "i"),
    examples: ['click "Sign in"', 'click the "Save" button', 'click link "Docs"', 'click the second "Edit" button'],
    build: (m, q) => ({ verb: "click", target: parseTarget(m[1]!, q) }),
  },
  {
    verb: "click",
    pattern: /^(?:click|tap)$/i,
    examples: [],
    build: () => undefined,
  },
];

/**
 * Parses one ACT instruction.
 *
 * @throws {@link InterpreterError} `WF_INSTRUCTION_NOT_UNDERSTOOD` listing the understood verbs
 *   with examples, when no rule of {@link ACT_GRAMMAR} matches.
 */
export function parseInstruction(instruction: string): ParsedAction {
  const { text, quotes } = extractQuotes(normalizeInstruction(instruction));
  return parsePart(text, quotes, instruction);
}

/** Where a compound instruction splits: `, then`, `and then`, `then`, `and`, `;` or `,` before a verb. */
const SPLIT = new RegExp(
  "\\s*(?:,\\s*and\\s+then|,\\s*then|,\\s*and|\\band\\s+then|\\bthen|\\band|;|,)\\s+(?=(?:go|open|navigate|visit|click|tap|double[- ]?click|right[- ]?click|hover|type|fill|enter|input|write|clear|press|hit|select|choose|pick|set|check|uncheck|tick|untick|scroll|wait|upload|attach|reload|refresh|search)\\b)",
  "i",
);

/**
 * Parses an instruction that may chain several actions (`type "pg" into "Search" and press Enter`,
 * `click "Menu", then click "Logout"`): split before each verb that follows `and`, `then`, `,` or
 * `;` outside quotes, each part parsed with {@link parseInstruction}'s rules.
 *
 * @throws {@link InterpreterError} `WF_INSTRUCTION_NOT_UNDERSTOOD` for the first part not understood.
 */
export function parseInstructions(instruction: string): ParsedAction[] {
  const { text, quotes } = extractQuotes(normalizeInstruction(instruction));
  return text
    .split(SPLIT)
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part, _i, parts) => parsePart(part, quotes, instruction, parts.length > 1 ? part.replace(/«(\d+)»/g, (_m, n: string) => JSON.stringify(quotes[Number(n)] ?? "")) : undefined));
}

function normalizeInstruction(instruction: string): string {
  return instruction.trim().replace(/[.!;]+$/, "").replace(/\s+/g, " ");
}

function parsePart(text: string, quotes: string[], instruction: string, part?: string): ParsedAction {
  const stripped = text.replace(/^(?:please\s+|now\s+|then\s+|and\s+|finally\s+)+/i, "").trim();
  let leftover: string | undefined;
  for (const rule of ACT_GRAMMAR) {
    const match = stripped.match(rule.pattern);
    if (!match) continue;
    const action = rule.build(match, quotes);
    if (!action) continue;
    const target = "target" in action ? action.target : undefined;
    if (target?.leftover) {
      leftover ??= target.leftover;
      continue;
    }
    return action;
  }
  const where = [part ? `the part ${JSON.stringify(part)}` : "", leftover ? `did not understand ${JSON.stringify(leftover)}` : ""].filter(Boolean).join(": ");
  throw new InterpreterError(
    "WF_INSTRUCTION_NOT_UNDERSTOOD",
    `Instruction not understood: ${JSON.stringify(instruction)}${where ? ` (${where})` : ""}. ` +
      `The deterministic interpreter understands: ${describeGrammar()}. Quote targets and values ("…" or '…').`,
  );
}

/**
 * `wait until the spinner disappears`: an unquoted description names no text the page shows, and
 * waiting for the word "spinner" would be a guess; fail at once saying what would work.
 * @throws {@link InterpreterError} `WF_INSTRUCTION_NOT_UNDERSTOOD`
 */
function noCheckableText(m: RegExpMatchArray, quotes: string[]): void {
  if (/«\d+»/.test(m[1]!) || !/^wait\s+(?:for|until)\s+(?:the|a|an|some|any)\s/i.test(m[0])) return;
  const said = unquote(m[0], quotes);
  throw new InterpreterError(
    "WF_INSTRUCTION_NOT_UNDERSTOOD",
    `Instruction not understood: ${JSON.stringify(said)} names nothing the grammar can check: ${JSON.stringify(unquote(m[1]!, quotes))} is a description, not a text the page shows. ` +
      `Quote the text (\`wait until "Loading…" disappears\`, \`wait for "Saved"\`), or wait for the page to settle (\`wait for the page to load\`, \`wait for the results\`).`,
  );
}

/** One line per verb with an example or two, for messages: `click ('click "Sign in"'), …`. */
export function describeGrammar(): string {
  const byVerb = new Map<string, string[]>();
  for (const rule of ACT_GRAMMAR) {
    const list = byVerb.get(rule.verb) ?? [];
    list.push(...rule.examples);
    byVerb.set(rule.verb, list);
  }
  return [...byVerb]
    .filter(([, examples]) => examples.length > 0)
    .map(([verb, examples]) => `${verb} (${examples.slice(0, 2).map((e) => `\`${e}\``).join(", ")})`)
    .join("; ");
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

function unquote(phrase: string, quotes: string[]): string {
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
  [/options?/i, ["option"]],
  [/switch(?:es)?|toggles?/i, ["switch", "checkbox"]],
  [/images?|icons?|pictures?|logos?|img/i, ["img"]],
  [/headings?|headers?|titles?/i, ["heading"]],
  [/rows?/i, ["row"]],
  [/cells?/i, ["cell", "gridcell"]],
  [/boxe?s?/i, ["checkbox", "textbox", "searchbox", "combobox"]],
];

const ORDINALS: Record<string, number> = {
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

/** Named keys as people write them, and Playwright's names. */
const KEY_ALIASES: Record<string, string> = {
  enter: "Enter", return: "Enter", tab: "Tab", escape: "Escape", esc: "Escape", backspace: "Backspace", delete: "Delete", del: "Delete",
  space: "Space", spacebar: "Space", up: "ArrowUp", down: "ArrowDown", left: "ArrowLeft", right: "ArrowRight",
  arrowup: "ArrowUp", arrowdown: "ArrowDown", arrowleft: "ArrowLeft", arrowright: "ArrowRight",
  "arrow up": "ArrowUp", "arrow down": "ArrowDown", "arrow left": "ArrowLeft", "arrow right": "ArrowRight",
  "up arrow": "ArrowUp", "down arrow": "ArrowDown", "left arrow": "ArrowLeft", "right arrow": "ArrowRight",
  home: "Home", end: "End", pageup: "PageUp", pagedown: "PageDown", "page up": "PageUp", "page down": "PageDown", insert: "Insert",
  ctrl: "Control", control: "Control", cmd: "Meta", command: "Meta", meta: "Meta", win: "Meta", shift: "Shift", alt: "Alt", option: "Alt",
  controlormeta: "ControlOrMeta",
};

/**
 * Turns a key as written (`enter`, `ctrl+a`, `Arrow Down`) into Playwright's key name, or
 * undefined when it is not a key (then `press "Submit"` is a click).
 */
export function normalizeKey(raw: string): string | undefined {
  const parts = raw.trim().split(/\s*\+\s*/);
  const out: string[] = [];
  for (const part of parts) {
    const lower = part.toLowerCase();
    if (KEY_ALIASES[lower]) out.push(KEY_ALIASES[lower]);
    else if (/^f(?:[1-9]|1[0-2])$/i.test(part)) out.push(part.toUpperCase());
    else if (part.length === 1) out.push(part);
    else return undefined;
  }
  return out.length > 0 ? out.join("+") : undefined;
}

function unitMs(unit: string | undefined): number {
  if (!unit) return 1000;
  const u = unit.toLowerCase();
  if (u.startsWith("ms") || u.startsWith("milli")) return 1;
  if (u.startsWith("m")) return 60_000;
  return 1000;
}

/** True for what reads as a URL: a scheme, a path, `localhost`, an IP or a dotted host. */
export function looksLikeUrl(raw: string): boolean {
  if (/\s/.test(raw) || raw.length === 0) return false;
  return (
    /^[a-z][a-z0-9+.-]*:/i.test(raw) ||
    raw.startsWith("/") ||
    raw.startsWith("./") ||
    raw.startsWith("?") ||
    raw.startsWith("#") ||
    /^(?:localhost|\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?(?:[/?#]|$)/i.test(raw) ||
    /^(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?(?:[/?#]|$)/i.test(raw)
  );
}
