/**
 * ASK, reading labelled values off the page: the page data normalised, the scope of a lookup (the
 * page's labels, counters, table rows and title/URL/heading fallbacks, or one table row or list
 * item), and the match of a field name against the keys of a scope ({@link lookup}).
 */
import type { PageData, Region } from "../page/index.js";
import { contentWords, keyScore, normalizeText, words } from "../_text.js";
import { checkPlaced } from "./question.js";
import type { Found } from "./schema.js";

/** Minimum {@link keyScore} for a field name to match a key, header or class name. */
export const MATCH = 0.5;

/** A field-level lookup: the keyed values of a scope (the page, a table row, a card). */
export interface Scope {
  /** Candidate (key, value) entries, with a weight in (0, 1] for how much the key is to be trusted. */
  entries: Array<{ key: string; value: string; weight: number; checked?: boolean; header?: string; values?: string[] }>;
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
export function normalizePage(data: PageData): PageData {
  const n = normalizeText;
  return {
    title: n(data.title),
    url: data.url,
    headings: data.headings.map((h) => ({ level: h.level, text: n(h.text) })),
    pairs: data.pairs.map((p) => ({ ...p, key: n(p.key), value: n(p.value) })),
    tables: data.tables.map((t) => ({
      ...(t.region ? { region: { kind: t.region.kind, label: n(t.region.label) } } : {}),
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
      items: withEmptyLists(g.items.map((it) => ({ text: n(it.text), fields: it.fields.map((f) => ({ ...f, keys: f.keys.map(n), value: n(f.value), ...(f.values ? { values: f.values.map(n) } : {}) })) }))),
      section: (g.section ?? []).map(n),
      ...(g.region ? { region: { kind: g.region.kind, label: n(g.region.label) } } : {}),
    })),
    mainText: n(data.mainText),
    ...(data.sections ? { sections: data.sections.map((s) => ({ heading: n(s.heading), level: s.level, text: n(s.text) })) } : {}),
    ...(data.dialogs ? { dialogs: data.dialogs.map((d) => ({ kind: d.kind, label: n(d.label), text: n(d.text), ...(d.severity ? { severity: d.severity } : {}) })) } : {}),
    // A code block keeps its line breaks: it is returned as shown.
    ...(data.code ? { code: data.code.map((c) => ({ heading: n(c.heading), text: c.text })) } : {}),
    ...(data.regions ? { regions: data.regions.map((r) => ({ kind: r.kind, label: n(r.label), shown: r.shown !== false })) } : {}),
    ...(data.partial ? { partial: true as const } : {}),
  };
}

/**
 * A list's items with the fields of several texts (the chips beside a name) that some items have
 * and others lack, given to the others as empty: an item shown with no chip has no tags.
 */
function withEmptyLists(items: PageData["groups"][number]["items"]): PageData["groups"][number]["items"] {
  const lists = new Map<string, string[]>();
  for (const it of items) for (const f of it.fields) if (f.values) lists.set(f.keys.join("\u0000"), f.keys);
  if (!lists.size) return items;
  return items.map((it) => {
    const have = new Set(it.fields.filter((f) => f.values).map((f) => f.keys.join("\u0000")));
    const missing = [...lists].filter(([k]) => !have.has(k)).map(([, keys]) => ({ keys, value: "", values: [], weight: 0.9 }));
    return missing.length ? { ...it, fields: [...it.fields, ...missing] } : it;
  });
}

/** True when a pair, table or list lies in the tab panel or dialog `wanted` names (a dialog of any name when its label is empty). */
export function inRegion(region: Region | undefined, wanted: Region): boolean {
  if (!region || region.kind !== wanted.kind) return false;
  const want = contentWords(wanted.label);
  const have = contentWords(region.label);
  return want.every((w) => have.includes(w)) && (!wanted.exact || have.every((w) => want.includes(w)));
}

/** The page data cut to what lies in the region `wanted` names: its labelled values, tables and lists. */
export function regionData(data: PageData, wanted: Region | undefined): PageData {
  if (!wanted) return data;
  return {
    ...data,
    pairs: data.pairs.filter((p) => inRegion(p.region, wanted)),
    tables: data.tables.filter((t) => inRegion(t.region, wanted)),
    groups: data.groups.filter((g) => inRegion(g.region, wanted)),
    counters: [],
    checklists: [],
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

/** Counters as labelled values: "2 items left" → key "items left", value "2". */
export function counterEntries(data: PageData): Array<{ key: string; value: string; weight: number; counter: true }> {
  return (data.counters ?? []).map((c) => ({ key: c.label, value: c.value, weight: 1, counter: true as const }));
}

/** The page as a scope: its labelled values, counters, table rows (read for `question`) and title/URL/heading fallbacks. */
export function pageScope(data: PageData, question: string): Scope {
  const d = data;
  const entries: Scope["entries"] = d.pairs.map((p) => ({
    key: p.key,
    value: p.value,
    weight: p.source === "siblings" ? 0.8 : p.source === "text" || p.source === "aria" || p.source === "icon" ? 0.9 : 1,
    ...(p.checked !== undefined ? { checked: p.checked } : {}),
  }));
  return {
    entries,
    counters: counterEntries(d),
    rows: (name) => tableRowEntries(d, name, question),
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

/** The page's main heading: its first `h1`, else its first heading. */
export function firstHeading(data: PageData): string | undefined {
  return (data.headings.find((h) => h.level === 1) ?? data.headings[0])?.text;
}

/** The labelled value (a label, or a table row's first cell) whose whole label the question names. */
export function bestPairForQuestion(data: PageData, question: string): { key: string; value: string; header?: string } | undefined {
  const entries: Scope["entries"] = [...data.pairs.map((p) => ({ key: p.key, value: p.value, weight: 1 })), ...tableRowEntries(data, question, question)];
  return entryNamedByQuestion(entries, question);
}

/**
 * The entry whose label the question names: every content word of the label (all its words when
 * it has only filler) appears in the question. The longest label wins ("columns per table" over
 * "table"); on a tie, the more trusted source (a label over a table row), then the first.
 */
export function entryNamedByQuestion<E extends { key: string; weight: number }>(entries: E[], question: string): E | undefined {
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

/** Assigns each field its best-matching column (each column used once, best scores first). */
export function assignColumns(fields: string[], headers: string[]): Record<string, { column: number; score: number }> {
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

/** The value of field `name` among a list item's fields, when one matches clearly (a tie is no match). */
export function itemLookup(fields: Array<{ keys: string[]; value: string; weight: number }>, name: string): string | undefined {
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

/**
 * Finds the value for field `name` in a scope. For the root wrapper (`byQuestion`), `name` is the
 * question: a key whose words all appear in the question matches.
 */
export function lookup(scope: Scope, name: string, byQuestion: boolean, numeric = false): (Found & { counter?: true }) | undefined {
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
