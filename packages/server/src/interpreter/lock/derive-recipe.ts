/**
 * Deriving a read recipe from a model's grounded ASK answer, and the rule that keeps it: the recipe
 * is run on the same page read and kept only when it reproduces the answer exactly
 * (docs/decisions/0056-read-recipes.md). Otherwise no recipe is recorded and the reason is said
 * (`noRecipe`), so the step goes to the model on every run.
 *
 * The shapes derived: a scalar by its label (a labelled value, or one cell of a table row named by
 * its first cell); an array of objects as a table's rows, each property a column by header, with
 * the rows the answer holds selected by a condition on one column's text (`equals`, else `in`)
 * when they are not all of them; an array of texts or numbers as one column, or as a list's items.
 * An answer with a count, a sum or a yes/no the model judged, a value the page does not state
 * (`null`), a choice (enum) or a boolean gets no recipe.
 */
import { isDeepStrictEqual } from "node:util";
import type { Page } from "playwright-core";
import type { ReadRecipe, RecipeCondition, RecipePart, RecipeTransform } from "@wf/core/protocol";
import { TIMED_OUT, within, type StepClock } from "../_clock.js";
import { normalizeText, parseNumber, similarity } from "../_text.js";
import type { PageData } from "../page/index.js";
import { normalizePage, readPage } from "../read/index.js";
import type { GroundedValue } from "../types.js";
import { selection } from "./derive-selection.js";
import { captionOf, columnOf, elementsFor, labelKey, listsFor, runRecipe, splitText, tablesFor, RecipeStale } from "./read-recipe.js";

type Json = Record<string, unknown>;
type Table = PageData["tables"][number];

/** A recipe kept, or why none was. */
export type DerivedRecipe = { recipe: ReadRecipe } | { noRecipe: string };

/** Thrown inside the derivation: why no recipe. */
class NoRecipe extends Error {}

/**
 * Reads the page once more and derives the recipe of a model's answer (see the file comment).
 * Never throws for the step: a page that cannot be read again is a `noRecipe`.
 */
export async function recordReadRecipe(page: Page, answer: unknown, schema: Json, grounding: readonly GroundedValue[], clock: StepClock, question = ""): Promise<DerivedRecipe> {
  // The answer is the step's: the recipe's check never makes it late. It gets what the step has left, less a margin, at most RECIPE_READ_MS.
  const budgetMs = Math.min(RECIPE_READ_MS, clock.left() - RECIPE_MARGIN_MS);
  if (budgetMs < MIN_RECIPE_READ_MS) return { noRecipe: "the step had no time left to read the page again and check a recipe" };
  let data: PageData | typeof TIMED_OUT;
  try {
    data = await within(readPage(page), budgetMs);
  } catch (error) {
    return { noRecipe: `the page could not be read again to check a recipe (${(error as Error).message.split("\n")[0]})` };
  }
  if (data === TIMED_OUT) return { noRecipe: `reading the page again to check a recipe took over ${budgetMs} ms` };
  return deriveRecipe(data, answer, schema, grounding, question);
}

/** Longest the page is read again for a recipe's check, in ms. */
const RECIPE_READ_MS = 5_000;
/** Time left to the step after that read, in ms. */
const RECIPE_MARGIN_MS = 500;
/** Below this (ms), no read is tried. */
const MIN_RECIPE_READ_MS = 200;

/**
 * Derives a recipe for `answer` from page data and keeps it only when running it on the same data
 * gives `answer` exactly.
 * @param schema - the step's JSON Schema (strict: `$defs`/`$ref`, nullable as `anyOf`).
 * @param grounding - the answer's grounding (`StepReport.grounding`): a value that is a count, a
 *   sum or a judged yes/no gets no recipe.
 * @param question - the step's question: the row selections it names come first, and only it can
 *   name a `contains` phrase or a number to compare (`derive-selection.ts`). @default ""
 */
export function deriveRecipe(raw: PageData, answer: unknown, schema: Json, grounding: readonly GroundedValue[], question = ""): DerivedRecipe {
  const judged = grounding.find((g) => g.basis !== "quoted");
  if (judged) return { noRecipe: `the answer needs judgement: ${judged.path || "the answer"} is ${BASIS[judged.basis]}, not text the page writes in one place` };
  const data = normalizePage(raw);
  let recipe: ReadRecipe;
  try {
    const hints = new Map(grounding.map((g) => [g.path, g.quotes.map((q) => normalizeText(q.lineText))]));
    recipe = { parts: partsFor(data, answer, schema, schema, "", { hints, question }) };
  } catch (error) {
    if (error instanceof NoRecipe) return { noRecipe: error.message };
    throw error;
  }
  let again: unknown;
  try {
    again = runRecipe(data, recipe);
  } catch (error) {
    if (error instanceof RecipeStale) return { noRecipe: `the recipe derived does not run on the page it was derived from (${error.message})` };
    throw error;
  }
  if (!isDeepStrictEqual(again, answer)) return { noRecipe: `the recipe derived reads ${clip(JSON.stringify(again))} where the model answered ${clip(JSON.stringify(answer))}` };
  return { recipe };
}

const BASIS: Record<GroundedValue["basis"], string> = { quoted: "quoted", count: "a count of page items", sum: "a sum of page numbers", judged: "a yes/no judged from the page" };

/** What tells the derivation where a value was read: the page view's lines the model quoted for each value (by path), and the question. */
interface Hints {
  hints: ReadonlyMap<string, string[]>;
  question: string;
}

function partsFor(data: PageData, value: unknown, schema: Json, root: Json, path: string, hints: Hints): RecipePart[] {
  const s = resolve(schema, root);
  const type = typeOf(s);
  if (type === "object") {
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new NoRecipe(`${path || "the answer"} is not an object`);
    const props = (s.properties ?? {}) as Record<string, Json>;
    const parts: RecipePart[] = [];
    for (const [key, sub] of Object.entries(props)) {
      const at = `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      const inner = resolve(sub, root);
      const v = (value as Json)[key];
      if (typeOf(inner) === "object") parts.push(...partsFor(data, v, inner, root, at, hints));
      else parts.push(partFor(data, v, inner, root, at, key, hints));
    }
    return parts;
  }
  return [partFor(data, value, s, root, path, "value", hints)];
}

function partFor(data: PageData, value: unknown, schema: Json, root: Json, path: string, name: string, hints: Hints): RecipePart {
  const where = path || "the answer";
  if (value === null || value === undefined) throw new NoRecipe(`${where} is null: the page does not state it, and a recipe reads only what the page states`);
  const type = typeOf(schema);
  if (type === "array") {
    const items = resolve((schema.items ?? {}) as Json, root);
    if (!Array.isArray(value)) throw new NoRecipe(`${where} is not an array`);
    if (value.length === 0) throw new NoRecipe(`${where} is an empty list: nothing tells which table or list it is read from`);
    if (typeOf(items) === "object") return rowsPart(data, value, items, root, path, hints.question);
    const as = transformOf(items, `${where}/0`);
    return (
      columnPart(data, value, as, path, name, hints.question) ??
      listPart(data, value, as, path) ??
      splitLabelPart(data, value, as, path) ??
      refuse(`${where}: no table column or list on the page holds these ${value.length} values in this order, and no label holds them as one separated text`)
    );
  }
  const as = transformOf(schema, where);
  const lines = hints.hints.get(path) ?? [];
  return (
    labelPart(data, value, as, path, lines) ??
    cellPart(data, value, as, path, lines) ??
    elementPart(data, value, as, path) ??
    refuse(`${where}: no label, table cell, heading, alert, dialog or section on the page holds ${JSON.stringify(value)} alone`)
  );
}

function refuse(why: string): never {
  throw new NoRecipe(why);
}

/** How a value of this schema is read from page text; throws {@link NoRecipe} for what a recipe does not read (choices, booleans, objects in arrays of arrays). */
function transformOf(schema: Json, where: string): RecipeTransform {
  if (Array.isArray(schema.enum) || "const" in schema) throw new NoRecipe(`${where} is a choice among fixed values, which a recipe does not read yet`);
  const type = typeOf(schema);
  if (type === "string") return "text";
  if (type === "number" || type === "integer") return "number";
  throw new NoRecipe(`${where} is a ${type}, which a recipe does not read yet`);
}

/** Whether a page text reads as `value`. */
function reads(text: string | undefined, value: unknown, as: RecipeTransform): boolean {
  if (text === undefined) return false;
  return as === "text" ? normalizeText(text) === value : parseNumber(text) === value;
}

/** The texts between values that a `split` may use, tried in this order. */
const SEPARATORS = [",", ";", "|", "/", "·", "•"];

/** Whether a page text split at `separator` reads as the array `values` (each piece read `as`). */
function splitsAs(text: string | undefined, values: unknown, as: RecipeTransform, separator: string): boolean {
  if (text === undefined || !Array.isArray(values)) return false;
  const pieces = splitText(text, separator);
  return pieces.length === values.length && pieces.every((piece, i) => reads(piece, values[i], as));
}

/** The separator at which a page text reads as the array `values`; undefined when none does. */
function splitAt(text: string | undefined, values: unknown, as: RecipeTransform): string | undefined {
  return SEPARATORS.find((sep) => splitsAs(text, values, as, sep));
}

/** An array of scalars as the pieces of the one value beside a label (`Tags: a, b, c`). */
function splitLabelPart(data: PageData, values: unknown[], as: RecipeTransform, path: string): RecipePart | undefined {
  const found = data.pairs.filter((p) => p.key && splitAt(p.value, values, as) !== undefined);
  const keys = [...new Set(found.map((p) => labelKey(p.key)))];
  if (keys.length !== 1) {
    if (keys.length > 1) throw new NoRecipe(`${path || "the answer"}: these ${values.length} values stand beside several labels (${[...new Set(found.map((p) => JSON.stringify(p.key)))].join(", ")})`);
    return undefined;
  }
  const pair = found[0]!;
  return { path, label: pair.key, as, split: splitAt(pair.value, values, as)! };
}

/**
 * A scalar by the label beside it. Several labels holding the value are told apart by the line the
 * model quoted (the one naming the label); when that does not single one out, the value's place is
 * not known and {@link NoRecipe} says so.
 */
function labelPart(data: PageData, value: unknown, as: RecipeTransform, path: string, lines: string[]): RecipePart | undefined {
  const keys = [...new Set(data.pairs.filter((p) => p.key && reads(p.value, value, as)).map((p) => p.key))];
  const unique = keys.filter((k) => new Set(data.pairs.filter((p) => labelKey(p.key) === labelKey(k)).map((p) => p.value)).size === 1);
  const named = unique.filter((k) => lines.some((line) => line.toLowerCase().includes(labelKey(k))));
  // "Region" is inside "Backup region: …": the longer label the line names is the one it names.
  const quoted = named.filter((k) => !named.some((other) => other !== k && labelKey(other).includes(labelKey(k))));
  const chosen = unique.length === 1 ? unique : quoted;
  if (chosen.length === 1) return { path, label: chosen[0]!, as };
  if (unique.length > 1) throw new NoRecipe(`${path || "the answer"}: ${JSON.stringify(value)} stands beside several labels (${unique.map((k) => JSON.stringify(k)).join(", ")}) and the model's quote does not say which it read`);
  return undefined;
}

/**
 * A scalar in one table cell, its row named by the row's first cell. Several cells holding the
 * value are told apart by the line the model quoted (the row's); else {@link NoRecipe}.
 */
function cellPart(data: PageData, value: unknown, as: RecipeTransform, path: string, lines: string[]): RecipePart | undefined {
  const found: Array<{ table: Table; row: string[]; c: number }> = [];
  for (const table of data.tables) {
    const key = table.headers[0];
    if (!key || !uniqueHeaders(table)) continue;
    for (const row of table.rows) {
      for (let c = 1; c < row.length; c++) if (table.headers[c] && row[0] && reads(row[c], value, as)) found.push({ table, row, c });
    }
  }
  const quoted = found.filter(({ row }) => lines.some((line) => row.every((cell) => line.includes(normalizeText(cell)))));
  const chosen = found.length === 1 ? found : quoted;
  if (chosen.length !== 1) {
    if (found.length > 1) throw new NoRecipe(`${path || "the answer"}: ${JSON.stringify(value)} is in ${found.length} table cells and the model's quote does not say which it read`);
    return undefined;
  }
  const { table, row, c } = chosen[0]!;
  const key = table.headers[0]!;
  const where: RecipeCondition[] = [{ header: key, equals: row[0]! }];
  return { path, table: tableRef(data, table, [key, table.headers[c]!]), where, column: { header: table.headers[c]!, as }, single: true };
}

/**
 * A scalar as the whole text of one element (the one heading of its level, an alert, a status
 * message or an open dialog, by its name when it has one and it is unique) or of one heading's
 * section. Several such places: {@link NoRecipe}, the place is not known.
 */
function elementPart(data: PageData, value: unknown, as: RecipeTransform, path: string): RecipePart | undefined {
  const found: RecipePart[] = [];
  const levels = [...new Set(data.headings.filter((h) => reads(h.text, value, as)).map((h) => h.level))];
  for (const level of levels) if (elementsFor(data, { role: "heading", level }).length === 1) found.push({ path, element: { role: "heading", level }, as });
  for (const role of ["alert", "status", "dialog"] as const) {
    const all = elementsFor(data, { role });
    for (const e of all.filter((e) => reads(e.text, value, as))) {
      const named = e.name && all.filter((o) => labelKey(o.name) === labelKey(e.name)).length === 1;
      if (named) found.push({ path, element: { role, name: e.name }, as });
      else if (all.length === 1) found.push({ path, element: { role }, as });
    }
  }
  for (const s of (data.sections ?? []).filter((s) => s.heading && reads(s.text, value, as))) {
    if ((data.sections ?? []).filter((o) => labelKey(o.heading) === labelKey(s.heading)).length === 1) found.push({ path, section: s.heading, as });
  }
  if (found.length > 1) throw new NoRecipe(`${path || "the answer"}: ${JSON.stringify(value)} is the text of several elements (${found.map((p) => (p.element ? `${p.element.role}${p.element.name ? ` ${JSON.stringify(p.element.name)}` : ""}` : `the section ${JSON.stringify(p.section)}`)).join(", ")}), and nothing says which was read`);
  return found[0];
}

/** An array of objects as a table's rows (see the file comment). */
function rowsPart(data: PageData, items: unknown[], schema: Json, root: Json, path: string, question: string): RecipePart {
  // A property that is an array of texts or numbers is read from one cell holding them separated (`split`).
  const props = Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([key, sub]) => {
    const inner = resolve(sub, root);
    if (typeOf(inner) !== "array") return { key, as: transformOf(inner, `${path}/0/${key}`), many: false };
    return { key, as: transformOf(resolve((inner.items ?? {}) as Json, root), `${path}/0/${key}/0`), many: true };
  });
  const fits = (cell: string | undefined, value: unknown, as: RecipeTransform, many: boolean) => (many ? splitAt(cell, value, as) !== undefined : reads(cell, value, as));
  for (const [i, item] of items.entries()) {
    for (const { key } of props) if ((item as Json)?.[key] === null || (item as Json)?.[key] === undefined) throw new NoRecipe(`${path}/${i}/${key} is null: the page does not state it, and a recipe reads only what the page states`);
  }
  let why = "no table on the page has rows holding these items";
  for (const table of data.tables) {
    if (!uniqueHeaders(table)) continue;
    const rows = matchRows(table, items.length, (i, row) => props.every(({ key, as, many }) => row.some((cell) => fits(cell, (items[i] as Json)[key], as, many))));
    if (!rows) continue;
    const columns: NonNullable<RecipePart["columns"]> = {};
    let ok = true;
    for (const { key, as, many } of props) {
      // For a split property, the one separator every row's cell splits at.
      const separator = (c: number) => SEPARATORS.find((sep) => rows.every((r, i) => splitsAs(table.rows[r]![c], (items[i] as Json)[key], as, sep)));
      const fit = table.headers.map((_, c) => c).filter((c) => table.headers[c] && (many ? separator(c) !== undefined : rows.every((r, i) => reads(table.rows[r]![c], (items[i] as Json)[key], as))));
      if (fit.length === 0) {
        ok = false;
        why = `no one column of the table with the headers ${table.headers.map((h) => JSON.stringify(h)).join(", ")} holds ${key} of every item`;
        break;
      }
      const c = fit.sort((a, b) => similarity(table.headers[b]!, key) - similarity(table.headers[a]!, key))[0]!;
      columns[key] = { header: table.headers[c]!, as, ...(many ? { split: separator(c)! } : {}) };
    }
    if (!ok) continue;
    const where = selection(table, rows, Object.values(columns).map((c) => columnOf(table, c.header)), question);
    if (where === undefined) {
      why = NO_SELECTION;
      continue;
    }
    const used = [...new Set([...Object.values(columns).map((c) => c.header), ...where.map((w) => w.header)])];
    return { path, table: tableRef(data, table, used), ...(where.length ? { where } : {}), columns };
  }
  throw new NoRecipe(`${path || "the answer"}: ${why}`);
}

/** Why rows found in a table get no recipe when no condition selects them. */
const NO_SELECTION =
  "the rows the answer holds are not the rows where one column has one text (or one of a few texts), holds a phrase of the question, or is over or under a number of the question";

/** An array of scalars as one column of a table (all rows, or those selected). */
function columnPart(data: PageData, values: unknown[], as: RecipeTransform, path: string, name: string, question: string): RecipePart | undefined {
  for (const table of data.tables) {
    if (!uniqueHeaders(table)) continue;
    const fit = table.headers.map((_, c) => c).filter((c) => table.headers[c]).sort((a, b) => similarity(table.headers[b]!, name) - similarity(table.headers[a]!, name));
    for (const c of fit) {
      const rows = matchRows(table, values.length, (i, row) => reads(row[c], values[i], as));
      if (!rows) continue;
      const where = selection(table, rows, [c], question);
      if (where === undefined) continue;
      const used = [...new Set([table.headers[c]!, ...where.map((w) => w.header)])];
      return { path, table: tableRef(data, table, used), ...(where.length ? { where } : {}), column: { header: table.headers[c]!, as } };
    }
  }
  return undefined;
}

/** An array of scalars as every item of one list, in order. */
function listPart(data: PageData, values: unknown[], as: RecipeTransform, path: string): RecipePart | undefined {
  const group = data.groups.find((g) => g.items.length === values.length && g.items.every((item, i) => reads(item.text, values[i], as)));
  if (!group || listsFor(data, group.context).length !== 1) return undefined;
  return { path, list: { context: group.context }, as };
}

/** The rows (indices, increasing) that hold the answer's items in order, each the first fitting one after the last; undefined when some item has none. */
function matchRows(table: Table, count: number, fits: (item: number, row: string[]) => boolean): number[] | undefined {
  const rows: number[] = [];
  let next = 0;
  for (let i = 0; i < count; i++) {
    let r = next;
    while (r < table.rows.length && !fits(i, table.rows[r]!)) r++;
    if (r >= table.rows.length) return undefined;
    rows.push(r);
    next = r + 1;
  }
  return rows;
}

/** The recipe's name of a table: the headers it uses, and its caption only when those headers alone name several tables. */
function tableRef(data: PageData, table: Table, headers: string[]): NonNullable<RecipePart["table"]> {
  const ref = { headers };
  if (tablesFor(data, ref).length === 1) return ref;
  const caption = captionOf(table);
  if (!caption) throw new NoRecipe(`several tables have the headers ${headers.map((h) => JSON.stringify(h)).join(", ")} and this one has no caption or heading to tell it apart`);
  return { headers, caption };
}

function uniqueHeaders(table: Table): boolean {
  const keys = table.headers.filter(Boolean).map(labelKey);
  return keys.length > 0 && new Set(keys).size === keys.length;
}

/** A schema with its `$ref` (to `#/$defs/…` or `#`) resolved and its `null` variant left out. */
function resolve(schema: Json, root: Json): Json {
  let s = schema;
  for (let hops = 0; typeof s.$ref === "string" && hops < 10; hops++) {
    const ref = s.$ref as string;
    if (ref === "#") s = root;
    else {
      const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1];
      const defs = (root.$defs ?? root.definitions ?? {}) as Record<string, Json>;
      s = name && defs[name] ? defs[name]! : {};
    }
  }
  if (Array.isArray(s.anyOf)) {
    const variants = (s.anyOf as Json[]).filter((v) => v.type !== "null");
    if (variants.length === 1) return resolve(variants[0]!, root);
  }
  if (Array.isArray(s.type)) {
    const types = (s.type as string[]).filter((t) => t !== "null");
    if (types.length === 1) return { ...s, type: types[0] };
  }
  return s;
}

function typeOf(schema: Json): string {
  if (typeof schema.type === "string") return schema.type;
  if (schema.properties) return "object";
  if (schema.items) return "array";
  return "unknown";
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
