/**
 * The row selection of a read recipe: the condition on one column's cells that selects exactly the
 * rows the model's answer holds, out of a table's rows (docs/decisions/0065-recipe-conditions-and-split.md).
 *
 * A condition is a guess about what the question meant, so the one the question itself names comes
 * first: a cell text it names (`Status = "Pending"` for "the pending orders"), several it names
 * (`Name in ["port", "max_connections"]`), a phrase of it every selected cell holds
 * (`Description contains "on a"`), a number of it the selected cells are over or under
 * (`Price > 10` for "products over $10"), in that order (the simplest first). Only when the
 * question names none are the rows alone asked: one text they all share and no other row has, else
 * their first (or a read) column's texts, all different and found in no other row. A condition that
 * does not select exactly those rows on the recorded page is never kept.
 */
import type { RecipeCondition } from "@wf/core/protocol";
import { contentWords, normalizeText, parseNumber } from "../_text.js";
import type { PageData } from "../page/index.js";
import { columnOf, meets } from "./read-recipe.js";

type Table = PageData["tables"][number];
type Op = "gt" | "gte" | "lt" | "lte";

/**
 * The conditions that select exactly `rows` (indices, increasing) of `table`: none for all rows,
 * else one condition (see the file comment).
 * @param keys - the columns the answer reads (their texts may name the rows by `in`).
 * @param question - the step's question; without it, only the rows alone are asked.
 * @returns undefined when no condition selects exactly those rows.
 */
export function selection(table: Table, rows: number[], keys: number[], question = ""): RecipeCondition[] | undefined {
  if (rows.length === table.rows.length) return [];
  const chosen = new Set(rows);
  const selects = (c: RecipeCondition) => table.rows.every((row, r) => meets(row[columnOf(table, c.header)] ?? "", c) === chosen.has(r));
  const columns = table.headers.map((_, c) => c).filter((c) => table.headers[c]);
  const cell = (r: number, c: number) => normalizeText(table.rows[r]![c] ?? "");
  const asked = normalizeText(question);
  const tries: Array<() => RecipeCondition | undefined> = [
    // Named by the question.
    () => first(columns, (c) => shared(rows, c, cell, (text) => names(asked, text))),
    () => first([0, ...keys], (c) => distinct(rows, c, cell, (texts) => texts.every((t) => names(asked, t)))),
    () => first(phrases(asked), (phrase) => first(columns, (c) => ({ header: table.headers[c]!, contains: phrase }))),
    () => first(columns, (c) => comparison(table, rows, c, asked, selects)),
    // From the rows alone.
    () => first(columns, (c) => shared(rows, c, cell, () => true)),
    () => first([0, ...keys], (c) => distinct(rows, c, cell, () => true)),
  ];
  const header = (c: number) => table.headers[c]!;
  function shared(rs: number[], c: number, text: (r: number, c: number) => string, ok: (t: string) => boolean): RecipeCondition | undefined {
    const t = text(rs[0]!, c);
    return t && ok(t) ? { header: header(c), equals: t } : undefined;
  }
  function distinct(rs: number[], c: number, text: (r: number, c: number) => string, ok: (ts: string[]) => boolean): RecipeCondition | undefined {
    if (!table.headers[c]) return undefined;
    const texts = rs.map((r) => text(r, c));
    return new Set(texts).size === texts.length && texts.every(Boolean) && ok(texts) ? { header: header(c), in: texts } : undefined;
  }
  for (const attempt of tries) {
    // Each try proposes candidates through `first`, which keeps the first that selects exactly.
    const found = attempt();
    if (found) return [found];
  }
  return undefined;

  function first<T>(items: T[], propose: (item: T) => RecipeCondition | undefined): RecipeCondition | undefined {
    for (const item of items) {
      const c = propose(item);
      if (c && selects(c)) return c;
    }
    return undefined;
  }
}

/** Whether the question names `text` as a whole (case aside, not inside a longer word). */
function names(question: string, text: string): boolean {
  const q = question.toLowerCase();
  const t = normalizeText(text).toLowerCase();
  if (!t) return false;
  for (let at = q.indexOf(t); at >= 0; at = q.indexOf(t, at + 1)) {
    const before = q[at - 1] ?? " ";
    const after = q[at + t.length] ?? " ";
    if (!WORD.test(before) && !WORD.test(after)) return true;
  }
  return false;
}

const WORD = /[\p{L}\p{N}_]/u;

/** Most words a `contains` phrase taken from the question has. */
const MAX_PHRASE_WORDS = 6;

/**
 * The phrases of the question a `contains` may use: the quoted ones first (any words), then its runs
 * of words that hold a word other than filler and are not a number (numbers are compared), longest first.
 */
function phrases(question: string): string[] {
  const quoted = [...question.matchAll(/["“«]([^"“”«»]+)["”»]|(?<![\p{L}\p{N}])['‘]([^'‘’]+)['’](?![\p{L}\p{N}])/gu)].map((m) => normalizeText(m[1] ?? m[2] ?? "")).filter(Boolean);
  const words = question.split(/\s+/).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")).filter(Boolean);
  const runs: string[] = [];
  for (let n = Math.min(MAX_PHRASE_WORDS, words.length); n >= 1; n--) {
    for (let i = 0; i + n <= words.length; i++) {
      const run = words.slice(i, i + n).join(" ");
      if (contentWords(run).length > 0 && parseNumber(run) === undefined) runs.push(run);
    }
  }
  return [...new Set([...quoted, ...runs])];
}

/**
 * A number comparison on column `c` whose threshold the question writes with the words that say
 * the comparison ("over", "at least", "under", "at most"…), when that operator selects exactly the
 * rows. A number with no such words ("the 2 cheapest", "top 3") is a count or a rank, not a
 * threshold, even when some operator happens to select the rows: undefined, as when the words
 * contradict the rows.
 */
function comparison(table: Table, rows: number[], c: number, question: string, selects: (c: RecipeCondition) => boolean): RecipeCondition | undefined {
  if (!rows.every((r) => parseNumber(table.rows[r]![c] ?? "") !== undefined)) return undefined;
  for (const m of question.matchAll(NUMBER)) {
    const threshold = parseNumber(m[0]);
    if (threshold === undefined) continue;
    const fits = OPS.filter((op) => selects({ header: table.headers[c]!, [op]: threshold }));
    if (fits.length === 0) continue;
    const said = wordedOp(question.slice(Math.max(0, m.index! - 30), m.index!), question.slice(m.index! + m[0].length, m.index! + m[0].length + 15));
    const op = said && fits.includes(said) ? said : undefined;
    if (op) return { header: table.headers[c]!, [op]: threshold };
  }
  return undefined;
}

const OPS: Op[] = ["gt", "gte", "lt", "lte"];

/** A number as questions write it: `10`, `$1,299.00`, `4.5%`, `-3`. */
const NUMBER = /[-+]?\p{Sc}?\d(?:[\d,.]*\d)?%?/gu;

/** The operator the words around a number name: before it ("more than", "at least", ">"…) or after it ("or more", "and up"). */
function wordedOp(before: string, after: string): Op | undefined {
  const b = before.toLowerCase();
  const a = after.toLowerCase();
  if (/(or|and) (more|over|above|higher|greater|up)\b/.test(a)) return "gte";
  if (/(or|and) (less|under|below|lower|fewer)\b/.test(a)) return "lte";
  const tail = (pattern: string) => new RegExp(`(?:^|[^\\p{L}])(?:${pattern})\\s*$`, "u").test(b);
  if (tail("at least|no less than|not less than|minimum( of)?|>=|≥")) return "gte";
  if (tail("at most|no more than|not more than|up to|maximum( of)?|<=|≤")) return "lte";
  if (tail("over|more than|greater than|higher than|larger than|bigger than|above|exceeding|exceeds|>")) return "gt";
  if (tail("under|less than|fewer than|lower than|smaller than|below|cheaper than|<")) return "lt";
  return undefined;
}
