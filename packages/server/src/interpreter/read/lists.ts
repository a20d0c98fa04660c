/**
 * ASK, reading arrays: a list of records from the one table or list of repeated items whose
 * headers fit the item's fields (refusing when several fit as well and the question picks none),
 * the checked or unchecked items of the page's checklist, and a list of scalars (a table column,
 * a list, the headings).
 */
import type { PageData } from "../page/index.js";
import { keyScore, normalizeWords, words } from "../_text.js";
import { assignColumns, itemLookup, MATCH, type Scope } from "./labelled.js";
import { fieldState, overlap, rowSectionNamed, topicWords, uncertain, type Restrictions } from "./question.js";
import { needFull } from "./page-read.js";
import { coerce, Missing, schemaType, unwrapNullable, type JsonSchema } from "./schema.js";

/** What the array readers need of the answer being built (`answer.ts`'s filler): the page, the question, and the filler itself for each item. */
export interface Filling {
  readonly root: JsonSchema;
  readonly data: PageData;
  readonly question: string;
  /** What the question restricts the answer to; each must be applied, or the answer is refused. */
  readonly restrictions: Restrictions;
  /** The section the question names, if any. */
  readonly section: string | undefined;
  /** Set once the checked state the question names was applied to a checklist. */
  stateApplied: boolean;
  /** `schema` with its `$ref` followed. */
  resolve(schema: JsonSchema): JsonSchema;
  /** Fills `schema` at `path` from `scope`: the value, or a {@link Missing} with the paths not found. */
  fill(schema: JsonSchema, path: string, scope: Scope, name: string | undefined): unknown;
}

/**
 * The most a list of repeated items can score as a source of records ({@link readRecords}): every
 * field found in every item, times the list's weight (0.95), plus its topic bonus.
 */
function listScoreBound(topic: number, itemCount: number): number {
  return 0.95 * (1 + 0.3 * topic - (itemCount === 1 ? 0.1 : 0));
}

/**
 * An array of objects: the table or group of repeated items whose headers match the item's fields best.
 *
 * On a partial read (no fields of repeated items: {@link PageData.partial}) only tables are scored,
 * and the answer stands only where no list could change it: the best table scores above what any
 * list could (see {@link listScoreBound}), no list repeats all of a fitting table's rows, the
 * question names no section, and the best table holds every row's fields. Otherwise
 * `NeedsFullRead` is thrown (`page-read.ts`).
 */
export function readRecords(ctx: Filling, items: JsonSchema, path: string, name: string): unknown[] | Missing {
  const props = (items.properties ?? {}) as Record<string, JsonSchema>;
  const fields = Object.keys(props);
  const required = fields.filter((f) => !unwrapNullable(ctx.resolve(props[f]!)).nullable);
  const qWords = new Set(topicWords(`${name} ${name === ctx.question ? "" : ctx.question}`));
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
  const partial = ctx.data.partial === true;
  if (ctx.section) needFull(ctx.data, "the question names a section, which a list may lie under");

  for (const table of ctx.data.tables) {
    if (!table.headers.length || !table.rows.length) continue;
    // `under Class 08 — Connection Exception`: the rows under that section row, exactly.
    let rows = table.rows;
    let underRow = false;
    if (ctx.section) {
      const sections = table.rowSections ?? [];
      const hits = [...new Set(sections.filter((rs) => rs && rowSectionNamed(rs, ctx.section!)))];
      if (hits.length > 1) {
        throw uncertain(ctx.question, "section", ctx.section, `several section rows of a table start so (${hits.slice(0, 4).map((h) => JSON.stringify(h)).join(", ")})`);
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
          const v = ctx.fill(items, `${path}[${out.length}]`, scope, undefined);
          if (v instanceof Missing) lostHere.push(...v.paths);
          else out.push(v);
        });
        return lostHere.length ? new Missing(lostHere) : out;
      },
    });
  }

  for (const group of partial ? [] : ctx.data.groups) {
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
          const scope: Scope = { entries: item.fields.flatMap((fl) => fl.keys.map((k) => ({ key: k, value: fl.value, weight: fl.weight, ...(fl.values ? { values: fl.values } : {}) }))) };
          const v = ctx.fill(items, `${path}[${out.length}]`, scope, undefined);
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
  if (partial) {
    // The lists were not scored: none may hold a fitting table's rows (it would take the table's place).
    for (const group of ctx.data.groups) {
      const keys = group.items.map((it) => normalizeWords(it.text));
      if (complete.some((t) => keys.length > t.itemKeys.length && t.itemKeys.every((k) => keys.includes(k)))) needFull(ctx.data, "a list repeats a fitting table's rows");
    }
  }
  complete = complete.filter((s) => !complete.some((o) => within(s, o)));
  if (partial) {
    // Nor score near the best table (it would come first, or be its rival).
    const best = complete[0];
    if (!best) needFull(ctx.data, "no table fits the fields; a list may");
    for (const group of ctx.data.groups) {
      if (listScoreBound(topic(group.context), group.items.length) >= best!.score - 0.02 - 1e-9) needFull(ctx.data, "a list may fit as well as the best table");
    }
  }
  if (ctx.section) {
    const wanted = topicWords(ctx.section);
    const under = (s: Source) => [s.caption, ...s.section].some((h) => wanted.length > 0 && wanted.every((w) => topicWords(h).includes(w)));
    // A table's own section row is more exact than a heading above the table.
    const byRow = complete.filter((s) => s.underRow);
    complete = byRow.length ? byRow : complete.filter(under);
    if (!complete.length) throw uncertain(ctx.question, "section", ctx.section, "no table or list under a heading or section row of that name fits the fields");
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
      ctx.question,
      "several-sources",
      ctx.question,
      `${rivals.length} ${rivals.every((s) => s.kind === "table") ? "tables" : "tables or lists"} fit the fields equally well (${where}) and the question does not say which one, or whether it wants them all`,
    );
  }
  for (const source of complete) {
    const built = source.build();
    if (!(built instanceof Missing)) return built;
    needFull(ctx.data, "the best table misses fields in some rows; a list may hold them");
    if (source === complete[complete.length - 1]) return built;
  }
  needFull(ctx.data, "no table fits the fields; a list may");
  const best = sources.sort((a, b) => b.score - a.score)[0];
  const lost = best ? best.lost : required;
  return new Missing((lost.length ? lost : fields).map((f) => `${path || "value"}[].${f}`));
}

/**
 * The items of the page's one checklist (a list whose every item holds one checkbox) whose box is
 * checked (`completed`, `done`) or not (`active`, `remaining`), as their own words.
 * @throws {@link InterpreterError} `WF_ANSWER_UNCERTAIN` when the page has no checklist, or several.
 */
export function readChecked(ctx: Filling, items: JsonSchema, path: string, state: { checked: boolean; part: string }): unknown[] | Missing {
  const lists = ctx.data.checklists ?? [];
  if (lists.length !== 1) {
    throw uncertain(
      ctx.question,
      lists.length ? "several-sources" : "filter",
      state.part,
      lists.length ? `${lists.length} lists of checkboxes fit and the question does not say which one` : "the page shows no list whose items each hold one checkbox",
    );
  }
  ctx.stateApplied = true;
  const out: unknown[] = [];
  for (const item of lists[0]!.items.filter((it) => it.checked === state.checked)) {
    const c = coerce(items, { value: item.text, weight: 1 });
    if (c === undefined) return new Missing([`${path || "value"}[${out.length}]`]);
    out.push(c);
  }
  return out;
}

/** The texts of the item's field of several texts whose key matches `name` best (a tie is no match). */
function bestValues(scope: Scope, name: string): string[] | undefined {
  let best: { score: number; values: string[] } | undefined;
  let tie = false;
  for (const e of scope.entries) {
    if (!e.values) continue;
    const score = keyScore(name, e.key) * e.weight;
    if (score < MATCH * 0.7) continue;
    if (!best || score > best.score) [best, tie] = [{ score, values: e.values }, false];
    else if (score === best.score && e.values.join("\u0000") !== best.values.join("\u0000")) tie = true;
  }
  return tie ? undefined : best?.values;
}

/** An array of scalars: the page's headings, or a list / table column whose label matches `name`. */
export function readList(ctx: Filling, items: JsonSchema, path: string, scope: Scope, name: string): unknown[] | Missing {
  const state = fieldState(name) ?? ctx.restrictions.state;
  if (state) return readChecked(ctx, items, path, state);
  const w = words(name).join(" ");
  if (w === "heading" || w === "all heading" || w === "heading list" || w === "page heading") {
    return ctx.data.headings.map((h) => coerce(items, { value: h.text, weight: 1 })).filter((v) => v !== undefined);
  }
  // In a list item: the texts of a field of several (the chips beside a name), when its key names the field.
  const several = scope.special ? undefined : bestValues(scope, name);
  if (several) return several.map((v) => coerce(items, { value: v, weight: 1 })).filter((v) => v !== undefined);
  const special = scope.special?.(name);
  if (Array.isArray(special)) return special.map((v) => coerce(items, { value: v, weight: 1 })).filter((v) => v !== undefined);
  const nameWords = new Set(topicWords(name));
  const topic = (text: string) => overlap(nameWords, topicWords(text));
  let best: { score: number; values: string[] } | undefined;
  for (const table of ctx.data.tables) {
    table.headers.forEach((h, col) => {
      const score = keyScore(name, h) || (h && nameWords.has(words(h).join(" ")) ? 0.7 : 0);
      if (score >= MATCH && (!best || score > best.score)) best = { score, values: table.rows.map((r) => r[col] ?? "") };
    });
  }
  for (const group of ctx.data.groups) {
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
