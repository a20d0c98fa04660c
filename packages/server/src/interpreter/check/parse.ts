/**
 * The check grammar: the statement forms a check (`check("…")`) understands with no model, one
 * table ({@link CHECK_GRAMMAR}) like the ACT grammar's. Pure: no browser here; `./evaluate.ts`
 * evaluates what this parses. A statement in none of these forms goes to the model, when there is
 * one. Quoted parts and targets are read as the ACT grammar reads them (`extractQuotes`,
 * `parseTarget`), so a target is named, scoped and role-hinted the same way as in `click "…"`.
 */
import { extractQuotes, parseTarget, type ScopeSpec, type TargetSpec } from "../grammar/index.js";

/** Element kinds `there are N … ` counts, and the ARIA role each stands for. */
export const COUNT_NOUNS = {
  items: "listitem",
  rows: "row",
  links: "link",
  buttons: "button",
  headings: "heading",
  options: "option",
} as const;
export type CountNoun = keyof typeof COUNT_NOUNS;

/** A statement understood. */
export type CheckSpec =
  /** `the page shows "X"` (`negated`: `the page does not show "X"`), optionally in scopes. */
  | { form: "text"; text: string; negated: boolean; scopes?: ScopeSpec[] }
  /** `"X" is visible` / `"X" is not visible`. */
  | { form: "visible"; target: TargetSpec; negated: boolean }
  /** `the URL contains "X"` (`exact`: `the URL is "X"`). */
  | { form: "url"; text: string; exact: boolean }
  /** `the title is "X"` (`exact: false`: `the title contains "X"`). */
  | { form: "title"; text: string; exact: boolean }
  /** `the "X" checkbox is checked` / `is not checked`. */
  | { form: "checked"; target: TargetSpec; negated: boolean }
  /** `the "X" field is "Y"`; `value` `""`: `the "X" field is empty`. */
  | { form: "value"; target: TargetSpec; value: string }
  /** `"X" is enabled` / `"X" is disabled`. */
  | { form: "enabled"; target: TargetSpec; enabled: boolean }
  /** `there are N "X" rows` (items, links, buttons, headings, options); `text` `""`: any. */
  | { form: "count"; count: number; noun: CountNoun; text: string; scopes?: ScopeSpec[] };

/** One row of the check grammar: a pattern over the statement with its quoted parts as `«0»`, `«1»`… */
export interface CheckRule {
  form: CheckSpec["form"];
  pattern: RegExp;
  /** Statements this rule understands, for docs and error messages. */
  examples: string[];
  /** Builds the spec; undefined lets later rules try (and, when none does, the model). */
  build(match: RegExpMatchArray, quotes: string[]): CheckSpec | undefined;
}

/** A trailing place: ` in the "Confirm" dialog`, ` in the "Ada" row of the "Users" table`. */
const SCOPE = "(\\s+(?:in|inside|within|under)\\s+.+)?";
/** A target phrase holding a quoted name: `the "Save" button`, `"Remember me"`. */
const QUOTED_TARGET = "(.*«\\d+».*?)";
const NUMBERS: Record<string, number> = { no: 0, zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };

/** The check grammar, in the order rules are tried. */
export const CHECK_GRAMMAR: readonly CheckRule[] = [
  {
    form: "text",
    pattern: new RegExp(
      `^(?:the\\s+)?page\\s+(shows|displays|contains|has|(?:does\\s+not|doesn't|no\\s+longer)\\s+(?:show|display|contain|have)s?)\\s+(?:the\\s+text\\s+)?«(\\d+)»${SCOPE}$`,
      "i",
    ),
    examples: ['the page shows "Order placed"', 'the page does not show "Error"', 'the page shows "Saved" in the "Profile" dialog'],
    build: (m, q) => {
      const scopes = scopesOf(m[3], q);
      if (scopes === undefined) return undefined;
      return { form: "text", text: q[Number(m[2])]!, negated: /not|n't|no longer/i.test(m[1]!), ...(scopes.length ? { scopes } : {}) };
    },
  },
  {
    form: "url",
    pattern: /^the\s+(?:page(?:'s)?\s+)?(?:url|address)\s+(contains|includes|has|is|equals)\s+«(\d+)»$/i,
    examples: ['the URL contains "/orders"', 'the URL is "http://127.0.0.1:8080/done"'],
    build: (m, q) => ({ form: "url", text: q[Number(m[2])]!, exact: /^(?:is|equals)$/i.test(m[1]!) }),
  },
  {
    form: "title",
    pattern: /^the\s+(?:page(?:'s)?\s+)?title\s+(contains|includes|has|is|equals)\s+«(\d+)»$/i,
    examples: ['the title is "Orders"', 'the title contains "Order"'],
    build: (m, q) => ({ form: "title", text: q[Number(m[2])]!, exact: /^(?:is|equals)$/i.test(m[1]!) }),
  },
  {
    form: "visible",
    pattern: new RegExp(`^${QUOTED_TARGET}\\s+is\\s+(not\\s+|no\\s+longer\\s+)?(visible|shown|displayed|hidden)${SCOPE}$`, "i"),
    examples: ['"Delete" is visible', '"Loading…" is not visible', 'the "Confirm" button is visible in the "Delete order" dialog'],
    build: (m, q) => {
      const target = targetOf(m[1]!, m[4], q);
      if (!target) return undefined;
      const negated = Boolean(m[2]) !== /hidden/i.test(m[3]!);
      return { form: "visible", target, negated };
    },
  },
  {
    form: "checked",
    pattern: new RegExp(`^${QUOTED_TARGET}\\s+is\\s+(not\\s+|un)?(checked|ticked|selected)${SCOPE}$`, "i"),
    examples: ['the "Terms" checkbox is checked', 'the "Newsletter" checkbox is not checked'],
    build: (m, q) => {
      const target = targetOf(m[1]!, m[4], q);
      return target ? { form: "checked", target, negated: Boolean(m[2]) } : undefined;
    },
  },
  {
    form: "enabled",
    pattern: new RegExp(`^${QUOTED_TARGET}\\s+is\\s+(not\\s+)?(enabled|disabled)${SCOPE}$`, "i"),
    examples: ['"Pay" is enabled', 'the "Submit" button is disabled'],
    build: (m, q) => {
      const target = targetOf(m[1]!, m[4], q);
      return target ? { form: "enabled", target, enabled: /enabled/i.test(m[3]!) !== Boolean(m[2]) } : undefined;
    },
  },
  {
    form: "value",
    pattern: new RegExp(`^${QUOTED_TARGET}\\s+is\\s+empty${SCOPE}$`, "i"),
    examples: ['the "Coupon" field is empty'],
    build: (m, q) => {
      const target = targetOf(m[1]!, m[2], q);
      return target ? { form: "value", target, value: "" } : undefined;
    },
  },
  {
    form: "value",
    pattern: new RegExp(`^${QUOTED_TARGET}\\s+(?:is|equals|reads|has\\s+(?:the\\s+)?value)\\s+«(\\d+)»${SCOPE}$`, "i"),
    examples: ['the "Email" field is "ada@example.com"', 'the "Country" dropdown is "France"'],
    build: (m, q) => {
      const target = targetOf(m[1]!, m[3], q);
      return target ? { form: "value", target, value: q[Number(m[2])]! } : undefined;
    },
  },
  {
    form: "count",
    pattern: new RegExp(
      `^there\\s+(?:are|is)\\s+(?:exactly\\s+)?(\\d+|no|zero|one|two|three|four|five|six|seven|eight|nine|ten)\\s+(?:«(\\d+)»\\s+)?(items?|rows?|links?|buttons?|headings?|options?)(?:\\s+(?:named|called|labell?ed|with(?:\\s+the)?\\s+text|containing|that\\s+contains?)\\s+«(\\d+)»)?${SCOPE}$`,
      "i",
    ),
    examples: ['there are 3 "Pending" rows', 'there are 2 links in the "Ada" row', 'there is 1 "Edit" button in the "Orders" table'],
    build: (m, q) => {
      if (m[2] !== undefined && m[4] !== undefined) return undefined;
      const scopes = scopesOf(m[5], q);
      if (scopes === undefined) return undefined;
      const word = m[1]!.toLowerCase();
      const count = /^\d+$/.test(word) ? Number(word) : NUMBERS[word]!;
      const noun = (m[3]!.toLowerCase().replace(/s$/, "") + "s") as CountNoun;
      const quoted = m[2] ?? m[4];
      return { form: "count", count, noun, text: quoted !== undefined ? q[Number(quoted)]! : "", ...(scopes.length ? { scopes } : {}) };
    },
  },
];

/**
 * Parses a check statement into a grammar form.
 * @returns the form, or undefined when the statement is in none (then it is the model's).
 */
export function parseCheck(statement: string): CheckSpec | undefined {
  const normalized = statement
    .trim()
    .replace(/[.!]+$/, "")
    .replace(/\s+/g, " ")
    .replace(/^(?:check|verify|assert|expect|ensure|confirm)(?:\s+that)?\s+/i, "")
    .replace(/^that\s+/i, "");
  const { text, quotes } = extractQuotes(normalized);
  for (const rule of CHECK_GRAMMAR) {
    const match = text.match(rule.pattern);
    if (!match) continue;
    const spec = rule.build(match, quotes);
    if (spec) return spec;
  }
  return undefined;
}

/** The forms with an example each, for messages: `` `the page shows "Order placed"`, … ``. */
export function describeCheckGrammar(): string {
  return CHECK_GRAMMAR.flatMap((rule) => rule.examples.slice(0, 2))
    .map((e) => `\`${e}\``)
    .join(", ");
}

/** The element a statement names, with the trailing place added to it; undefined unless quoted and fully understood. */
function targetOf(phrase: string, scope: string | undefined, quotes: string[]): TargetSpec | undefined {
  const target = parseTarget(`${phrase}${scope ?? ""}`, quotes);
  if (!target.quoted || target.leftover || !target.text) return undefined;
  return target;
}

/** The places of a trailing ` in the "…" dialog`: `[]` for none, undefined when not understood. */
function scopesOf(scope: string | undefined, quotes: string[]): ScopeSpec[] | undefined {
  if (!scope) return [];
  const marker = "\u0000wf-scope\u0000";
  const target = parseTarget(`«${quotes.length}»${scope}`, [...quotes, marker]);
  if (target.text !== marker || target.leftover || target.roles || !target.scopes?.length) return undefined;
  return target.scopes;
}
