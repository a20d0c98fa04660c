/**
 * ASK: answers a question from what a page shows. The page is read once in the browser
 * ({@link extractPage}: title, URL, headings, labelled values, tables, repeated items, main text);
 * the answer is built here, in Node, by matching the schema's field names loosely against what
 * was read. It never guesses: a required, non-nullable field it cannot find fails the step.
 *
 * The parts, by concern: reading the question (`question.ts`), labelled values off the page
 * (`labelled.ts`), tables, lists and checklists as arrays (`lists.ts`), and the answer's
 * schema and types (`schema.ts`).
 */
import { InterpreterError } from "../errors.js";
import type { PageData } from "../page/index.js";
import { words } from "../_text.js";
import { readList, readRecords, type Filling } from "./lists.js";
import { bestPairForQuestion, counterEntries, entryNamedByQuestion, firstHeading, inRegion, lookup, normalizePage, pageScope, regionData, type Scope } from "./labelled.js";
import { codeAnswer, messageAnswer } from "./messages.js";
import { checkPlaced, checkQuestion, uncertain, withoutRegion, type Restrictions } from "./question.js";
import { needFull } from "./page-read.js";
import { coerce, Missing, schemaType, unwrapNullable, type JsonSchema } from "./schema.js";

/**
 * Builds the answer to a schema-shaped question from a page's data.
 *
 * @param schema - the strict JSON Schema (`$defs`/`$ref`, nullable as `anyOf [X, {type:null}]` or `type: [X, "null"]`).
 * @throws {@link InterpreterError} `WF_ANSWER_NOT_FOUND` naming every required, non-nullable field not
 *   found; `WF_ANSWER_UNCERTAIN` when the question adds a part the reader cannot apply (see {@link checkQuestion}).
 */
export function answerFromPage(data: PageData, question: string, schema: JsonSchema): unknown {
  const whole = normalizePage(data);
  const restrictions = checkQuestion(whole, question);
  // A question about a tab panel or dialog reads only what lies in it.
  const page = regionData(whole, restrictions.region);
  const ctx = new Ctx(schema, page, question, restrictions, whole);
  const value = ctx.fill(schema, "", pageScope(page, question), undefined, true);
  ctx.checkApplied();
  if (value instanceof Missing) {
    const fields = [...new Set(value.paths)];
    throw new InterpreterError(
      "WF_ANSWER_NOT_FOUND",
      `The page does not show ${fields.map((f) => JSON.stringify(f)).join(", ")} for ${JSON.stringify(question)}. ` +
        `Make the field nullable if it may be absent, name it as the page does (a label, header or class), or go to the page that shows it first.`,
      { fields },
    );
  }
  return value;
}

/** A question for the page's whole text: `the page text`, `the text of the page`, `everything on the page`, `the main text`, `what does the page say`. */
const PAGE_TEXT =
  /\b(?:what\s+(?:does|do)\s+(?:the|this)\s+page\s+say|what\s+(?:the|this)\s+page\s+says|what(?:'s|’s|\s+is)\s+on\s+(?:the|this)\s+page|page(?:'s|’s)?\s+(?:text|content|contents|body)|(?:text|content|contents)\s+(?:of|on)\s+(?:the|this)\s+page|(?:whole|entire|full)\s+page|everything\s+(?:on|in)\s+(?:the|this)\s+page|main\s+text|all\s+(?:the\s+)?text)\b/i;
/** A question for an open dialog or alert. */
const DIALOG = /\b(?:dialog|modal|pop-?up|alert|alertdialog|lightbox)\b/i;
/** Words that ask for a section or dialog as a whole, beside its name: `the text of the "Returns" section`. */
const WHOLE = new Set(
  ["the", "a", "an", "s", "of", "in", "under", "within", "inside", "from", "on", "this", "that", "what", "does", "do", "is", "it", "say", "says", "said", "read", "text", "content", "contents", "section", "part", "chapter", "heading", "paragraph", "paragraphs", "body", "word", "words", "written", "there", "all", "whole", "entire", "full", "shown", "show", "shows", "message", "dialog", "modal", "popup", "pop", "up", "alert", "box", "window", "open", "opened", "current"].flatMap((w) => words(w)),
);

/** True when `question`, less the words of `name`, asks for nothing but the thing as a whole. */
function asksForWhole(question: string, name: string): boolean {
  const named = new Set(words(name));
  return words(question).every((w) => named.has(w) || WHOLE.has(w));
}

/** The section whose heading the question names (whole, as words), the longest such heading; undefined when none. */
function sectionNamed(data: PageData, question: string, only?: string): { heading: string; text: string } | undefined {
  const q = ` ${words(only ?? question).join(" ")} `;
  let best: { heading: string; text: string; size: number } | undefined;
  for (const s of data.sections ?? []) {
    const h = words(s.heading).join(" ");
    if (!h || !q.includes(` ${h} `) || (only !== undefined && h !== q.trim())) continue;
    if (!best || h.length > best.size) best = { heading: s.heading, text: s.text, size: h.length };
  }
  return best;
}

/**
 * Answers a question without a schema, as a string, from what the question names and nothing
 * else: the page's main text when asked for it (`the page text`: `main`, `[role=main]`, `article`,
 * else `body`; at most 20,000 characters); the labelled value whose whole label the question names;
 * the page title, URL or main heading when the question asks for one; an open dialog's (or
 * alert's) text; a heading's section (`the "Returns" section`, `the Returns policy` under a
 * heading "Returns policy"). Never the whole page for a question that names something else.
 * @throws {@link InterpreterError} `WF_ANSWER_NOT_FOUND` when the page shows nothing the question
 *   names; `WF_ANSWER_UNCERTAIN` for a part the reader cannot apply (see {@link checkQuestion}).
 */
export function answerTextFromPage(raw: PageData, question: string): string {
  const whole = normalizePage(raw);
  const restrictions = checkQuestion(whole, question);
  if (restrictions.region) {
    // `the email in the dialog`: a label inside that tab panel or dialog, nothing else.
    const pair = bestPairForQuestion(regionData(whole, restrictions.region), withoutRegion(question));
    if (pair) {
      checkPlaced(withoutRegion(question), [pair.key, pair.header ?? ""], pair.key);
      return pair.value;
    }
    // `the text in the dialog`: the open dialog as a whole, when one fits.
    const region = restrictions.region;
    if (region.kind === "dialog" && asksForWhole(question, region.label)) {
      const open = (whole.dialogs ?? []).filter((d) => d.kind === "dialog" && inRegion({ kind: "dialog", label: d.label }, region));
      if (open.length === 1) return open[0]!.text;
    }
    throw uncertain(question, "section", restrictions.region.label || restrictions.region.kind, `no label in that ${restrictions.region.kind} names what it asks`);
  }
  const data = whole;
  if (PAGE_TEXT.test(question) && !restrictions.section && !restrictions.count) {
    needFull(data, "the answer is the page's main text, which a partial read leaves out");
    return data.mainText;
  }
  if (restrictions.section) {
    // `the text of the "Returns" section`: that section as a whole; anything more specific in it is not read per section.
    needFull(data, "sections are read in full only");
    const section = asksForWhole(question, restrictions.section) ? sectionNamed(data, question, restrictions.section) : undefined;
    if (section) return section.text;
    throw uncertain(question, "section", restrictions.section, "labelled values are not read per section");
  }
  if (restrictions.state) throw uncertain(question, "filter", restrictions.state.part, "a list of checked items is read only for a schema that asks for a list");
  const q = words(question);
  const has = (w: string) => q.includes(w);
  if (restrictions.count) {
    // "How many items are left?": the counter the page shows, or nothing.
    const counter = entryNamedByQuestion(counterEntries(data), question);
    if (!counter) throw uncertain(question, "count", restrictions.count);
    return counter.value;
  }
  // A label the page shows, named whole in the question, comes first ("the shipping address").
  const pair = bestPairForQuestion(data, question);
  if (pair) {
    checkPlaced(question, [pair.key, pair.header ?? ""], pair.key);
    return pair.value;
  }
  const code = codeAnswer(data, question);
  if (code !== undefined) return code;
  const message = messageAnswer(data, question);
  if (message !== undefined) return message;
  if (has("url") || /\b(?:web|page)\s+address\b|\baddress of (?:the|this) page\b/i.test(question)) {
    checkPlaced(question, ["url", "web address", "address"], "the page's URL");
    return data.url;
  }
  if (has("title")) {
    checkPlaced(question, ["title"], "the page's title");
    return data.title || firstHeading(data) || "";
  }
  if (has("heading") || has("h1") || has("headline")) {
    checkPlaced(question, ["heading", "h1", "headline"], "the page's heading");
    if (/headings/i.test(question)) return data.headings.map((h) => h.text).join("\n");
    return firstHeading(data) ?? data.title;
  }
  needFull(data, "sections and dialogs are read in full only");
  if (DIALOG.test(question)) {
    const open = data.dialogs ?? [];
    const named = open.filter((d) => d.label && words(d.label).length && asksForWhole(question, d.label) && ` ${words(question).join(" ")} `.includes(` ${words(d.label).join(" ")} `));
    const one = named.length === 1 ? named[0] : open.length === 1 && asksForWhole(question, "") ? open[0] : undefined;
    if (one) return one.text;
    if (open.length > 1 && asksForWhole(question, "")) {
      throw uncertain(question, "several-sources", "", `${open.length} dialogs or alerts are open (${open.map((d) => JSON.stringify(d.label || d.kind)).join(", ")}); name the one you mean by its title`);
    }
  }
  const section = sectionNamed(data, question);
  if (section && asksForWhole(question, section.heading)) return section.text;
  const shown = [
    ...(data.dialogs ?? []).map((d) => `${d.kind} ${JSON.stringify(d.label || "(untitled)")}`),
    ...(data.sections ?? []).slice(0, 8).map((s) => `section ${JSON.stringify(s.heading)}`),
  ];
  throw new InterpreterError(
    "WF_ANSWER_NOT_FOUND",
    `The page shows nothing ${JSON.stringify(question)} names: no label, heading's section or dialog of that name${shown.length ? ` (it shows ${shown.join(", ")})` : ""}. ` +
      `Ask for a value by its label as the page writes it, a section by its heading (\`the "…" section\`), the open dialog (\`the dialog's text\`), ` +
      `or the whole text (\`the page text\`) and check it with an assertion that can fail; or ask with a schema.`,
    { fields: ["(root)"] },
  );
}

/** The answer being built: the schema, the page, the question, and which of its restrictions were applied. */
class Ctx implements Filling {
  constructor(
    readonly root: JsonSchema,
    readonly data: PageData,
    readonly question: string,
    /** What the question restricts the answer to; each must be applied, or the answer is refused. */
    readonly restrictions: Restrictions = {},
    /** The whole page, when `data` is cut to a region: alerts and code blocks are read from it. */
    readonly whole: PageData = data,
  ) {}

  /** A section the question names (`in the "Billing" section`, `under Class 08`): only sources under it qualify. */
  get section(): string | undefined {
    return this.restrictions.section;
  }
  /** Set once a value was read off a counter (the count the question asks for). */
  countRead = false;
  /** Set once the checked state the question names was applied to a checklist. */
  stateApplied = false;

  /**
   * Refuses an answer that left out a restriction the question made: a count no counter answered,
   * a checked state no checklist was filtered by.
   * @throws {@link InterpreterError} `WF_ANSWER_UNCERTAIN`
   */
  checkApplied(): void {
    if (this.restrictions.count && !this.countRead) throw uncertain(this.question, "count", this.restrictions.count);
    if (this.restrictions.state && !this.stateApplied) {
      throw uncertain(this.question, "filter", this.restrictions.state.part, "the grammar's reader applies a checked state only to a list of items that each hold one checkbox");
    }
  }

  /** `schema` with its `$ref` (`#`, `#/$defs/…`, `#/definitions/…`) followed, its own keywords kept over the target's; at most 32 deep. */
  resolve(schema: JsonSchema, depth = 0): JsonSchema {
    const ref = schema.$ref;
    if (typeof ref !== "string" || depth > 32) return schema;
    if (ref === "#") return this.resolve(this.root, depth + 1);
    const m = ref.match(/^#\/(\$defs|definitions)\/(.+)$/);
    const defs = m ? (this.root[m[1]!] as Record<string, JsonSchema> | undefined) : undefined;
    const target = m && defs ? defs[decodeURIComponent(m[2]!).replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
    if (!target) return schema;
    const { $ref: _ignored, ...rest } = schema;
    return this.resolve({ ...target, ...rest }, depth + 1);
  }

  /**
   * Fills `schema` at `path` from `scope`. `name` is the field name used for lookups (the
   * question for the root wrapper). Returns the value or a {@link Missing} with the paths not found.
   */
  fill(schemaIn: JsonSchema, path: string, scope: Scope, name: string | undefined, isRoot = false): unknown {
    const { schema: s, nullable } = unwrapNullable(this.resolve(schemaIn));
    const schema = this.resolve(s);
    const type = schemaType(schema);
    const missing = () => (nullable ? null : new Missing([path || "(root)"]));

    if (type === "object") {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const keys = Object.keys(props);
      // Non-object answers arrive wrapped as `{ value: … }`: the question names what `value` is.
      const wrapped = isRoot && keys.length === 1 && keys[0] === "value";
      const out: Record<string, unknown> = {};
      const lost: string[] = [];
      for (const key of keys) {
        const childPath = path ? `${path}.${key}` : key;
        const v = this.fill(props[key]!, wrapped ? path : childPath, scope, wrapped ? this.question : key);
        if (v instanceof Missing) lost.push(...v.paths.map((p) => (wrapped && p === "(root)" ? "value" : p)));
        else out[key] = v;
      }
      if (lost.length) return nullable && lost.length === keys.length ? null : new Missing(lost);
      return out;
    }

    if (type === "array") {
      const items = this.resolve(unwrapNullable(this.resolve((schema.items ?? {}) as JsonSchema)).schema);
      const arr = schemaType(items) === "object" ? readRecords(this, items, path, name ?? this.question) : readList(this, items, path, scope, name ?? this.question);
      if (arr instanceof Missing) return nullable ? null : arr;
      return arr;
    }

    if (!name) return missing();
    if (this.section && scope.special) throw uncertain(this.question, "section", this.section, "labelled values are not read per section");
    const numeric = type === "number" || type === "integer";
    const byQuestion = name === this.question;
    const found = lookup(scope, byQuestion ? withoutRegion(name) : name, byQuestion, numeric);
    if (found === undefined) {
      // The question as a whole may name an alert or a heading's code block (`the error message`, `the usage code`).
      const text = byQuestion && !this.restrictions.region && type === "string" ? (codeAnswer(this.whole, name) ?? messageAnswer(this.whole, name)) : undefined;
      return text === undefined ? missing() : text;
    }
    const value = coerce(schema, found);
    if (value !== undefined && "counter" in found) this.countRead = true;
    return value === undefined ? missing() : value;
  }
}
