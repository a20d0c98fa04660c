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
import { bestPairForQuestion, counterEntries, entryNamedByQuestion, firstHeading, lookup, normalizePage, pageScope, type Scope } from "./labelled.js";
import { checkPlaced, checkQuestion, uncertain, type Restrictions } from "./question.js";
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
  const page = normalizePage(data);
  const restrictions = checkQuestion(page, question);
  const ctx = new Ctx(schema, page, question, restrictions);
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

/**
 * Answers a question without a schema, as a string: the labelled value whose whole label the
 * question names, else the page title, URL or main heading when the question asks for one, else
 * the page's main text (`main`, `[role=main]`, `article`, else `body`; at most 20,000 characters).
 */
export function answerTextFromPage(raw: PageData, question: string): string {
  const data = normalizePage(raw);
  const restrictions = checkQuestion(data, question);
  if (restrictions.section) throw uncertain(question, "section", restrictions.section, "labelled values are not read per section");
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
  needFull(data, "the answer is the page's main text, which a partial read leaves out");
  return data.mainText;
}

/** The answer being built: the schema, the page, the question, and which of its restrictions were applied. */
class Ctx implements Filling {
  constructor(
    readonly root: JsonSchema,
    readonly data: PageData,
    readonly question: string,
    /** What the question restricts the answer to; each must be applied, or the answer is refused. */
    readonly restrictions: Restrictions = {},
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
    const found = lookup(scope, name, name === this.question, numeric);
    if (found === undefined) return missing();
    const value = coerce(schema, found);
    if (value !== undefined && "counter" in found) this.countRead = true;
    return value === undefined ? missing() : value;
  }
}
