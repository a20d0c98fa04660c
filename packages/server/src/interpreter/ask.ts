/**
 * ASK: answers a question from what a page shows. The page is read once in the browser
 * ({@link extractPage}: title, URL, headings, labelled values, tables, repeated items, main text);
 * the answer is built here, in Node, by matching the schema's field names loosely against what
 * was read. It never guesses: a required, non-nullable field it cannot find fails the step.
 */
import { InterpreterError, type InterpreterErrorDetails } from "./errors.js";
import type { PageData } from "./_page-scripts.js";
import { contentWords, keyScore, normalizeText, normalizeWords, parseBoolean, parseNumber, similarity, words } from "./_text.js";

type JsonSchema = Record<string, unknown>;

/** Minimum {@link keyScore} for a field name to match a key, header or class name. */
const MATCH = 0.5;

/** A field-level lookup: the keyed values of a scope (the page, a table row, a card). */
interface Scope {
  /** Candidate (key, value) entries, with a weight in (0, 1] for how much the key is to be trusted. */
  entries: Array<{ key: string; value: string; weight: number; checked?: boolean; header?: string }>;
  /** For the page scope: counters (`2 items left` → "items left" = 2), looked at for number fields only. */
  counters?: Array<{ key: string; value: string; weight: number; counter: true }>;
  /** Fallbacks by field name, for the page scope: title, url, heading. */
  special?: (name: string) => string | string[] | undefined;
  /**
   * For the page scope: table rows read as labelled values (the first cell is the label), with the
   * value taken from the column that best fits `name` and the question (see {@link valueColumn}).
   */
  rows?: (name: string) => Scope["entries"];
}

/** How much a table row's first cell is trusted as a label, below a real label (`<dt>`, `<label>`, a two-column row). */
const ROW_WEIGHT = 0.85;

/**
 * Header words that say a column holds "the value" of a row, for tables where the question does
 * not name a column: "Value", "Upper Limit", "Maximum", "Amount", "Setting", "Default"…
 */
const VALUE_HEADER_WORDS = new Set(["value", "limit", "maximum", "max", "minimum", "min", "amount", "total", "result", "setting", "default", "current", "number", "count", "size", "price", "answer"]);

/**
 * The page data with every text whitespace-normalised (NBSP and runs of spaces → one space), so
 * every text an ASK returns is normalised (`document.title` keeps NBSPs; issue 3 follow-up, item 5).
 */
function normalizePage(data: PageData): PageData {
  const n = normalizeText;
  return {
    title: n(data.title),
    url: data.url,
    headings: data.headings.map((h) => ({ level: h.level, text: n(h.text) })),
    pairs: data.pairs.map((p) => ({ ...p, key: n(p.key), value: n(p.value) })),
    tables: data.tables.map((t) => ({
      caption: n(t.caption),
      context: n(t.context),
      headers: t.headers.map(n),
      rows: t.rows.map((r) => r.map(n)),
      section: (t.section ?? []).map(n),
      rowSections: (t.rowSections ?? t.rows.map(() => "")).map(n),
    })),
    counters: (data.counters ?? []).map((c) => ({ label: n(c.label), value: n(c.value) })),
    checklists: (data.checklists ?? []).map((c) => ({ context: n(c.context), items: c.items.map((it) => ({ text: n(it.text), checked: it.checked })) })),
    groups: data.groups.map((g) => ({
      context: n(g.context),
      tag: g.tag,
      items: g.items.map((it) => ({ text: n(it.text), fields: it.fields.map((f) => ({ ...f, keys: f.keys.map(n), value: n(f.value) })) })),
      section: (g.section ?? []).map(n),
    })),
    mainText: n(data.mainText),
  };
}

/**
 * The column of `table` that holds a row's value for field `name`: among the columns after the
 * first (the label column), the one whose header's words best overlap those of `name` and the
 * question ("What is the upper limit of …" → "Upper Limit"), else one whose header is a
 * value-like word ({@link VALUE_HEADER_WORDS}), else the second column.
 */
function valueColumn(table: PageData["tables"][number], name: string, question: string): number {
  const wanted = new Set([...contentWords(name), ...contentWords(question)]);
  let best = { column: 1, score: 0 };
  for (let c = 1; c < table.headers.length; c++) {
    const hw = contentWords(table.headers[c] ?? "");
    if (!hw.length) continue;
    const named = hw.filter((w) => wanted.has(w)).length / hw.length;
    const valueLike = hw.some((w) => VALUE_HEADER_WORDS.has(w)) ? 0.4 : 0;
    const score = Math.max(named, valueLike);
    if (score > best.score) best = { column: c, score };
  }
  return best.column;
}

/** Table rows of at least two cells as labelled values: the first cell is the label, the value from {@link valueColumn}. */
function tableRowEntries(data: PageData, name: string, question: string): Scope["entries"] {
  const out: Scope["entries"] = [];
  for (const table of data.tables) {
    const column = valueColumn(table, name, question);
    for (const row of table.rows) {
      const key = (row[0] ?? "").replace(/[:：]\s*$/, "");
      const value = row[column];
      if (!key || key.length > 80 || value === undefined || row.length < 2) continue;
      if (row.every((c, j) => c === table.headers[j])) continue;
      out.push({ key, value, weight: ROW_WEIGHT, header: table.headers[column] ?? "" });
    }
  }
  return out;
}

/** What `fill` returns instead of a value when required fields are not on the page: their paths. */
class Missing {
  constructor(readonly paths: string[]) {}
}

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
  const value = ctx.fill(schema, "", ctx.pageScope(), undefined, true);
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
  return data.mainText;
}

function firstHeading(data: PageData): string | undefined {
  return (data.headings.find((h) => h.level === 1) ?? data.headings[0])?.text;
}

/** The labelled value (a label, or a table row's first cell) whose whole label the question names. */
function bestPairForQuestion(data: PageData, question: string): { key: string; value: string; header?: string } | undefined {
  const entries: Scope["entries"] = [...data.pairs.map((p) => ({ key: p.key, value: p.value, weight: 1 })), ...tableRowEntries(data, question, question)];
  return entryNamedByQuestion(entries, question);
}

/**
 * The entry whose label the question names: every content word of the label (all its words when
 * it has only filler) appears in the question. The longest label wins ("columns per table" over
 * "table"); on a tie, the more trusted source (a label over a table row), then the first.
 */
function entryNamedByQuestion<E extends { key: string; weight: number }>(entries: E[], question: string): E | undefined {
  const q = new Set(words(question));
  let best: { len: number; entry: E } | undefined;
  for (const e of entries) {
    const content = contentWords(e.key);
    const kw = content.length ? content : words(e.key);
    if (kw.length === 0 || !kw.every((w) => q.has(w))) continue;
    if (!best || kw.length > best.len || (kw.length === best.len && e.weight > best.entry.weight)) best = { len: kw.length, entry: e };
  }
  return best?.entry;
}

/** Splits a nullable schema into its non-null part. */
function unwrapNullable(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  if (Array.isArray(schema.anyOf)) {
    const variants = schema.anyOf as JsonSchema[];
    const nonNull = variants.filter((v) => v.type !== "null");
    const nullable = nonNull.length < variants.length;
    if (nonNull.length === 1) {
      const inner = unwrapNullable(nonNull[0]!);
      return { schema: inner.schema, nullable: nullable || inner.nullable };
    }
    return { schema: nonNull.length ? { anyOf: nonNull } : { type: "null" }, nullable };
  }
  if (Array.isArray(schema.type)) {
    const types = (schema.type as string[]).filter((t) => t !== "null");
    const nullable = types.length < (schema.type as string[]).length;
    return { schema: { ...schema, type: types.length === 1 ? types[0] : types }, nullable };
  }
  return { schema, nullable: schema.type === "null" };
}

class Ctx {
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

  pageScope(): Scope {
    const d = this.data;
    const entries: Scope["entries"] = d.pairs.map((p) => ({
      key: p.key,
      value: p.value,
      weight: p.source === "text" || p.source === "aria" ? 0.9 : 1,
      ...(p.checked !== undefined ? { checked: p.checked } : {}),
    }));
    return {
      entries,
      counters: counterEntries(d),
      rows: (name) => tableRowEntries(d, name, this.question),
      special: (name) => {
        const w = words(name).join(" ");
        if (w === "title" || w === "page title" || w === "document title") return d.title || firstHeading(d);
        if (w === "url" || w === "page url" || w === "current url" || w === "link" || w === "href" || w === "address") return d.url;
        if (w === "heading" || w === "h1" || w === "main heading" || w === "headline" || w === "page heading") return firstHeading(d);
        if (w === "heading list" || w === "all heading") return d.headings.map((h) => h.text);
        if (w === "h2" || w === "subheading") return d.headings.filter((h) => h.level === 2).map((h) => h.text);
        return undefined;
      },
    };
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
      const arr = schemaType(items) === "object" ? this.records(items, path, name ?? this.question) : this.list(items, path, scope, name ?? this.question);
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

  /** An array of objects: the table or group of repeated items whose headers match the item's fields best. */
  records(items: JsonSchema, path: string, name: string): unknown[] | Missing {
    const props = (items.properties ?? {}) as Record<string, JsonSchema>;
    const fields = Object.keys(props);
    const required = fields.filter((f) => !unwrapNullable(this.resolve(props[f]!)).nullable);
    const qWords = new Set(topicWords(`${name} ${name === this.question ? "" : this.question}`));
    const topic = (text: string): number => overlap(qWords, topicWords(text));

    type Source = {
      score: number;
      complete: boolean;
      lost: string[];
      build: () => unknown[] | Missing;
      /** How much the question's words name this source (0: not at all). */
      topic: number;
      kind: "table" | "list";
      caption: string;
      context: string;
      /** The headings the source lies under, outermost first. */
      section: string[];
      /** Its items' words, to tell a source that only repeats another's items. */
      itemKeys: string[];
      /** True for a table cut to the rows under the section row the question names. */
      underRow?: boolean;
    };
    const sources: Source[] = [];

    for (const table of this.data.tables) {
      if (!table.headers.length || !table.rows.length) continue;
      // `under Class 08 — Connection Exception`: the rows under that section row, exactly.
      let rows = table.rows;
      let underRow = false;
      if (this.section) {
        const sections = table.rowSections ?? [];
        const hits = [...new Set(sections.filter((rs) => rs && rowSectionNamed(rs, this.section!)))];
        if (hits.length > 1) {
          throw uncertain(this.question, "section", this.section, `several section rows of a table start so (${hits.slice(0, 4).map((h) => JSON.stringify(h)).join(", ")})`);
        }
        if (hits.length === 1) {
          rows = table.rows.filter((_, i) => sections[i] === hits[0]);
          underRow = true;
        }
      }
      const assign = assignColumns(fields, table.headers);
      const lost = required.filter((f) => assign[f] === undefined);
      const matched = fields.filter((f) => assign[f] !== undefined);
      const score = matched.reduce((acc, f) => acc + assign[f]!.score, 0) / Math.max(1, fields.length) + 0.3 * Math.max(topic(table.caption), topic(table.context) * 0.7);
      sources.push({
        score,
        topic: Math.max(topic(table.caption), topic(table.context) * 0.7),
        kind: "table",
        caption: table.caption,
        context: table.context,
        section: table.section ?? [],
        itemKeys: rows.map((r) => normalizeWords(r.join(" "))),
        underRow,
        complete: lost.length === 0 && matched.length > 0,
        lost,
        build: () => {
          const out: unknown[] = [];
          const lostHere: string[] = [];
          rows.forEach((row) => {
            if (row.every((c, j) => c === table.headers[j])) return;
            const scope: Scope = {
              entries: fields.filter((f) => assign[f]).map((f) => ({ key: f, value: row[assign[f]!.column] ?? "", weight: 1 })),
            };
            const v = this.fill(items, `${path}[${out.length}]`, scope, undefined);
            if (v instanceof Missing) lostHere.push(...v.paths);
            else out.push(v);
          });
          return lostHere.length ? new Missing(lostHere) : out;
        },
      });
    }

    for (const group of this.data.groups) {
      const probe = group.items.slice(0, 20);
      let total = 0;
      const lost: string[] = [];
      for (const f of fields) {
        const hits = probe.filter((it) => itemLookup(it.fields, f) !== undefined).length / probe.length;
        total += hits;
        if (required.includes(f) && hits < 0.5) lost.push(f);
      }
      const score = total / Math.max(1, fields.length) + 0.3 * topic(group.context) - (group.items.length === 1 ? 0.1 : 0);
      sources.push({
        score: score * 0.95,
        topic: topic(group.context),
        kind: "list",
        caption: "",
        context: group.context,
        section: group.section ?? [],
        itemKeys: group.items.map((it) => normalizeWords(it.text)),
        complete: lost.length === 0 && total > 0,
        lost,
        build: () => {
          const out: unknown[] = [];
          const lostHere: string[] = [];
          for (const item of group.items) {
            const scope: Scope = { entries: item.fields.flatMap((fl) => fl.keys.map((k) => ({ key: k, value: fl.value, weight: fl.weight }))) };
            const v = this.fill(items, `${path}[${out.length}]`, scope, undefined);
            if (v instanceof Missing) lostHere.push(...v.paths);
            else out.push(v);
          }
          return lostHere.length ? new Missing(lostHere) : out;
        },
      });
    }

    let complete = sources.filter((s) => s.complete).sort((a, b) => b.score - a.score);
    // A source whose items another one holds too (one <dl> of a run of them) is that one's part.
    const within = (s: Source, o: Source) => o !== s && o.itemKeys.length > s.itemKeys.length && s.itemKeys.every((k) => o.itemKeys.includes(k));
    complete = complete.filter((s) => !complete.some((o) => within(s, o)));
    if (this.section) {
      const wanted = topicWords(this.section);
      const under = (s: Source) => [s.caption, ...s.section].some((h) => wanted.length > 0 && wanted.every((w) => topicWords(h).includes(w)));
      // A table's own section row is more exact than a heading above the table.
      const byRow = complete.filter((s) => s.underRow);
      complete = byRow.length ? byRow : complete.filter(under);
      if (!complete.length) throw uncertain(this.question, "section", this.section, "no table or list under a heading or section row of that name fits the fields");
    }
    // Several sources fit as well and the question's words pick none, or the best one's heading
    // also holds another that fits (a list cut in two by a sub-heading): which one (or all) is a guess.
    const top = complete[0];
    const ownHeading = (s: Source) => s.section[s.section.length - 1];
    const nested = (a: Source, b: Source) =>
      (ownHeading(b) !== undefined && a.section.includes(ownHeading(b)!)) || (ownHeading(a) !== undefined && b.section.includes(ownHeading(a)!));
    const adds = (s: Source) => top !== undefined && s !== top && s.itemKeys.some((k) => !top.itemKeys.includes(k));
    const rivals = complete.filter(
      (s) => s === top || (adds(s) && ((s.score >= top!.score - 0.02 && s.topic === top!.topic) || (!top!.caption && s.kind === top!.kind && nested(s, top!)))),
    );
    if (rivals.length > 1) {
      const where = rivals.slice(0, 4).map((s) => JSON.stringify(s.caption || s.context || `a ${s.kind}`)).join(", ");
      throw uncertain(
        this.question,
        "several-sources",
        this.question,
        `${rivals.length} ${rivals.every((s) => s.kind === "table") ? "tables" : "tables or lists"} fit the fields equally well (${where}) and the question does not say which one, or whether it wants them all`,
      );
    }
    for (const source of complete) {
      const built = source.build();
      if (!(built instanceof Missing)) return built;
      if (source === complete[complete.length - 1]) return built;
    }
    const best = sources.sort((a, b) => b.score - a.score)[0];
    const lost = best ? best.lost : required;
    return new Missing((lost.length ? lost : fields).map((f) => `${path || "value"}[].${f}`));
  }

  /**
   * The items of the page's one checklist (a list whose every item holds one checkbox) whose box is
   * checked (`completed`, `done`) or not (`active`, `remaining`), as their own words.
   * @throws {@link InterpreterError} `WF_ANSWER_UNCERTAIN` when the page has no checklist, or several.
   */
  checked(items: JsonSchema, path: string, state: { checked: boolean; part: string }): unknown[] | Missing {
    const lists = this.data.checklists ?? [];
    if (lists.length !== 1) {
      throw uncertain(
        this.question,
        lists.length ? "several-sources" : "filter",
        state.part,
        lists.length ? `${lists.length} lists of checkboxes fit and the question does not say which one` : "the page shows no list whose items each hold one checkbox",
      );
    }
    this.stateApplied = true;
    const out: unknown[] = [];
    for (const item of lists[0]!.items.filter((it) => it.checked === state.checked)) {
      const c = coerce(items, { value: item.text, weight: 1 });
      if (c === undefined) return new Missing([`${path || "value"}[${out.length}]`]);
      out.push(c);
    }
    return out;
  }

  /** An array of scalars: the page's headings, or a list / table column whose label matches `name`. */
  list(items: JsonSchema, path: string, scope: Scope, name: string): unknown[] | Missing {
    const state = fieldState(name) ?? this.restrictions.state;
    if (state) return this.checked(items, path, state);
    const w = words(name).join(" ");
    if (w === "heading" || w === "all heading" || w === "heading list" || w === "page heading") {
      return this.data.headings.map((h) => coerce(items, { value: h.text, weight: 1 })).filter((v) => v !== undefined);
    }
    const special = scope.special?.(name);
    if (Array.isArray(special)) return special.map((v) => coerce(items, { value: v, weight: 1 })).filter((v) => v !== undefined);
    const nameWords = new Set(topicWords(name));
    const topic = (text: string) => overlap(nameWords, topicWords(text));
    let best: { score: number; values: string[] } | undefined;
    for (const table of this.data.tables) {
      table.headers.forEach((h, col) => {
        const score = keyScore(name, h) || (h && nameWords.has(words(h).join(" ")) ? 0.7 : 0);
        if (score >= MATCH && (!best || score > best.score)) best = { score, values: table.rows.map((r) => r[col] ?? "") };
      });
    }
    for (const group of this.data.groups) {
      const score = Math.max(keyScore(name, group.context), topic(group.context));
      if (score >= MATCH && (!best || score > best.score)) best = { score, values: group.items.map((i) => i.text) };
    }
    if (!best) return new Missing([path || "value"]);
    const out: unknown[] = [];
    for (const v of best.values) {
      const c = coerce(items, { value: v, weight: 1 });
      if (c === undefined) return new Missing([`${path || "value"}[${out.length}]`]);
      out.push(c);
    }
    return out;
  }
}

/** Words that say what a table or list is about: no filler, no "table", no numbers ("Table 8.2."). */
function topicWords(text: string): string[] {
  return contentWords(text).filter((w) => w !== "table" && w !== "list" && !/^\d+$/.test(w));
}

/** Jaccard overlap of a question's words and a caption's: shared words over all words of both. */
function overlap(question: Set<string>, caption: string[]): number {
  const c = new Set(caption);
  if (!question.size || !c.size) return 0;
  const common = [...c].filter((w) => question.has(w)).length;
  return common / (question.size + c.size - common);
}

function schemaType(schema: JsonSchema): string {
  if (typeof schema.type === "string") return schema.type;
  if (Array.isArray(schema.type)) return (schema.type as string[])[0] ?? "string";
  if (schema.properties) return "object";
  if (schema.items) return "array";
  if (Array.isArray(schema.enum)) return "enum";
  if ("const" in schema) return "const";
  return "string";
}

/** Assigns each field its best-matching column (each column used once, best scores first). */
function assignColumns(fields: string[], headers: string[]): Record<string, { column: number; score: number }> {
  const pairs: Array<{ f: string; c: number; score: number }> = [];
  for (const f of fields) headers.forEach((h, c) => {
    const score = keyScore(f, h);
    if (score >= MATCH) pairs.push({ f, c, score });
  });
  pairs.sort((a, b) => b.score - a.score);
  const out: Record<string, { column: number; score: number }> = {};
  const used = new Set<number>();
  for (const p of pairs) {
    if (out[p.f] || used.has(p.c)) continue;
    out[p.f] = { column: p.c, score: p.score };
    used.add(p.c);
  }
  return out;
}

function itemLookup(fields: Array<{ keys: string[]; value: string; weight: number }>, name: string): string | undefined {
  const entries = fields.flatMap((f) => f.keys.map((key) => ({ key, value: f.value, weight: f.weight })));
  const best = bestKeyed(name, entries);
  return best === AMBIGUOUS || !best || best.score < MATCH * 0.7 ? undefined : best.entry.value;
}

const AMBIGUOUS = Symbol("ambiguous");

/**
 * The entry whose key best matches field `name` ({@link keyScore} at least {@link MATCH}, times the
 * entry's weight). When differently keyed entries with different values tie, the words their keys
 * share are set aside and the rest compared (`opblock-summary-method`, `-path`, `-description`:
 * the field `summary` is the description's); still tied, the field cannot be sourced: {@link AMBIGUOUS}.
 */
function bestKeyed<E extends { key: string; value: string; weight: number }>(name: string, entries: E[]): { score: number; entry: E } | typeof AMBIGUOUS | undefined {
  let top: Array<{ score: number; entry: E }> = [];
  for (const e of entries) {
    const raw = keyScore(name, e.key);
    if (raw < MATCH) continue;
    const score = raw * e.weight;
    if (!top.length || score > top[0]!.score + 1e-9) top = [{ score, entry: e }];
    else if (Math.abs(score - top[0]!.score) <= 1e-9) top.push({ score, entry: e });
  }
  const first = top[0];
  if (!first) return undefined;
  const rivals = top.filter((t) => t.entry.value !== first.entry.value && t.entry.key !== first.entry.key);
  if (!rivals.length) return first;
  const tied = top.filter((t) => t === first || rivals.includes(t));
  const shared = tied.map((t) => new Set(words(t.entry.key))).reduce((a, b) => new Set([...a].filter((w) => b.has(w))));
  const rest = tied.map((t) => ({ t, score: keyScore(name, words(t.entry.key).filter((w) => !shared.has(w)).join(" ")) }));
  const best = Math.max(...rest.map((r) => r.score));
  const winners = rest.filter((r) => r.score === best);
  return best > 0 && winners.length === 1 ? winners[0]!.t : AMBIGUOUS;
}

type Found = { value: string; weight: number; checked?: boolean } | { value: string[]; weight: number };

/**
 * Finds the value for field `name` in a scope. For the root wrapper (`byQuestion`), `name` is the
 * question: a key whose words all appear in the question matches.
 */
function lookup(scope: Scope, name: string, byQuestion: boolean, numeric = false): (Found & { counter?: true }) | undefined {
  const counters = numeric ? (scope.counters ?? []) : [];
  const entries: Array<Scope["entries"][number] & { counter?: true }> = [...scope.entries, ...counters, ...(scope.rows ? scope.rows(name) : [])];
  if (!byQuestion) {
    const special = scope.special?.(name);
    const best = bestKeyed(name, entries);
    // An exact label on the page beats a page-level fallback (a "Title:" row beats document.title).
    if (best === AMBIGUOUS) return special !== undefined ? ({ value: special as string, weight: 1 } as Found) : undefined;
    if (best && (best.score >= 0.9 || special === undefined)) return best.entry;
    if (special !== undefined) return { value: special as string, weight: 1 } as Found;
    return best?.entry;
  }
  const named = entryNamedByQuestion(entries, name);
  if (named) {
    checkPlaced(name, [named.key, named.header ?? ""], named.key);
    return named;
  }
  const qw = words(name);
  for (const special of ["url", "title", "h1", "heading"]) {
    if (qw.includes(special)) {
      const v = scope.special?.(special);
      if (typeof v === "string") {
        checkPlaced(name, [special, "web address", "address", "headline"], `the page's ${special}`);
        return { value: v, weight: 1 };
      }
    }
  }
  return undefined;
}

type UncertainKind = NonNullable<InterpreterErrorDetails["kind"]>;

const NUMBER_WORDS = "\\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|fifty|hundred";

/**
 * Parts of a question the reader cannot apply, tried in order: a count, a "first N", an ordinal or
 * rank, a filter. A part that lies inside a label the page shows and the question names whole
 * ("What is the first name?" with a "First name" label) is not a condition.
 */
const CONDITIONS: ReadonlyArray<[UncertainKind, RegExp]> = [
  ["count", /\bhow\s+many\b|\b(?:the\s+)?(?:number|count|total)\s+of\b/i],
  ["first-n", new RegExp(`\\b(?:first|top|last|latest|next|previous|bottom)\\s+(?:${NUMBER_WORDS})\\b`, "i")],
  [
    "ordinal",
    /\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|\d+(?:st|nd|rd|th)|latest|newest|oldest|earliest|cheapest|highest|lowest|largest|smallest|biggest|longest|shortest|most\s+(?:recent|expensive|popular|common)|least\s+(?:recent|expensive|popular|common))\b/i,
  ],
  [
    "filter",
    /\b(?:which|whose|where|that|who)\b(?:\s+[\w-]+){0,5}?\s+(?:contains?|includes?|mentions?|match(?:es)?|(?:starts?|ends?|begins?)\s+with|ha(?:ve|s)|costs?|equals?|(?:are|is|was|were)\s+(?:in|out|over|under|above|below|more|less|not|older|newer|cheaper|before|after|between))\b|\b(?:containing|including|mentioning|matching|(?:starting|beginning|ending)\s+with|(?:more|less|fewer|greater|cheaper|older|newer|longer|shorter)\s+than|at\s+(?:least|most)|(?:over|under|above|below)\s+[$€£]?\d|only|except|excluding|other\s+than|not|without|unless)\b/i,
  ],
];

/** A section the question names: `in the "Billing" section`, `under the Constants heading`. */
const SECTION = /\b(?:in|under|within|inside|from)\s+(?:the\s+)?(?:"([^"]+)"|“([^”]+)”|'([^']+)'|([\w' .-]+?))\s+(?:section|part|chapter|heading|tab|panel|dialog|sidebar|card|region|area)\b/i;
/**
 * A place the question names with `under` and no kind word: `under Class 08 — Connection Exception
 * in this table`, `under "Class 01"` (a heading, or a table's section row). Not `under $50` (a filter).
 */
const UNDER = /\bunder\s+(?:the\s+)?(?:"([^"]+)"|“([^”]+)”|'([^']+)'|(?![$€£]?\s*\d)([^,;?"“]+?))(?=\s+(?:in|of|on|from)\s+(?:this|the)\s+(?:table|page|list|document|grid)\b|\s*[,;?.!]|\s*$)/i;

/** The section a question names, as written, and the phrase that names it; undefined when none. */
function sectionOf(question: string): { name: string; phrase: RegExp } | undefined {
  for (const phrase of [SECTION, UNDER]) {
    const m = phrase.exec(question);
    const name = m ? (m[1] ?? m[2] ?? m[3] ?? m[4])?.trim() : undefined;
    if (name) return { name, phrase };
  }
  return undefined;
}

/** Text folded for comparing a section row: case, whitespace, which dash. */
function foldRow(text: string): string {
  return text.toLowerCase().replace(/[\u2010-\u2015\u2212]/g, "-").replace(/\s+/g, " ").trim();
}

/** True when a table's section row is the one `wanted` names: its whole text, or its start up to a separator (`Class 08` for "Class 08 — Connection Exception"). */
function rowSectionNamed(row: string, wanted: string): boolean {
  const r = foldRow(row);
  const w = foldRow(wanted).replace(/[\s:.]+$/, "");
  if (!w) return false;
  return r === w || r.replace(/[\s:.]+$/, "") === w || (r.startsWith(w) && /^\s*[-:(,|·•/]/.test(r.slice(w.length)));
}

/** Counters as labelled values: "2 items left" → key "items left", value "2". */
function counterEntries(data: PageData): Array<{ key: string; value: string; weight: number; counter: true }> {
  return (data.counters ?? []).map((c) => ({ key: c.label, value: c.value, weight: 1, counter: true as const }));
}

/** What a question restricts its answer to, each of which the reader must apply or refuse. */
interface Restrictions {
  /** A section (heading or section row) the question names. */
  section?: string;
  /** A count the question asks for (the words, e.g. `how many`), allowed only when the page shows a counter the question names. */
  count?: string;
  /** A checked state (`which are marked as completed` → checked; `the active items` → not checked). */
  state?: { checked: boolean; part: string };
}

/** State words and whether they mean a checked box. */
const STATE_WORDS: Record<string, boolean> = {
  completed: true, complete: true, done: true, checked: true, ticked: true, finished: true,
  active: false, unchecked: false, unticked: false, incomplete: false, pending: false, remaining: false, open: false, unfinished: false,
};
const STATE = Object.keys(STATE_WORDS).join("|");
/** `which are marked as completed`, `that are done`, `the completed items`, `active to-dos`. */
const STATE_PHRASES = [
  new RegExp(`\\b(?:which|that|who)\\b(?:\\s+[\\w-]+){0,4}?\\s+(?:are|is|were|was|have\\s+been|has\\s+been)\\s+(?:(?:marked|checked|set|ticked|flagged)\\s+(?:as\\s+)?)?(${STATE})\\b`, "i"),
  new RegExp(`\\b(${STATE})\\s+(?:items?|tasks?|to-?dos?|rows?|ones|entries|things)\\b`, "i"),
];

/** The checked state a field's own name asks for (`completed`, `doneItems`, `active`), if any. */
function fieldState(name: string): { checked: boolean; part: string } | undefined {
  const w = words(name);
  if (w.length > 2) return undefined;
  const hit = w.find((x) => x in STATE_WORDS);
  return hit && w.every((x) => x === hit || /^(?:item|task|todo|to|do|entry|row)$/.test(x)) ? { checked: STATE_WORDS[hit]!, part: name } : undefined;
}

/**
 * Checks that the reader can apply everything the question asks: no count, "first N", ordinal,
 * rank or filter (unless the words are part of a label the page shows and the question names),
 * and a named section only when a heading on the page has its words.
 * @returns the section the question names, when a heading on the page matches it.
 * @throws {@link InterpreterError} `WF_ANSWER_UNCERTAIN` naming the part it cannot apply.
 */
function checkQuestion(data: PageData, question: string): Restrictions {
  const norm = (t: string) => ` ${normalizeWords(t)} `;
  const q = norm(question);
  const labels = [
    ...data.pairs.map((p) => p.key),
    ...data.headings.map((h) => h.text),
    ...data.tables.flatMap((t) => [...t.headers, ...t.rows.map((r) => r[0] ?? "")]),
    ...data.groups.flatMap((g) => g.items.flatMap((it) => it.fields.flatMap((f) => f.keys))),
  ]
    .filter((l) => l && l.length <= 80)
    .map(norm);
  const found = sectionOf(question);
  const section = found?.name;
  const out: Restrictions = {};
  // The words that name the state are applied as a state, not read as a filter or a label.
  let rest = found ? question.replace(found.phrase, " ") : question;
  for (const re of STATE_PHRASES) {
    const m = re.exec(rest);
    if (!m) continue;
    out.state = { checked: STATE_WORDS[m[1]!.toLowerCase()]!, part: m[0].trim() };
    rest = rest.replace(m[0], " ");
    break;
  }
  const qWords = new Set(words(question));
  for (const [kind, re] of CONDITIONS) {
    const m = new RegExp(re.source, "gi");
    for (const hit of rest.matchAll(m)) {
      const part = hit[0].trim();
      const p = norm(part);
      const named = labels.filter((l) => l.trim() && q.includes(l));
      if (named.some((l) => l.includes(p))) continue;
      // "How many databases? (number of databases)": the page labels the count itself.
      if (kind === "count" && named.some((l) => / (?:number|count|total|maximum|max) /.test(l))) continue;
      // "How many items are left?": a counter the page shows ("2 items left") answers it, if a field reads it.
      if (kind === "count" && (data.counters ?? []).some((c) => contentWords(c.label).length > 0 && contentWords(c.label).every((w) => qWords.has(w)))) {
        out.count ??= part;
        continue;
      }
      throw uncertain(question, kind, part);
    }
  }
  if (!section) return out;
  const wanted = topicWords(section);
  const known =
    data.headings.some((h) => wanted.length > 0 && wanted.every((w) => topicWords(h.text).includes(w))) ||
    data.tables.some((t) => (t.rowSections ?? []).some((rs) => rs && rowSectionNamed(rs, section)));
  if (!known) throw uncertain(question, "section", section, "no heading or section row on the page has those words");
  out.section = section;
  return out;
}

/** Words of a question that say nothing about which value it wants. */
const GENERIC = new Set(
  ["value", "current", "currently", "shown", "show", "displayed", "display", "main", "text", "tell", "say", "written", "here", "find", "read", "exact", "exactly", "it", "its", "do", "does", "be", "was", "were", "can", "you", "us", "i", "my", "our", "there", "actual", "given", "stated", "listed", "please", "about", "each", "every", "one", "whole", "entire", "how", "many"].map((w) => words(w)[0]!),
);

/**
 * Fails when the question names words that the chosen label (and column) do not cover: "the search
 * summary" is not the "Search" field's value.
 * @throws {@link InterpreterError} `WF_ANSWER_UNCERTAIN` (`unplaced`).
 */
function checkPlaced(question: string, covering: string[], label: string): void {
  const have = new Set(covering.flatMap((c) => words(c)));
  // A parenthesis is an aside ("the page title (token …)"); the conditions in it were checked already.
  const said = question.replace(/\([^()]*\)/g, " ");
  const left = contentWords(said).filter((w) => !have.has(w) && !GENERIC.has(w));
  if (left.length) {
    // The words as the question wrote them (not normalised), so that the server's redaction of secrets still matches them.
    const lost = new Set(left);
    const part = said.split(/\s+/).filter((t) => words(t).some((w) => lost.has(w))).join(" ");
    throw uncertain(question, "unplaced", part, `no label on the page covers them; the closest is ${JSON.stringify(label)}`);
  }
}

const UNCERTAIN_WHAT: Record<UncertainKind, string> = {
  filter: "the question filters",
  ordinal: "the question picks by position or rank",
  count: "the question asks for a count",
  "first-n": "the question asks for only some",
  section: "the question names a section",
  unplaced: "the question asks for",
  "several-sources": "the question",
};

const UNCERTAIN_WHY: Partial<Record<UncertainKind, string>> = {
  filter: "which the grammar's reader does not apply",
  ordinal: "which the grammar's reader does not apply",
  count: "which the grammar's reader does not compute",
  "first-n": "which the grammar's reader does not cut",
};

/** The `WF_ANSWER_UNCERTAIN` error: which part of the question the reader could not apply, and what would. */
function uncertain(question: string, kind: UncertainKind, part: string, why?: string): InterpreterError {
  const said = kind === "several-sources" ? `${UNCERTAIN_WHAT[kind]}: ${why}` : `${UNCERTAIN_WHAT[kind]} (${JSON.stringify(part)}), ${why ?? UNCERTAIN_WHY[kind] ?? ""}`;
  return new InterpreterError(
    "WF_ANSWER_UNCERTAIN",
    `Cannot answer ${JSON.stringify(question)} without guessing: ${said}. A model would answer it (configure one), ` +
      `or ask for what the page labels (the whole table or list, a field by its label) and apply the rest in the workflow's code.`,
    { part, kind },
  );
}

/** Turns found text into the schema's type; undefined when it does not fit (never a guess). */
function coerce(schema: JsonSchema, found: Found): unknown {
  const type = schemaType(schema);
  const raw = found.value;
  if (Array.isArray(raw)) return type === "string" ? raw[0] : undefined;
  const text = raw.trim();
  if (Array.isArray(schema.enum)) return matchEnum(schema.enum as unknown[], text);
  switch (type) {
    case "string":
      return normalizeText(text);
    case "number": {
      const n = parseNumber(text);
      return n;
    }
    case "integer": {
      const n = parseNumber(text);
      return n !== undefined && Number.isInteger(n) ? n : undefined;
    }
    case "boolean":
      if ("checked" in found && found.checked !== undefined) return found.checked;
      return parseBoolean(text);
    case "null":
      return null;
    case "enum":
      return matchEnum(schema.enum as unknown[], text);
    case "const":
      return schema.const;
    default:
      if (Array.isArray(schema.enum)) return matchEnum(schema.enum as unknown[], text);
      return undefined;
  }
}

function matchEnum(options: unknown[], text: string): unknown {
  const exact = options.find((o) => String(o) === text);
  if (exact !== undefined) return exact;
  const norm = (s: string) => words(s).join("");
  const t = norm(text);
  const loose = options.filter((o) => norm(String(o)) === t);
  if (loose.length === 1) return loose[0];
  const contained = options.filter((o) => {
    const n = norm(String(o));
    return n.length > 0 && (t.includes(n) || n.includes(t));
  });
  if (contained.length === 1) return contained[0];
  const scored = options.map((o) => ({ o, s: similarity(String(o), text) })).sort((a, b) => b.s - a.s);
  if (scored[0] && scored[0].s >= 0.8 && (!scored[1] || scored[1].s < scored[0].s)) return scored[0].o;
  return undefined;
}
