/**
 * The ACT grammar's rules: one table of patterns ({@link ACT_GRAMMAR}), tried in order, each
 * turning a plain instruction (its quoted parts cut out as `«0»`, `«1»`…) into a
 * {@link ParsedAction}. Pure: no browser here. Documented in `packages/server/README-interpreter.md`.
 */
import { InterpreterError } from "../errors.js";
import type { TabSelector } from "../types.js";
import { parseTarget, unquote, type TargetSpec } from "./target.js";
import { looksLikeUrl, normalizeKey, tabSelector, unitMs } from "./words.js";

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
  /**
   * `set`: the grammar's `set "Name" to "Ada"` form, which sets the control to the value: a dropdown
   * gets the option, a text field the text. `select "x" in "…"` (and a model's `select`) picks an
   * option of a dropdown only.
   */
  | { verb: "select"; option: string; target: TargetSpec; set?: true }
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
  | { verb: "upload"; path: string; target: TargetSpec }
  /** Make another of the session's tabs current: by position (`-1` the last) or a text of its title or URL. */
  | { verb: "switch-tab"; tab: TabSelector }
  /** Close one of the session's tabs (`{ current: true }`: this one). */
  | { verb: "close-tab"; tab: TabSelector };

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
/** What names the list of options open on the page rather than an element: `the suggestions`, `the autocomplete`. */
const OPEN_LIST = "suggestions|suggestion\\s+list|list\\s+of\\s+(?:suggestions|options)|autocomplete(?:\\s+list)?|options|open\\s+list";
const OPEN_LIST_TARGET = new RegExp(`^(?:the\\s+)?(?:open\\s+)?(?:${OPEN_LIST})$`, "i");

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
      if (!m[1]!.startsWith("«")) oneValue(m, m[1]!, q);
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
    verb: "switch",
    // Only `switch`/`change`: `go to the "Invoice" tab` clicks a tab of the page (the click rule below).
    pattern: /^(?:switch|change)\s+(?:back\s+)?to\s+(?:the\s+)?(.+?)\s+(?:browser\s+)?(?:tab|window)$/i,
    examples: ['switch to the "Invoice" tab', "switch to the second tab", "switch to the last tab"],
    build: (m, q) => {
      const tab = tabSelector(m[1]!, q);
      return tab ? { verb: "switch-tab", tab } : undefined;
    },
  },
  {
    verb: "switch",
    pattern: /^(?:switch|change)\s+(?:back\s+)?to\s+(?:browser\s+)?(?:tab|window)\s+(?:#|number\s+)?(\d+|«\d+»)$/i,
    examples: ["switch to tab 2"],
    build: (m, q) => {
      const raw = m[1]!.startsWith("«") ? q[Number(m[1]!.slice(1, -1))]! : m[1]!;
      return /^\d+$/.test(raw) ? { verb: "switch-tab", tab: { index: Number(raw) } } : { verb: "switch-tab", tab: { text: raw } };
    },
  },
  {
    verb: "close",
    pattern: /^close\s+(?:(?:this|the\s+current|the|current)\s+)?(?:browser\s+)?(?:tab|window)$/i,
    examples: ["close this tab"],
    build: () => ({ verb: "close-tab", tab: { current: true } }),
  },
  {
    verb: "close",
    pattern: /^close\s+(?:the\s+)?(.+?)\s+(?:browser\s+)?(?:tab|window)$/i,
    examples: ['close the "Invoice" tab', "close the second tab"],
    build: (m, q) => {
      const tab = tabSelector(m[1]!, q);
      return tab ? { verb: "close-tab", tab } : undefined;
    },
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
    build: (m, q) => (OPEN_LIST_TARGET.test(m[2]!) ? undefined : { verb: "select", option: q[Number(m[1])]!, target: parseTarget(m[2]!, q) }),
  },
  {
    verb: "click",
    // `select "react-dom" from the suggestions`: an option of the list open on the page (an
    // autocomplete's suggestions), clicked; the list itself names no element to look for. Its
    // examples are listed with the click rule's (the first of a verb's rules leads its examples).
    pattern: new RegExp(
      `^(?:select|choose|pick|click)\\s+(?:on\\s+)?(?:the\\s+)?(?:option\\s+|suggestion\\s+)?${Q}(?:\\s+(?:option|suggestion))?\\s+(?:in|from|among)\\s+(?:the\\s+)?(?:open\\s+)?` +
        `(?:${OPEN_LIST})$`,
      "i",
    ),
    examples: [],
    build: (m, q) => ({ verb: "click", target: { text: q[Number(m[1])]!, roles: ["option"], roleWord: "option", quoted: true } }),
  },
  {
    verb: "select",
    pattern: new RegExp(`^(?:set|change)\\s+${TARGET}\\s+to\\s+(?:the\\s+option\\s+)?${Q}$`, "i"),
    examples: ['set "Country" to "France"'],
    // Resolved at run time: a <select> gets the option, a text field gets the text (act/verbs/select.ts).
    build: (m, q) => ({ verb: "select", option: q[Number(m[2])]!, target: parseTarget(m[1]!, q), set: true }),
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
    build: (m, q) => {
      oneValue(m, m[2]!, q);
      return { verb: "fill", text: unquote(m[2]!, q).trim(), target: parseTarget(m[1]!, q), typed: false };
    },
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
    examples: ['click "Sign in"', 'click the "Save" button', 'click link "Docs"', 'click the second "Edit" button', 'select "react-dom" from the suggestions', 'pick "Lisbon" from the autocomplete'],
    build: (m, q) => {
      const target = parseTarget(m[1]!, q);
      // `submit the form` names no element: which button submits it would be a guess. `submit "Send"` names one.
      if (/^submit\b/i.test(m[0]) && !target.quoted) return undefined;
      return { verb: "click", target };
    },
  },
  {
    verb: "click",
    pattern: /^(?:click|tap)$/i,
    examples: [],
    build: () => undefined,
  },
];

/**
 * An unquoted value runs to the end of its instruction: one that says `then` (`with Ada and then
 * submit`, `with Ada, then Bob`) or holds a `;` reads as several actions, and typing it as one text
 * would be a guess. Fail at once saying how to quote it.
 * @throws {@link InterpreterError} `WF_INSTRUCTION_NOT_UNDERSTOOD`
 */
function oneValue(m: RegExpMatchArray, value: string, quotes: string[]): void {
  if (!/(?:^|[\s,])then\b|;/i.test(value)) return;
  const said = unquote(m[0], quotes);
  const text = unquote(value, quotes).trim();
  throw new InterpreterError(
    "WF_INSTRUCTION_NOT_UNDERSTOOD",
    `Instruction not understood: in ${JSON.stringify(said)}, the unquoted value ${JSON.stringify(text)} reads as several actions. ` +
      `Quote the value if it is one text (\`… with "${text}"\`), or write each action with its own verb (\`fill "…" with "…", then click "…"\`).`,
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
